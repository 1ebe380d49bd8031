/*
 * `tracemux analyze --format=csv`: the MI result tables as CSV, one CSV
 * table per MI table class.
 *
 * One source of truth: the command runs exactly as for --mi, its MI JSON
 * goes to a temporary file, and this file turns that JSON into rows (no
 * second computation; the numbers are the MI's own: integers as they are,
 * floats as the MI's repr()).  The JSON is walked table by table and row
 * by row (json-c parses one row at a time), so memory stays that of a
 * row, not of the MI document.
 *
 * Columns: period_begin and period_end (the MI table's time range, ns),
 * subtitle (what lttng-analyses puts in brackets after the class title of
 * a per-TID/per-IRQ/per-kind table: "sh (526, TID: 526)", empty when
 * none), then the table class's columns: each title made a name (ASCII
 * letters and digits lowercased, every other run of characters one `_`),
 * with a suffix per part for the classes of several parts (process:
 * _name _pid _tid, irq: _hard _nr _name, time-range: _begin _end).  The
 * column classes come from lttng-analyses' table classes (its --metadata,
 * copied below), or from the table itself when it declares its columns
 * (--freq-series).
 */
#define _GNU_SOURCE   /* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sink/outbuf.h"
#include "tools/analyze/an_impl.h"

/* ------------------------------------------------------------------ */
/* lttng-analyses 0.6.1's table classes ("Title:class|..." per class)   */
/* ------------------------------------------------------------------ */

struct csv_class {
	const char *name, *cols;
};

