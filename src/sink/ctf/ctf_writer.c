/*
 * CTF writer (CTF 1.8 or CTF 2: the same data layout, only the metadata
 * and the CTF 2 field classes differ).
 *
 * Each input trace becomes a directory under the output directory, named
 * as babeltrace2's sink.ctf.fs names it (LTTng's session layout from the
 * trace environment, else the trace's name, else `trace`; `.`/`..`
 * components made `_`/`__`; `-N` added when it exists).  Its `metadata`
 * is generated from the model (plan_build.c, then tsdl_gen.c or
 * json_gen.c) when the trace is first seen;
 * each stream is one data file named after the input stream's file.
 *
 * Packets: by default one output packet per input packet (up to 4 MiB, so
 * that memory stays bounded whatever the input's packets), with the same
 * beginning and end times, so that what babeltrace2 derives from packets
 * (discarded events between consecutive packets' ends, discarded packets
 * from sequence-number gaps) comes out the same when the trace is read
 * back.  Discarded-events and discarded-packets messages feed the output's
 * events_discarded counter and packet_seq_num.  Events outside any packet
 * (trimmed packet beginnings, formats without packets) go to packets the
 * writer opens itself; --ctf-packet-size caps every packet (an input packet
 * is split, except the one that carries new discarded events: its end time
 * is what babeltrace2 shows as the end of the discarded range).
 *
 * Encoding (encode.c): each event is written straight into its stream's
 * packet buffer by walking the precomputed plan of its class (plan.h)
 * alongside its values; the buffer only grows, packets are written with
 * one write() when they close.  Nothing is allocated per event.
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

#include "model/field_class.h"
#include "sink/ctf/ctf_writer.h"
#include "sink/ctf/encode.h"
#include "sink/ctf/paths.h"
#include "sink/ctf/encode_plan.h"
#include "model/errors.h"

#define CTF_MAGIC UINT32_C(0xC1FC1FC1)

/*
 * An output trace.  A logical input trace may span several physical ones
 * (LTTng session rotation chunks, snapshots): each has its own classes, so
 * each gets its own plan; they describe the same layout, and the metadata
 * written is that of the plan with the most event classes.
 */
struct cw_trace {
	const struct tmx_trace *trace;
	enum cw_version version;
	size_t n_plans;
	struct cw_trace_plan **plans;
	size_t meta_events;            /* event classes in the metadata written */
	uint8_t uuid[16];
	bool big_endian;
	char *path;
	bool warned_discards;
};

struct cw_stream {
	const struct tmx_stream *stream;
	struct cw_trace *t;
	const struct cw_stream_plan *sp;
	const struct cw_event_plan *last_ep;   /* lookup cache */
	const struct cw_stream_plan *last_sp;  /* the stream plan of last_ep */
	char *path;
	char *file_name;
	int fd;
	bool ended;

	struct cw_buf b;          /* the open packet */

	/* The open packet. */
	bool open;
	bool explicit_packet;     /* opened by an input packet (not by an event) */
	bool has_begin;           /* known beginning time */
	uint64_t begin;
	bool has_end;             /* input packet's end time, once known */
	uint64_t end;
	/*
	 * The input packet's end time as its beginning tells it: the end of
	 * the last packet when the input stops (a damage) before its end.
	 */
	bool in_has_end;
	uint64_t in_end;
	uint64_t n_events;
	uint64_t first_ts, last_ts;
	bool has_last_ts;
	uint64_t discarded_at_open;
	size_t off_packet_size, off_content_size, off_ts_begin, off_ts_end;

	/*
	 * After a discard in the middle of an input packet (formats that
	 * report them between events), the rest of the packet continues in new
	 * packets: `cont` (the input packet goes on), the next packet's
	 * beginning, and the time at which the packet that carries the new
	 * count must end (the end of the discarded range, which is what
	 * babeltrace2 shows as its end).
	 */
	bool cont;
	bool has_next_begin, has_pending_end;
	uint64_t next_begin, pending_end;

	uint64_t discarded_total;      /* events discarded so far (the counter written) */
	uint64_t discarded_prev_packet;/* the counter of the previous packet */
	uint64_t seq;                  /* next packet_seq_num */
};

