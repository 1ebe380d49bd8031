/*
 * `tracemux analyze --format=csv`: the rows of the MI tables (an_rows.c)
 * as CSV.  On standard output each table is a line "# table: NAME", its
 * header and its rows, tables separated by an empty line; with -w DIR each
 * table is DIR/NAME.csv (header and rows).  RFC 4180 quoting (a field with
 * a comma, a double quote, CR or LF in double quotes, double quotes
 * doubled), LF line ends; a null is an empty field; numbers as the MI has
 * them (integers as integers, floats as Python's repr()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sink/outbuf.h"
#include "tools/analyze/an_rows.h"

#define MAX_FILES 32

struct csv {
	const char *dir;          /* -w DIR: one NAME.csv per table; else all on `b` */
	struct outbuf *b;         /* standard output */
	struct {
		char name[96];
		struct outbuf *b;
	} files[MAX_FILES];
	size_t n_files;
	char cur[96];             /* the table standard output is in ("": none yet) */
	struct outbuf *to;        /* where the rows of the current table go */
	FILE *errout;
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

static void put_header(struct outbuf *b, const struct an_rtable *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			outbuf_putc(b, ',');
		outbuf_puts(b, t->col[i].name);
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

static bool table(void *ctx, const struct an_rtable *t)
{
	struct csv *c = ctx;
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
		c->to = c->b;
		return true;
	}
	for (i = 0; i < c->n_files; i++)
		if (!strcmp(c->files[i].name, t->name)) {
			c->to = c->files[i].b;
			return true;
		}
	if (i == MAX_FILES) {
		fprintf(c->errout, "Error: more than %d tables\n", MAX_FILES);
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s.csv", c->dir, t->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(c->errout, "Error: %s: %s\n", path, strerror(errno));
		return false;
	}
	if (!(c->files[i].b = new_outbuf(fd))) {
		close(fd);
		fprintf(c->errout, "Error: out of memory\n");
		return false;
	}
	snprintf(c->files[i].name, sizeof(c->files[i].name), "%s", t->name);
	c->n_files++;
	put_header(c->files[i].b, t);
	c->to = c->files[i].b;
	return true;
}

/* A JSON scalar as a field: null empty, numbers as the MI wrote them. */
static void put_value(struct outbuf *b, json_object *v)
{
	char buf[64];
	int64_t x;

	switch (json_object_get_type(v)) {
	case json_type_null:
		break;
	case json_type_boolean:
		outbuf_puts(b, json_object_get_boolean(v) ? "true" : "false");
		break;
	case json_type_int:
		/* timestamps, durations, counts: int64 (a size beyond it: its uint64) */
		x = json_object_get_int64(v);
		if (x == INT64_MAX) {
			outbuf_write(b, buf, an_fmt_u64(buf, json_object_get_uint64(v)));
		} else if (x < 0) {
			outbuf_putc(b, '-');
			outbuf_write(b, buf, an_fmt_u64(buf, 0 - (uint64_t)x));
		} else {
			outbuf_write(b, buf, an_fmt_u64(buf, (uint64_t)x));
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

static bool row(void *ctx, const struct an_rtable *t, json_object *const *v)
{
	struct csv *c = ctx;

	for (size_t i = 0; i < t->n; i++) {
		if (i)
			outbuf_putc(c->to, ',');
		put_value(c->to, v[i]);
	}
	outbuf_putc(c->to, '\n');
	return true;
}

static bool flush(struct csv *c, struct outbuf *b, const char *what)
{
	int e = outbuf_flush(b);

	if (e)
		fprintf(c->errout, "Error: writing %s: %s\n", what, strerror(e));
	return !e;
}

static bool finish(void *ctx)
{
	struct csv *c = ctx;
	bool ok = flush(c, c->b, "the standard output");

	for (size_t i = 0; i < c->n_files; i++) {
		ok &= flush(c, c->files[i].b, c->files[i].name);
		if (close(c->files[i].b->fd)) {
			fprintf(c->errout, "Error: closing %s: %s\n", c->files[i].name, strerror(errno));
			ok = false;
		}
		free(c->files[i].b);
	}
	c->n_files = 0;
	return ok;
}

static void csv_free(void *ctx)
{
	struct csv *c = ctx;

	for (size_t i = 0; i < c->n_files; i++) {   /* not finished */
		close(c->files[i].b->fd);
		free(c->files[i].b);
	}
	free(c->b);
	free(c);
}

bool an_csv_out(struct an_rows_out *w, const struct tmx_an_opts *o, FILE *out, FILE *errout)
{
	struct csv *c = calloc(1, sizeof(*c));

	if (!c || !(c->b = new_outbuf(fileno(out)))) {
		free(c);
		fprintf(errout, "Error: out of memory\n");
		return false;
	}
	c->dir = o->rows_dir;
	c->errout = errout;
	*w = (struct an_rows_out){ c, table, row, finish, csv_free };
	return true;
}
