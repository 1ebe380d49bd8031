/*
 * llvm-xray's YAML traces as input: the files `llvm-xray convert
 * --output-format=yaml` writes, which `llvm-xray convert/account/stack/
 * graph` read back (llvm/lib/XRay/Trace.cpp loadYAMLLog,
 * llvm/XRay/YAMLXRayRecord.h):
 *
 *   header:  { version, type, constant-tsc, nonstop-tsc, cycle-frequency }
 *            (all required)
 *   records: - { type, cpu, kind, tsc (required), func-id (0), function
 *               (ignored: llvm names functions from the id), args ([]),
 *               thread (0), process (0), data ('') }
 *
 * libyaml parses the text (events, so that memory is the records, not a
 * node tree); yaml_io.c gives the values llvm's meaning.  The records are
 * kept in memory (llvm-xray keeps them too) and handed to the XRay source
 * (reader.c), which maps them to the model exactly as a binary log's: the
 * header is the file header, one stream per (process, thread) in order of
 * first appearance, llvm's record fields as the event fields.  The output
 * order is llvm-xray's: the records stable-sorted by TSC (`convert`'s
 * default --sort), or in file order with --sort=false.
 *
 * Where tracemux departs from llvm-xray 14:
 * - llvm-xray 14 refuses every YAML trace whose version is not 1 (its own
 *   YAML of an FDR v5 log cannot be read back); we read versions 1 to 5,
 *   those a binary log can have, and refuse the others;
 * - at a fault (broken YAML, a missing key, a value of the wrong type) the
 *   records before it are output, then the error (llvm-xray prints
 *   nothing); with --lenient a record at fault is left out with a warning
 *   and the reading goes on (syntax errors still end it);
 * - a key repeated in a mapping is an error (llvm keeps the last value).
 * Like llvm-xray, only the first YAML document of the file is read (a
 * warning says so when there are more), and the raw DEL bytes its writer
 * leaves in custom-event data (YAML forbids them) are read back
 * (yaml_io.h).  What llvm-xray writes and cannot read back itself (data
 * such as `a,b` unquoted in a flow mapping) is refused here too.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "xray/internal.h"
#include "xray/yaml_io.h"
#include "common/errors.h"

#define XR_YAML_MAX_RECORDS (UINT32_MAX - 1)

/* ------------------------------------------------------------------ */
/* Detection                                                            */
/* ------------------------------------------------------------------ */

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* `key` at p, bare or quoted, then optional blanks and ':'. */
static bool starts_with_key(const unsigned char *p, size_t n, const char *key)
{
	size_t k = strlen(key), i = 0;
	unsigned char q = n && (p[0] == '"' || p[0] == '\'') ? p[0] : 0;

	if (q)
		i++;
	if (n - i < k || memcmp(p + i, key, k))
		return false;
	i += k;
	if (q && (i >= n || p[i++] != q))
		return false;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i < n && p[i] == ':';
}

bool tmx_xray_looks_like_yaml(const unsigned char *p, size_t n, bool whole_file)
{
	size_t i = 0;

	if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		i = 3;
	/* Blank lines, comments and directives (%YAML, %TAG) before the document. */
	for (;;) {
		while (i < n && is_blank(p[i]))
			i++;
		if (i == n)   /* nothing but those: the rest of the file decides */
			return !whole_file;
		if (p[i] != '#' && p[i] != '%')
			break;
		while (i < n && p[i] != '\n')
			i++;
	}
	if (n - i >= 3 && !memcmp(p + i, "---", 3) && (n - i == 3 || is_blank(p[i + 3])))
		return true;
	return p[i] == '{' || starts_with_key(p + i, n - i, "header") ||
	       starts_with_key(p + i, n - i, "records");
}

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

enum { RK_TYPE, RK_FUNC_ID, RK_FUNCTION, RK_ARGS, RK_CPU, RK_THREAD, RK_PROCESS, RK_KIND,
       RK_TSC, RK_DATA, N_RK };
static const char *const record_keys[N_RK] = {
	"type", "func-id", "function", "args", "cpu", "thread", "process", "kind", "tsc", "data",
};
#define RECORD_REQUIRED (1u << RK_TYPE | 1u << RK_CPU | 1u << RK_KIND | 1u << RK_TSC)

