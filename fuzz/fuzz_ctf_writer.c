#define _GNU_SOURCE   /* memmem, nftw */
/*
 * libFuzzer harness: a differential test of the CTF writer.
 *
 * The input is the one of fuzz_ctf_trace (TSDL text or CTF 2 JSON
 * metadata, a line "--DATA--", then one data stream), so its seeds work
 * here.  It becomes a CTF trace directory (in a private temporary
 * directory, on tmpfs when there is one), which tracemux's CTF reader
 * reads; every message goes to the CTF writer (src/sink/ctf/), and the
 * trace written is read back with the same reader.  Each input is written
 * twice: as CTF 1.8 (the CTF 2 field classes translated: the input's form
 * is made what the translation must read back as, see canon_ctf2_kind())
 * and as CTF 2 (every class kept).  An input without the separator is a file for tmx_open() (a
 * trace-cmd trace.dat or an LLVM XRay log): other models for the writer,
 * with names that are not TSDL identifiers, text arrays, other clocks.
 * Both message sequences are reduced to a canonical form (event names,
 * timestamps, every field value of every scope, discarded event and
 * packet counts and ranges) that must be equal, else abort().
 *
 * Debugging a finding: TMX_FUZZ_VERBOSE=1 prints both forms and the
 * metadata written, TMX_FUZZ_TRACE=1 every message given to the writer.
 *
 * Canonical form: what the writer must keep, nothing it may change.  Names
 * are compared as the writer must write them (characters a TSDL
 * identifier cannot hold become `_`, readers remove TSDL's leading `_`);
 * the length and tag fields the writer generates before a sequence or a
 * variant (`_NAME_len`, `_NAME_tag` read back) are left out on both sides;
 * variant options are compared by index (their names may be generated);
 * packet context members with a meaning (packet_size, timestamps,
 * counters...) are left out (the writer writes its own); each stream is
 * compared apart (equal times of different streams may change order); an
 * unknown discarded count is 1, and a discarded range that a non-CTF input
 * did not have may appear (CTF derives it from the packets' times); a time
 * that overflows int64 nanoseconds compares by its clock value only.
 *
 * The writer must also never write outside its output directory: while it
 * runs, mkdir() and open() for writing are checked (this file interposes
 * them, forwarding to the system calls) and any path elsewhere aborts.
 * A descriptor still open after a run aborts too.
 *
 * The packet size limit of the writer is small for inputs of odd size (so
 * that packets are split), the default for the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/utf8.h"
#include "model/field_class.h"
#include "sink/ctf/ctf_writer.h"
#include "tracemux/tracemux.h"

#define SEPARATOR "\n--DATA--\n"
#define SMALL_PACKET 128

/* ------------------------------------------------------------------ */
/* The sandbox and the write guard                                      */
/* ------------------------------------------------------------------ */

static char sandbox[256];       /* private temporary directory */
static char in_dir[300], out_dir[300], in_file[320];
static bool guard_on;           /* the writer is running: check every write */

static void cleanup_sandbox(void);

/* A finding: the sandbox goes (abort() skips atexit), libFuzzer saves the input. */
__attribute__((noreturn)) static void fail(void)
{
	guard_on = false;
	cleanup_sandbox();
	abort();
}

static void setup_sandbox(void)
{
	const char *bases[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };

	if (sandbox[0])
		return;
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (!bases[i])
			continue;
		snprintf(sandbox, sizeof(sandbox), "%s/tmx-fuzz-ctf-writer-XXXXXX", bases[i]);
		if (mkdtemp(sandbox))
			break;
		sandbox[0] = '\0';
	}
	if (!sandbox[0]) {
		perror("fuzz_ctf_writer: mkdtemp");
		fail();
	}
	snprintf(in_dir, sizeof(in_dir), "%s/in", sandbox);
	snprintf(out_dir, sizeof(out_dir), "%s/out", sandbox);
	atexit(cleanup_sandbox);
}

static bool has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

/* Under the output directory (itself excluded), without any `..` component. */
static bool inside_out_dir(const char *path)
{
	size_t n = strlen(out_dir);

	return !strncmp(path, out_dir, n) && path[n] == '/' && path[n + 1] && !has_dotdot(path);
}

/* The output directory or one of its ancestors (mkdir -p walks them). */
static bool out_dir_or_ancestor(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return !strncmp(out_dir, path, n) && (out_dir[n] == '\0' || out_dir[n] == '/') &&
	       !has_dotdot(path);
}

