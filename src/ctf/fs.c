/*
 * The CTF file-system source, in the manner of babeltrace2's src.ctf.fs.
 *
 * Opening does all the checking: find the trace directories, parse each
 * metadata, map every data stream file and index its packets (headers and
 * contexts only).  Files that carry the same stream (same stream class and
 * stream instance ID, e.g. LTTng tracefile rotation) are read as one
 * stream; physical traces that share a UUID form one logical trace.  Then
 * each stream is a message iterator and the muxer merges them by time.
 */
#define _GNU_SOURCE   /* memmem */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf/decode.h"
#include "ctf/lttng_index.h"
#include "ctf/metadata.h"
#include "ctf/quirks.h"
#include "io/mapfile.h"
#include "model/field_class.h"
#include "model/msg_iter.h"
#include "model/source.h"
#include "mux/muxer.h"
#include "tracemux/tracemux.h"
#include "model/errors.h"

#define FS_MAX_DEPTH 32

struct ctf_trace {
	char *dir;
	char *root;                   /* the input path it was found under */
	struct ctf_metadata_text meta;
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_trace trace;       /* the logical trace's model instance */
	struct ctf_trace *logical;    /* first physical trace with the same UUID */
	/*
	 * In a logical trace's first physical trace: the trace class whose
	 * clocks its streams use, the one with the most stream and event
	 * classes (the first of those), as babeltrace2 keeps one metadata
	 * for merged traces.
	 */
	const struct tmx_trace_class *merged_tc;
	struct ctf_quirks quirks;
};

struct ctf_file {
	struct tmx_mapfile map;
	struct ctf_trace *trace;
	struct ctf_packet_info *packets;
	size_t n_packets;
	struct tmx_error *damage;     /* what stopped the index after n_packets, or NULL */
};

struct stream_packet {
	struct ctf_file *file;
	size_t pi;
	size_t file_rank;            /* the file's place in the stream, for ties */
};

enum stream_state {
	ST_BEGIN,
	ST_PACKET_START,
	ST_DISCARDED_PACKETS,
	ST_PACKET_BEGIN,
	ST_EVENTS,
	ST_DONE,
};

struct ctf_stream {
	struct tmx_msg_iter iter;     /* first: the muxer sees this */
	struct ctf_fs *src;
	struct tmx_stream stream;
	struct ctf_file **files;
	size_t n_files;
	const struct tmx_clock_class *clock;

	/*
	 * The stream's packets in reading order: its files merged by time, a
	 * packet found in several files (overlapping snapshots) kept once.  An
	 * entry with pi == file->n_packets stands for the file's damage.
	 */
	struct stream_packet *plist;
	size_t n_plist, next;

	enum stream_state state;
	struct ctf_file *dec_file;   /* the file the decoder reads, NULL if none */
	struct ctf_decoder dec;
	struct ctf_packet_info cur;
	struct ctf_packet_info prev;
	bool has_prev;
	uint64_t n_packets_read;
	bool skip_set;
	int64_t skip_before_ns;      /* packets that end before this are not read */

	struct tmx_packet packet;
	struct tmx_event event;
	struct tmx_msg msg;
};

