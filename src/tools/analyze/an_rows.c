/*
 * The MI result tables as rows (an_rows.h): the command runs exactly as
 * for --mi, its JSON goes to a temporary file, and this file walks that
 * JSON table by table and row by row (json-c parses one row at a time:
 * memory stays that of a row, not of the MI document) and hands each row
 * to the output (an_csv.c, an_parquet.c).  One source of truth: no second
 * computation, the values are the MI's.
 *
 * A table of rows per MI table class (an inline class inherits one; a
 * class that declares its own columns, --freq-series, is named from its
 * title).  Columns: period_begin and period_end (the MI table's time
 * range, ns), subtitle (what lttng-analyses puts in brackets after the
 * class title of a per-TID/per-IRQ/per-kind table, "sh (526, TID: 526)";
 * empty when none), then the table class's columns: each title made a
 * name (ASCII letters and digits lowercased, every other run of
 * characters one `_`), with a suffix per part for the classes of several
 * parts (process: _name _pid _tid, irq: _hard _nr _name, time-range:
 * _begin _end).  The column classes come from lttng-analyses' table
 * classes (its --metadata, in the tables below), or from the table
 * itself when it declares its columns.
 */
#define _GNU_SOURCE   /* memrchr */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/paths.h"
#include "tools/analyze/an_rows.h"

/* ------------------------------------------------------------------ */
/* lttng-analyses 0.6.1's table classes ("Title:class|..." per class)   */
/* ------------------------------------------------------------------ */

struct mi_class {
	const char *name, *cols;
};

static const struct mi_class cputop_classes[] = {
	{ "per-process", "Process:process|Migration count:number|Chronological priorities:string|"
			 "CPU usage:ratio" },
	{ "per-cpu", "CPU:cpu|CPU usage:ratio" },
	{ "total", "CPU usage:ratio" },
	{ "summary", "Time range:time-range|Total CPU usage:ratio" },
	{ NULL, NULL },
};

#define SCHED_EVENT "Wakeup timestamp:timestamp|Switch timestamp:timestamp|" \
	"Scheduling latency:duration|Priority:number|Target CPU:cpu|Wakee process:process|" \
	"Waker process:process"
#define SCHED_STATS "Scheduling count:number|Minimum latency:duration|" \
	"Average latency:duration|Maximum latency:duration|" \
	"Scheduling latency standard deviation:duration"
static const struct mi_class sched_classes[] = {
	{ "log", SCHED_EVENT },
	{ "top", SCHED_EVENT },
	{ "total_stats", SCHED_STATS },
	{ "per_tid_stats", "Wakee process:process|" SCHED_STATS "|Chronological priorities:string" },
	{ "per_prio_stats", "Priority:number|" SCHED_STATS },
	{ "freq", "Duration (lower bound):duration|Duration (upper bound):duration|"
		  "Scheduling count:number" },
	{ NULL, NULL },
};

static const struct mi_class syscalls_classes[] = {
	{ "per-tid", "System call:syscall|Call count:number|Minimum call duration:duration|"
		     "Average call duration:duration|Maximum call duration:duration|"
		     "Call duration standard deviation:duration|Return values count:string" },
	{ "total", "Process:process|Total system call count:number" },
	{ "summary", "Time range:time-range|Process:process|Total system call count:number" },
	{ NULL, NULL },
};

#define IRQ_STATS "Interrupt:irq|Interrupt count:number|Minimum duration:duration|" \
	"Average duration:duration|Maximum duration:duration|" \
	"Interrupt duration standard deviation:duration"
static const struct mi_class irq_classes[] = {
	{ "log", "Time range:time-range|Raised timestamp:timestamp|CPU:cpu|Interrupt:irq" },
	{ "hard-stats", IRQ_STATS },
	{ "soft-stats", IRQ_STATS "|Interrupt raise count:number|Minimum raise latency:duration|"
		       "Average raise latency:duration|Maximum raise latency:duration|"
		       "Interrupt raise latency standard deviation:duration" },
	{ "freq", "Duration (lower bound):duration|Duration (upper bound):duration|"
		  "Interrupt count:number" },
	{ "summary", "Time range:time-range|Total interrupt count:number" },
	{ NULL, NULL },
};

#define IO_REQUEST "Call time range:time-range|System call out of range?:bool|" \
	"Call duration:duration|System call:syscall|Read/write size:size|Process:process|" \
	"File path:path|File descriptor:fd"