static void escaped(const char *what, const char *path)
{
	fprintf(stderr, "fuzz_ctf_writer: the CTF writer %s outside its output directory: %s\n",
		what, path);
	fail();
}

/*
 * Interposed: the executable's definitions win over the C library's for
 * every call made from the library code linked in.
 */
int mkdir(const char *path, mode_t mode)
{
	if (guard_on && !inside_out_dir(path) && !out_dir_or_ancestor(path))
		escaped("creates a directory", path);
	return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (guard_on && (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) && !inside_out_dir(path))
		escaped("writes a file", path);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup_sandbox(void)
{
	if (sandbox[0])
		remove_tree(sandbox);
}

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len)) {
		perror(path);
		fail();
	}
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Canonical form of a message sequence                                 */
/* ------------------------------------------------------------------ */

struct canon {
	uint8_t *buf;
	size_t len, cap;
	uint64_t n_msgs;
	/* The input's form, as the CTF 1.8 output must read back (see canon_value()). */
	bool as_ctf18;
	/*
	 * Input only: whether each discarded-events/packets message had a
	 * time range; `next` walks them while the output is reduced.
	 */
	bool *ranges;
	size_t n_ranges, next;
};

static void put(struct canon *c, const void *p, size_t n)
{
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		while (cap < c->len + n + 1)
			cap *= 2;
		c->buf = realloc(c->buf, cap);
		if (!c->buf)
			fail();
		c->cap = cap;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	c->buf[c->len] = '\0';
}