/* llvm's RecordTypes spellings, in enum tmx_xray_event_id order. */
static const char *const kind_names[] = {
	"function-enter", "function-exit", "function-tail-exit", "function-enter-arg",
	"custom-event", "typed-event",
};

struct yparse {
	struct xy_parser y;
	struct xr_ytrace *t;
	bool lenient;
	const struct tmx_diag *diag;
	/* The first fault of the record being read (it goes on to its end). */
	bool rec_bad;
	struct tmx_error rec_err;
};

/* A fault inside a record: the first one is kept (the record will be left out). */
static void note_fault(struct yparse *ps, const struct tmx_error *e)
{
	if (!ps->rec_bad) {
		ps->rec_err = *e;
		ps->rec_bad = true;
	}
}

/* Same, and the node at fault (the current one) passed over; other errors are returned. */
static int record_fault(struct yparse *ps, int code, const struct tmx_error *e,
			struct tmx_error *err)
{
	if (code != TMX_ERR_DATA) {
		*err = *e;
		return code;
	}
	note_fault(ps, e);
	return xy_skip_node(&ps->y, err);
}

static int read_kind(struct yparse *ps, uint8_t *kind, struct tmx_error *e)
{
	char buf[64];
	const char *s;
	size_t n;
	int ret;

	if ((ret = xy_string(&ps->y, "kind", &s, &n, e)))
		return ret;
	for (uint8_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strlen(kind_names[k]) == n && !memcmp(kind_names[k], s, n)) {
			*kind = k;
			return TMX_OK;
		}
	return xy_error(&ps->y, e, "unknown record kind %s (expected function-enter, "
			"function-exit, function-tail-exit, function-enter-arg, custom-event or "
			"typed-event)", xy_what(&ps->y, buf, sizeof(buf)));
}

static int read_data(struct yparse *ps, struct xr_yrec *r, struct tmx_error *e)
{
	struct xr_ytrace *t = ps->t;
	const char *s;
	size_t n;
	int ret;

	if ((ret = xy_string(&ps->y, "data", &s, &n, e)))
		return ret;
	if (n > UINT32_MAX)
		return xy_error(&ps->y, e, "'data' of %zu bytes: at most 4 GiB", n);
	if (!tmx_grow_array((void **)&t->bytes, &t->cap_bytes, t->n_bytes + n, 1, 4096))
		return tmx_error_set(e, TMX_ERR_NOMEM, NULL, "out of memory");
	/* t->bytes is still NULL when every data so far is empty */
	n = n ? xy_copy_text(&ps->y, s, n, t->bytes + t->n_bytes) : 0;
	r->data_off = t->n_bytes;
	r->data_size = (uint32_t)n;
	t->n_bytes += n;
	return TMX_OK;
}

/* `args`: a sequence of unsigned 64-bit integers (or nothing). */
static int read_args(struct yparse *ps, struct xr_yrec *r, struct tmx_error *err)
{
	struct xr_ytrace *t = ps->t;
	struct tmx_error e;
	bool is_seq, bad = false;
	int ret;

	if ((ret = xy_begin_sequence(&ps->y, "the call arguments 'args'", &is_seq, &e)))
		return record_fault(ps, ret, &e, err);
	r->args_off = t->n_args;
	while (is_seq) {
		uint64_t v;
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->y.ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (bad) {
			if ((ret = xy_skip_node(&ps->y, err)))
				return ret;
			continue;
		}
		if ((ret = xy_uint(&ps->y, "args", UINT64_MAX, &v, &e))) {
			bad = true;
			if ((ret = record_fault(ps, ret, &e, err)))
				return ret;
			continue;
		}
		if (r->n_args == UINT32_MAX ||
		    !tmx_grow_array((void **)&t->args, &t->cap_args, t->n_args + 1,
				    sizeof(*t->args), 64))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		t->args[t->n_args++] = v;
		r->n_args++;
	}
	return TMX_OK;
}