static const struct mi_class io_classes[] = {
	{ "syscall-latency-stats", "System call category:string|Call count:number|"
				   "Minimum call latency:duration|Average call latency:duration|"
				   "Maximum call latency:duration|"
				   "System call latency standard deviation:duration" },
	{ "disk-latency-stats", "Partition:disk|Access count:number|"
				"Minimum access latency:duration|Average access latency:duration|"
				"Maximum access latency:duration|"
				"System access latency standard deviation:duration" },
	{ "freq", "Latency (lower bound):duration|Latency (upper bound):duration|"
		  "Request count:number" },
	{ "top-syscall", IO_REQUEST },
	{ "log", IO_REQUEST },
	{ "per-process-top", "Process:process|Total operations size:size|"
			     "Disk operations size:size|Network operations size:size|"
			     "Unknown operations size:size" },
	{ "per-file-top", "File path/info:path|Operations size:size|File descriptor owners:string" },
	{ "per-process-top-block", "Process:process|Operations size:size" },
	{ "per-disk-top-sector", "Disk:disk|Sector count:number" },
	{ "per-disk-top-request", "Disk:disk|Request count:number" },
	{ "per-disk-top-rps", "Disk:disk|Request time/sector:duration" },
	{ "per-netif-top", "Network interface:netif|Operations size:size" },
	{ NULL, NULL },
};

static const struct mi_class memtop_classes[] = {
	{ "allocd", "Process:process|Allocated pages:number" },
	{ "freed", "Process:process|Freed pages:number" },
	{ "total", "Total allocated pages:number|Total freed pages:number" },
	{ "summary", "Time range:time-range|Total allocated pages:number|Total freed pages:number" },
	{ NULL, NULL },
};

static const struct mi_class *classes_of(enum tmx_an_cmd cmd)
{
	switch (cmd) {
	case TMX_AN_CPUTOP: return cputop_classes;
	case TMX_AN_SCHEDSTATS: case TMX_AN_SCHEDTOP: case TMX_AN_SCHEDLOG: case TMX_AN_SCHEDFREQ:
		return sched_classes;
	case TMX_AN_SYSCALLSTATS: return syscalls_classes;
	case TMX_AN_IRQSTATS: case TMX_AN_IRQLOG: case TMX_AN_IRQFREQ: return irq_classes;
	case TMX_AN_MEMTOP: return memtop_classes;
	default: return io_classes;
	}
}

/*
 * The parts of a cell of each MI value class: the column name's suffix,
 * the key of the part in the cell (time-range parts are timestamp objects)
 * and its type.
 */
static const struct part_kind {
	const char *cls;
	unsigned n;
	const char *suffix[3], *key[3];
	uint8_t type[3];
} part_kinds[] = {
	{ "process", 3, { "_name", "_pid", "_tid" }, { "name", "pid", "tid" },
	  { AN_R_STRING, AN_R_INT, AN_R_INT } },
	{ "irq", 3, { "_hard", "_nr", "_name" }, { "hard", "nr", "name" },
	  { AN_R_BOOL, AN_R_INT, AN_R_STRING } },
	{ "time-range", 2, { "_begin", "_end" }, { "begin", "end" }, { AN_R_INT, AN_R_INT } },
	{ "cpu", 1, { "" }, { "id" }, { AN_R_INT } },
	{ "syscall", 1, { "" }, { "name" }, { AN_R_STRING } },
	{ "disk", 1, { "" }, { "name" }, { AN_R_STRING } },
	{ "part", 1, { "" }, { "name" }, { AN_R_STRING } },
	{ "netif", 1, { "" }, { "name" }, { AN_R_STRING } },
	{ "path", 1, { "" }, { "path" }, { AN_R_STRING } },
	{ "fd", 1, { "" }, { "fd" }, { AN_R_INT } },
	{ "timestamp", 1, { "" }, { "value" }, { AN_R_INT } },
	{ "number", 1, { "" }, { "value" }, { AN_R_INT } },
	{ "size", 1, { "" }, { "value" }, { AN_R_INT } },
	/* durations: integers (a minimum) or floats (an average) in one column */
	{ "duration", 1, { "" }, { "value" }, { AN_R_DOUBLE } },
	{ "ratio", 1, { "" }, { "value" }, { AN_R_DOUBLE } },
	{ "bitrate", 1, { "" }, { "value" }, { AN_R_DOUBLE } },
	{ "bool", 1, { "" }, { "value" }, { AN_R_BOOL } },
};
/* strings, and any other class */
static const struct part_kind value_kind = { "string", 1, { "" }, { "value" }, { AN_R_STRING } };