__attribute__((format(printf, 2, 3))) static void putf(struct canon *c, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(c, tmp, n < 0 ? 0 : (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Bytes as a quoted C-like literal: readable in a report, exact. */
static void put_bytes(struct canon *c, const void *p, uint64_t n)
{
	const uint8_t *b = p;

	put(c, "\"", 1);
	for (uint64_t i = 0; i < n; i++) {
		if (b[i] >= 32 && b[i] < 127 && b[i] != '"' && b[i] != '\\')
			put(c, &b[i], 1);
		else
			putf(c, "\\x%02x", b[i]);
	}
	put(c, "\"", 1);
}

/* The version being written (TMX_CTF_VERSION_1_8 or _2). */
static int written_version;

/*
 * A name (event class, member, label) as the metadata written can hold
 * it: CTF 2's is UTF-8 JSON, so a byte that is not UTF-8 becomes the code
 * point of its value (sink/json_string.h's policy: U+0080..U+00FF, two
 * bytes of UTF-8).  Returns a malloc'ed copy.
 */
static char *name_as_written(const char *name)
{
	size_t n = strlen(name), k = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		fail();
	for (size_t i = 0; i < n;) {
		size_t len = tmx_utf8_seq_len((const unsigned char *)name + i, n - i);
		if (written_version == TMX_CTF_VERSION_2 && !len) {
			unsigned char c = (unsigned char)name[i++];

			out[k++] = (char)(0xC0 | c >> 6);
			out[k++] = (char)(0x80 | (c & 0x3F));
			continue;
		}
		len = len ? len : 1;
		memcpy(out + k, name + i, len);
		k += len;
		i += len;
	}
	out[k] = '\0';
	return out;
}

static void put_label(struct canon *c, const char *label)
{
	char *s = name_as_written(label);

	put_bytes(c, s, strlen(s));
	free(s);
}

/* A member name as the writer must keep it: non-identifier characters are `_`. */
static void put_name(struct canon *c, const char *raw)
{
	char *name = name_as_written(raw);

	for (const char *p = name; *p; p++) {
		char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
			  (ch >= '0' && ch <= '9');
		put(c, ok ? &ch : "_", 1);
	}
	free(name);
}

/*
 * `_NAME_len` before a dynamic field NAME (sequence, BLOB, string),
 * `_NAME_tag` before a variant or optional NAME: generated by the writer.
 */
static bool generated_member(const struct tmx_field_class *st, size_t k)
{
	const struct tmx_member *m = &st->members[k], *next;
	size_t nl;

	if (k + 1 >= st->n_members ||
	    (m->fc->kind != TMX_FC_INT && m->fc->kind != TMX_FC_ENUM && m->fc->kind != TMX_FC_BOOL))
		return false;
	next = &st->members[k + 1];
	nl = strlen(next->name);
	if (m->name[0] != '_' || strlen(m->name) != nl + 5 || strncmp(m->name + 1, next->name, nl))
		return false;
	switch (next->fc->kind) {
	case TMX_FC_SEQUENCE:
	case TMX_FC_BLOB:
	case TMX_FC_STRING:
		return !strcmp(m->name + 1 + nl, "_len");
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		return !strcmp(m->name + 1 + nl, "_tag");
	default:
		return false;
	}
}

static void canon_value(struct canon *c, const struct tmx_value *v, size_t *i, bool top_packet_ctx,
			unsigned depth);

static void canon_struct(struct canon *c, const struct tmx_value *v, size_t *i, bool top_packet_ctx,
			 unsigned depth)
{
	const struct tmx_field_class *fc = v[*i].fc;

	if (v[*i].n_members != fc->n_members) {
		fprintf(stderr, "fuzz_ctf_writer: a structure value with %u members for %zu\n",
			v[*i].n_members, fc->n_members);
		fail();
	}
	put(c, "{", 1);
	(*i)++;
	for (size_t k = 0; k < fc->n_members; k++) {
		if (generated_member(fc, k) ||
		    (top_packet_ctx && fc->members[k].fc->meaning != TMX_MEANING_NONE)) {
			*i = tmx_value_skip(v, *i);
			continue;
		}
		put_name(c, fc->members[k].name);
		put(c, "=", 1);
		canon_value(c, v, i, false, depth + 1);
		put(c, " ", 1);
	}
	put(c, "}", 1);
}

/*
 * Text (strings of any kind, text arrays and sequences) as a reader shows
 * it: up to the first NUL.  Only a CTF 1.8 text sequence keeps all its
 * bytes both ways (CTF 2 writes it as a dynamic-length string).
 */
static void canon_text(struct canon *c, const struct tmx_value *val)
{
	const struct tmx_field_class *fc = val->fc;

	if (fc->kind == TMX_FC_SEQUENCE && written_version != TMX_CTF_VERSION_2) {
		put(c, "textseq", 7);
		put_bytes(c, val->str.ptr, val->str.len);
		return;
	}
	put(c, "text", 4);
	put_bytes(c, val->str.ptr, tmx_value_text_len(val));
}

static void canon_int(struct canon *c, const struct tmx_value *val)
{
	const struct tmx_field_class *fc = val->fc;

	putf(c, "%s%u%c:", fc->kind == TMX_FC_INT ? "i" : "enum", fc->size, fc->is_signed ? 's' : 'u');
	if (fc->is_signed)
		putf(c, "%lld", (long long)val->s);
	else
		putf(c, "%llu", (unsigned long long)val->u);
	if (fc->kind == TMX_FC_ENUM) {
		/* The labels of the value: the mappings must survive too. */
		for (size_t m = 0; m < fc->n_mappings; m++) {
			const struct tmx_enum_mapping *map = &fc->mappings[m];
			for (size_t r = 0; r < map->n_ranges; r++) {
				bool in = fc->is_signed ?
					val->s >= (int64_t)map->ranges[r].lower &&
					val->s <= (int64_t)map->ranges[r].upper :
					val->u >= map->ranges[r].lower && val->u <= map->ranges[r].upper;
				if (in) {
					put(c, "/", 1);
					put_label(c, map->label);
					break;
				}
			}
		}
	}
}

/*
 * The CTF 2 kinds.  Written as CTF 1.8 (c->as_ctf18, the input's side),
 * they read back as what the writer translates them to: a boolean or a
 * bit array as an unsigned integer of its size, a BLOB as an array or a
 * sequence of 8-bit unsigned integers, an optional as a variant of an
 * empty structure (option 0) and its field (option 1).
 */
static void canon_ctf2_kind(struct canon *c, const struct tmx_value *v, size_t *i, unsigned depth)
{
	const struct tmx_value *val = &v[*i];
	const struct tmx_field_class *fc = val->fc;

	switch (fc->kind) {
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		if (c->as_ctf18) {
			putf(c, "i%uu:%llu", fc->size, (unsigned long long)val->u);
		} else {
			putf(c, "%s%u:%llu", fc->kind == TMX_FC_BOOL ? "bool" : "bits", fc->size,
			     (unsigned long long)val->u);
			for (size_t m = 0; fc->kind == TMX_FC_BIT_ARRAY && m < fc->n_mappings; m++) {
				if (val->u & tmx_bit_map_flag_mask(&fc->mappings[m])) {
					put(c, "/", 1);
					put_label(c, fc->mappings[m].label);
				}
			}
		}
		(*i)++;
		return;
	case TMX_FC_BLOB:
		if (c->as_ctf18) {
			putf(c, "%s%llu[", fc->ref_slot >= 0 ? "seq" : "array",
			     (unsigned long long)val->str.len);
			for (uint64_t k = 0; k < val->str.len; k++)
				putf(c, "i8u:%u ", (unsigned)(uint8_t)val->str.ptr[k]);
			put(c, "]", 1);
		} else {
			put(c, "blob", 4);
			put_bytes(c, val->str.ptr, val->str.len);
		}
		(*i)++;
		return;
	case TMX_FC_OPTIONAL:
		(*i)++;
		if (c->as_ctf18) {
			put(c, val->present ? "option1:" : "option0:{}", val->present ? 8 : 10);
		} else {
			put(c, val->present ? "some:" : "none", val->present ? 5 : 4);
		}
		if (val->present)
			canon_value(c, v, i, false, depth + 1);
		return;
	default:
		fail();
	}
}

static void canon_value(struct canon *c, const struct tmx_value *v, size_t *i, bool top_packet_ctx,
			unsigned depth)
{
	const struct tmx_value *val = &v[*i];
	const struct tmx_field_class *fc = val->fc;

	if (depth > 1000)
		fail();
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		canon_int(c, val);
		(*i)++;
		return;
	case TMX_FC_FLOAT: {
		uint64_t bits;
		memcpy(&bits, &val->d, 8);
		putf(c, "f%u:%g/0x%016llx", fc->size, val->d, (unsigned long long)bits);
		(*i)++;
		return;
	}
	case TMX_FC_STRING:
		canon_text(c, val);
		(*i)++;
		return;
	case TMX_FC_STRUCT:
		canon_struct(c, v, i, top_packet_ctx, depth);
		return;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (fc->is_text) {
			canon_text(c, val);
			(*i)++;
			return;
		}
		putf(c, "%s%llu[", fc->kind == TMX_FC_ARRAY ? "array" : "seq",
		     (unsigned long long)val->count);
		(*i)++;
		for (uint64_t k = 0; k < val->count; k++) {
			canon_value(c, v, i, false, depth + 1);
			put(c, " ", 1);
		}
		put(c, "]", 1);
		return;
	case TMX_FC_VARIANT:
		putf(c, "option%u:", val->option);
		(*i)++;
		canon_value(c, v, i, false, depth + 1);
		return;
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
	case TMX_FC_BLOB:
	case TMX_FC_OPTIONAL:
		canon_ctf2_kind(c, v, i, depth);
		return;
	}
	fail();
}

static void canon_scope(struct canon *c, const struct tmx_value *v, bool packet_ctx)
{
	size_t i = 0;

	bool empty = true;

	if (v && packet_ctx && v[0].fc->kind == TMX_FC_STRUCT) {
		/* Only members with a meaning: as absent (the writer always has a context). */
		for (size_t k = 0; k < v[0].fc->n_members && empty; k++)
			empty = v[0].fc->members[k].fc->meaning != TMX_MEANING_NONE;
	} else {
		empty = !v;
	}
	if (empty) {
		put(c, " -", 2);
		return;
	}
	put(c, " ", 1);
	canon_value(c, v, &i, packet_ctx, 0);
}

/*
 * A time: cycles and nanoseconds.  A clock value whose time does not fit
 * in int64 nanoseconds is "overflow" whatever the reader made of it (the
 * CTF reader drops the time, the XRay reader saturates it).
 */
static void canon_time(struct canon *c, bool has, uint64_t cycles, int64_t ns)
{
	if (!has && !cycles)
		put(c, " notime", 7);
	else if (!has || ns == INT64_MAX || ns == INT64_MIN)
		putf(c, " %llu/overflow", (unsigned long long)cycles);
	else
		putf(c, " %llu/%lldns", (unsigned long long)cycles, (long long)ns);
}

/*
 * The canonical form of each stream apart: streams are merged by time, and
 * equal times of different streams may come in another order once written
 * (the order within a stream is kept).  Streams are told apart by their
 * model id, which the writer keeps (stream_instance_id).
 */
#define MAX_STREAMS 64

struct canon_set {
	size_t n;
	uint64_t ids[MAX_STREAMS];
	struct canon c[MAX_STREAMS];
	bool as_ctf18;    /* the input's side, CTF 1.8 being written */
};

static void canon_msg(struct canon *c, const struct tmx_msg *msg, struct canon *in);

/*
 * `in_set`: when reducing the output of an input that is not CTF, the
 * input's forms (see canon_msg()); NULL otherwise.
 */
static void canon_set_msg(struct canon_set *set, const struct tmx_msg *msg,
			  struct canon_set *in_set)
{
	struct canon *in = NULL;

	uint64_t id = msg->stream ? msg->stream->id : UINT64_MAX;
	size_t i = 0;

	/* Only streams with something to compare (an empty one may have no file). */
	if (msg->kind != TMX_MSG_EVENT && msg->kind != TMX_MSG_DISCARDED_EVENTS &&
	    msg->kind != TMX_MSG_DISCARDED_PACKETS)
		return;

	while (i < set->n && set->ids[i] != id)
		i++;
	if (i == set->n) {
		if (set->n == MAX_STREAMS)
			i = MAX_STREAMS - 1;   /* more streams: the last ones share a form */
		else
			set->ids[set->n++] = id;
	}
	set->c[i].as_ctf18 = set->as_ctf18;
	for (size_t k = 0; in_set && k < in_set->n && !in; k++)
		if (in_set->ids[k] == set->ids[i])
			in = &in_set->c[k];
	canon_msg(&set->c[i], msg, in);
}

/* All streams, by id, in one form (freed with the set). */
static void canon_set_join(struct canon_set *set, struct canon *all)
{
	bool done[MAX_STREAMS] = { false };

	for (size_t k = 0; k < set->n; k++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < set->n; i++)
			if (!done[i] && (best == SIZE_MAX || set->ids[i] < set->ids[best]))
				best = i;
		done[best] = true;
		putf(all, "== stream %llu\n", (unsigned long long)set->ids[best]);
		if (set->c[best].len)
			put(all, set->c[best].buf, set->c[best].len);
		free(set->c[best].buf);
		free(set->c[best].ranges);
		all->n_msgs += set->c[best].n_msgs;
	}
	set->n = 0;
}

static void canon_msg(struct canon *c, const struct tmx_msg *msg, struct canon *in)
{
	bool range;

	switch (msg->kind) {
	case TMX_MSG_EVENT: {
		const struct tmx_event *e = msg->event;
		const char *name = e->cls->name ? e->cls->name : "unknown";
		put(c, "event ", 6);
		put_label(c, name);
		canon_time(c, msg->has_ts, msg->cycles, msg->ns);
		/* A packet context without members other than the writer's own is absent. */
		canon_scope(c, e->scopes[TMX_SCOPE_PACKET_CONTEXT], true);
		canon_scope(c, e->scopes[TMX_SCOPE_COMMON_CONTEXT], false);
		canon_scope(c, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], false);
		canon_scope(c, e->scopes[TMX_SCOPE_PAYLOAD], false);
		put(c, "\n", 1);
		break;
	}
	case TMX_MSG_DISCARDED_EVENTS:
	case TMX_MSG_DISCARDED_PACKETS:
		/* An unknown count (0) is recorded as 1: CTF counters have no "unknown". */
		putf(c, "discarded %s %llu", msg->kind == TMX_MSG_DISCARDED_EVENTS ? "events" :
			"packets", (unsigned long long)(msg->count ? msg->count : 1));
		/*
		 * A CTF reader always gives a range when packets have times:
		 * the output of an input without a range (trace.dat's first
		 * page, a lost-events record without time) may have one.
		 */
		range = msg->has_range;
		if (in) {
			range = range && (in->next >= in->n_ranges || in->ranges[in->next]);
			in->next++;
		} else {
			bool *r = realloc(c->ranges, (c->n_ranges + 1) * sizeof(*r));
			if (!r)
				fail();
			c->ranges = r;
			c->ranges[c->n_ranges++] = msg->has_range;
		}
		if (range) {
			canon_time(c, true, msg->begin_cycles, msg->begin_ns);
			canon_time(c, true, msg->end_cycles, msg->end_ns);
		}
		put(c, "\n", 1);
		break;
	default:
		return;
	}
	c->n_msgs++;
}