static const struct csv_class cputop_classes[] = {
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
static const struct csv_class sched_classes[] = {
	{ "log", SCHED_EVENT },
	{ "top", SCHED_EVENT },
	{ "total_stats", SCHED_STATS },
	{ "per_tid_stats", "Wakee process:process|" SCHED_STATS "|Chronological priorities:string" },
	{ "per_prio_stats", "Priority:number|" SCHED_STATS },
	{ "freq", "Duration (lower bound):duration|Duration (upper bound):duration|"
		  "Scheduling count:number" },
	{ NULL, NULL },
};

static const struct csv_class syscalls_classes[] = {
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
static const struct csv_class irq_classes[] = {
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
static const struct csv_class io_classes[] = {
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

static const struct csv_class memtop_classes[] = {
	{ "allocd", "Process:process|Allocated pages:number" },
	{ "freed", "Process:process|Freed pages:number" },
	{ "total", "Total allocated pages:number|Total freed pages:number" },
	{ "summary", "Time range:time-range|Total allocated pages:number|Total freed pages:number" },
	{ NULL, NULL },
};

static const struct csv_class *classes_of(enum tmx_an_cmd cmd)
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
 * The parts of a cell of each MI value class: the column name's suffix and
 * the key of the part in the cell (time-range parts are timestamp objects).
 */
static const struct part_kind {
	const char *cls;
	unsigned n;
	const char *suffix[3], *key[3];
} part_kinds[] = {
	{ "process", 3, { "_name", "_pid", "_tid" }, { "name", "pid", "tid" } },
	{ "irq", 3, { "_hard", "_nr", "_name" }, { "hard", "nr", "name" } },
	{ "time-range", 2, { "_begin", "_end" }, { "begin", "end" } },
	{ "cpu", 1, { "" }, { "id" } },
	{ "syscall", 1, { "" }, { "name" } },
	{ "disk", 1, { "" }, { "name" } },
	{ "part", 1, { "" }, { "name" } },
	{ "netif", 1, { "" }, { "name" } },
	{ "path", 1, { "" }, { "path" } },
	{ "fd", 1, { "" }, { "fd" } },
};
/* every other class (number, duration, timestamp, ratio, size, bitrate, string, bool) */
static const struct part_kind value_kind = { "value", 1, { "" }, { "value" } };

static const struct part_kind *kind_of(const char *cls, size_t len)
{
	for (size_t i = 0; i < sizeof(part_kinds) / sizeof(part_kinds[0]); i++)
		if (strlen(part_kinds[i].cls) == len && !memcmp(part_kinds[i].cls, cls, len))
			return &part_kinds[i];
	return &value_kind;
}

/* ------------------------------------------------------------------ */
/* Outputs                                                              */
/* ------------------------------------------------------------------ */

#define MAX_COLS 256
#define MAX_FILES 32

struct csv_col {
	char title[128];
	const struct part_kind *kind;
};

/* A CSV table being written: its name and columns. */
struct csv_table {
	char name[96];
	struct csv_col col[MAX_COLS];
	size_t n;
};

struct csv_file {
	char name[96];
	struct outbuf *b;
};

struct csv {
	const char *dir;          /* -w DIR: one NAME.csv per table; else all on `b` */
	struct outbuf *b;         /* standard output */
	struct csv_file files[MAX_FILES];
	size_t n_files;
	char cur[96];             /* the table standard output is in ("": none yet) */
	FILE *errout;
	bool failed;
	struct csv_table t;
};

/* RFC 4180: a field with a comma, quote, CR or LF in quotes, quotes doubled. */
static void put_field(struct outbuf *b, const char *s, size_t n)
{
	bool quote = false;

	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		outbuf_write(b, s, n);
		return;
	}
	outbuf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			outbuf_putc(b, '"');
		outbuf_putc(b, s[i]);
	}
	outbuf_putc(b, '"');
}

/* A column name from a title: ASCII letters and digits lowercased, other runs one '_'. */
static size_t slug(char *out, size_t cap, const char *s, size_t n)
{
	size_t k = 0;
	bool sep = false;

	for (size_t i = 0; i < n && k + 2 < cap; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (sep && k)
				out[k++] = '_';
			out[k++] = c;
			sep = false;
		} else {
			sep = true;
		}
	}
	out[k] = 0;
	return k;
}

static void put_header(struct outbuf *b, const struct csv_table *t)
{
	outbuf_puts(b, "period_begin,period_end,subtitle");
	for (size_t i = 0; i < t->n; i++) {
		const struct csv_col *c = &t->col[i];
		char name[160];
		size_t l = slug(name, sizeof(name), c->title, strlen(c->title));
		for (unsigned p = 0; p < c->kind->n; p++) {
			outbuf_putc(b, ',');
			outbuf_write(b, name, l);
			outbuf_puts(b, c->kind->suffix[p]);
		}
	}
	outbuf_putc(b, '\n');
}

static struct outbuf *new_outbuf(int fd)
{
	struct outbuf *b = malloc(sizeof(*b));

	if (b)
		outbuf_init(b, fd);
	return b;
}

/* Where the rows of table t go: its file (made with its header), or standard output. */
static struct outbuf *table_out(struct csv *c)
{
	const struct csv_table *t = &c->t;
	char path[PATH_MAX];
	size_t i;
	int fd;

	if (!c->dir) {
		if (strcmp(c->cur, t->name)) {
			if (c->cur[0])
				outbuf_putc(c->b, '\n');
			outbuf_puts(c->b, "# table: ");
			outbuf_puts(c->b, t->name);
			outbuf_putc(c->b, '\n');
			put_header(c->b, t);
			snprintf(c->cur, sizeof(c->cur), "%s", t->name);
		}
		return c->b;
	}
	for (i = 0; i < c->n_files; i++)
		if (!strcmp(c->files[i].name, t->name))
			return c->files[i].b;
	if (i == MAX_FILES) {
		fprintf(c->errout, "Error: more than %d tables\n", MAX_FILES);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s.csv", c->dir, t->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(c->errout, "Error: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (!(c->files[i].b = new_outbuf(fd))) {
		close(fd);
		fprintf(c->errout, "Error: out of memory\n");
		return NULL;
	}
	snprintf(c->files[i].name, sizeof(c->files[i].name), "%s", t->name);
	c->n_files++;
	put_header(c->files[i].b, t);
	return c->files[i].b;
}

/* ------------------------------------------------------------------ */
/* Cells                                                                */
/* ------------------------------------------------------------------ */

/* A JSON scalar as a field: null empty, numbers as the MI wrote them. */
static void put_scalar(struct outbuf *b, json_object *v)
{
	char buf[64];

	switch (json_object_get_type(v)) {
	case json_type_null:
		break;
	case json_type_boolean:
		outbuf_puts(b, json_object_get_boolean(v) ? "true" : "false");
		break;
	case json_type_int:
		/* the MI's integers: timestamps, durations, counts (int64; sizes could be uint64) */
		if (json_object_get_int64(v) < 0) {
			outbuf_putc(b, '-');
			outbuf_write(b, buf, an_fmt_u64(buf, 0 - (uint64_t)json_object_get_int64(v)));
		} else {
			outbuf_write(b, buf, an_fmt_u64(buf, json_object_get_uint64(v)));
		}
		break;
	case json_type_double:
		an_repr_double(buf, sizeof(buf), json_object_get_double(v));
		outbuf_puts(b, buf);
		break;
	case json_type_string:
		put_field(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
		break;
	default: {
		const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
		put_field(b, s, strlen(s));
	}
	}
}

/* One cell's parts: each the cell's key of the column's class (null cells: all empty). */
static void put_cell(struct outbuf *b, const struct part_kind *k, json_object *cell)
{
	for (unsigned p = 0; p < k->n; p++) {
		json_object *v = NULL;
		outbuf_putc(b, ',');
		if (!cell || !json_object_is_type(cell, json_type_object) ||
		    !json_object_object_get_ex(cell, k->key[p], &v))
			continue;
		/* time-range parts: {"class": "timestamp", "value": N} */
		if (json_object_is_type(v, json_type_object) &&
		    !json_object_object_get_ex(v, "value", &v))
			continue;
		put_scalar(b, v);
	}
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

static bool set_columns(struct csv *c, const char *cols)
{
	c->t.n = 0;
	while (*cols) {
		const char *sep = strchr(cols, '|'), *colon;
		size_t len = sep ? (size_t)(sep - cols) : strlen(cols);
		struct csv_col *col = &c->t.col[c->t.n++];
		colon = memrchr(cols, ':', len);
		if (!colon)
			return false;
		snprintf(col->title, sizeof(col->title), "%.*s", (int)(colon - cols), cols);
		col->kind = kind_of(colon + 1, len - (size_t)(colon + 1 - cols));
		cols += len + (sep != NULL);
	}
	return true;
}

/* The table's class (a name, or an object that inherits one or declares its columns). */
static bool table_class(struct csv *c, const struct csv_class *classes, json_object *cls,
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
		snprintf(c->t.name, sizeof(c->t.name), "%s", name);
		return set_columns(c, classes->cols);
	}
	/* --freq-series: the columns are in the table; its name from its title */
	if (!title || !json_object_object_get_ex(cls, "column-descriptions", &descrs) ||
	    !json_object_is_type(descrs, json_type_array) ||
	    json_object_array_length(descrs) > MAX_COLS)
		return false;
	slug(c->t.name, sizeof(c->t.name), json_object_get_string(title),
	     (size_t)json_object_get_string_len(title));
	c->t.n = 0;
	for (size_t i = 0; i < json_object_array_length(descrs); i++) {
		json_object *d = json_object_array_get_idx(descrs, i), *dt = NULL, *dc = NULL;
		struct csv_col *col = &c->t.col[c->t.n++];
		json_object_object_get_ex(d, "title", &dt);
		json_object_object_get_ex(d, "class", &dc);
		snprintf(col->title, sizeof(col->title), "%s", dt ? json_object_get_string(dt) : "");
		col->kind = dc ? kind_of(json_object_get_string(dc),
					 (size_t)json_object_get_string_len(dc)) : &value_kind;
	}
	return true;
}

/* The time range's bound `key` ({"class": "timestamp", "value": N}) as a field. */
static void put_bound(struct outbuf *b, json_object *range, const char *key)
{
	json_object *v = NULL;

	if (json_object_object_get_ex(range, key, &v) && json_object_object_get_ex(v, "value", &v))
		put_scalar(b, v);
}

/* One MI table: {"class": C, "time-range": R, "data": [rows]}. */
static bool one_table(struct csv *c, struct rd *r, const struct csv_class *classes)
{
	json_object *cls = NULL, *range = NULL;
	char subtitle[256];
	struct outbuf *b;
	bool ok = false;

	if (!lit(r, "{\"class\": ") || !(cls = value(r)) || !lit(r, ", \"time-range\": ") ||
	    !(range = value(r)) || !lit(r, ", \"data\": ["))
		goto out;
	if (!table_class(c, classes, cls, subtitle, sizeof(subtitle))) {
		fprintf(c->errout, "Error: no CSV columns for the MI table class %s\n",
			json_object_to_json_string_ext(cls, JSON_C_TO_STRING_PLAIN));
		c->failed = true;
		goto out;
	}
	if (!(b = table_out(c))) {
		c->failed = true;
		goto out;
	}
	if (lit(r, "]}")) {
		ok = true;
		goto out;
	}
	for (;;) {
		json_object *row = value(r);
		size_t n;
		if (!row || !json_object_is_type(row, json_type_array))
			goto out;
		put_bound(b, range, "begin");
		outbuf_putc(b, ',');
		put_bound(b, range, "end");
		outbuf_putc(b, ',');
		put_field(b, subtitle, strlen(subtitle));
		n = json_object_array_length(row);
		for (size_t i = 0; i < c->t.n; i++)
			put_cell(b, c->t.col[i].kind, i < n ? json_object_array_get_idx(row, i) : NULL);
		outbuf_putc(b, '\n');
		json_object_put(row);
		if (lit(r, "]}"))
			break;
		if (!lit(r, ", "))
			goto out;
	}
	ok = true;
out:
	json_object_put(cls);
	json_object_put(range);
	return ok;
}

/* The MI document at r: {"results": [tables]}, or {"error-message": M} (written to errout). */
static void convert(struct csv *c, struct rd *r, enum tmx_an_cmd cmd)
{
	const struct csv_class *classes = classes_of(cmd);

	if (r->p == r->end)
		return;   /* no output (no event before --end) */
	if (!lit(r, "{\"results\": [")) {
		json_object *doc = value(r), *m = NULL;
		if (doc && json_object_object_get_ex(doc, "error-message", &m))
			fprintf(c->errout, "%s\n", json_object_get_string(m));
		else
			goto bad;
		json_object_put(doc);
		return;
	}
	if (!lit(r, "]}")) {
		for (;;) {
			if (!one_table(c, r, classes))
				goto bad;
			if (lit(r, "]}"))
				break;
			if (!lit(r, ", "))
				goto bad;
		}
	}
	return;
bad:
	if (!c->failed)
		fprintf(c->errout, "Error: unexpected MI JSON at byte %zu\n", (size_t)(r->p - r->start));
	c->failed = true;
}

static bool flush(struct csv *c, struct outbuf *b, const char *what)
{
	int e = outbuf_flush(b);

	if (e) {
		fprintf(c->errout, "Error: writing %s: %s\n", what, strerror(e));
		return false;
	}
	return true;
}

/* Runs the analysis as --mi into a temporary file and converts its JSON. */
int an_csv_analyze(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		   struct tmx_error *err)
{
	struct tmx_an_opts mo = *o;
	struct csv c = { .dir = o->csv_dir, .errout = errout };
	FILE *tmp = tmpfile();
	struct stat st;
	void *map = NULL;
	int status;

	if (!tmp) {
		fprintf(errout, "Error: cannot create a temporary file: %s\n", strerror(errno));
		return 1;
	}
	if (c.dir && mkdir(c.dir, 0777) && errno != EEXIST) {
		fprintf(errout, "Error: %s: %s\n", c.dir, strerror(errno));
		fclose(tmp);
		return 1;
	}
	mo.mi = true;
	mo.csv = false;
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
	if (!(c.b = new_outbuf(fileno(out)))) {
		c.failed = true;
	} else {
		struct rd r = { map, (const char *)map + st.st_size, map, json_tokener_new() };
		if (!r.tok) {
			c.failed = true;
		} else {
			convert(&c, &r, o->cmd);
			json_tokener_free(r.tok);
		}
	}
	if (c.b && !flush(&c, c.b, "standard output"))
		c.failed = true;
	free(c.b);
	for (size_t i = 0; i < c.n_files; i++) {
		if (!flush(&c, c.files[i].b, c.files[i].name))
			c.failed = true;
		if (close(c.files[i].b->fd))
			c.failed = true;
		free(c.files[i].b);
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	fclose(tmp);
	return c.failed && !status ? 1 : status;
}