/* The value of record key `k` (the current node) into `r`. */
static int read_record_value(struct yparse *ps, size_t k, struct xr_yrec *r,
			     struct tmx_error *err)
{
	struct tmx_error e;
	const char *s;
	uint64_t u = 0;
	int64_t i = 0;
	size_t n;
	int ret;

	switch (k) {
	case RK_ARGS:
		return read_args(ps, r, err);
	case RK_TYPE:
		if (!(ret = xy_uint(&ps->y, "type", UINT16_MAX, &u, &e)))
			r->record_type = (uint16_t)u;
		break;
	case RK_FUNC_ID:
		if (!(ret = xy_int(&ps->y, "func-id", INT32_MIN, INT32_MAX, &i, &e)))
			r->func_id = (int32_t)i;
		break;
	case RK_FUNCTION:   /* llvm reads it and forgets it */
		ret = xy_string(&ps->y, "function", &s, &n, &e);
		break;
	case RK_CPU:
		if (!(ret = xy_uint(&ps->y, "cpu", UINT16_MAX, &u, &e)))
			r->cpu = (uint16_t)u;
		break;
	case RK_THREAD:
		if (!(ret = xy_uint(&ps->y, "thread", UINT32_MAX, &u, &e)))
			r->tid = (uint32_t)u;
		break;
	case RK_PROCESS:
		if (!(ret = xy_uint(&ps->y, "process", UINT32_MAX, &u, &e)))
			r->pid = (uint32_t)u;
		break;
	case RK_KIND:
		ret = read_kind(ps, &r->kind, &e);
		break;
	case RK_TSC:
		ret = xy_uint(&ps->y, "tsc", UINT64_MAX, &r->tsc, &e);
		break;
	default:
		ret = read_data(ps, r, &e);
		break;
	}
	return ret ? record_fault(ps, ret, &e, err) : TMX_OK;
}

/*
 * One element of `records` (the current node), read to its end even after
 * a fault (ps->rec_bad); kept when it has none.
 */
static int read_record(struct yparse *ps, struct tmx_error *err)
{
	struct xr_ytrace *t = ps->t;
	struct xr_yrec r = { 0 };
	size_t bytes_before = t->n_bytes, args_before = t->n_args;
	size_t from = ps->y.ev.start_mark.index;
	yaml_mark_t start = ps->y.ev.start_mark;   /* then its first key's */
	uint32_t seen = 0;
	struct tmx_error e;
	int ret;

	ps->rec_bad = false;
	if ((ret = xy_expect_mapping(&ps->y, "a record", &e)))
		return record_fault(ps, ret, &e, err);
	for (;;) {
		size_t k = 0;
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->y.ev.type == YAML_MAPPING_END_EVENT)
			break;
		ret = xy_key(&ps->y, record_keys, N_RK, "a record", &seen, &k, &start, &e);
		if (ret && (ret = record_fault(ps, ret, &e, err)))
			return ret;
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->rec_bad)   /* the record is left out: its other values do not matter */
			ret = xy_skip_node(&ps->y, err);
		else
			ret = read_record_value(ps, k, &r, err);
		if (ret)
			return ret;
	}
	if (!ps->rec_bad &&
	    (ret = xy_missing_key(&ps->y, &start, record_keys, N_RK, RECORD_REQUIRED, seen,
				  "a record", &e)))
		note_fault(ps, &e);
	if (ps->rec_bad) {
		t->n_bytes = bytes_before;
		t->n_args = args_before;
		return TMX_OK;
	}
	if (t->n_recs >= XR_YAML_MAX_RECORDS)
		return tmx_error_at_line(err, TMX_ERR_LIMIT, ps->y.path,
					 (uint32_t)start.line + 1, (uint32_t)start.column + 1,
					 "more than %u records", XR_YAML_MAX_RECORDS);
	if (!tmx_grow_array((void **)&t->recs, &t->cap_recs, t->n_recs + 1, sizeof(*t->recs), 256))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	from = ps->y.ev.end_mark.index - from;
	r.span = from > UINT32_MAX ? UINT32_MAX : (uint32_t)from;
	t->recs[t->n_recs++] = r;
	return TMX_OK;
}