/* ------------------------------------------------------------------ */
/* The differential run                                                 */
/* ------------------------------------------------------------------ */

static char found_trace[4096];
static int n_found_traces;

static int find_metadata(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type == FTW_F && !strcmp(path + ftw->base, "metadata")) {
		if (!n_found_traces++)
			snprintf(found_trace, sizeof(found_trace), "%.*s", ftw->base ? ftw->base - 1 : 0,
				 path);
	}
	return 0;
}

static void quiet(void *user, const char *msg)
{
	(void)user;
	(void)msg;
}

static const struct tmx_diag diag = { .warn = quiet };

/* The first line that differs (all of both with TMX_FUZZ_VERBOSE set). */
static void report_difference(const struct canon *a, const struct canon *b)
{
	size_t n = a->len < b->len ? a->len : b->len, at = 0, line = 0;

	while (at < n && a->buf[at] == b->buf[at])
		at++;
	while (line < at && at - line - 1 < at && a->buf[at - line - 1] != '\n')
		line++;
	fprintf(stderr, "fuzz_ctf_writer: the trace written differs from its input (%llu vs %llu "
		"messages), from:\n  input:   %.300s\n  written: %.300s\n",
		(unsigned long long)a->n_msgs, (unsigned long long)b->n_msgs,
		a->buf ? (const char *)a->buf + at - line : "", b->buf ? (const char *)b->buf + at - line : "");
	if (getenv("TMX_FUZZ_VERBOSE"))
		fprintf(stderr, "== input\n%s== written\n%s", a->buf ? (char *)a->buf : "",
			b->buf ? (char *)b->buf : "");
}