struct ctf_fs {
	struct ctf_trace **traces;
	size_t n_traces;
	struct ctf_file **files;
	size_t n_files;
	struct ctf_stream **streams;
	size_t n_streams;
	struct tmx_muxer *mux;
	const struct tmx_ctf_fs_opts *opts;
	const struct tmx_diag *diag;
	uint64_t skipped_packets, skipped_bytes;   /* lenient mode */
	/* Clocks whose times left int64 nanoseconds from origin: warned about once. */
	const struct tmx_clock_class **out_of_range;
	size_t n_out_of_range;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

static int push_ptr(void ***array, size_t *n, void *p)
{
	void **a;

	if ((*n & (*n - 1)) == 0) {   /* grow at powers of two */
		a = realloc(*array, (*n ? *n * 2 : 1) * sizeof(*a));
		if (!a)
			return -1;
		*array = a;
	}
	(*array)[(*n)++] = p;
	return 0;
}

static char *path_join(const char *dir, const char *name)
{
	size_t ld = strlen(dir), ln = strlen(name);
	char *p = malloc(ld + ln + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, ld);
	p[ld] = '/';
	memcpy(p + ld + 1, name, ln + 1);
	return p;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory, without "." and "..". */
static int list_dir(const char *dir, char ***names, size_t *n, struct tmx_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*names = NULL;
	*n = 0;
	if (!d)
		return tmx_error_set(err, TMX_ERR_IO, dir, "cannot open directory: %s", strerror(errno));
	while ((de = readdir(d))) {
		char *name;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		name = strdup(de->d_name);
		if (!name || push_ptr((void ***)names, n, name)) {
			free(name);
			closedir(d);
			return nomem(err);
		}
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_str_ptr);
	return TMX_OK;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ------------------------------------------------------------------ */
/* Traces                                                               */
/* ------------------------------------------------------------------ */

static void trace_free(struct ctf_trace *t)
{
	if (!t)
		return;
	free(t->dir);
	free(t->root);
	free(t->trace.name);
	ctf_metadata_text_fini(&t->meta);
	tmx_arena_free(&t->arena);
	free(t);
}

/*
 * babeltrace2 names a trace after its `hostname` environment entry and
 * its directory relative to the input path ("myhost/kernel"); for a trace
 * given directly, the name the user gave (--trace-name) comes after the host.
 */
static char *trace_name(const struct tmx_trace_class *tc, const char *root, const char *dir,
			const char *given)
{
	const struct tmx_env_entry *host = tmx_trace_class_env(tc, "hostname");
	const char *h = host && !host->is_int ? host->str_value : "";
	size_t lr = strlen(root);
	const char *rel = "";
	char *name;

	if (strncmp(dir, root, lr) == 0 && dir[lr] == '/')
		rel = dir + lr + 1;
	else if (given)
		rel = given;    /* babeltrace2 uses it for a trace given directly only */
	name = malloc(strlen(h) + strlen(rel) + 2);
	if (!name)
		return NULL;
	strcpy(name, h);
	if (*rel) {
		if (*h)
			strcat(name, "/");
		strcat(name, rel);
	}
	return name;
}

/* babeltrace2's clock-class-offset-s/-ns options: shift every clock. */
static void apply_clock_offset(struct tmx_trace_class *tc, const struct tmx_ctf_fs_opts *o)
{
	for (size_t i = 0; i < tc->n_clocks; i++) {
		struct tmx_clock_class *cc = tc->clocks[i];
		/* In 128 bits: the user's seconds may be at the int64 limits. */
		__int128 s = (__int128)o->clock_offset_s + o->clock_offset_ns / 1000000000;
		int64_t ns = o->clock_offset_ns % 1000000000;

		if (ns < 0) {
			s--;
			ns += 1000000000;
		}
		if (o->force_origin_unix_epoch)
			cc->origin_is_unix_epoch = true;
		if (s == 0 && ns == 0)
			continue;
		tmx_clock_add_offset(cc, s > INT64_MAX ? INT64_MAX : s < INT64_MIN ? INT64_MIN : (int64_t)s, cc->frequency == 1000000000 ? (uint64_t)ns :
				     (uint64_t)((double)ns * (double)cc->frequency / 1e9));
	}
}

static int trace_open(struct ctf_fs *src, const char *root, const char *dir,
		      struct tmx_error *err)
{
	struct ctf_trace *t = calloc(1, sizeof(*t));
	char *meta_path = path_join(dir, "metadata");
	int ret;

	if (!t || !meta_path || !(t->dir = strdup(dir)) || !(t->root = strdup(root))) {
		free(meta_path);
		trace_free(t);
		return nomem(err);
	}
	tmx_arena_init(&t->arena);
	ret = ctf_metadata_read(meta_path, &t->meta, err);
	if (!ret)
		ret = ctf_metadata_parse(t->meta.text, t->meta.len, meta_path, src->diag,
					 &t->arena, &t->tc, err);
	free(meta_path);
	if (ret) {
		trace_free(t);
		return ret;
	}
	ctf_quirks_detect(t->tc, &t->quirks);
	apply_clock_offset(t->tc, src->opts);
	t->trace.cls = t->tc;
	t->trace.name = trace_name(t->tc, root, dir, src->opts->trace_name);
	if (!t->trace.name || push_ptr((void ***)&src->traces, &src->n_traces, t)) {
		trace_free(t);
		return nomem(err);
	}
	return TMX_OK;
}

/* Finds trace directories under `dir` (itself included), depth-first, sorted. */
static int find_traces(struct ctf_fs *src, const char *root, const char *dir, int depth,
		       struct tmx_error *err)
{
	char *meta = path_join(dir, "metadata");
	char **names;
	size_t n;
	int ret;

	if (!meta)
		return nomem(err);
	if (is_file(meta)) {
		free(meta);
		return trace_open(src, root, dir, err);
	}
	free(meta);
	if (depth >= FS_MAX_DEPTH)
		return TMX_OK;
	ret = list_dir(dir, &names, &n, err);
	for (size_t i = 0; !ret && i < n; i++) {
		char *sub = path_join(dir, names[i]);
		if (!sub)
			ret = nomem(err);
		else if (names[i][0] != '.' && is_dir(sub))
			ret = find_traces(src, root, sub, depth + 1, err);
		free(sub);
	}
	free_names(names, n);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Data stream files and their packet index                             */
/* ------------------------------------------------------------------ */

static void file_free(struct ctf_file *f)
{
	if (!f)
		return;
	tmx_mapfile_close(&f->map);
	free(f->packets);
	free(f->damage);
	free(f);
}

/* Reports a damaged packet in lenient mode and counts what is skipped. */
static void skip_damage(struct ctf_fs *src, const struct tmx_error *damage, uint64_t bytes)
{
	char msg[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(damage, msg, sizeof(msg));
	tmx_warn(src->diag, "%s; skipping %llu bytes to the next packet", msg,
		 (unsigned long long)bytes);
	src->skipped_packets++;
	src->skipped_bytes += bytes;
}

/*
 * The next offset after `off` where a packet header can start: the packet
 * magic (0xC1FC1FC1) in the trace's byte order.  The file size if none.
 */
static uint64_t next_magic(const struct ctf_file *f, uint64_t off)
{
	const struct tmx_trace_class *tc = f->trace->tc;
	static const uint8_t le[4] = { 0xC1, 0x1F, 0xFC, 0xC1 }, be[4] = { 0xC1, 0xFC, 0x1F, 0xC1 };
	const uint8_t *magic = tc->native_byte_order == TMX_BO_BE ? be : le;
	const uint8_t *p;

	if (!tc->packet_header || tc->packet_header->n_members == 0 ||
	    tc->packet_header->members[0].fc->meaning != TMX_MEANING_MAGIC || off + 1 >= f->map.size)
		return f->map.size;
	p = memmem(f->map.data + off + 1, f->map.size - off - 1, magic, 4);
	return p ? (uint64_t)(p - f->map.data) : f->map.size;
}

static int index_packets(struct ctf_fs *src, struct ctf_file *f, struct tmx_error *err)
{
	struct ctf_decoder dec;
	uint64_t off = 0;
	size_t cap = 0;
	int ret = ctf_decoder_init(&dec, f->trace->tc, f->map.path, f->map.data, f->map.size, err);

	dec.headers_only = true;
	while (!ret && off < f->map.size) {
		struct ctf_packet_info info;

		ret = ctf_decode_packet_start(&dec, off, &info, err);
		if (ret && ret != TMX_ERR_NOMEM && src->opts->lenient) {
			uint64_t next = next_magic(f, off);
			skip_damage(src, err, next - off);
			off = next;
			ret = TMX_OK;
			continue;
		}
		if (ret)
			break;
		if (f->n_packets == cap) {
			struct ctf_packet_info *p;
			cap = cap ? cap * 2 : 16;
			p = realloc(f->packets, cap * sizeof(*p));
			if (!p) {
				ret = nomem(err);
				break;
			}
			f->packets = p;
		}
		f->packets[f->n_packets++] = info;
		/*
		 * Reading a header maps pages around it (whole folios): drop
		 * them now, so that indexing a huge file stays small.
		 */
		tmx_mapfile_release(&f->map, off, info.packet_bits / 8);
		off += info.packet_bits / 8;
	}
	ctf_decoder_fini(&dec);
	tmx_mapfile_release(&f->map, 0, f->map.size);
	if (!ret)
		return TMX_OK;
	tmx_error_prefix(err, "cannot index CTF data stream file");
	if (f->n_packets == 0 || ret == TMX_ERR_NOMEM)
		return ret;
	/*
	 * A damaged packet after good ones: the good packets are still read and
	 * printed, and the error is reported when the stream reaches the damage.
	 */
	f->damage = malloc(sizeof(*f->damage));
	if (!f->damage)
		return nomem(err);
	*f->damage = *err;
	return TMX_OK;
}

/*
 * Decodes every event of packet `pi` for the times of its first and last
 * event.  Returns false if it has none or cannot be decoded.
 */
static bool packet_event_times(const struct ctf_file *f, size_t pi, uint64_t *first,
			       uint64_t *last)
{
	struct ctf_decoder dec;
	struct ctf_packet_info info;
	struct tmx_error err;
	bool any = false;

	if (ctf_decoder_init(&dec, f->trace->tc, f->map.path, f->map.data, f->map.size, &err))
		return false;
	if (!ctf_decode_packet_start(&dec, f->packets[pi].offset, &info, &err)) {
		for (;;) {
			const struct tmx_event_class *ec;
			size_t scopes[TMX_N_SCOPES];
			bool more;
			if (ctf_decode_event(&dec, &more, info.sc, &ec, scopes, &err) || !more)
				break;
			if (!any)
				*first = dec.event_clock;
			*last = dec.event_clock;
			any = true;
		}
	}
	ctf_decoder_fini(&dec);
	tmx_mapfile_release((struct tmx_mapfile *)&f->map, f->packets[pi].offset,
			    f->packets[pi].packet_bits / 8);
	return any;
}

/* Packet times that the tracer's quirks make wrong, fixed in the index (as babeltrace2). */
static void fix_index(struct ctf_file *f)
{
	const struct ctf_quirks *q = &f->trace->quirks;
	uint64_t first, last;

	for (size_t i = 0; i < f->n_packets; i++) {
		struct ctf_packet_info *pk = &f->packets[i];
		if (!(q->end_is_last_event && pk->has_ts_end) &&
		    !(q->begin_is_first_event && pk->has_ts_begin))
			break;
		if (!packet_event_times(f, i, &first, &last))
			continue;
		if (q->end_is_last_event && pk->has_ts_end)
			pk->ts_end = last;
		/* babeltrace2 leaves the first packet's beginning as it is. */
		if (q->begin_is_first_event && pk->has_ts_begin && i > 0)
			pk->ts_begin = first;
	}
	/* lttng-crash: the last packets, never closed, have timestamp_end 0. */
	for (size_t i = f->n_packets; q->zero_end_is_last_event && i-- > 0;) {
		struct ctf_packet_info *pk = &f->packets[i];
		if (!pk->has_ts_end || pk->ts_end != 0)
			break;
		if (packet_event_times(f, i, &first, &last))
			pk->ts_end = last;
	}
}

/*
 * LTTng writes `index/NAME.idx` next to each data file: when it is there and
 * agrees with the file, it replaces reading every packet header.  One that
 * contradicts the file is reported, and the file is read instead.
 */
static bool use_lttng_index(struct ctf_fs *src, struct ctf_file *f)
{
	const char *slash = strrchr(f->map.path, '/');
	struct tmx_error err;
	char *idx;
	bool used;

	if (!slash || asprintf(&idx, "%.*s/index/%s.idx", (int)(slash - f->map.path), f->map.path,
			       slash + 1) < 0)
		return false;
	if (access(idx, F_OK)) {
		free(idx);
		return false;
	}
	used = ctf_lttng_index_read(idx, f->trace->tc, f->map.size, &f->packets, &f->n_packets,
				    &err) == TMX_OK;
	if (!used) {
		char msg[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
		tmx_error_format(&err, msg, sizeof(msg));
		tmx_warn(src->diag, "%s; reading the packet headers of %s instead", msg, f->map.path);
	}
	free(idx);
	return used && f->n_packets > 0;
}

static int file_open(struct ctf_fs *src, struct ctf_trace *t, const char *path,
		     struct tmx_error *err)
{
	struct ctf_file *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return nomem(err);
	f->trace = t;
	ret = tmx_mapfile_open(&f->map, path, err);
	if (!ret && !use_lttng_index(src, f))
		ret = index_packets(src, f, err);
	if (!ret)
		fix_index(f);
	if (!ret && push_ptr((void ***)&src->files, &src->n_files, f))
		ret = nomem(err);
	if (ret)
		file_free(f);
	return ret;
}

/* Every regular file of the trace directory but `metadata` and dot files. */
static int open_trace_files(struct ctf_fs *src, struct ctf_trace *t, struct tmx_error *err)
{
	char **names;
	size_t n;
	int ret = list_dir(t->dir, &names, &n, err);

	for (size_t i = 0; !ret && i < n; i++) {
		char *path;
		if (names[i][0] == '.' || !strcmp(names[i], "metadata"))
			continue;
		path = path_join(t->dir, names[i]);
		if (!path)
			ret = nomem(err);
		else if (is_file(path))
			ret = file_open(src, t, path, err);
		free(path);
	}
	free_names(names, n);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Streams                                                              */
/* ------------------------------------------------------------------ */

static bool same_stream(const struct ctf_file *a, const struct ctf_file *b)
{
	const struct ctf_packet_info *pa = &a->packets[0], *pb = &b->packets[0];

	return a->trace->logical == b->trace->logical && pa->sc->id == pb->sc->id &&
	       pa->has_stream_instance_id && pb->has_stream_instance_id &&
	       pa->stream_instance_id == pb->stream_instance_id;
}

static int cmp_file_time(const void *a, const void *b)
{
	const struct ctf_file *fa = *(struct ctf_file *const *)a;
	const struct ctf_file *fb = *(struct ctf_file *const *)b;
	const struct ctf_packet_info *pa = &fa->packets[0], *pb = &fb->packets[0];

	if (pa->has_ts_begin && pb->has_ts_begin && pa->ts_begin != pb->ts_begin)
		return pa->ts_begin < pb->ts_begin ? -1 : 1;
	return strcmp(fa->map.path, fb->map.path);
}

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		       struct tmx_error *err);
static void stream_destroy(struct tmx_msg_iter *it);

/* The default clock of the stream class `sc` in the logical trace's metadata. */
static const struct tmx_clock_class *merged_clock(const struct tmx_trace_class *tc,
						  const struct tmx_stream_class *sc)
{
	for (size_t i = 0; tc && i < tc->n_stream_classes; i++)
		if (tc->stream_classes[i]->id == sc->id)
			return tc->stream_classes[i]->default_clock;
	return sc->default_clock;
}

static int stream_new(struct ctf_fs *src, struct ctf_file *first, uint64_t auto_id,
		      struct tmx_error *err)
{
	struct ctf_stream *s = calloc(1, sizeof(*s));
	const struct ctf_packet_info *p0 = &first->packets[0];

	if (!s || push_ptr((void ***)&s->files, &s->n_files, first) ||
	    push_ptr((void ***)&src->streams, &src->n_streams, s)) {
		if (s)
			free(s->files);
		free(s);
		return nomem(err);
	}
	s->iter.next = stream_next;
	s->iter.destroy = stream_destroy;
	s->src = src;
	s->stream.cls = p0->sc;
	s->stream.trace = &first->trace->logical->trace;
	s->stream.id = p0->has_stream_instance_id ? p0->stream_instance_id : auto_id;
	s->stream.name = first->map.path;
	s->clock = merged_clock(first->trace->logical->merged_tc, p0->sc);
	return TMX_OK;
}

static bool all_timed(const struct ctf_stream *s)
{
	for (size_t f = 0; f < s->n_files; f++)
		for (size_t i = 0; i < s->files[f]->n_packets; i++)
			if (!s->files[f]->packets[i].has_ts_begin)
				return false;
	return true;
}

static const struct ctf_packet_info *entry_info(const struct stream_packet *e)
{
	return e->pi < e->file->n_packets ? &e->file->packets[e->pi] : NULL;
}

/* A damage entry sorts right after its file's last packet. */
static uint64_t entry_time(const struct stream_packet *e)
{
	const struct ctf_file *f = e->file;
	return f->packets[e->pi < f->n_packets ? e->pi : f->n_packets - 1].ts_begin;
}

static int cmp_entry_time(const void *a, const void *b)
{
	const struct stream_packet *x = a, *y = b;
	uint64_t tx = entry_time(x), ty = entry_time(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->file_rank != y->file_rank)
		return x->file_rank < y->file_rank ? -1 : 1;
	return x->pi < y->pi ? -1 : x->pi > y->pi;
}

/* The same packet in two files (overlapping LTTng snapshots). */
static bool same_packet(const struct stream_packet *x, const struct stream_packet *y)
{
	const struct ctf_packet_info *a = entry_info(x), *b = entry_info(y);

	return a && b && x->file != y->file && a->ts_begin == b->ts_begin &&
	       a->ts_end == b->ts_end && a->packet_bits == b->packet_bits &&
	       a->content_bits == b->content_bits && a->has_seq_num == b->has_seq_num &&
	       a->seq_num == b->seq_num && a->events_discarded == b->events_discarded;
}

/*
 * The reading order: files one after the other, or -- when every packet
 * has a beginning time -- all packets merged by time, which also takes
 * snapshots that overlap apart.  Duplicated packets are kept once.
 */
static int build_packet_list(struct ctf_stream *s)
{
	size_t n = 0;

	for (size_t f = 0; f < s->n_files; f++)
		n += s->files[f]->n_packets + (s->files[f]->damage != NULL);
	s->plist = calloc(n ? n : 1, sizeof(*s->plist));
	if (!s->plist)
		return -1;
	for (size_t f = 0; f < s->n_files; f++) {
		struct ctf_file *file = s->files[f];
		size_t end = file->n_packets + (file->damage != NULL);
		for (size_t i = 0; i < end; i++) {
			struct stream_packet *e = &s->plist[s->n_plist++];
			e->file = file;
			e->pi = i;
			e->file_rank = f;
		}
	}
	if (s->n_files > 1 && all_timed(s)) {
		size_t kept = 0;
		qsort(s->plist, s->n_plist, sizeof(*s->plist), cmp_entry_time);
		for (size_t i = 0; i < s->n_plist; i++) {
			bool dup = false;
			for (size_t j = kept; j-- > 0 && entry_time(&s->plist[j]) ==
						       entry_time(&s->plist[i]) && !dup;)
				dup = same_packet(&s->plist[j], &s->plist[i]);
			if (!dup)
				s->plist[kept++] = s->plist[i];
		}
		s->n_plist = kept;
	}
	return 0;
}

/* Groups the files of the same stream, ordered by time. */
static int make_streams(struct ctf_fs *src, struct tmx_error *err)
{
	uint64_t auto_id = 0;

	for (size_t i = 0; i < src->n_files; i++) {
		struct ctf_file *f = src->files[i];
		struct ctf_stream *group = NULL;

		if (f->n_packets == 0)
			continue;    /* an empty file carries no stream */
		for (size_t s = 0; s < src->n_streams && !group; s++)
			if (same_stream(src->streams[s]->files[0], f))
				group = src->streams[s];
		if (group) {
			if (push_ptr((void ***)&group->files, &group->n_files, f))
				return nomem(err);
			continue;
		}
		if (stream_new(src, f, auto_id++, err))
			return err->code;
	}
	for (size_t s = 0; s < src->n_streams; s++) {
		struct ctf_stream *st = src->streams[s];
		qsort(st->files, st->n_files, sizeof(*st->files), cmp_file_time);
		st->stream.name = st->files[0]->map.path;
		if (build_packet_list(st))
			return nomem(err);
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Stream iteration: babeltrace2's message sequence                     */
/* ------------------------------------------------------------------ */

/*
 * A time on the stream's clock is beyond int64 nanoseconds from origin (a
 * huge offset_s, say): the messages go on without it, which babeltrace2
 * refuses to do (it rejects the trace), so say why, once per clock.
 */
static __attribute__((cold)) void time_out_of_range(const struct ctf_stream *s, uint64_t cycles)
{
	struct ctf_fs *src = s->src;
	const struct tmx_clock_class *cc = s->clock;

	for (size_t i = 0; i < src->n_out_of_range; i++)
		if (src->out_of_range[i] == cc)
			return;
	/* Without memory to remember it, the warning may come again: harmless. */
	(void)push_ptr((void ***)&src->out_of_range, &src->n_out_of_range, (void *)cc);
	tmx_warn(src->diag,
		 "%s: clock `%s` (freq = %llu, offset_s = %lld, offset = %llu): %llu cycles "
		 "cannot be converted to nanoseconds from origin (beyond int64): the times on "
		 "this clock are left out",
		 s->files[0]->trace->dir, cc->name, (unsigned long long)cc->frequency,
		 (long long)cc->offset_s, (unsigned long long)cc->offset_cycles,
		 (unsigned long long)cycles);
}

static void set_time(const struct ctf_stream *s, uint64_t cycles, bool *has, uint64_t *cyc,
		     int64_t *ns)
{
	*has = s->clock != NULL && tmx_clock_ns_from_origin(s->clock, cycles, ns);
	*cyc = cycles;
	if (__builtin_expect(!*has && s->clock, 0))
		time_out_of_range(s, cycles);
}

static struct tmx_msg *make_msg(struct ctf_stream *s, enum tmx_msg_kind kind)
{
	struct tmx_msg *m = &s->msg;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->stream = &s->stream;
	m->packet = &s->packet;
	return m;
}

static void close_decoder(struct ctf_stream *s)
{
	if (s->dec_file) {
		ctf_decoder_fini(&s->dec);
		s->dec_file = NULL;
	}
}

static int open_packet(struct ctf_stream *s, struct tmx_error *err)
{
	const struct stream_packet *e = &s->plist[s->next];
	struct ctf_file *f = e->file;
	int ret;

	if (s->dec_file != f) {
		close_decoder(s);
		ret = ctf_decoder_init(&s->dec, f->trace->tc, f->map.path, f->map.data,
				       f->map.size, err);
		if (ret)
			return ret;
		s->dec_file = f;
		tmx_mapfile_advise_sequential(&f->map);
	}
	ret = ctf_decode_packet_start(&s->dec, f->packets[e->pi].offset, &s->cur, err);
	if (ret)
		return ret;
	/* The index has the times with the tracer quirks fixed. */
	s->cur.ts_begin = f->packets[e->pi].ts_begin;
	s->cur.ts_end = f->packets[e->pi].ts_end;
	return TMX_OK;
}

static void fill_packet(struct ctf_stream *s)
{
	struct tmx_packet *p = &s->packet;

	p->stream = &s->stream;
	p->context = s->cur.sc->packet_context ? s->dec.packet_context.v : NULL;
	p->offset = s->cur.offset;
	p->seq = s->n_packets_read++;
	set_time(s, s->cur.ts_begin, &p->has_begin, &p->begin_cycles, &p->begin_ns);
	p->has_begin = p->has_begin && s->cur.has_ts_begin;
	set_time(s, s->cur.ts_end, &p->has_end, &p->end_cycles, &p->end_ns);
	p->has_end = p->has_end && s->cur.has_ts_end;
}

/* Discarded events: the counter's growth since the previous packet. */
static const struct tmx_msg *discarded_events(struct ctf_stream *s)
{
	const struct ctf_packet_info *c = &s->cur, *p = &s->prev;
	uint64_t count;
	struct tmx_msg *m;

	if (!c->has_discarded)
		return NULL;
	count = s->has_prev && p->has_discarded ? c->events_discarded - p->events_discarded :
						  c->events_discarded;
	if (count == 0)
		return NULL;
	m = make_msg(s, TMX_MSG_DISCARDED_EVENTS);
	m->count = count;
	if (c->has_ts_begin && c->has_ts_end) {
		uint64_t begin = s->has_prev ? p->ts_end : c->ts_begin;
		set_time(s, begin, &m->has_range, &m->begin_cycles, &m->begin_ns);
		set_time(s, c->ts_end, &m->has_range, &m->end_cycles, &m->end_ns);
		m->has_ts = m->has_range;
		m->cycles = m->begin_cycles;
		m->ns = m->begin_ns;
	}
	return m;
}

/* Discarded packets: a gap in packet_seq_num. */
static const struct tmx_msg *discarded_packets(struct ctf_stream *s)
{
	const struct ctf_packet_info *c = &s->cur, *p = &s->prev;
	struct tmx_msg *m;

	if (!s->has_prev || !c->has_seq_num || !p->has_seq_num || c->seq_num <= p->seq_num + 1)
		return NULL;
	m = make_msg(s, TMX_MSG_DISCARDED_PACKETS);
	m->count = c->seq_num - p->seq_num - 1;
	if (c->has_ts_begin && p->has_ts_end) {
		set_time(s, p->ts_end, &m->has_range, &m->begin_cycles, &m->begin_ns);
		set_time(s, c->ts_begin, &m->has_range, &m->end_cycles, &m->end_ns);
		m->has_ts = m->has_range;
		m->cycles = m->begin_cycles;
		m->ns = m->begin_ns;
	}
	return m;
}

static void advance_packet(struct ctf_stream *s)
{
	struct ctf_file *f = s->plist[s->next].file;

	/* Done with this packet: its pages need not stay resident. */
	tmx_mapfile_release(&f->map, s->cur.offset, s->cur.packet_bits / 8);
	s->prev = s->cur;
	s->has_prev = true;
	s->next++;
}

static const struct tmx_msg *event_msg(struct ctf_stream *s, const struct tmx_event_class *ec,
				       const size_t scope_index[TMX_N_SCOPES])
{
	struct tmx_msg *m = make_msg(s, TMX_MSG_EVENT);
	struct tmx_event *e = &s->event;

	e->cls = ec;
	e->packet = &s->packet;
	e->scopes[TMX_SCOPE_PACKET_CONTEXT] = s->packet.context;
	for (int i = TMX_SCOPE_COMMON_CONTEXT; i < TMX_N_SCOPES; i++)
		e->scopes[i] = scope_index[i] == SIZE_MAX ? NULL : &s->dec.event.v[scope_index[i]];
	m->event = e;
	set_time(s, s->dec.event_clock, &m->has_ts, &m->cycles, &m->ns);
	return m;
}

static bool packet_before_skip(const struct ctf_stream *s)
{
	const struct ctf_packet_info *pk = entry_info(&s->plist[s->next]);
	int64_t end_ns;

	return pk && s->skip_set && s->clock && pk->has_ts_end &&
	       tmx_clock_ns_from_origin(s->clock, pk->ts_end, &end_ns) && end_ns < s->skip_before_ns;
}

/*
 * Lenient mode: the rest of a packet that fails to decode is skipped (what
 * was decoded of it has been emitted) and reading goes on with the next
 * packet.  Returns false when not lenient.
 */
static bool lenient_skip(struct ctf_stream *s, const struct tmx_error *err)
{
	const struct stream_packet *e = &s->plist[s->next];
	const struct ctf_packet_info *pk = entry_info(e);

	if (!s->src->opts->lenient || err->code == TMX_ERR_NOMEM)
		return false;
	skip_damage(s->src, err, pk ? pk->packet_bits / 8 : 0);
	s->next++;
	s->state = ST_PACKET_START;
	return true;
}

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		       struct tmx_error *err)
{
	struct ctf_stream *s = (struct ctf_stream *)it;
	const struct tmx_event_class *ec;
	size_t scope_index[TMX_N_SCOPES];
	bool more;
	int ret;

again:
	*msg = NULL;
	switch (s->state) {
	case ST_BEGIN:
		s->state = ST_PACKET_START;
		*msg = make_msg(s, TMX_MSG_STREAM_BEGIN);
		return TMX_OK;
	case ST_PACKET_START:
		/* Packets trimmed away: known from the index, not decoded at all. */
		while (s->next < s->n_plist && packet_before_skip(s)) {
			s->cur = *entry_info(&s->plist[s->next]);
			advance_packet(s);
		}
		if (s->next >= s->n_plist) {
			s->state = ST_DONE;
			close_decoder(s);
			*msg = make_msg(s, TMX_MSG_STREAM_END);
			return TMX_OK;
		}
		if (!entry_info(&s->plist[s->next])) {
			/* The damaged packet found while indexing. */
			s->state = ST_DONE;
			*err = *s->plist[s->next].file->damage;
			return err->code;
		}

		ret = open_packet(s, err);
		if (ret) {
			if (lenient_skip(s, err))
				goto again;
			s->state = ST_DONE;
			return ret;
		}
		fill_packet(s);
		s->state = ST_DISCARDED_PACKETS;
		if ((*msg = discarded_events(s)))
			return TMX_OK;
		/* fall through */
	case ST_DISCARDED_PACKETS:
		s->state = ST_PACKET_BEGIN;
		if ((*msg = discarded_packets(s)))
			return TMX_OK;
		/* fall through */
	case ST_PACKET_BEGIN: {
		struct tmx_msg *m = make_msg(s, TMX_MSG_PACKET_BEGIN);
		s->state = ST_EVENTS;
		m->has_ts = s->packet.has_begin;
		m->cycles = s->packet.begin_cycles;
		m->ns = s->packet.begin_ns;
		*msg = m;
		return TMX_OK;
	}
	case ST_EVENTS:
		ret = ctf_decode_event(&s->dec, &more, s->cur.sc, &ec, scope_index, err);
		if (ret) {
			if (lenient_skip(s, err))
				goto again;
			s->state = ST_DONE;
			return ret;
		}
		if (more) {
			*msg = event_msg(s, ec, scope_index);
			return TMX_OK;
		} else {
			struct tmx_msg *m = make_msg(s, TMX_MSG_PACKET_END);
			m->has_ts = s->packet.has_end;
			m->cycles = s->packet.end_cycles;
			m->ns = s->packet.end_ns;
			*msg = m;
			advance_packet(s);
			s->state = ST_PACKET_START;
			return TMX_OK;
		}
	case ST_DONE:
		return TMX_OK;
	}
	return TMX_OK;
}

static void stream_destroy(struct tmx_msg_iter *it)
{
	struct ctf_stream *s = (struct ctf_stream *)it;

	close_decoder(s);
	free(s->plist);
	free(s->files);
	free(s);
}

/* ------------------------------------------------------------------ */
/* The source                                                           */
/* ------------------------------------------------------------------ */

/* Physical traces with the same UUID form one logical trace. */
/*
 * A logical trace made of several directories (session rotation chunks,
 * snapshots) is named, as babeltrace2 does, after its host alone (or its
 * host and --trace-name), whatever directories it spans.
 */
static int name_logical_trace(struct ctf_fs *src, struct ctf_trace *leader)
{
	char *name = trace_name(leader->tc, leader->root, leader->root, src->opts->trace_name);

	if (!name)
		return TMX_ERR_NOMEM;
	free(leader->trace.name);
	leader->trace.name = name;
	return TMX_OK;
}

static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * babeltrace 2.1 merges CTF 2 traces whose trace classes have the same
 * namespace, name and UID (name and UID given), CTF 1.8 ones with the same
 * UUID.
 */
static bool same_logical_trace(const struct tmx_trace_class *a, const struct tmx_trace_class *b)
{
	if (a->major != b->major)
		return false;
	if (a->major == 2)
		return a->name && a->uid && same_string(a->ns, b->ns) && same_string(a->name, b->name) &&
		       same_string(a->uid, b->uid);
	return a->has_uuid && b->has_uuid && !memcmp(a->uuid, b->uuid, 16);
}

static size_t class_count(const struct tmx_trace_class *tc)
{
	size_t n = tc->n_stream_classes;

	for (size_t i = 0; i < tc->n_stream_classes; i++)
		n += tc->stream_classes[i]->n_event_classes;
	return n;
}

static int group_logical_traces(struct ctf_fs *src, struct tmx_error *err)
{
	for (size_t i = 0; i < src->n_traces; i++) {
		struct ctf_trace *t = src->traces[i];
		t->logical = t;
		t->merged_tc = t->tc;
		for (size_t j = 0; j < i; j++) {
			struct ctf_trace *o = src->traces[j];
			if (same_logical_trace(o->tc, t->tc)) {
				t->logical = o->logical;
				if (class_count(t->tc) > class_count(t->logical->merged_tc))
					t->logical->merged_tc = t->tc;
				if (name_logical_trace(src, t->logical))
					return nomem(err);
				break;
			}
		}
	}
	return TMX_OK;
}

static const struct tmx_source_ops ctf_fs_ops;
static void fs_free(void *impl);

int tmx_ctf_fs_open(const char *const *paths, size_t n_paths,
		    const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		    struct tmx_source **out, struct tmx_error *err)
{
	static const struct tmx_ctf_fs_opts no_opts;
	struct ctf_fs *src = calloc(1, sizeof(*src));
	int ret = TMX_OK;

	*out = NULL;
	if (!src)
		return nomem(err);
	src->opts = opts ? opts : &no_opts;
	src->diag = diag;
	for (size_t i = 0; !ret && i < n_paths; i++) {
		char *root = realpath(paths[i], NULL);
		size_t before = src->n_traces;

		if (!root) {
			ret = tmx_error_set(err, TMX_ERR_IO, paths[i], "cannot open: %s",
					    strerror(errno));
			break;
		}
		ret = find_traces(src, root, root, 0, err);
		if (!ret && src->n_traces == before)
			ret = tmx_error_set(err, TMX_ERR_IO, paths[i],
					    "no CTF trace found (no `metadata` file in this "
					    "directory or below)");
		free(root);
	}
	if (!ret)
		ret = group_logical_traces(src, err);
	for (size_t i = 0; !ret && !src->opts->metadata_only && i < src->n_traces; i++)
		ret = open_trace_files(src, src->traces[i], err);
	if (!ret)
		ret = make_streams(src, err);
	if (!ret) {
		struct tmx_msg_iter **iters = malloc((src->n_streams ? src->n_streams : 1) *
						     sizeof(*iters));
		if (!iters) {
			ret = nomem(err);
		} else {
			for (size_t i = 0; i < src->n_streams; i++)
				iters[i] = &src->streams[i]->iter;
			ret = tmx_muxer_new(iters, src->n_streams, &src->mux, err);
			free(iters);
			/*
			 * The muxer owns the streams now (and destroyed them if
			 * it failed); src->streams only borrows them.
			 */
			if (ret)
				src->n_streams = 0;
		}
	}
	if (ret) {
		fs_free(src);
		return ret;
	}
	return tmx_source_new(&ctf_fs_ops, src, out, err);
}

static int fs_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct ctf_fs *fs = impl;

	return tmx_muxer_next(fs->mux, msg, err);
}

/* A stream's time range from its packet index: first packet begin, last packet end. */
static bool stream_range(const struct ctf_stream *s, int64_t *begin, int64_t *end)
{
	const struct ctf_packet_info *pb = entry_info(&s->plist[0]);
	const struct ctf_packet_info *pe = NULL;

	for (size_t i = s->n_plist; i-- > 0 && !pe;)
		pe = entry_info(&s->plist[i]);
	return s->clock && pb && pe && pb->has_ts_begin && pe->has_ts_end &&
	       tmx_clock_ns_from_origin(s->clock, pb->ts_begin, begin) &&
	       tmx_clock_ns_from_origin(s->clock, pe->ts_end, end);
}

static size_t fs_logical_trace_count(const void *impl)
{
	const struct ctf_fs *fs = impl;
	size_t n = 0;

	for (size_t i = 0; i < fs->n_traces; i++)
		n += fs->traces[i]->logical == fs->traces[i];
	return n;
}

static const struct tmx_trace *fs_logical_trace(const void *impl, size_t index)
{
	const struct ctf_fs *fs = impl;

	for (size_t i = 0; i < fs->n_traces; i++)
		if (fs->traces[i]->logical == fs->traces[i] && index-- == 0)
			return &fs->traces[i]->trace;
	return NULL;
}

static void fs_skip_before(void *impl, int64_t ns)
{
	struct ctf_fs *fs = impl;

	for (size_t i = 0; i < fs->n_streams; i++) {
		fs->streams[i]->skip_set = true;
		fs->streams[i]->skip_before_ns = ns;
	}
}

static void fs_skipped(const void *impl, uint64_t *packets, uint64_t *bytes)
{
	const struct ctf_fs *fs = impl;

	*packets = fs->skipped_packets;
	*bytes = fs->skipped_bytes;
}

static size_t fs_stream_count(const void *impl)
{
	return ((const struct ctf_fs *)impl)->n_streams;
}

static void fs_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	const struct ctf_stream *s = ((const struct ctf_fs *)impl)->streams[i];

	info->stream = &s->stream;
	info->has_instance_id = s->files[0]->packets[0].has_stream_instance_id;
	info->has_range = stream_range(s, &info->begin_ns, &info->end_ns);
	info->n_packets = 0;
	info->bytes = 0;
	for (size_t p = 0; p < s->n_plist; p++) {
		const struct ctf_packet_info *pk = entry_info(&s->plist[p]);
		if (pk) {
			info->n_packets++;
			info->bytes += pk->packet_bits / 8;
		}
	}
	info->n_files = s->n_files;
}

static bool fs_trace_packetized(const void *impl, size_t i)
{
	const struct ctf_fs *fs = impl;

	return i < fs->n_traces && fs->traces[i]->meta.packetized;
}

static size_t fs_trace_count(const void *impl)
{
	return ((const struct ctf_fs *)impl)->n_traces;
}

static const char *fs_trace_metadata(const void *impl, size_t i)
{
	const struct ctf_fs *fs = impl;

	return i < fs->n_traces ? fs->traces[i]->meta.text : NULL;
}

static void fs_free(void *impl)
{
	struct ctf_fs *src = impl;

	if (!src)
		return;
	if (src->mux)
		tmx_muxer_free(src->mux);
	else
		for (size_t i = 0; i < src->n_streams; i++)
			stream_destroy(&src->streams[i]->iter);
	free(src->streams);
	for (size_t i = 0; i < src->n_files; i++)
		file_free(src->files[i]);
	free(src->files);
	for (size_t i = 0; i < src->n_traces; i++)
		trace_free(src->traces[i]);
	free(src->traces);
	free(src->out_of_range);
	free(src);
}

static const struct tmx_source_ops ctf_fs_ops = {
	.format = "ctf",
	.next = fs_next,
	.free = fs_free,
	.stream_count = fs_stream_count,
	.stream_info = fs_stream_info,
	.logical_trace_count = fs_logical_trace_count,
	.logical_trace = fs_logical_trace,
	.skip_before = fs_skip_before,
	.skipped = fs_skipped,
	.trace_count = fs_trace_count,
	.trace_metadata = fs_trace_metadata,
	.trace_packetized = fs_trace_packetized,
};
