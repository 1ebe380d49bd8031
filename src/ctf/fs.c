/*
 * The CTF file-system source, in the manner of babeltrace2's src.ctf.fs.
 *
 * Opening does all the checking: find the trace directories, parse each
 * metadata, map every data stream file and index its packets (headers and
 * contexts only).  Files that carry the same stream (same stream class and
 * stream instance ID, e.g. LTTng tracefile rotation) are read as one
 * stream; physical traces that share a UUID form one logical trace.  Then
 * each stream is a message iterator, which the source layer merges by time
 * (stream_iters).
 *
 * This file: trace discovery, logical traces, opening and the source
 * operations; the other parts are listed in fs_impl.h.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/progress_count.h"
#include "ctf/fs.h"
#include "ctf/fs_impl.h"
#include "model/clock.h"
#include "model/opts.h"

#define FS_MAX_DEPTH 32

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

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

/*
 * The working directory as glib's g_get_current_dir() gives it to
 * babeltrace2: $PWD when it names the current directory (the way the user
 * went there, through symbolic links), else getcwd()'s resolved path.
 */
static char *current_dir(void)
{
	const char *pwd = getenv("PWD");
	struct stat dot, st;

	if (pwd && pwd[0] == '/' && stat(".", &dot) == 0 && stat(pwd, &st) == 0 &&
	    dot.st_dev == st.st_dev && dot.st_ino == st.st_ino)
		return strdup(pwd);
	return getcwd(NULL, 0);
}

/*
 * An input path as babeltrace2 normalizes it (bt_common_normalize_path):
 * made absolute from the working directory, empty and "." components
 * dropped, ".." removing the previous component, all lexically: symbolic
 * links are kept as given, so stream paths print "$PWD/link/trace/stream"
 * and "link/../x" is "$PWD/x" whatever the link points to.  A ".." above
 * the root is refused (*above_root set), as babeltrace2 refuses it.
 * NULL with errno set when out of memory or without a working directory.
 */
static char *normalize_path(const char *path, bool *above_root)
{
	char *cwd = path[0] == '/' ? NULL : current_dir();
	size_t lc = cwd ? strlen(cwd) : 0, lp = strlen(path);
	char *in = malloc(lc + lp + 2), *out = malloc(lc + lp + 2);
	size_t n = 0;

	*above_root = false;
	if (!in || !out || (path[0] != '/' && !cwd)) {
		free(cwd);
		free(in);
		free(out);
		return NULL;
	}
	if (cwd)
		memcpy(in, cwd, lc);
	in[lc] = '/';
	memcpy(in + lc + 1, path, lp + 1);
	free(cwd);
	for (char *tok = in, *end; *tok; tok = end) {
		size_t len;
		while (*tok == '/')
			tok++;
		end = tok + strcspn(tok, "/");
		len = (size_t)(end - tok);
		if (len == 0 || (len == 1 && tok[0] == '.'))
			continue;
		if (len == 2 && tok[0] == '.' && tok[1] == '.') {
			if (n == 0)
				*above_root = true;
			while (n > 0 && out[--n] != '/')
				;
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, tok, len);
		n += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(in);
	return out;
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
			ret = ctf_fs_file_open(src, t, path, err);
		free(path);
	}
	free_names(names, n);
	return ret;
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
	/* The logical trace's classes are those its data is decoded with. */
	for (size_t i = 0; i < src->n_traces; i++)
		src->traces[i]->trace.cls = src->traces[i]->merged_tc;
	return TMX_OK;
}

static void fs_free(void *impl);