/* `records`: a sequence of records (or nothing). */
static int read_records(struct yparse *ps, struct tmx_error *err)
{
	size_t from;
	bool is_seq;
	int ret;

	if ((ret = xy_begin_sequence(&ps->y, "the records", &is_seq, err)))
		return ret;
	while (is_seq) {
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->y.ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		from = ps->y.ev.start_mark.index;
		if ((ret = read_record(ps, err)))
			return ret;
		if (!ps->rec_bad)
			continue;
		if (!ps->lenient) {
			*err = ps->rec_err;
			return err->code;
		}
		{
			char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
			tmx_error_format(&ps->rec_err, buf, sizeof(buf));
			tmx_warn(ps->diag, "%s (record skipped)", buf);
		}
		ps->t->skipped++;
		ps->t->skipped_bytes += ps->y.ev.end_mark.index - from;
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Header and document                                                  */
/* ------------------------------------------------------------------ */

enum { HK_VERSION, HK_TYPE, HK_CONSTANT_TSC, HK_NONSTOP_TSC, HK_FREQUENCY, N_HK };
static const char *const header_keys[N_HK] = {
	"version", "type", "constant-tsc", "nonstop-tsc", "cycle-frequency",
};

static int read_header_value(struct yparse *ps, size_t k, struct tmx_xray_header *h,
			     struct tmx_error *err)
{
	uint64_t v;
	int ret;

	switch (k) {
	case HK_VERSION:
		if ((ret = xy_uint(&ps->y, "version", UINT16_MAX, &v, err)))
			return ret;
		if (v < 1 || v > 5)
			return xy_error(&ps->y, err, "XRay file version %u is not supported: "
					"expected 1 to 5 (llvm-xray 14 reads only version 1 "
					"from YAML)", (unsigned)v);
		h->version = (uint16_t)v;
		return TMX_OK;
	case HK_TYPE:
		if ((ret = xy_uint(&ps->y, "type", UINT16_MAX, &v, err)))
			return ret;
		h->type = (uint16_t)v;
		return TMX_OK;
	case HK_CONSTANT_TSC:
		return xy_bool(&ps->y, "constant-tsc", &h->constant_tsc, err);
	case HK_NONSTOP_TSC:
		return xy_bool(&ps->y, "nonstop-tsc", &h->nonstop_tsc, err);
	default:
		return xy_uint(&ps->y, "cycle-frequency", UINT64_MAX, &h->cycle_frequency, err);
	}
}

static int read_header(struct yparse *ps, struct tmx_error *err)
{
	struct tmx_xray_header h = { 0 };
	yaml_mark_t start = ps->y.ev.start_mark;
	uint32_t seen = 0;
	size_t k;
	int ret;

	if ((ret = xy_expect_mapping(&ps->y, "the header", err)))
		return ret;
	for (;;) {
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->y.ev.type == YAML_MAPPING_END_EVENT)
			break;
		if ((ret = xy_key(&ps->y, header_keys, N_HK, "the header", &seen, &k, &start, err)) ||
		    (ret = xy_next(&ps->y, err)) || (ret = read_header_value(ps, k, &h, err)))
			return ret;
	}
	if ((ret = xy_missing_key(&ps->y, &start, header_keys, N_HK, (1u << N_HK) - 1, seen,
				  "the header", err)))
		return ret;
	ps->t->h = h;
	ps->t->has_header = true;
	return TMX_OK;
}

static const char *const root_keys[] = { "header", "records" };

/* The first document: a mapping of `header` and `records`. */
static int read_document(struct yparse *ps, struct tmx_error *err)
{
	const char *what = "an XRay trace with keys header and records";
	yaml_mark_t start;
	uint32_t seen = 0;
	size_t k;
	int ret;

	if ((ret = xy_next(&ps->y, err)) || (ret = xy_next(&ps->y, err)))
		return ret;
	if (ps->y.ev.type == YAML_STREAM_END_EVENT)
		return xy_error(&ps->y, err, "no YAML document: expected %s", what);
	if ((ret = xy_next(&ps->y, err)))
		return ret;
	if (ps->y.ev.type == YAML_SCALAR_EVENT && !ps->y.ev.data.scalar.length &&
	    ps->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return xy_error(&ps->y, err, "empty YAML document: expected %s", what);
	if ((ret = xy_expect_mapping(&ps->y, what, err)))
		return ret;
	start = ps->y.ev.start_mark;
	for (;;) {
		if ((ret = xy_next(&ps->y, err)))
			return ret;
		if (ps->y.ev.type == YAML_MAPPING_END_EVENT)
			break;
		if ((ret = xy_key(&ps->y, root_keys, 2, "the trace", &seen, &k, &start, err)) ||
		    (ret = xy_next(&ps->y, err)) ||
		    (ret = k ? read_records(ps, err) : read_header(ps, err)))
			return ret;
	}
	if ((ret = xy_missing_key(&ps->y, &start, root_keys, 2, 3, seen, "the trace", err)))
		return ret;
	return xy_next(&ps->y, err);   /* the document's end: trailing text is a fault */
}

/* After the document: llvm-xray reads no further; say so when there is more. */
static void check_rest(struct yparse *ps)
{
	char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
	struct tmx_error e;

	if (xy_next(&ps->y, &e)) {
		tmx_error_format(&e, buf, sizeof(buf));
		tmx_warn(ps->diag, "%s (after the first YAML document, which alone is read, as "
			 "llvm-xray does: ignored)", buf);
	} else if (ps->y.ev.type != YAML_STREAM_END_EVENT) {
		tmx_warn(ps->diag, "%s:%zu:%zu: only the first YAML document is read (as "
			 "llvm-xray does): the rest of the file is ignored", ps->y.path,
			 ps->y.ev.start_mark.line + 1, ps->y.ev.start_mark.column + 1);
	}
}

int xr_yaml_load(const char *path, const uint8_t *data, size_t size, bool lenient,
		 const struct tmx_diag *diag, struct xr_ytrace *t, struct tmx_error *err)
{
	struct yparse ps = { .t = t, .lenient = lenient, .diag = diag };
	int ret;

	memset(t, 0, sizeof(*t));
	xy_init(&ps.y, path, data, size, true);
	if (!(ret = read_document(&ps, err)))
		check_rest(&ps);
	xy_fini(&ps.y);
	return ret;
}

void xr_yaml_free(struct xr_ytrace *t)
{
	free(t->recs);
	free(t->bytes);
	free(t->args);
	free(t->order);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ */
/* Output order and cursor                                              */
/* ------------------------------------------------------------------ */

struct tsc_index {
	uint64_t tsc;
	uint32_t i;
};

static int tsc_index_cmp(const void *a, const void *b)
{
	const struct tsc_index *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int xr_yaml_order(struct xr_ytrace *t, bool unsorted, struct tmx_error *err)
{
	struct tsc_index *s;
	size_t n = t->n_recs;

	if (!(t->order = malloc((n ? n : 1) * sizeof(*t->order))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if (unsorted) {
		for (size_t i = 0; i < n; i++)
			t->order[i] = (uint32_t)i;
		return TMX_OK;
	}
	/* (TSC, file position) is a total order: qsort gives llvm's stable sort. */
	if (!(s = malloc((n ? n : 1) * sizeof(*s))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
		s[i] = (struct tsc_index){ t->recs[i].tsc, (uint32_t)i };
	if (n)
		qsort(s, n, sizeof(*s), tsc_index_cmp);
	for (size_t i = 0; i < n; i++)
		t->order[i] = s[i].i;
	free(s);
	return TMX_OK;
}

void xr_yaml_next(const struct xr_ytrace *t, struct xr_cursor *c, bool *got)
{
	const struct xr_yrec *y;

	*got = c->pos.seq < t->n_recs;
	if (!*got)
		return;
	y = &t->recs[t->order[c->pos.seq++]];
	c->rec = (struct xr_record){
		.kind = y->kind, .record_type = y->record_type, .cpu = y->cpu,
		.func_id = y->func_id, .tid = y->tid, .pid = y->pid, .tsc = y->tsc,
		.data = y->data_size ? t->bytes + y->data_off : NULL, .data_size = y->data_size,
		.n_args = y->n_args, .args = y->n_args ? t->args + y->args_off : NULL,
		.stream = y->stream,
	};
}