struct tmx_ctf_writer {
	struct tmx_ctf_writer_opts opts;
	char *dir;
	size_t n_traces;
	struct cw_trace **traces;
	size_t n_streams;
	struct cw_stream **streams;
	/* Open-addressing table: stream pointer -> index in `streams`. */
	size_t map_cap;
	size_t *map;                   /* SIZE_MAX: empty */
	struct cw_stream *last;        /* lookup cache */
};

/* ------------------------------------------------------------------ */
/* Packets                                                              */
/* ------------------------------------------------------------------ */

static int write_all(struct cw_stream *s, const uint8_t *p, size_t len, struct tmx_error *err)
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

static const struct cw_stream_plan *plan_of_context(const struct cw_trace *t,
						     const struct tmx_field_class *ctx_fc);

static int mismatch(struct cw_stream *s, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_DATA, s->path,
			     "CTF writer: an event's values do not match its class");
}

/*
 * Opens a packet: header, and the context with its sizes and end time
 * left to close_packet().  `ctx` is the input packet's context, if any.
 */
static int open_packet(struct cw_stream *s, bool explicit_packet, bool has_begin, uint64_t begin,
		       const struct tmx_value *ctx, struct tmx_error *err)
{
	const struct cw_stream_plan *sp;
	bool be = s->t->big_endian;
	uint32_t ctx_align = 8;
	int ret;

	/* The packet's own class (the input's physical trace may vary). */
	if (ctx) {
		const struct cw_stream_plan *own = plan_of_context(s->t, ctx[0].fc);
		if (own)
			s->sp = own;
	}
	sp = s->sp;
	s->b.pos = 0;
	s->open = true;
	s->explicit_packet = explicit_packet;
	s->has_begin = has_begin;
	s->begin = begin;
	s->has_end = false;
	s->n_events = 0;
	/*
	 * A reader counts the discarded events of a packet from the previous
	 * packet's counter, or from zero when that packet has none (a packet
	 * of another stream class in the same stream): the counter restarts.
	 */
	if (!sp->has_discarded)
		s->discarded_total = 0;
	s->discarded_at_open = s->discarded_total;
	ret = cw_buf_slots(&s->b, sp->n_slots, err);
	if (!ret)
		ret = cw_reserve(&s->b, 64 * 8, err);
	if (ret)
		return ret;
	cw_put_bits(&s->b, CTF_MAGIC, 32, be);
	memcpy(s->b.buf + 4, s->t->uuid, 16);
	s->b.pos += 128;
	cw_put_bits(&s->b, sp->sc->id, 64, be);
	/*
	 * The model's stream id.  babeltrace2 orders messages of equal times
	 * by stream id: for a CTF input that gives the input's order back.
	 */
	cw_put_bits(&s->b, s->stream->id, 64, be);

	if (sp->packet_context && sp->packet_context->align > ctx_align)
		ctx_align = sp->packet_context->align;
	cw_align(&s->b, ctx_align);
	ret = cw_reserve(&s->b, 6 * 64, err);
	if (ret)
		return ret;
	s->off_packet_size = (size_t)(s->b.pos / 8);
	cw_put_bits(&s->b, 0, 64, be);
	s->off_content_size = (size_t)(s->b.pos / 8);
	cw_put_bits(&s->b, 0, 64, be);
	if (sp->has_ts_begin) {
		s->off_ts_begin = (size_t)(s->b.pos / 8);
		cw_put_bits(&s->b, 0, 64, be);
	}
	if (sp->has_ts_end) {
		s->off_ts_end = (size_t)(s->b.pos / 8);
		cw_put_bits(&s->b, 0, 64, be);
	}
	if (sp->has_discarded)
		cw_put_bits(&s->b, s->discarded_total, 64, be);
	cw_put_bits(&s->b, s->seq++, 64, be);
	if (!sp->packet_context)
		return TMX_OK;
	if (ctx) {
		size_t i = 0;
		const struct cw_node *n = sp->packet_context;
		/* The members after the writer's own: the root struct, unaligned again. */
		if (ctx[0].fc->kind != TMX_FC_STRUCT || ctx[0].n_members != n->n_children)
			return mismatch(s, err);
		i = 1;
		for (size_t k = 0; k < n->n_children; k++) {
			if (n->children[k].skip) {
				i = tmx_value_skip(ctx, i);
				continue;
			}
			ret = cw_encode(&s->b, &n->children[k], ctx, &i, err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	}
	for (size_t k = 0; k < sp->packet_context->n_children; k++) {
		if (sp->packet_context->children[k].skip)
			continue;
		ret = cw_encode_zero(&s->b, &sp->packet_context->children[k], err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

static int close_packet(struct cw_stream *s, struct tmx_error *err)
{
	uint64_t bytes = (s->b.pos + 7) / 8;
	uint64_t begin, end;
	int ret;

	if (!s->open)
		return TMX_OK;
	/*
	 * Times: the input packet's when known; else the first and last event
	 * times; the end never before the last event nor the beginning.
	 */
	begin = s->has_begin ? s->begin : s->n_events ? s->first_ts : s->has_last_ts ? s->last_ts : 0;
	end = s->has_end ? s->end : s->n_events ? s->last_ts : begin;
	if (!s->has_end && end < begin)
		end = begin;
	cw_patch_u64(&s->b, s->off_packet_size, bytes * 8);
	cw_patch_u64(&s->b, s->off_content_size, s->b.pos);
	if (s->sp->has_ts_begin)
		cw_patch_u64(&s->b, s->off_ts_begin, begin);
	if (s->sp->has_ts_end)
		cw_patch_u64(&s->b, s->off_ts_end, end);
	s->open = false;
	s->discarded_prev_packet = s->discarded_at_open;
	ret = write_all(s, s->b.buf, (size_t)bytes, err);
	memset(s->b.buf, 0, (size_t)bytes);
	s->b.pos = 0;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Traces and streams                                                   */
/* ------------------------------------------------------------------ */

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

static void trace_free(struct cw_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_plans; i++) {
		cw_plan_free(t->plans[i]);
		free(t->plans[i]);
	}
	free(t->plans);
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
static int plan_for(struct cw_trace *t, const struct tmx_trace_class *tc,
		    struct cw_trace_plan **out, struct tmx_error *err)
{
	struct cw_trace_plan *p, **grown;
	int ret;

	for (size_t i = 0; i < t->n_plans; i++) {
		if (t->plans[i]->tc == tc) {
			*out = t->plans[i];
			return TMX_OK;
		}
	}
	p = calloc(1, sizeof(*p));
	grown = p ? realloc(t->plans, (t->n_plans + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(p);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	t->plans = grown;
	ret = cw_plan_build(p, tc, t->uuid, t->version, err);
	if (ret) {
		cw_plan_free(p);
		free(p);
		return ret;
	}
	t->plans[t->n_plans++] = p;
	/* Later chunks may know more event classes: the metadata follows. */
	if (t->path && count_events(p) > t->meta_events) {
		ret = write_metadata(t, p, err);
		if (ret)
			return ret;
	}
	*out = p;
	return TMX_OK;
}

static const struct cw_stream_plan *plan_of_context(const struct cw_trace *t,
						     const struct tmx_field_class *ctx_fc)
{
	for (size_t i = 0; i < t->n_plans; i++)
		for (size_t k = 0; k < t->plans[i]->n_streams; k++)
			if (t->plans[i]->streams[k].sc->packet_context == ctx_fc)
				return &t->plans[i]->streams[k];
	return NULL;
}

static int stream_plan_for(struct cw_trace *t, const struct tmx_stream_class *sc,
			   const struct cw_stream_plan **out, struct tmx_error *err)
{
	struct cw_trace_plan *p;
	int ret = plan_for(t, sc->trace_class, &p, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < p->n_streams; i++) {
		if (p->streams[i].sc == sc) {
			*out = &p->streams[i];
			return TMX_OK;
		}
	}
	return tmx_error_set(err, TMX_ERR_DATA, t->path,
			     "CTF writer: a stream class is not in its trace class");
}

static int find_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
		      struct cw_trace **out, struct tmx_error *err)
{
	const struct tmx_trace_class *tc = trace->cls;
	char full[PATH_MAX + 32];
	struct cw_trace *t, **grown;
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
	ret = plan_for(t, tc, &first, err);
	if (ret) {
		trace_free(t);
		return ret;
	}
	cw_trace_dir(trace, w->dir, full, sizeof(full));
	if (strlen(full) >= PATH_MAX - 16) {
		/* Cut by the buffer (or too long for the system anyway). */
		trace_free(t);
		return tmx_error_set(err, TMX_ERR_LIMIT, w->dir,
				     "CTF writer: the directory path of trace `%.64s` is too long",
				     trace->name ? trace->name : "");
	}
	t->path = strdup(full);
	if (!t->path) {
		trace_free(t);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	if (cw_mkdir_p(t->path)) {
		ret = tmx_error_set(err, TMX_ERR_IO, t->path, "cannot create the directory: %s",
				    strerror(errno));
		trace_free(t);
		return ret;
	}
	ret = write_metadata(t, first, err);
	grown = ret ? NULL : realloc(w->traces, (w->n_traces + 1) * sizeof(*grown));
	if (!grown) {
		trace_free(t);
		return ret ? ret : tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->traces = grown;
	w->traces[w->n_traces++] = t;
	*out = t;
	return TMX_OK;
}

static size_t hash_ptr(const void *p, size_t cap)
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
			size_t h = hash_ptr(w->streams[i]->stream, cap);
			while (m[h] != SIZE_MAX)
				h = (h + 1) & (cap - 1);
			m[h] = i;
		}
		free(w->map);
		w->map = m;
		w->map_cap = cap;
	}
	{
		size_t h = hash_ptr(w->streams[index]->stream, w->map_cap);
		while (w->map[h] != SIZE_MAX)
			h = (h + 1) & (w->map_cap - 1);
		w->map[h] = index;
	}
	return 0;
}

static struct cw_stream *map_find(const struct tmx_ctf_writer *w, const struct tmx_stream *st)
{
	if (!w->map_cap)
		return NULL;
	for (size_t h = hash_ptr(st, w->map_cap);; h = (h + 1) & (w->map_cap - 1)) {
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

static void stream_free(struct cw_stream *s)
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

static int find_stream(struct tmx_ctf_writer *w, const struct tmx_stream *st,
		       struct cw_stream **out, struct tmx_error *err)
{
	struct cw_stream *s, **grown;
	struct cw_trace *t;
	int ret;

	if (w->last && w->last->stream == st) {
		*out = w->last;
		return TMX_OK;
	}
	s = map_find(w, st);
	if (s) {
		*out = w->last = s;
		return TMX_OK;
	}
	ret = find_trace(w, st->trace, &t, err);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	s->fd = -1;
	s->stream = st;
	s->t = t;
	ret = stream_plan_for(t, st->cls, &s->sp, err);
	if (ret) {
		stream_free(s);
		return ret;
	}
	ret = stream_file_name(w, s, err);
	if (ret) {
		stream_free(s);
		return ret;
	}
	s->b.path = s->path;
	s->b.trace_be = t->big_endian;
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->fd < 0) {
		ret = tmx_error_set(err, TMX_ERR_IO, s->path, "cannot create: %s", strerror(errno));
		stream_free(s);
		return ret;
	}
	grown = realloc(w->streams, (w->n_streams + 1) * sizeof(*grown));
	if (!grown) {
		stream_free(s);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->streams = grown;
	w->streams[w->n_streams] = s;
	if (map_insert(w, w->n_streams)) {
		stream_free(s);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->n_streams++;
	*out = w->last = s;
	return TMX_OK;
}

static int end_at_pending(struct cw_stream *s, const struct tmx_value *pctx, struct tmx_error *err);

static int end_stream(struct cw_stream *s, struct tmx_error *err)
{
	int ret;

	/*
	 * A discard whose count no packet carries yet (the input ended, or
	 * stopped at a damage, before the next event): the packet that carries
	 * it ends where the discarded range does, as it would have.
	 */
	if (s->has_pending_end) {
		ret = end_at_pending(s, NULL, err);
		if (ret)
			return ret;
	}

	/*
	 * An input packet without its end message (the input stopped at a
	 * damage): it still ends when its context says, as babeltrace2 tells
	 * its discarded events up to there, and as its end message would.
	 */
	if (s->open && s->explicit_packet && s->in_has_end && !s->has_end) {
		s->has_end = true;
		s->end = s->in_end;
	}
	ret = close_packet(s, err);

	if (s->fd >= 0) {
		if (close(s->fd) && !ret)
			ret = tmx_error_set(err, TMX_ERR_IO, s->path, "cannot write: %s",
					    strerror(errno));
		s->fd = -1;
	}
	/* A stream that ended keeps no memory. */
	cw_buf_free(&s->b);
	s->ended = true;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static const struct cw_event_plan *event_plan(struct cw_stream *s, const struct tmx_event_class *ec,
					      const struct cw_stream_plan **spp, struct tmx_error *err)
{
	const struct cw_stream_plan *sp;
	size_t lo, hi;

	if (s->last_ep && s->last_ep->ec == ec) {
		*spp = s->last_sp;
		return s->last_ep;
	}
	if (ec->stream_class == s->sp->sc)
		sp = s->sp;
	else if (stream_plan_for(s->t, ec->stream_class, &sp, err))
		return NULL;
	*spp = s->last_sp = sp;
	if (ec->id < sp->n_by_id && sp->by_id[ec->id] && sp->by_id[ec->id]->ec == ec)
		return s->last_ep = sp->by_id[ec->id];
	lo = 0;
	hi = sp->n_events;
	/* Event classes are sorted by id (model.h). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->events[mid].ec->id < ec->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sp->n_events && sp->events[lo].ec == ec)
		return s->last_ep = &sp->events[lo];
	for (size_t i = 0; i < sp->n_events; i++)
		if (sp->events[i].ec == ec)
			return s->last_ep = &sp->events[i];
	return NULL;
}

static uint64_t packet_limit(const struct tmx_ctf_writer *w, const struct cw_stream *s)
{
	(void)s;
	return w->opts.packet_size ? w->opts.packet_size : TMX_CTF_DEFAULT_PACKET_SIZE;
}

/* Opens the packet after a discard or a split, or one for events outside packets. */
static int open_next(struct cw_stream *s, bool has_ts, uint64_t ts, const struct tmx_value *pctx,
		     struct tmx_error *err)
{
	bool cont = s->cont, has_begin = s->has_next_begin || has_ts;
	uint64_t begin = s->has_next_begin ? s->next_begin : ts;

	s->cont = s->has_next_begin = false;
	return open_packet(s, cont, has_begin, begin, pctx, err);
}

/*
 * Closes the packet that carries a new discarded count at the end of the
 * discarded range (opening it empty if needed); what follows goes on in a
 * new packet from that time.
 */
static int end_at_pending(struct cw_stream *s, const struct tmx_value *pctx, struct tmx_error *err)
{
	bool cont;
	int ret;

	if (!s->open) {
		ret = open_next(s, false, 0, pctx, err);
		if (ret)
			return ret;
	}
	cont = s->explicit_packet;
	s->has_end = !s->n_events || s->last_ts <= s->pending_end;
	s->end = s->pending_end;
	s->has_pending_end = false;
	ret = close_packet(s, err);
	s->cont = cont;
	s->has_next_begin = true;
	s->next_begin = s->pending_end;
	return ret;
}

/*
 * A discard reported while a packet is open: that packet ends at the
 * beginning of the discarded range, and the count (or the sequence-number
 * gap) goes with the next one.
 */
static int discard_in_packet(struct cw_stream *s, const struct tmx_msg *msg, bool events,
			     struct tmx_error *err)
{
	bool cont;
	int ret;

	if (s->has_pending_end) {   /* two discards in a row: the first range ends first */
		ret = end_at_pending(s, NULL, err);
		if (ret)
			return ret;
	}
	if (!s->open)
		return TMX_OK;
	cont = s->explicit_packet;
	if (msg->has_range && (!s->n_events || s->last_ts <= msg->begin_cycles)) {
		s->has_end = true;
		s->end = msg->begin_cycles;
	}
	ret = close_packet(s, err);
	s->cont = cont;
	if (msg->has_range) {
		s->has_next_begin = true;
		s->next_begin = events ? msg->begin_cycles : msg->end_cycles;
		s->has_pending_end = events;
		s->pending_end = msg->end_cycles;
	}
	return ret;
}

/*
 * A clock value whose time overflows (`has` false, cycles set: a huge value
 * or offset) is still the value to write, so that the trace read back says
 * the same; only no value at all (0 and `has` false) is unknown.
 */
static bool has_clock_value(bool has, uint64_t cycles)
{
	return has || cycles;
}

static int write_event(struct tmx_ctf_writer *w, struct cw_stream *s, const struct tmx_msg *msg,
		       struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct cw_stream_plan *sp = NULL;
	const struct cw_event_plan *ep;
	const struct tmx_value *pctx = e->packet ? e->packet->context : NULL;
	bool be = s->t->big_endian;
	uint64_t ts = has_clock_value(msg->has_ts, msg->cycles) ? msg->cycles :
		      s->has_last_ts ? s->last_ts : 0;
	size_t i;
	int ret;

	err->code = TMX_OK;
	ep = event_plan(s, e->cls, &sp, err);
	if (!ep && err->code)
		return err->code;
	if (!ep)
		return tmx_error_set(err, TMX_ERR_DATA, s->path,
				      "CTF writer: event class `%s` is not in its stream class",
				      e->cls->name ? e->cls->name : "");
	if (s->has_pending_end && ts > s->pending_end) {
		/* The packet with the new discarded count ends where the range does. */
		ret = end_at_pending(s, pctx, err);
		if (ret)
			return ret;
	}
	if (s->open && s->n_events && s->b.pos / 8 >= packet_limit(w, s) &&
	    !(s->discarded_at_open != s->discarded_prev_packet)) {
		/* Split: the rest of the input packet continues in a new one. */
		bool explicit_packet = s->explicit_packet;
		ret = close_packet(s, err);
		if (!ret)
			ret = open_packet(s, explicit_packet, true, ts, pctx, err);
		if (ret)
			return ret;
	}
	if (!s->open) {
		ret = open_next(s, msg->has_ts, ts, pctx, err);
		if (ret)
			return ret;
	}
	/* Header: 64-bit id and 64-bit timestamp, byte-aligned. */
	cw_align(&s->b, 8);
	ret = cw_buf_slots(&s->b, sp->n_slots, err);
	if (!ret)
		ret = cw_reserve(&s->b, 128, err);
	if (ret)
		return ret;
	cw_put_bits(&s->b, e->cls->id, 64, be);
	if (sp->clock)
		cw_put_bits(&s->b, ts, 64, be);
	if (sp->common_context) {
		if (!e->scopes[TMX_SCOPE_COMMON_CONTEXT])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, sp->common_context, e->scopes[TMX_SCOPE_COMMON_CONTEXT], &i, err);
		if (ret)
			return ret;
	}
	if (ep->specific_context) {
		if (!e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, ep->specific_context, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], &i, err);
		if (ret)
			return ret;
	}
	if (ep->payload) {
		if (!e->scopes[TMX_SCOPE_PAYLOAD])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, ep->payload, e->scopes[TMX_SCOPE_PAYLOAD], &i, err);
		if (ret)
			return ret;
	}
	if (!s->n_events++)
		s->first_ts = ts;
	s->last_ts = ts;
	s->has_last_ts = true;
	return TMX_OK;
}

int tmx_ctf_writer_consume(struct tmx_ctf_writer *w, const struct tmx_msg *msg,
			   struct tmx_error *err)
{
	struct cw_stream *s = NULL;
	int ret;

	ret = find_stream(w, msg->stream, &s, err);
	if (ret)
		return ret;
	if (s->ended)
		return msg->kind == TMX_MSG_STREAM_END ? TMX_OK :
			tmx_error_set(err, TMX_ERR_DATA, s->path,
				      "CTF writer: a message after the end of its stream");
	switch (msg->kind) {
	case TMX_MSG_STREAM_BEGIN:
		return TMX_OK;
	case TMX_MSG_PACKET_BEGIN:
		ret = close_packet(s, err);
		if (ret)
			return ret;
		s->cont = s->has_next_begin = s->has_pending_end = false;
		s->in_has_end = has_clock_value(msg->packet->has_end, msg->packet->end_cycles);
		s->in_end = msg->packet->end_cycles;
		return open_packet(s, true,
				   has_clock_value(msg->packet->has_begin, msg->packet->begin_cycles),
				   msg->packet->begin_cycles, msg->packet->context, err);
	case TMX_MSG_PACKET_END:
		if (s->has_pending_end) {
			ret = end_at_pending(s, msg->packet->context, err);
			if (ret)
				return ret;
		}
		if (!s->open && s->cont) {
			/* The input packet's end after a discard: an empty packet up to it. */
			ret = open_next(s, false, 0, msg->packet->context, err);
			if (ret)
				return ret;
		}
		s->cont = s->has_next_begin = s->in_has_end = false;
		if (!s->open)
			return TMX_OK;
		if (has_clock_value(msg->packet->has_end, msg->packet->end_cycles)) {
			s->has_end = true;
			s->end = msg->packet->end_cycles;
		}
		return close_packet(s, err);
	case TMX_MSG_EVENT:
		return write_event(w, s, msg, err);
	case TMX_MSG_DISCARDED_EVENTS:
		if (!s->sp->has_discarded && !s->t->warned_discards) {
			s->t->warned_discards = true;
			tmx_warn(w->opts.diag, "%s: discarded events cannot be recorded: the input's "
				 "packets have no discarded-events counter", s->t->path);
		}
		/* Between packets (CTF): the count goes with the next packet. */
		ret = discard_in_packet(s, msg, true, err);
		s->discarded_total += msg->count ? msg->count : 1;
		return ret;
	case TMX_MSG_DISCARDED_PACKETS:
		ret = discard_in_packet(s, msg, false, err);
		s->seq += msg->count ? msg->count : 1;
		return ret;
	case TMX_MSG_STREAM_END:
		return end_stream(s, err);
	}
	return TMX_OK;
}

int tmx_ctf_writer_add_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
			     struct tmx_error *err)
{
	struct cw_trace *t;

	return find_trace(w, trace, &t, err);
}

int tmx_ctf_writer_new(const struct tmx_ctf_writer_opts *opts, struct tmx_ctf_writer **out,
		       struct tmx_error *err)
{
	struct tmx_ctf_writer *w;
	size_t len;

	*out = NULL;
	if (!opts->dir || !opts->dir[0])
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "-o ctf needs an output directory (-w DIR)");
	w = calloc(1, sizeof(*w));
	if (!w || !(w->dir = strdup(opts->dir))) {
		free(w);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->opts = *opts;
	len = strlen(w->dir);
	while (len > 1 && w->dir[len - 1] == '/')
		w->dir[--len] = '\0';
	if (cw_mkdir_p(w->dir)) {
		int ret = tmx_error_set(err, TMX_ERR_IO, opts->dir, "cannot create the directory: %s",
					strerror(errno));
		free(w->dir);
		free(w);
		return ret;
	}
	*out = w;
	return TMX_OK;
}

int tmx_ctf_writer_finish(struct tmx_ctf_writer *w, struct tmx_error *err)
{
	int ret = TMX_OK;

	for (size_t i = 0; i < w->n_streams; i++) {
		struct cw_stream *s = w->streams[i];
		struct tmx_error e2;
		if (!s->ended && end_stream(s, ret ? &e2 : err) && !ret)
			ret = err->code;
	}
	return ret;
}

void tmx_ctf_writer_free(struct tmx_ctf_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_streams; i++)
		stream_free(w->streams[i]);
	for (size_t i = 0; i < w->n_traces; i++)
		trace_free(w->traces[i]);
	free(w->streams);
	free(w->traces);
	free(w->map);
	free(w->dir);
	free(w);
}