int ctf_fs_reader_open(const char *const *paths, size_t n_paths,
		       const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		       void **out, struct tmx_error *err)
{
	struct ctf_fs *src = calloc(1, sizeof(*src));
	int ret = TMX_OK;

	*out = NULL;
	if (!src)
		return nomem(err);
	if ((ret = tmx_opts_copy(&src->own_opts, sizeof(src->own_opts), opts, "tmx_ctf_fs_opts",
				 err))) {
		free(src);
		return ret;
	}
	src->opts = &src->own_opts;
	src->diag = diag;
	for (size_t i = 0; !ret && i < n_paths; i++) {
		bool above_root;
		struct stat st;
		char *root = normalize_path(paths[i], &above_root);
		size_t before = src->n_traces;

		if (!root) {
			ret = errno == ENOMEM ? nomem(err) :
			      tmx_error_set(err, TMX_ERR_IO, paths[i], "cannot open: no working "
					    "directory: %s", strerror(errno));
			break;
		}
		if (above_root) {
			ret = tmx_error_set(err, TMX_ERR_IO, paths[i], "cannot normalize the "
					    "path: `..` above the root directory");
		} else if (stat(root, &st) != 0) {
			/* The links as given: "link/../x" is "$PWD/x" (babeltrace2 too). */
			ret = tmx_error_set(err, TMX_ERR_IO, paths[i], "cannot open %s: %s",
					    root, strerror(errno));
		}
		if (ret) {
			free(root);
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
		ret = ctf_fs_make_streams(src, err);
	if (ret) {
		fs_free(src);
		return ret;
	}
	*out = src;
	return TMX_OK;
}

/*
 * Filters drop events per stream (the source's muxer too, before ordering
 * them); the decoders skip the events of classes that cannot pass.
 */
static void fs_set_filter(void *impl, const struct tmx_reader_filter *f)
{
	struct ctf_fs *fs = impl;

	fs->filter = f;
	for (size_t i = 0; i < fs->n_streams; i++)
		ctf_fs_stream_set_filter(fs->streams[i]);
}

static void fs_skip_fields(void *impl)
{
	struct ctf_fs *fs = impl;

	fs->skip_fields = true;
	for (size_t i = 0; i < fs->n_streams; i++)
		ctf_fs_stream_set_filter(fs->streams[i]);
}

static void fs_skip_fields_of(void *impl, bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			      const void *ctx)
{
	struct ctf_fs *fs = impl;

	fs->reads = reads;
	fs->reads_ctx = ctx;
	for (size_t i = 0; i < fs->n_streams; i++)
		ctf_fs_stream_set_filter(fs->streams[i]);
}

/*
 * Each stream reads only its own files and decoder; what streams share
 * (the source's lenient-mode counters, the out-of-range clock warnings) is
 * atomic or goes through tmx_warn: they may be read on worker threads.
 */
static void fs_stream_iters(void *impl, struct tmx_msg_iter **iters)
{
	const struct ctf_fs *fs = impl;

	for (size_t i = 0; i < fs->n_streams; i++)
		iters[i] = &fs->streams[i]->iter;
}

/* A stream's time range from its packet index: first packet begin, last packet end. */
static bool stream_range(const struct ctf_stream *s, int64_t *begin, int64_t *end)
{
	const struct ctf_packet_info *pb = entry_info(&s->plist[0]);
	const struct ctf_packet_info *pe = NULL;

	for (size_t i = s->n_plist; i-- > 0 && !pe;) {
		/* packet_ends_unread: a file's last packet is fixed, but not always the stream's last */
		ctf_fs_fix_end(s->plist[i].file, s->plist[i].pi);
		pe = entry_info(&s->plist[i]);
	}
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

static uint64_t fs_bytes_read(const void *impl)
{
	const struct ctf_fs *fs = impl;
	uint64_t sum = 0;

	for (size_t i = 0; i < fs->n_streams; i++)
		sum += tmx_count_get(&fs->streams[i]->bytes_read);
	return sum;
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
	for (size_t i = 0; i < src->n_streams; i++)
		ctf_fs_stream_destroy(src->streams[i]);
	free(src->streams);
	for (size_t i = 0; i < src->n_files; i++)
		ctf_fs_file_free(src->files[i]);
	free(src->files);
	for (size_t i = 0; i < src->n_traces; i++)
		trace_free(src->traces[i]);
	free(src->traces);
	free(src->out_of_range);
	free(src);
}

const struct tmx_source_ops ctf_fs_ops = {
	.format = "ctf",
	.free = fs_free,
	.stream_count = fs_stream_count,
	.stream_info = fs_stream_info,
	.bytes_read = fs_bytes_read,
	.logical_trace_count = fs_logical_trace_count,
	.logical_trace = fs_logical_trace,
	.skip_before = fs_skip_before,
	.skipped = fs_skipped,
	.trace_count = fs_trace_count,
	.trace_metadata = fs_trace_metadata,
	.trace_packetized = fs_trace_packetized,
	.set_filter = fs_set_filter,
	.skip_fields = fs_skip_fields,
	.skip_fields_of = fs_skip_fields_of,
	.stream_iters = fs_stream_iters,
};
