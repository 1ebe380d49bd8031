/*
 * The CTF writer's traces, plans and stream files (cw_impl.h): a directory
 * and metadata per input trace, a plan per physical trace class (built by
 * whichever thread first needs it, used in message order: the metadata
 * follows the plans used), a data file per stream named after its input
 * file, in order of first message.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sink/ctf/cw_impl.h"
#include "common/paths.h"
#include "common/errors.h"
#include "common/grow.h"

int cw_write_all(struct cw_stream *s, const uint8_t *p, size_t len, struct tmx_error *err)
{
	while (len) {
		ssize_t w = write(s->fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return tmx_error_set(err, TMX_ERR_IO, s->path, "cannot write: %s",
					     strerror(errno));
		}
		p += w;
		len -= (size_t)w;
	}
	return TMX_OK;
}

static void random_uuid(uint8_t u[16])
{
	if (getrandom(u, 16, 0) != 16) {
		/* No entropy source: time and address, still unique enough per run. */
		struct timespec ts;
		uint64_t a, b = (uint64_t)(uintptr_t)u;
		clock_gettime(CLOCK_REALTIME, &ts);
		a = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		memcpy(u, &a, 8);
		memcpy(u + 8, &b, 8);
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);   /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
}

static int write_file(const char *path, const char *data, size_t len, struct tmx_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *p = data;

	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot create: %s", strerror(errno));
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return tmx_error_set(err, TMX_ERR_IO, path, "cannot write: %s", strerror(errno));
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd))
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot write: %s", strerror(errno));
	return TMX_OK;
}

void cw_trace_free(struct cw_trace *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	for (size_t i = 0; i < t->n_plans; i++) {
		cw_plan_free(t->plans[i]);
		free(t->plans[i]);
	}
	free(t->plans);
	free(t->used);
	free(t->path);
	free(t);
}

static size_t count_events(const struct cw_trace_plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_streams; i++)
		n += p->streams[i].n_events;
	return n;
}

static int write_metadata(struct cw_trace *t, const struct cw_trace_plan *p, struct tmx_error *err)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/metadata", t->path);
	t->meta_events = count_events(p);
	return write_file(path, p->metadata, p->metadata_len, err);
}

/* The plan of a physical trace class of `t`, built on first use. */
int cw_plan_get(struct cw_trace *t, const struct tmx_trace_class *tc,
		struct cw_trace_plan **out, struct tmx_error *err)
{
	struct cw_trace_plan *p;
	int ret = TMX_OK;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n_plans; i++) {
		if (t->plans[i]->tc == tc) {
			*out = t->plans[i];
			goto done;
		}
	}
	p = calloc(1, sizeof(*p));
	if (!p || !tmx_grow_array((void **)&t->plans, &t->cap_plans, t->n_plans + 1,
				  sizeof(*t->plans), 8)) {
		free(p);
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto done;
	}
	ret = cw_plan_build(p, tc, t->uuid, t->version, err);
	if (ret) {
		cw_plan_free(p);
		free(p);
		goto done;
	}
	t->plans[t->n_plans++] = p;
	*out = p;
done:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int cw_plan_use(struct cw_trace *t, struct cw_trace_plan *p, struct tmx_error *err)
{
	for (size_t i = 0; i < t->n_used; i++)
		if (t->used[i] == p)
			return TMX_OK;
	if (!tmx_grow_array((void **)&t->used, &t->cap_used, t->n_used + 1, sizeof(*t->used), 8))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	t->used[t->n_used++] = p;
	/* Later chunks may know more event classes: the metadata follows. */
	if (t->path && count_events(p) > t->meta_events)
		return write_metadata(t, p, err);
	return TMX_OK;
}

int cw_stream_plan_for(struct cw_stream *s, const struct tmx_stream_class *sc,
		       const struct cw_stream_plan **out, struct tmx_error *err)
{
	struct cw_trace_plan *p;
	int ret = cw_plan_get(s->t, sc->trace_class, &p, err);

	if (ret)
		return ret;
	if (s->journal)
		cw_journal_use(s, p);
	else if ((ret = cw_plan_use(s->t, p, err)))
		return ret;
	for (size_t i = 0; i < p->n_streams; i++) {
		if (p->streams[i].sc == sc) {
			bool known = false;

			for (size_t k = 0; k < s->n_plans; k++)
				known |= s->plans[k] == p;
			if (!known && s->n_plans < CW_STREAM_PLANS)
				s->plans[s->n_plans++] = p;
			*out = &p->streams[i];
			return TMX_OK;
		}
	}
	return tmx_error_set(err, TMX_ERR_DATA, s->t->path,
			     "CTF writer: a stream class is not in its trace class");
}

int cw_find_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
		      struct cw_trace **out, struct tmx_error *err)
{
	const struct tmx_trace_class *tc = trace->cls;
	char full[PATH_MAX + 32];
	struct cw_trace *t;
	struct cw_trace_plan *first;
	int ret;