static const struct part_kind *kind_of(const char *cls, size_t len)
{
	for (size_t i = 0; i < sizeof(part_kinds) / sizeof(part_kinds[0]); i++)
		if (strlen(part_kinds[i].cls) == len && !memcmp(part_kinds[i].cls, cls, len))
			return &part_kinds[i];
	return &value_kind;
}

/*
 * A name from a title: ASCII letters and digits lowercased, other runs one
 * '_'; a '-' before a digit is kept ("Priority: -100" is priority_-100).
 */
static void slug(char *out, size_t cap, const char *s, size_t n)
{
	size_t k = 0;
	bool sep = false;

	for (size_t i = 0; i < n && k + 2 < cap; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    (c == '-' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
			if (sep && k)
				out[k++] = '_';
			out[k++] = c;
			sep = false;
		} else {
			sep = true;
		}
	}
	out[k] = 0;
}

/* The walk: the table being read, its columns' kinds. */
struct walk {
	struct an_rtable t;
	const struct part_kind *kind[AN_R_MAX_COLS];   /* per MI column */
	size_t n_mi;                                  /* MI columns */
	const struct an_rows_out *w;
	FILE *errout;
	bool failed;
};

static bool taken(const struct an_rtable *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->col[i].name, name))
			return true;
	return false;
}

static bool add_column(struct walk *k, const char *title, size_t tlen, const struct part_kind *kind)
{
	char base[128];

	if (k->n_mi == AN_R_MAX_COLS || k->t.n + kind->n > AN_R_MAX_COLS)
		return false;
	slug(base, sizeof(base), title, tlen);
	k->kind[k->n_mi++] = kind;
	for (unsigned p = 0; p < kind->n; p++) {
		struct an_rcol *c = &k->t.col[k->t.n];
		snprintf(c->name, sizeof(c->name), "%s%s", base, kind->suffix[p]);
		/* a name taken ("Priority: -100" and "Priority: 100"): NAME_2, NAME_3... */
		for (unsigned d = 2; taken(&k->t, c->name); d++)
			snprintf(c->name, sizeof(c->name), "%s%s_%u", base, kind->suffix[p], d);
		c->type = kind->type[p];
		k->t.n++;
	}
	return true;
}

static void start_columns(struct walk *k)
{
	static const struct an_rcol first[] = {
		{ "period_begin", AN_R_INT }, { "period_end", AN_R_INT }, { "subtitle", AN_R_STRING },
	};

	memcpy(k->t.col, first, sizeof(first));
	k->t.n = 3;
	k->n_mi = 0;
}

/* The columns of a class of the tables above ("Title:class|..."). */
static bool set_columns(struct walk *k, const char *cols)
{
	start_columns(k);
	while (*cols) {
		const char *sep = strchr(cols, '|'), *colon;
		size_t len = sep ? (size_t)(sep - cols) : strlen(cols);
		colon = memrchr(cols, ':', len);
		if (!colon || !add_column(k, cols, (size_t)(colon - cols),
					  kind_of(colon + 1, len - (size_t)(colon + 1 - cols))))
			return false;
		cols += len + (sep != NULL);
	}
	return true;
}