/* With TMX_FUZZ_VERBOSE set: the metadata written, to see what went wrong. */
static void show_written_metadata(void)
{
	char path[4200], buf[4096];
	FILE *f;
	size_t n;

	if (!getenv("TMX_FUZZ_VERBOSE"))
		return;
	snprintf(path, sizeof(path), "%s/metadata", found_trace);
	f = fopen(path, "r");
	if (!f)
		return;
	fprintf(stderr, "== %s\n", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* The input read, written in CTF `version`, read back, compared. */
static void differential(const uint8_t *data, size_t size, const uint8_t *sep, int version)
{
	struct tmx_ctf_writer_opts wopts = { 0 };
	struct tmx_ctf_fs_opts ropts = TMX_CTF_FS_OPTS_INIT;
	struct tmx_ctf_writer *w = NULL;
	struct tmx_source *src = NULL;
	struct canon_set *in_set, *out_set;
	struct canon in = { 0 }, out = { 0 };
	struct tmx_error err = { 0 };
	const char *path;
	bool write_failed = false;
	int fd_before;
	size_t meta_len;

	written_version = version;
	in_set = calloc(1, sizeof(*in_set));
	out_set = calloc(1, sizeof(*out_set));
	if (!in_set || !out_set)
		fail();
	in_set->as_ctf18 = version != TMX_CTF_VERSION_2;
	setup_sandbox();
	fd_before = lowest_free_fd();
	remove_tree(in_dir);
	remove_tree(out_dir);
	if (mkdir(in_dir, 0755)) {
		perror(in_dir);
		fail();
	}
	/* Input → writer. */
	if (sep) {
		meta_len = (size_t)(sep - data);
		write_file(in_dir, "metadata", data, meta_len);
		write_file(in_dir, "stream", sep + strlen(SEPARATOR),
			   size - meta_len - strlen(SEPARATOR));
		path = in_dir;
		if (tmx_ctf_fs_open(&path, 1, &ropts, &diag, &src, &err))
			goto done;
	} else {
		/* A trace.dat or an XRay log: models CTF input does not make. */
		struct tmx_open_opts oopts = TMX_OPEN_OPTS_INIT;
		write_file(in_dir, "input", data, size);
		snprintf(in_file, sizeof(in_file), "%s/input", in_dir);
		path = in_file;
		if (tmx_open(&path, 1, &oopts, &diag, &src, &err))
			goto done;
	}
	wopts.dir = out_dir;
	wopts.packet_size = size & 1 ? SMALL_PACKET : 0;
	wopts.ctf_version = version;
	wopts.diag = &diag;
	guard_on = true;
	if (tmx_ctf_writer_new(&wopts, &w, &err)) {
		fprintf(stderr, "fuzz_ctf_writer: %s\n", err.msg);
		fail();
	}
	for (size_t i = 0; i < tmx_source_logical_trace_count(src) && !write_failed; i++)
		write_failed = tmx_ctf_writer_add_trace(w, tmx_source_logical_trace(src, i), &err);
	while (!write_failed) {
		const struct tmx_msg *msg;
		if (tmx_source_next(src, &msg, &err) || !msg)
			break;   /* what was read before a damage is still written */
		if (getenv("TMX_FUZZ_TRACE"))   /* every message given to the writer */
			fprintf(stderr, "msg kind=%d stream=%llu ts=%d:%llu packet=%p begin=%d:%llu "
				"end=%d:%llu count=%llu range=%d:%llu-%llu\n", msg->kind,
				(unsigned long long)msg->stream->id, msg->has_ts,
				(unsigned long long)msg->cycles, (const void *)msg->packet,
				msg->packet ? msg->packet->has_begin : -1,
				msg->packet ? (unsigned long long)msg->packet->begin_cycles : 0,
				msg->packet ? msg->packet->has_end : -1,
				msg->packet ? (unsigned long long)msg->packet->end_cycles : 0,
				(unsigned long long)msg->count, msg->has_range,
				(unsigned long long)msg->begin_cycles, (unsigned long long)msg->end_cycles);
		canon_set_msg(in_set, msg, NULL);
		write_failed = tmx_ctf_writer_consume(w, msg, &err);
	}
	if (tmx_ctf_writer_finish(w, &err))
		write_failed = true;
	tmx_ctf_writer_free(w);
	guard_on = false;
	tmx_source_free(src);
	src = NULL;
	/* The writer refused the model (a limit, what CTF 1.8 cannot say): nothing to compare. */
	if (write_failed)
		goto done;

	/* The trace written → canonical form again. */
	n_found_traces = 0;
	nftw(out_dir, find_metadata, 16, FTW_PHYS);
	if (n_found_traces != 1) {
		fprintf(stderr, "fuzz_ctf_writer: %d traces written for one\n", n_found_traces);
		fail();
	}
	path = found_trace;
	if (tmx_ctf_fs_open(&path, 1, &ropts, &diag, &src, &err)) {
		char msg[1600];
		tmx_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "fuzz_ctf_writer: the trace written cannot be opened: %s\n", msg);
		show_written_metadata();
		fail();
	}
	for (;;) {
		const struct tmx_msg *msg;
		if (tmx_source_next(src, &msg, &err)) {
			char text[1600];
			tmx_error_format(&err, text, sizeof(text));
			fprintf(stderr, "fuzz_ctf_writer: the trace written cannot be read: %s\n", text);
			show_written_metadata();
			fail();
		}
		if (!msg)
			break;
		canon_set_msg(out_set, msg, sep ? NULL : in_set);
	}
	canon_set_join(in_set, &in);
	canon_set_join(out_set, &out);
	if (getenv("TMX_FUZZ_VERBOSE"))
		fprintf(stderr, "== read (%llu messages)\n%s", (unsigned long long)in.n_msgs,
			in.buf ? (char *)in.buf : "");
	if (in.len != out.len || (in.len && memcmp(in.buf, out.buf, in.len))) {
		report_difference(&in, &out);
		show_written_metadata();
		fail();
	}
done:
	if (err.code && getenv("TMX_FUZZ_VERBOSE")) {
		char text[1600];
		tmx_error_format(&err, text, sizeof(text));
		fprintf(stderr, "== CTF %s, %s: %s\n", version == TMX_CTF_VERSION_2 ? "2" : "1.8",
			write_failed ? "writer" : "reader", text);
	}
	tmx_source_free(src);
	canon_set_join(in_set, &in);   /* frees what an early exit left */
	canon_set_join(out_set, &out);
	free(in_set);
	free(out_set);
	free(in.buf);
	free(out.buf);
	remove_tree(in_dir);
	remove_tree(out_dir);
	if (lowest_free_fd() != fd_before) {
		fprintf(stderr, "fuzz_ctf_writer: a file descriptor was left open\n");
		fail();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));

	/* Metadata without data (TSDL or CTF 2 JSON): nothing to write. */
	if (!sep && (size < 4 || !memcmp(data, "/* C", 4) || data[0] == 0x1e))
		return 0;
	/* Both versions: CTF 2 keeps every class, CTF 1.8 translates some. */
	differential(data, size, sep, TMX_CTF_VERSION_1_8);
	differential(data, size, sep, TMX_CTF_VERSION_2);
	return 0;
}