	for (size_t i = 0; i < w->n_traces; i++) {
		if (w->traces[i]->trace == trace) {
			*out = w->traces[i];
			return TMX_OK;
		}
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	t->trace = trace;
	t->version = w->opts.ctf_version == TMX_CTF_VERSION_2 ? CW_CTF_2 : CW_CTF_1_8;
	if (tc->has_uuid)
		memcpy(t->uuid, tc->uuid, 16);
	else
		random_uuid(t->uuid);
	t->big_endian = tc->native_byte_order == TMX_BO_BE;
	pthread_mutex_init(&t->lock, NULL);
	ret = cw_plan_get(t, tc, &first, err);
	if (!ret)
		ret = cw_plan_use(t, first, err);
	if (ret) {
		cw_trace_free(t);
		return ret;
	}
	cw_trace_dir(trace, w->dir, full, sizeof(full));
	if (strlen(full) >= PATH_MAX - 16) {
		/* Cut by the buffer (or too long for the system anyway). */
		cw_trace_free(t);
		return tmx_error_set(err, TMX_ERR_LIMIT, w->dir,
				     "CTF writer: the directory path of trace `%.64s` is too long",
				     trace->name ? trace->name : "");
	}
	t->path = strdup(full);
	if (!t->path) {
		cw_trace_free(t);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	if (cw_mkdir_p(t->path)) {
		ret = tmx_error_set(err, TMX_ERR_IO, t->path, "cannot create the directory: %s",
				    strerror(errno));
		cw_trace_free(t);
		return ret;
	}
	ret = write_metadata(t, first, err);
	if (ret || !tmx_grow_array((void **)&w->traces, &w->cap_traces, w->n_traces + 1,
				   sizeof(*w->traces), 4)) {
		cw_trace_free(t);
		return ret ? ret : tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->traces[w->n_traces++] = t;
	*out = t;
	return TMX_OK;
}

size_t cw_hash_ptr(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static int map_insert(struct tmx_ctf_writer *w, size_t index)
{
	if ((w->n_streams + 1) * 2 > w->map_cap) {
		size_t cap = w->map_cap ? w->map_cap * 2 : 64;
		size_t *m = malloc(cap * sizeof(*m));
		if (!m)
			return -1;
		memset(m, 0xff, cap * sizeof(*m));
		for (size_t i = 0; i < w->n_streams; i++) {
			size_t h = cw_hash_ptr(w->streams[i]->stream, cap);
			while (m[h] != SIZE_MAX)
				h = (h + 1) & (cap - 1);
			m[h] = i;
		}
		free(w->map);
		w->map = m;
		w->map_cap = cap;
	}
	{
		size_t h = cw_hash_ptr(w->streams[index]->stream, w->map_cap);
		while (w->map[h] != SIZE_MAX)
			h = (h + 1) & (w->map_cap - 1);
		w->map[h] = index;
	}
	return 0;
}

struct cw_stream *cw_stream_find(const struct tmx_ctf_writer *w, const struct tmx_stream *st)
{
	if (!w->map_cap)
		return NULL;
	for (size_t h = cw_hash_ptr(st, w->map_cap);; h = (h + 1) & (w->map_cap - 1)) {
		if (w->map[h] == SIZE_MAX)
			return NULL;
		if (w->streams[w->map[h]]->stream == st)
			return w->streams[w->map[h]];
	}
}

/* The data file's name: the input file's base name, unique in the trace. */
static int stream_file_name(struct tmx_ctf_writer *w, struct cw_stream *s, struct tmx_error *err)
{
	const char *name = s->stream->name, *slash;
	char base[256], cand[300];
	bool taken;

	if (!name || !name[0])
		name = "stream";
	slash = strrchr(name, '/');
	if (slash && slash[1])
		name = slash + 1;
	snprintf(base, sizeof(base), "%s", name);
	for (char *c = base; *c; c++)
		if (*c == '/')
			*c = '_';
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		snprintf(base, sizeof(base), "stream");
	snprintf(cand, sizeof(cand), "%s", base);
	for (unsigned suffix = 0;; suffix++) {
		taken = !strcmp(cand, "metadata");
		for (size_t i = 0; i < w->n_streams && !taken; i++)
			taken = w->streams[i]->t == s->t && !strcmp(w->streams[i]->file_name, cand);
		if (!taken)
			break;
		snprintf(cand, sizeof(cand), "%s-%u", base, suffix);
	}
	s->file_name = strdup(cand);
	s->path = malloc(strlen(s->t->path) + strlen(cand) + 2);
	if (!s->file_name || !s->path)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	sprintf(s->path, "%s/%s", s->t->path, cand);
	return TMX_OK;
}

void cw_stream_free(struct cw_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	cw_buf_free(&s->b);
	free(s->path);
	free(s->file_name);
	free(s);
}

int cw_stream_new(struct tmx_ctf_writer *w, const struct tmx_stream *st, bool with_plan,
		  struct cw_stream **out, struct tmx_error *err)
{
	struct cw_stream *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	s->fd = -1;
	s->stream = st;
	ret = cw_find_trace(w, st->trace, &s->t, err);
	if (!ret && with_plan)
		ret = cw_stream_plan_for(s, st->cls, &s->st.sp, err);
	if (!ret)
		ret = cw_stream_add(w, s, err);
	if (ret) {
		cw_stream_free(s);
		return ret;
	}
	*out = s;
	return TMX_OK;
}

int cw_stream_add(struct tmx_ctf_writer *w, struct cw_stream *s, struct tmx_error *err)
{
	int ret = stream_file_name(w, s, err);

	if (ret)
		return ret;
	s->b.path = s->path;
	s->b.trace_be = s->t->big_endian;
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, s->path, "cannot create: %s", strerror(errno));
	if (!tmx_grow_array((void **)&w->streams, &w->cap_streams, w->n_streams + 1,
			    sizeof(*w->streams), 16))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	w->streams[w->n_streams] = s;
	if (map_insert(w, w->n_streams))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	w->n_streams++;
	w->last = s;
	return TMX_OK;
}