/* The table's class (a name, or an object that inherits one or declares its columns). */
static bool table_class(struct walk *k, const struct mi_class *classes, json_object *cls,
			char *subtitle, size_t sub_cap)
{
	json_object *inherit = NULL, *title = NULL, *descrs = NULL;
	const char *name = NULL;

	subtitle[0] = 0;
	if (json_object_is_type(cls, json_type_string)) {
		name = json_object_get_string(cls);
	} else if (json_object_is_type(cls, json_type_object)) {
		json_object_object_get_ex(cls, "title", &title);
		if (json_object_object_get_ex(cls, "inherit", &inherit))
			name = json_object_get_string(inherit);
		if (title && name) {
			/* "Class title [subtitle]": the class titles have no '[' */
			const char *t = json_object_get_string(title), *o = strstr(t, " [");
			size_t l = o ? strlen(o + 2) : 0;
			if (l && o[1 + l] == ']')
				snprintf(subtitle, sub_cap, "%.*s", (int)(l - 1), o + 2);
		}
	}
	if (name) {
		for (; classes->name; classes++)
			if (!strcmp(classes->name, name))
				break;
		if (!classes->name)
			return false;
		snprintf(k->t.name, sizeof(k->t.name), "%s", name);
		return set_columns(k, classes->cols);
	}
	/* --freq-series: the columns are in the table; its name from its title */
	if (!title || !json_object_object_get_ex(cls, "column-descriptions", &descrs) ||
	    !json_object_is_type(descrs, json_type_array))
		return false;
	slug(k->t.name, sizeof(k->t.name), json_object_get_string(title),
	     (size_t)json_object_get_string_len(title));
	start_columns(k);
	for (size_t i = 0; i < json_object_array_length(descrs); i++) {
		json_object *d = json_object_array_get_idx(descrs, i), *dt = NULL, *dc = NULL;
		json_object_object_get_ex(d, "title", &dt);
		json_object_object_get_ex(d, "class", &dc);
		if (!add_column(k, dt ? json_object_get_string(dt) : "",
				dt ? (size_t)json_object_get_string_len(dt) : 0,
				dc ? kind_of(json_object_get_string(dc),
					     (size_t)json_object_get_string_len(dc)) : &value_kind))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The MI document, table by table                                      */
/* ------------------------------------------------------------------ */

struct rd {
	const char *p, *end, *start;
	json_tokener *tok;
};

static bool lit(struct rd *r, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, s, n))
		return false;
	r->p += n;
	return true;
}

/* The JSON value at r->p (an object or array: complete without a look-ahead). */
static json_object *value(struct rd *r)
{
	size_t left = (size_t)(r->end - r->p);
	json_object *v;

	json_tokener_reset(r->tok);
	v = json_tokener_parse_ex(r->tok, r->p, left > INT_MAX ? INT_MAX : (int)left);
	if (v)
		r->p += json_tokener_get_parse_end(r->tok);
	return v;
}

/* {"class": "timestamp", "value": N} -> N */
static json_object *inner_value(json_object *v)
{
	json_object *x = NULL;

	if (json_object_is_type(v, json_type_object))
		return json_object_object_get_ex(v, "value", &x) ? x : NULL;
	return v;
}

static json_object *key(json_object *obj, const char *name)
{
	json_object *v = NULL;

	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, name, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

/* One row: the range, the subtitle, each MI cell's parts (null cells: all null). */
static bool one_row(struct walk *k, json_object *row, json_object *range, json_object *sub)
{
	json_object *v[AN_R_MAX_COLS];
	size_t n = json_object_array_length(row), c = 3;

	v[0] = inner_value(key(range, "begin"));
	v[1] = inner_value(key(range, "end"));
	v[2] = sub;
	for (size_t i = 0; i < k->n_mi; i++) {
		json_object *cell = i < n ? json_object_array_get_idx(row, i) : NULL;
		for (unsigned p = 0; p < k->kind[i]->n; p++)
			v[c++] = inner_value(key(cell, k->kind[i]->key[p]));
	}
	return k->w->row(k->w->ctx, &k->t, v);
}

/* One MI table: {"class": C, "time-range": R, "data": [rows]}. */
static bool one_table(struct walk *k, struct rd *r, const struct mi_class *classes)
{
	json_object *cls = NULL, *range = NULL, *sub = NULL;
	char subtitle[256];
	bool ok = false;

	if (!lit(r, "{\"class\": ") || !(cls = value(r)) || !lit(r, ", \"time-range\": ") ||
	    !(range = value(r)) || !lit(r, ", \"data\": ["))
		goto out;
	if (!table_class(k, classes, cls, subtitle, sizeof(subtitle))) {
		fprintf(k->errout, "Error: no columns for the MI table class %s\n",
			json_object_to_json_string_ext(cls, JSON_C_TO_STRING_PLAIN));
		k->failed = true;
		goto out;
	}
	if (!(sub = json_object_new_string(subtitle)) || !k->w->table(k->w->ctx, &k->t)) {
		k->failed = true;
		goto out;
	}
	if (lit(r, "]}")) {
		ok = true;
		goto out;
	}
	for (;;) {
		json_object *row = value(r);
		bool done;
		if (!row || !json_object_is_type(row, json_type_array)) {
			json_object_put(row);
			goto out;
		}
		done = one_row(k, row, range, sub);
		json_object_put(row);
		if (!done) {
			k->failed = true;
			goto out;
		}
		if (lit(r, "]}"))
			break;
		if (!lit(r, ", "))
			goto out;
	}
	ok = true;
out:
	json_object_put(cls);
	json_object_put(range);
	json_object_put(sub);
	return ok;
}

/* The MI document at r: {"results": [tables]}, or {"error-message": M} (written to errout). */
static void walk(struct walk *k, struct rd *r, enum tmx_an_cmd cmd)
{
	const struct mi_class *classes = classes_of(cmd);

	/* text lines before the JSON (the I/O commands' --cpu warning): to errout */
	while (r->p < r->end && *r->p != '{') {
		const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
		size_t n = nl ? (size_t)(nl - r->p) + 1 : (size_t)(r->end - r->p);
		fwrite(r->p, 1, n, k->errout);
		r->p += n;
	}
	if (r->p == r->end)
		return;   /* no output (no event before --end) */
	if (!lit(r, "{\"results\": [")) {
		json_object *doc = value(r), *m = NULL;
		if (doc && json_object_object_get_ex(doc, "error-message", &m))
			fprintf(k->errout, "%s\n", json_object_get_string(m));
		else
			k->failed = true;
		json_object_put(doc);
		goto end;
	}
	if (!lit(r, "]}")) {
		for (;;) {
			if (!one_table(k, r, classes)) {
				k->failed = true;
				break;
			}
			if (lit(r, "]}"))
				break;
			if (!lit(r, ", ")) {
				k->failed = true;
				break;
			}
		}
	}
end:
	if (k->failed)
		fprintf(k->errout, "Error: cannot read the MI JSON at byte %zu\n",
			(size_t)(r->p - r->start));
}

/* Runs the analysis as --mi into a temporary file and hands its tables' rows to the output. */
int an_rows_analyze(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		    struct tmx_error *err)
{
	struct tmx_an_opts mo = *o;
	struct an_rows_out w = { 0 };
	struct walk *k = NULL;
	FILE *tmp = NULL;
	struct stat st;
	void *map = NULL;
	int status;

	if (o->rows_dir) {   /* mkdir -p */
		char dir[PATH_MAX];
		if ((size_t)snprintf(dir, sizeof(dir), "%s", o->rows_dir) >= sizeof(dir) ||
		    cw_mkdir_p(dir)) {
			fprintf(errout, "Error: %s: cannot create the directory: %s\n", o->rows_dir,
				strerror(errno));
			return 1;
		}
	}
	if (!(tmp = tmpfile())) {
		fprintf(errout, "Error: cannot create a temporary file: %s\n", strerror(errno));
		return 1;
	}
	mo.mi = true;
	mo.rows = TMX_AN_ROWS_NONE;
	status = an_analyze_run(src, &mo, tmp, errout, err);
	if (fflush(tmp) || fstat(fileno(tmp), &st)) {
		fprintf(errout, "Error: cannot write a temporary file: %s\n", strerror(errno));
		fclose(tmp);
		return 1;
	}
	if (st.st_size &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(tmp), 0)) == MAP_FAILED) {
		fprintf(errout, "Error: cannot read back a temporary file: %s\n", strerror(errno));
		fclose(tmp);
		return 1;
	}
	fflush(out);
	if (!(o->rows == TMX_AN_ROWS_PARQUET ? an_parquet_out(&w, o, errout)
					     : an_csv_out(&w, o, out, errout))) {
		if (!status)
			status = 1;
	} else if (!(k = calloc(1, sizeof(*k)))) {
		fprintf(errout, "Error: out of memory\n");
		status = 1;
	} else {
		struct rd r = { map, (const char *)map + st.st_size, map, json_tokener_new() };
		k->w = &w;
		k->errout = errout;
		bool fin;
		if (r.tok) {
			walk(k, &r, o->cmd);
			json_tokener_free(r.tok);
		}
		fin = w.finish(w.ctx);   /* what was written before a failure too */
		if ((!r.tok || k->failed || !fin) && !status)
			status = 1;
	}
	if (w.free)
		w.free(w.ctx);
	free(k);
	if (map)
		munmap(map, (size_t)st.st_size);
	fclose(tmp);
	return status;
}
