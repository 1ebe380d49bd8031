/*
 * Opening a trace.dat: the initial format, then either the v6 fixed layout
 * or the v7 sections and options, every size checked against the bytes
 * that remain before anything is read (trace-cmd.dat.v7(5); v6 is the
 * same metadata in a fixed order, see tdat_open_v6()).
 *
 * Everything but the ring-buffer data is read here; the data is only
 * located (and, when compressed, its chunk headers scanned) so that a bad
 * offset fails at open and cursors can decompress one chunk at a time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/internal.h"
#include "model/errors.h"


#define MAX_OPTIONS_SECTIONS 4096
#define MAX_OPTIONS 65536
#define MAX_FORMATS 65536
#define MAX_BUFFERS 4096
#define MAX_CPUS 65536
#define MAX_CHUNKS (1u << 24)

/* ------------------------------------------------------------------ */
/* Numbers in the file's byte order                                    */
/* ------------------------------------------------------------------ */

uint16_t tdat_read16(const struct tdat_file *f, const void *p)
{
	const uint8_t *b = p;
	return f->big_endian ? (uint16_t)(b[0] << 8 | b[1]) : (uint16_t)(b[1] << 8 | b[0]);
}

uint32_t tdat_read32(const struct tdat_file *f, const void *p)
{
	const uint8_t *b = p;
	if (f->big_endian)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

uint64_t tdat_read64(const struct tdat_file *f, const void *p)
{
	const uint8_t *b = p;
	uint64_t hi = tdat_read32(f, f->big_endian ? b : b + 4);
	uint64_t lo = tdat_read32(f, f->big_endian ? b + 4 : b);
	return hi << 32 | lo;
}

/* ------------------------------------------------------------------ */
/* A bounds-checked reader over the file or a decompressed section      */
/* ------------------------------------------------------------------ */

struct rd {
	struct tdat_file_priv *fp;
	const uint8_t *p;
	size_t n, pos;
	uint64_t base;        /* file offset of p[0]; for decompressed data, of the section */
	bool unpacked;        /* p is decompressed data: report base and the position inside */
	const char *what;
	struct tmx_error *err;
};

static void rd_init_file(struct rd *r, struct tdat_file_priv *fp, uint64_t off, const char *what,
			 struct tmx_error *err)
{
	*r = (struct rd){ fp, fp->pub.data, fp->pub.size, (size_t)off, 0, false, what, err };
}

__attribute__((format(printf, 2, 3)))
static int rd_fail(struct rd *r, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->unpacked)
		return tmx_error_at(r->err, TMX_ERR_DATA, r->fp->pub.path, r->base,
				    "%s (compressed section), at byte %zu of its data: %s", r->what,
				    r->pos, msg);
	return tmx_error_at(r->err, TMX_ERR_DATA, r->fp->pub.path, r->base + r->pos, "%s: %s",
			    r->what, msg);
}

static int rd_need(struct rd *r, uint64_t n, const char *item)
{
	if (r->pos > r->n || n > r->n - r->pos)
		return rd_fail(r, "%s needs %llu bytes, only %zu remain", item,
			       (unsigned long long)n, r->pos > r->n ? 0 : r->n - r->pos);
	return TMX_OK;
}

static int rd_u16(struct rd *r, uint16_t *v, const char *item)
{
	int ret = rd_need(r, 2, item);
	if (!ret) {
		*v = tdat_read16(&r->fp->pub, r->p + r->pos);
		r->pos += 2;
	}
	return ret;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *item)
{
	int ret = rd_need(r, 4, item);
	if (!ret) {
		*v = tdat_read32(&r->fp->pub, r->p + r->pos);
		r->pos += 4;
	}
	return ret;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *item)
{
	int ret = rd_need(r, 8, item);
	if (!ret) {
		*v = tdat_read64(&r->fp->pub, r->p + r->pos);
		r->pos += 8;
	}
	return ret;
}

static int rd_bytes(struct rd *r, uint64_t n, const uint8_t **out, const char *item)
{
	int ret = rd_need(r, n, item);
	if (!ret) {
		*out = r->p + r->pos;
		r->pos += (size_t)n;
	}
	return ret;
}

/* A NUL-terminated string inside the data; *out points to it (terminated). */
static int rd_str(struct rd *r, const char **out, const char *item)
{
	const uint8_t *nul;

	if (r->pos >= r->n)
		return rd_fail(r, "%s: expected a NUL-terminated string, found the end", item);
	nul = memchr(r->p + r->pos, '\0', r->n - r->pos);
	if (!nul)
		return rd_fail(r, "%s: string without a terminating NUL", item);
	*out = (const char *)r->p + r->pos;
	r->pos = (size_t)(nul - r->p) + 1;
	return TMX_OK;
}

static int nomem(struct tdat_file_priv *fp, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, fp->pub.path, "out of memory");
}

static int own(struct tdat_file_priv *fp, void *p, struct tmx_error *err)
{
	if (fp->n_owned == fp->cap_owned) {
		size_t nc = fp->cap_owned ? fp->cap_owned * 2 : 16;
		void **o = realloc(fp->owned, nc * sizeof(*o));
		if (!o) {
			free(p);
			return nomem(fp, err);
		}
		fp->owned = o;
		fp->cap_owned = nc;
	}
	fp->owned[fp->n_owned++] = p;
	return TMX_OK;
}

static struct tdat_text text_of(const void *p, size_t n)
{
	return (struct tdat_text){ p, n };
}

/* An option string: up to its first NUL. */
static struct tdat_text opt_string(const uint8_t *p, size_t n)
{
	const uint8_t *nul = memchr(p, '\0', n);
	return text_of(p, nul ? (size_t)(nul - p) : n);
}

/* ------------------------------------------------------------------ */
/* v7 sections                                                           */
/* ------------------------------------------------------------------ */

struct section {
	uint16_t id, flags;
	uint32_t desc;
	uint64_t offset;       /* of the header */
	uint64_t data_off;     /* of the data in the file */
	uint64_t size;         /* in the file */
};

static const char *section_name(unsigned id)
{
	switch (id) {
	case TDAT_SEC_OPTIONS: return "options section";
	case TDAT_SEC_FLYRECORD: return "buffer flyrecord section";
	case TDAT_SEC_STRINGS: return "strings section";
	case TDAT_SEC_HEADER_INFO: return "header info section";
	case TDAT_SEC_FTRACE_EVENTS: return "ftrace events section";
	case TDAT_SEC_EVENT_FORMATS: return "event formats section";
	case TDAT_SEC_KALLSYMS: return "kallsyms section";
	case TDAT_SEC_PRINTK: return "printk section";
	case TDAT_SEC_CMDLINES: return "cmdlines section";
	case TDAT_SEC_BUFFER_TEXT: return "buffer latency section";
	default: return "section";
	}
}

static int section_header(struct tdat_file_priv *fp, uint64_t off, int expect_id,
			  struct section *s, struct tmx_error *err)
{
	struct rd r;
	int ret;

	rd_init_file(&r, fp, off, section_name((unsigned)expect_id), err);
	if (off > fp->pub.size)
		return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, off,
				    "%s: offset beyond the end of the file (%llu bytes)",
				    section_name((unsigned)expect_id),
				    (unsigned long long)fp->pub.size);
	s->offset = off;
	if ((ret = rd_u16(&r, &s->id, "section id")) || (ret = rd_u16(&r, &s->flags, "section flags")) ||
	    (ret = rd_u32(&r, &s->desc, "section description")) ||
	    (ret = rd_u64(&r, &s->size, "section size")))
		return ret;
	if (expect_id >= 0 && s->id != expect_id)
		return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, off,
				    "expected the %s (id %d), found section id %u",
				    section_name((unsigned)expect_id), expect_id, s->id);
	s->data_off = off + 16;
	if (s->size > fp->pub.size - s->data_off)
		return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, off + 8,
				    "%s: size %llu goes beyond the end of the file (%llu bytes remain)",
				    section_name(s->id), (unsigned long long)s->size,
				    (unsigned long long)(fp->pub.size - s->data_off));
	return TMX_OK;
}

/*
 * A reader over a section's content: the mapped bytes, or a decompressed
 * copy when the section is compressed (one block: csize, usize, data).
 */
static int section_reader(struct tdat_file_priv *fp, const struct section *s, struct rd *r,
			  struct tmx_error *err)
{
	uint32_t csize, usize;
	uint8_t *buf = NULL;
	size_t cap = 0;
	struct rd h;
	const uint8_t *in;
	int ret;

	rd_init_file(r, fp, s->data_off, section_name(s->id), err);
	r->n = (size_t)(s->data_off + s->size);
	if (!(s->flags & 1))
		return TMX_OK;
	h = *r;
	if ((ret = rd_u32(&h, &csize, "compressed size")) || (ret = rd_u32(&h, &usize, "uncompressed size")))
		return ret;
	if ((ret = rd_bytes(&h, csize, &in, "compressed data")))
		return ret;
	if (usize > fp->max_section)
		return tmx_error_at(err, TMX_ERR_LIMIT, fp->pub.path, s->data_off + 4,
				    "%s: uncompressed size %u is over the limit of %llu bytes",
				    section_name(s->id), usize, (unsigned long long)fp->max_section);
	if ((ret = tdat_decompress(fp->algo, in, csize, usize, &buf, &cap, fp->pub.path,
				   s->data_off + 8, err))) {
		free(buf);
		tmx_error_prefix(err, "%s", section_name(s->id));
		return ret;
	}
	if (!buf && !(buf = malloc(1)))
		return nomem(fp, err);
	if ((ret = own(fp, buf, err)))
		return ret;
	*r = (struct rd){ fp, buf, usize, 0, s->data_off, true, section_name(s->id), err };
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Metadata common to v6 and v7                                          */
/* ------------------------------------------------------------------ */

static int read_header_info(struct tdat_file_priv *fp, struct rd *r)
{
	const uint8_t *tag, *p;
	uint64_t n;
	int ret;

	if ((ret = rd_bytes(r, 12, &tag, "\"header_page\" tag")))
		return ret;
	if (memcmp(tag, "header_page", 12))
		return r->pos -= 12, rd_fail(r, "expected \"header_page\\0\"");
	if ((ret = rd_u64(r, &n, "header_page size")) || (ret = rd_bytes(r, n, &p, "header_page")))
		return ret;
	fp->pub.header_page = text_of(p, (size_t)n);
	if ((ret = rd_bytes(r, 13, &tag, "\"header_event\" tag")))
		return ret;
	if (memcmp(tag, "header_event", 13))
		return r->pos -= 13, rd_fail(r, "expected \"header_event\\0\"");
	if ((ret = rd_u64(r, &n, "header_event size")) || (ret = rd_bytes(r, n, &p, "header_event")))
		return ret;
	fp->pub.header_event = text_of(p, (size_t)n);
	if (!tdat_parse_header_page(fp->pub.header_page.ptr, fp->pub.header_page.len,
				    &fp->pub.kernel_long_size, &fp->pub.page_header_size)) {
		/* Not the usual layout: trust the initial format's long size. */
		fp->pub.kernel_long_size = fp->pub.long_size;
		fp->pub.page_header_size = 8 + fp->pub.long_size;
		tmx_warn(fp->opts.diag, "%s: header_page not understood; assuming a %u-byte commit",
			 fp->pub.path, fp->pub.long_size);
	}
	return TMX_OK;
}

static int add_format(struct tdat_file_priv *fp, struct tdat_format_file **arr, size_t *n,
		      size_t *cap, const char *system, const uint8_t *p, size_t len,
		      struct tmx_error *err)
{
	struct tdat_format_file *ff;
	const char *why = NULL;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		*arr = tmx_arena_grow(&fp->arena, *arr, *cap, nc, sizeof(**arr));
		if (!*arr)
			return nomem(fp, err);
		*cap = nc;
	}
	ff = &(*arr)[(*n)++];
	ff->system = system;
	ff->text = text_of(p, len);
	ff->event = NULL;
	if (tdat_parse_format(&fp->arena, system, (const char *)p, len,
			      fp->pub.kernel_long_size ? fp->pub.kernel_long_size : fp->pub.long_size,
			      &ff->event, &why)) {
		if (why && !strcmp(why, "out of memory"))
			return nomem(fp, err);
		tmx_warn(fp->opts.diag, "%s: a format file of system %s cannot be parsed (%s): its events "
			 "are skipped", fp->pub.path, system, why ? why : "?");
		ff->event = NULL;
	}
	return TMX_OK;
}

static int read_ftrace_formats(struct tdat_file_priv *fp, struct rd *r)
{
	uint32_t count;
	size_t cap = 0;
	int ret;

	if ((ret = rd_u32(r, &count, "ftrace format count")))
		return ret;
	if (count > MAX_FORMATS)
		return r->pos -= 4, rd_fail(r, "%u ftrace formats (limit %d)", count, MAX_FORMATS);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t n;
		const uint8_t *p;
		if ((ret = rd_u64(r, &n, "ftrace format size")) || (ret = rd_bytes(r, n, &p, "ftrace format")))
			return ret;
		if ((ret = add_format(fp, &fp->pub.ftrace_formats, &fp->pub.n_ftrace_formats, &cap,
				      "ftrace", p, (size_t)n, r->err)))
			return ret;
	}
	return TMX_OK;
}

static int read_event_formats(struct tdat_file_priv *fp, struct rd *r)
{
	uint32_t systems;
	size_t cap = 0;
	int ret;

	if ((ret = rd_u32(r, &systems, "event system count")))
		return ret;
	if (systems > MAX_FORMATS)
		return r->pos -= 4, rd_fail(r, "%u event systems (limit %d)", systems, MAX_FORMATS);
	fp->pub.n_systems = systems;
	for (uint32_t s = 0; s < systems; s++) {
		const char *name;
		uint32_t count;
		if ((ret = rd_str(r, &name, "event system name")) ||
		    (ret = rd_u32(r, &count, "event format count")))
			return ret;
		if (count > MAX_FORMATS)
			return r->pos -= 4, rd_fail(r, "%u event formats (limit %d)", count, MAX_FORMATS);
		for (uint32_t i = 0; i < count; i++) {
			uint64_t n;
			const uint8_t *p;
			if ((ret = rd_u64(r, &n, "event format size")) ||
			    (ret = rd_bytes(r, n, &p, "event format")))
				return ret;
			if ((ret = add_format(fp, &fp->pub.event_formats, &fp->pub.n_event_formats, &cap,
					      name, p, (size_t)n, r->err)))
				return ret;
		}
	}
	return TMX_OK;
}

static int read_sized_text(struct rd *r, int size_bytes, struct tdat_text *t, const char *item)
{
	uint64_t n;
	uint32_t n32;
	const uint8_t *p;
	int ret;

	if (size_bytes == 4) {
		if ((ret = rd_u32(r, &n32, item)))
			return ret;
		n = n32;
	} else if ((ret = rd_u64(r, &n, item))) {
		return ret;
	}
	if ((ret = rd_bytes(r, n, &p, item)))
		return ret;
	*t = text_of(p, (size_t)n);
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Options                                                               */
/* ------------------------------------------------------------------ */

struct open_state {
	uint64_t sec_off[32];          /* v7: section offsets from the options, by id */
	struct tdat_buffer *bufs;      /* buffers in option order */
	size_t n_bufs, cap_bufs;
	bool have_top;
	size_t cap_options, cap_cpustats;
	uint64_t last_options_end;
};

/* The clock name inside a trace_clock text: "[local] global ..." -> "local". */
static const char *clock_from_text(struct tdat_file_priv *fp, const char *p, size_t n)
{
	const char *o = memchr(p, '[', n), *c;
	if (!o)
		return NULL;
	c = memchr(o, ']', n - (size_t)(o - p));
	if (!c)
		return NULL;
	return tmx_arena_strndup(&fp->arena, o + 1, (size_t)(c - o - 1));
}

static struct tdat_buffer *new_buffer(struct tdat_file_priv *fp, struct open_state *st,
				      struct tmx_error *err)
{
	if (st->n_bufs >= MAX_BUFFERS) {
		tmx_error_set(err, TMX_ERR_LIMIT, fp->pub.path, "more than %d buffers", MAX_BUFFERS);
		return NULL;
	}
	if (st->n_bufs == st->cap_bufs) {
		size_t nc = st->cap_bufs ? st->cap_bufs * 2 : 4;
		st->bufs = tmx_arena_grow(&fp->arena, st->bufs, st->cap_bufs, nc, sizeof(*st->bufs));
		if (!st->bufs) {
			nomem(fp, err);
			return NULL;
		}
		st->cap_bufs = nc;
	}
	memset(&st->bufs[st->n_bufs], 0, sizeof(st->bufs[0]));
	return &st->bufs[st->n_bufs++];
}

static int option_buffer(struct tdat_file_priv *fp, struct open_state *st, struct rd *r,
			 uint16_t id, uint64_t opt_off)
{
	struct tdat_buffer *b = new_buffer(fp, st, r->err);
	uint64_t off;
	const char *name, *clock;
	int ret;

	if (!b)
		return r->err->code;
	if ((ret = rd_u64(r, &off, "buffer offset")) || (ret = rd_str(r, &name, "buffer name")))
		return ret;
	b->name = name;
	b->section_offset = off;
	b->page_size = fp->pub.page_size;
	if (!*name)
		st->have_top = true;
	if (fp->pub.version < 7) {
		/* v6: only the offset and the name; the data at offset is read later. */
		b->clock = NULL;
		return TMX_OK;
	}
	if ((ret = rd_str(r, &clock, "buffer clock")))
		return ret;
	b->clock = clock;
	if (id == TDAT_OPT_BUFFER_TEXT) {
		b->latency = true;
		return TMX_OK;
	}
	uint32_t ps, n;
	if ((ret = rd_u32(r, &ps, "buffer page size")) || (ret = rd_u32(r, &n, "buffer CPU count")))
		return ret;
	if (ps < 32 || ps > TDAT_MAX_PAGE_SIZE)
		return tmx_error_at(r->err, TMX_ERR_DATA, fp->pub.path, opt_off,
				    "BUFFER option of \"%s\": page size %u out of range (32..%u)", name,
				    ps, TDAT_MAX_PAGE_SIZE);
	if (n > MAX_CPUS || (uint64_t)n * 20 > r->n - r->pos)
		return rd_fail(r, "BUFFER option of \"%s\": %u CPUs do not fit in the option", name, n);
	b->page_size = ps;
	b->n_cpus = n;
	b->cpus = tmx_arena_calloc(&fp->arena, n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return nomem(fp, r->err);
	for (uint32_t i = 0; i < n; i++) {
		struct tdat_cpu_data *c = &b->cpus[i];
		if ((ret = rd_u32(r, &c->cpu, "CPU id")) || (ret = rd_u64(r, &c->offset, "CPU data offset")) ||
		    (ret = rd_u64(r, &c->size, "CPU data size")))
			return ret;
		for (uint32_t j = 0; j < i; j++)
			if (b->cpus[j].cpu == c->cpu)
				return rd_fail(r, "BUFFER option of \"%s\": CPU %u listed twice", name,
					       c->cpu);
	}
	return TMX_OK;
}

static uint64_t parse_ll(const uint8_t *p, size_t n)
{
	char tmp[64];
	size_t m = n < sizeof(tmp) - 1 ? n : sizeof(tmp) - 1;
	memcpy(tmp, p, m);
	tmp[m] = '\0';
	return (uint64_t)strtoll(tmp, NULL, 0);
}

static int option_time_shift(struct tdat_file_priv *fp, struct rd *r, uint32_t size)
{
	struct rd o = *r;
	uint64_t peer;
	uint32_t flags, cpus;
	int ret;

	/* trace-cmd ignores the option when it is shorter than 16 bytes. */
	if (size < 16)
		return TMX_OK;
	o.n = o.pos + size;
	if ((ret = rd_u64(&o, &peer, "TIME_SHIFT peer id")) || (ret = rd_u32(&o, &flags, "TIME_SHIFT flags")) ||
	    (ret = rd_u32(&o, &cpus, "TIME_SHIFT CPU count")))
		return ret;
	fp->pub.has_time_shift = true;
	if (cpus > MAX_CPUS || (uint64_t)cpus * 4 > o.n - o.pos)
		return rd_fail(&o, "TIME_SHIFT: %u CPUs do not fit in the option", cpus);
	fp->tsync_flags = flags;
	fp->tsync_cpus = cpus;
	fp->tsync_cpu = tmx_arena_calloc(&fp->arena, cpus ? cpus : 1, sizeof(*fp->tsync_cpu));
	if (!fp->tsync_cpu)
		return nomem(fp, r->err);
	for (uint32_t c = 0; c < cpus; c++) {
		uint32_t count;
		struct tdat_ts_cpu *tc = &fp->tsync_cpu[c];
		if ((ret = rd_u32(&o, &count, "TIME_SHIFT sample count")))
			return ret;
		if ((uint64_t)count * 24 > o.n - o.pos)
			return rd_fail(&o, "TIME_SHIFT: %u samples of CPU %u do not fit", count, c);
		tc->count = count;
		tc->samples = tmx_arena_calloc(&fp->arena, count ? count : 1, sizeof(*tc->samples));
		if (!tc->samples)
			return nomem(fp, r->err);
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, (uint64_t *)&tc->samples[k].time, "time");
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, (uint64_t *)&tc->samples[k].offset, "offset");
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, &tc->samples[k].scaling, "scaling");
	}
	/* Optional: per CPU, the scaling fraction bits. */
	for (uint32_t c = 0; c < cpus; c++) {
		struct tdat_ts_cpu *tc = &fp->tsync_cpu[c];
		if ((uint64_t)tc->count * 8 > o.n - o.pos)
			break;
		for (uint32_t k = 0; k < tc->count; k++) {
			uint64_t fr;
			rd_u64(&o, &fr, "fraction");
			tc->samples[k].fraction = fr > 63 ? 63 : (uint32_t)fr;
		}
	}
	/* trace-cmd's tracecmd_enable_tsync(): needs samples on every CPU listed. */
	fp->tsync = cpus > 0;
	for (uint32_t c = 0; c < cpus; c++)
		if (!fp->tsync_cpu[c].count)
			fp->tsync = false;
	return TMX_OK;
}

/* One option; r is positioned on its data (size bytes). */
static int handle_option(struct tdat_file_priv *fp, struct open_state *st, uint16_t id,
			 uint32_t size, struct rd *r, uint64_t data_off)
{
	struct tdat_file *f = &fp->pub;
	const uint8_t *p = r->p + r->pos;
	struct tdat_option *o;
	int ret = TMX_OK;

	if (f->n_options >= MAX_OPTIONS)
		return rd_fail(r, "more than %d options", MAX_OPTIONS);
	if (f->n_options == st->cap_options) {
		size_t nc = st->cap_options ? st->cap_options * 2 : 32;
		f->options = tmx_arena_grow(&fp->arena, f->options, st->cap_options, nc, sizeof(*f->options));
		if (!f->options)
			return nomem(fp, r->err);
		st->cap_options = nc;
	}
	o = &f->options[f->n_options++];
	*o = (struct tdat_option){ id, size, p, data_off };

	switch (id) {
	case TDAT_OPT_DATE:
		f->date = opt_string(p, size);
		/* trace-cmd: the value is in microseconds, added in ns. */
		/* Unsigned arithmetic: a file's values cannot overflow into UB. */
		f->ts_offset = (int64_t)((uint64_t)f->ts_offset + parse_ll(p, size) * 1000);
		break;
	case TDAT_OPT_OFFSET:
		f->offset_text = opt_string(p, size);
		f->ts_offset = (int64_t)((uint64_t)f->ts_offset + parse_ll(p, size));
		break;
	case TDAT_OPT_CPUSTAT:
		if (f->n_cpustats == st->cap_cpustats) {
			size_t nc = st->cap_cpustats ? st->cap_cpustats * 2 : 8;
			f->cpustats = tmx_arena_grow(&fp->arena, f->cpustats, st->cap_cpustats, nc,
						     sizeof(*f->cpustats));
			if (!f->cpustats)
				return nomem(fp, r->err);
			st->cap_cpustats = nc;
		}
		f->cpustats[f->n_cpustats++] = opt_string(p, size);
		break;
	case TDAT_OPT_BUFFER:
	case TDAT_OPT_BUFFER_TEXT: {
		struct rd o = *r;
		o.n = o.pos + size;
		ret = option_buffer(fp, st, &o, id, data_off);
		break;
	}
	case TDAT_OPT_TRACECLOCK:
		f->has_traceclock = true;
		f->traceclock = opt_string(p, size);
		break;
	case TDAT_OPT_UNAME:
		f->uname = opt_string(p, size);
		break;
	case TDAT_OPT_HOOK:
		f->hook = opt_string(p, size);
		break;
	case TDAT_OPT_CPUCOUNT:
		if (size >= 4) {
			f->has_cpucount = true;
			f->cpucount = tdat_read32(f, p);
			if (f->cpucount > f->max_cpu)
				f->max_cpu = f->cpucount;
		}
		break;
	case TDAT_OPT_VERSION:
		f->version_text = opt_string(p, size);
		break;
	case TDAT_OPT_PROCMAPS:
		f->procmaps = opt_string(p, size);
		break;
	case TDAT_OPT_TRACEID:
		if (size >= 8) {
			f->has_trace_id = true;
			f->trace_id = tdat_read64(f, p);
		}
		break;
	case TDAT_OPT_TIME_SHIFT:
		ret = option_time_shift(fp, r, size);
		break;
	case TDAT_OPT_TSC2NSEC:
		if (size >= 16) {
			f->has_tsc2nsec = true;
			f->tsc2nsec_mult = tdat_read32(f, p);
			f->tsc2nsec_shift = tdat_read32(f, p + 4);
			f->tsc2nsec_offset = tdat_read64(f, p + 8);
		}
		break;
	case TDAT_OPT_STRINGS:
		/* Names of sections may also come as an option: keep the last. */
		f->strings = text_of(p, size);
		break;
	case TDAT_OPT_HEADER_INFO:
	case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS:
	case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK:
	case TDAT_OPT_CMDLINES:
		if (size >= 8)
			st->sec_off[id] = tdat_read64(f, p);
		break;
	case TDAT_OPT_GUEST:
	default:
		/* GUEST matters only with the host's file; unknown options are kept raw. */
		break;
	}
	return ret;
}

/* v7: the chain of options sections from `off`. */
static int read_options_v7(struct tdat_file_priv *fp, struct open_state *st, uint64_t off,
			   struct tmx_error *err)
{
	uint64_t seen[MAX_OPTIONS_SECTIONS];
	size_t n_seen = 0;
	int ret;

	while (off) {
		struct section s;
		struct rd r;
		for (size_t i = 0; i < n_seen; i++)
			if (seen[i] == off)
				return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, off,
						    "options sections chain loops back to offset %llu",
						    (unsigned long long)off);
		if (n_seen == MAX_OPTIONS_SECTIONS)
			return tmx_error_at(err, TMX_ERR_LIMIT, fp->pub.path, off,
					    "more than %d options sections", MAX_OPTIONS_SECTIONS);
		seen[n_seen++] = off;
		if ((ret = section_header(fp, off, TDAT_SEC_OPTIONS, &s, err)) ||
		    (ret = section_reader(fp, &s, &r, err)))
			return ret;
		fp->pub.n_sections++;
		st->last_options_end = s.data_off + s.size;
		off = 0;
		for (;;) {
			uint16_t id;
			uint32_t size;
			uint64_t data_off;
			if ((ret = rd_u16(&r, &id, "option id")) || (ret = rd_u32(&r, &size, "option size")))
				return ret;
			data_off = r.unpacked ? r.base : r.base + r.pos;
			if ((ret = rd_need(&r, size, "option data")))
				return ret;
			if (id == TDAT_OPT_DONE) {
				if (size < 8)
					return rd_fail(&r, "DONE option of %u bytes, 8 expected", size);
				off = tdat_read64(&fp->pub, r.p + r.pos);
				if ((ret = handle_option(fp, st, id, size, &r, data_off)))
					return ret;
				break;
			}
			if ((ret = handle_option(fp, st, id, size, &r, data_off)))
				return ret;
			r.pos += size;
		}
	}
	return TMX_OK;
}

/* v6: options until an id of 0 (DONE has no size in v6). */
static int read_options_v6(struct tdat_file_priv *fp, struct open_state *st, struct rd *r)
{
	int ret;

	for (;;) {
		uint16_t id;
		uint32_t size;
		uint64_t data_off;
		if ((ret = rd_u16(r, &id, "option id")))
			return ret;
		if (id == TDAT_OPT_DONE)
			return TMX_OK;
		if ((ret = rd_u32(r, &size, "option size")))
			return ret;
		data_off = r->base + r->pos;
		if ((ret = rd_need(r, size, "option data")) ||
		    (ret = handle_option(fp, st, id, size, r, data_off)))
			return ret;
		r->pos += size;
	}
}

/* ------------------------------------------------------------------ */
/* CPU data                                                              */
/* ------------------------------------------------------------------ */

static int check_cpu_data(struct tdat_file_priv *fp, struct tdat_buffer *b, size_t bi,
			  struct tmx_error *err)
{
	struct tdat_cpu_priv *cp = tmx_arena_calloc(&fp->arena, b->n_cpus ? b->n_cpus : 1, sizeof(*cp));

	if (!cp)
		return nomem(fp, err);
	fp->cpu_priv[bi] = cp;
	for (uint32_t i = 0; i < b->n_cpus; i++) {
		struct tdat_cpu_data *c = &b->cpus[i];
		uint64_t extra = c->compressed ? 4 : 0;
		if (!c->size) {
			/* No data (compressed: no chunk; the size does not count the chunk count). */
			c->uncompressed_size = 0;
			continue;
		}
		if (c->offset > fp->pub.size || c->size + extra > fp->pub.size - c->offset ||
		    c->size > UINT64_MAX - extra)
			return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, c->offset,
					    "buffer \"%s\" CPU %u: data (offset %llu, %llu bytes) goes "
					    "beyond the end of the file (%llu bytes): truncated file?",
					    b->name, c->cpu, (unsigned long long)c->offset,
					    (unsigned long long)(c->size + extra),
					    (unsigned long long)fp->pub.size);
		if (!c->compressed) {
			c->uncompressed_size = c->size;
			continue;
		}
		/* Chunked: count, then (csize, usize, data) each; scan the headers. */
		struct rd r;
		uint32_t count;
		int ret;
		rd_init_file(&r, fp, c->offset, "compressed CPU data", err);
		r.n = (size_t)(c->offset + 4 + c->size);
		if ((ret = rd_u32(&r, &count, "chunk count")))
			return ret;
		if (count > MAX_CHUNKS || (uint64_t)count * 8 > r.n - r.pos)
			return r.pos -= 4, rd_fail(&r, "%u chunks do not fit in %llu bytes", count,
						   (unsigned long long)c->size);
		cp[i].chunks = tmx_arena_calloc(&fp->arena, count ? count : 1, sizeof(*cp[i].chunks));
		if (!cp[i].chunks)
			return nomem(fp, err);
		c->n_chunks = count;
		for (uint32_t k = 0; k < count; k++) {
			struct tdat_chunk *ch = &cp[i].chunks[k];
			const uint8_t *d;
			if ((ret = rd_u32(&r, &ch->csize, "chunk compressed size")) ||
			    (ret = rd_u32(&r, &ch->usize, "chunk uncompressed size")))
				return ret;
			if (ch->usize > TDAT_MAX_CHUNK_UNCOMPRESSED)
				return r.pos -= 4, rd_fail(&r, "chunk %u: uncompressed size %u over the "
							   "limit of %u bytes", k, ch->usize,
							   TDAT_MAX_CHUNK_UNCOMPRESSED);
			ch->offset = r.pos;
			if ((ret = rd_bytes(&r, ch->csize, &d, "chunk data")))
				return ret;
			c->uncompressed_size += ch->usize;
			if (ch->usize > cp[i].max_usize)
				cp[i].max_usize = ch->usize;
		}
	}
	return TMX_OK;
}

/* v7: each buffer's data section; latency text decompressed whole (it is text). */
static int read_buffer_sections(struct tdat_file_priv *fp, struct tmx_error *err)
{
	for (size_t bi = 0; bi < fp->pub.n_buffers; bi++) {
		struct tdat_buffer *b = &fp->pub.buffers[bi];
		struct section s;
		int ret;
		if (!b->section_offset && !b->n_cpus && !b->latency) {
			fp->cpu_priv[bi] = NULL;
			continue;
		}
		if ((ret = section_header(fp, b->section_offset,
					  b->latency ? TDAT_SEC_BUFFER_TEXT : TDAT_SEC_FLYRECORD, &s, err)))
			return ret;
		fp->pub.n_sections++;
		if (b->latency) {
			struct rd r;
			rd_init_file(&r, fp, s.data_off, "buffer latency section", err);
			r.n = (size_t)(s.data_off + s.size);
			if (!(s.flags & 1)) {
				b->latency_text = text_of(r.p + r.pos, (size_t)s.size);
				continue;
			}
			/* Chunked like flyrecord data: decompress them all, one after the other. */
			uint32_t count;
			uint8_t *buf = NULL, *tmp = NULL;
			size_t len = 0, tcap = 0;
			if ((ret = rd_u32(&r, &count, "chunk count")))
				return ret;
			for (uint32_t k = 0; k < count && !ret; k++) {
				uint32_t cs, us;
				const uint8_t *d;
				if ((ret = rd_u32(&r, &cs, "chunk compressed size")) ||
				    (ret = rd_u32(&r, &us, "chunk uncompressed size")) ||
				    (ret = rd_bytes(&r, cs, &d, "chunk data")))
					break;
				if (len + us > fp->max_section) {
					ret = rd_fail(&r, "latency text over the limit of %llu bytes",
						      (unsigned long long)fp->max_section);
					break;
				}
				if ((ret = tdat_decompress(fp->algo, d, cs, us, &tmp, &tcap, fp->pub.path,
							   r.base + r.pos - cs, err)))
					break;
				uint8_t *nb = realloc(buf, len + us + 1);
				if (!nb) {
					ret = nomem(fp, err);
					break;
				}
				buf = nb;
				memcpy(buf + len, tmp, us);
				len += us;
			}
			free(tmp);
			if (!ret && !buf && !(buf = malloc(1)))
				ret = nomem(fp, err);
			if (ret) {
				free(buf);
				return ret;
			}
			if ((ret = own(fp, buf, err)))
				return ret;
			b->latency_text = text_of(buf, len);
			continue;
		}
		for (uint32_t i = 0; i < b->n_cpus; i++)
			b->cpus[i].compressed = (s.flags & 1) != 0;
		if ((ret = check_cpu_data(fp, b, bi, err)))
			return ret;
	}
	return TMX_OK;
}

/* v6: "flyrecord\0" + (offset, size) per CPU [+ trace clock], or "latency  \0" + text. */
static int read_v6_data(struct tdat_file_priv *fp, struct tdat_buffer *b, struct rd *r,
			uint32_t cpus)
{
	const uint8_t *tag;
	int ret;

	if ((ret = rd_bytes(r, 10, &tag, "data tag")))
		return ret;
	if (!memcmp(tag, "options  ", 10)) {
		/* An instance may carry its own options: skipped, as trace-cmd does. */
		for (;;) {
			uint16_t id;
			uint32_t size;
			const uint8_t *d;
			if ((ret = rd_u16(r, &id, "option id")))
				return ret;
			if (!id)
				break;
			if ((ret = rd_u32(r, &size, "option size")) || (ret = rd_bytes(r, size, &d, "option")))
				return ret;
		}
		if ((ret = rd_bytes(r, 10, &tag, "data tag")))
			return ret;
	}
	if (!memcmp(tag, "latency  ", 10)) {
		b->latency = true;
		b->latency_text = text_of(r->p + r->pos, r->n - r->pos);
		r->pos = r->n;
		return TMX_OK;
	}
	if (memcmp(tag, "flyrecord", 10))
		return r->pos -= 10, rd_fail(r, "expected \"flyrecord\\0\" or \"latency  \\0\"");
	if (cpus > MAX_CPUS || (uint64_t)cpus * 16 > r->n - r->pos)
		return rd_fail(r, "%u CPUs: their (offset, size) pairs do not fit in the file", cpus);
	b->n_cpus = cpus;
	b->cpus = tmx_arena_calloc(&fp->arena, cpus ? cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return nomem(fp, r->err);
	for (uint32_t i = 0; i < cpus; i++) {
		b->cpus[i].cpu = i;
		if ((ret = rd_u64(r, &b->cpus[i].offset, "CPU data offset")) ||
		    (ret = rd_u64(r, &b->cpus[i].size, "CPU data size")))
			return ret;
	}
	if (fp->pub.has_traceclock) {
		/*
		 * trace-cmd: the clock follows when the file has TRACECLOCK; a
		 * damaged one falls back to "local".
		 */
		struct rd save = *r;
		struct tdat_text t;
		if (!read_sized_text(r, 8, &t, "trace clock"))
			b->clock = clock_from_text(fp, t.ptr, t.len);
		else
			*r = save;
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Opening                                                               */
/* ------------------------------------------------------------------ */

static int sort_events(struct tdat_file_priv *fp, struct tmx_error *err);

static int finish_buffers(struct tdat_file_priv *fp, struct open_state *st, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	size_t n = st->n_bufs + (st->have_top ? 0 : 1), k = 1;
	const char *top_clock = NULL;

	if (f->has_traceclock)
		top_clock = clock_from_text(fp, f->traceclock.ptr, f->traceclock.len);
	f->buffers = tmx_arena_calloc(&fp->arena, n, sizeof(*f->buffers));
	fp->cpu_priv = tmx_arena_calloc(&fp->arena, n, sizeof(*fp->cpu_priv));
	if (!f->buffers || !fp->cpu_priv)
		return nomem(fp, err);
	/* [0] is the top buffer, then instances in option order. */
	for (size_t i = 0; i < st->n_bufs; i++) {
		if (!*st->bufs[i].name && !f->buffers[0].name)
			f->buffers[0] = st->bufs[i];
		else
			f->buffers[k++] = st->bufs[i];
	}
	if (!f->buffers[0].name) {
		f->buffers[0].name = "";
		f->buffers[0].page_size = f->page_size;
	}
	f->n_buffers = k;
	for (size_t i = 0; i < f->n_buffers; i++) {
		if (!f->buffers[i].clock)
			f->buffers[i].clock = top_clock ? top_clock : "local";
	}
	return TMX_OK;
}

static int open_v7(struct tdat_file_priv *fp, struct rd *r, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct open_state st;
	const char *name, *ver;
	uint64_t first;
	int ret;

	memset(&st, 0, sizeof(st));
	if ((ret = rd_str(r, &name, "compression algorithm")) ||
	    (ret = rd_str(r, &ver, "compression version")) ||
	    (ret = rd_u64(r, &first, "first options section offset")))
		return ret;
	f->compression = name;
	f->compression_version = ver;
	if (!strcmp(name, "none"))
		fp->algo = TDAT_ALGO_NONE;
	else if (!strcmp(name, "zstd"))
		fp->algo = TDAT_ALGO_ZSTD;
	else if (!strcmp(name, "zlib"))
		fp->algo = TDAT_ALGO_ZLIB;
	else
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, f->path, (uint64_t)(name - (const char *)f->data),
				    "unknown compression algorithm \"%s\" (version \"%s\"): tracemux "
				    "reads \"none\", \"zstd\" and \"zlib\"", name, ver);
	if (!first)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r->pos - 8,
				    "no options section (offset 0)");
	if ((ret = read_options_v7(fp, &st, first, err)))
		return ret;
	/* A STRINGS section, when written, follows the last options section. */
	if (st.last_options_end + 16 <= f->size) {
		struct section s;
		struct rd sr;
		struct tmx_error e2;
		if (!section_header(fp, st.last_options_end, TDAT_SEC_STRINGS, &s, &e2) &&
		    !section_reader(fp, &s, &sr, &e2)) {
			f->strings = text_of(sr.p, sr.n - sr.pos);
			if (!sr.unpacked)
				f->strings = text_of(sr.p + sr.pos, (size_t)s.size);
			f->n_sections++;
		}
	}
	if (!st.sec_off[TDAT_OPT_HEADER_INFO])
		return tmx_error_at(err, TMX_ERR_DATA, f->path, first,
				    "no HEADER_INFO option: the page and event headers are unknown");
	static const int order[] = { TDAT_SEC_HEADER_INFO, TDAT_SEC_FTRACE_EVENTS,
				     TDAT_SEC_EVENT_FORMATS, TDAT_SEC_KALLSYMS, TDAT_SEC_PRINTK,
				     TDAT_SEC_CMDLINES };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int id = order[i];
		struct section s;
		struct rd sr;
		if (!st.sec_off[id])
			continue;
		if (fp->opts.skip_texts && (id == TDAT_SEC_KALLSYMS || id == TDAT_SEC_PRINTK ||
					    id == TDAT_SEC_CMDLINES)) {
			f->n_sections++;
			continue;
		}
		if ((ret = section_header(fp, st.sec_off[id], id, &s, err)) ||
		    (ret = section_reader(fp, &s, &sr, err)))
			return ret;
		f->n_sections++;
		switch (id) {
		case TDAT_SEC_HEADER_INFO: ret = read_header_info(fp, &sr); break;
		case TDAT_SEC_FTRACE_EVENTS: ret = read_ftrace_formats(fp, &sr); break;
		case TDAT_SEC_EVENT_FORMATS: ret = read_event_formats(fp, &sr); break;
		case TDAT_SEC_KALLSYMS: ret = read_sized_text(&sr, 4, &f->kallsyms, "kallsyms"); break;
		case TDAT_SEC_PRINTK: ret = read_sized_text(&sr, 4, &f->printk, "printk formats"); break;
		case TDAT_SEC_CMDLINES: ret = read_sized_text(&sr, 8, &f->cmdlines, "saved cmdlines"); break;
		}
		if (ret)
			return ret;
	}
	if ((ret = finish_buffers(fp, &st, err)))
		return ret;
	if (!f->has_cpucount) {
		for (size_t i = 0; i < f->n_buffers; i++)
			for (uint32_t c = 0; c < f->buffers[i].n_cpus; c++)
				if (f->buffers[i].cpus[c].cpu + 1 > f->max_cpu)
					f->max_cpu = f->buffers[i].cpus[c].cpu + 1;
	}
	return read_buffer_sections(fp, err);
}

static int open_v6(struct tdat_file_priv *fp, struct rd *r, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct open_state st;
	uint32_t cpus;
	const uint8_t *tag;
	int ret;

	memset(&st, 0, sizeof(st));
	f->compression = "none";
	f->compression_version = "";
	r->what = "header info";
	if ((ret = read_header_info(fp, r)))
		return ret;
	r->what = "ftrace formats";
	if ((ret = read_ftrace_formats(fp, r)))
		return ret;
	r->what = "event formats";
	if ((ret = read_event_formats(fp, r)))
		return ret;
	r->what = "kallsyms";
	if ((ret = read_sized_text(r, 4, &f->kallsyms, "kallsyms size")))
		return ret;
	r->what = "printk formats";
	if ((ret = read_sized_text(r, 4, &f->printk, "printk size")))
		return ret;
	r->what = "saved cmdlines";
	if ((ret = read_sized_text(r, 8, &f->cmdlines, "cmdlines size")))
		return ret;
	r->what = "CPU count";
	if ((ret = rd_u32(r, &cpus, "CPU count")))
		return ret;
	f->cpucount = cpus;
	f->max_cpu = cpus;
	r->what = "options";
	if ((ret = rd_need(r, 10, "options or data tag")))
		return ret;
	tag = r->p + r->pos;
	if (!memcmp(tag, "options  ", 10)) {
		r->pos += 10;
		if ((ret = read_options_v6(fp, &st, r)))
			return ret;
	}
	/* The top buffer's data follows; instances are at their BUFFER offsets. */
	struct tdat_buffer *top = NULL;
	for (size_t i = 0; i < st.n_bufs; i++)
		if (!*st.bufs[i].name)
			top = &st.bufs[i];
	if (!top) {
		if (!(top = new_buffer(fp, &st, err)))
			return err->code;
		top->name = "";
		top->page_size = f->page_size;
		st.have_top = true;
	}
	/* new_buffer may have moved the array: find the top again by name. */
	r->what = "flyrecord data";
	for (size_t i = 0; i < st.n_bufs; i++) {
		struct tdat_buffer *b = &st.bufs[i];
		b->page_size = f->page_size;
		if (!*b->name) {
			if ((ret = read_v6_data(fp, b, r, f->cpucount)))
				return ret;
		} else {
			struct rd ir;
			rd_init_file(&ir, fp, b->section_offset, "buffer instance data", err);
			if ((ret = read_v6_data(fp, b, &ir, f->cpucount)))
				return ret;
		}
	}
	if ((ret = finish_buffers(fp, &st, err)))
		return ret;
	for (size_t bi = 0; bi < f->n_buffers; bi++)
		if ((ret = check_cpu_data(fp, &f->buffers[bi], bi, err)))
			return ret;
	return TMX_OK;
}

static int cmp_event(const void *a, const void *b)
{
	const struct tdat_event *x = *(const struct tdat_event *const *)a;
	const struct tdat_event *y = *(const struct tdat_event *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int sort_events(struct tdat_file_priv *fp, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	size_t n = 0, total = f->n_ftrace_formats + f->n_event_formats;
	const struct tdat_event **evs = tmx_arena_calloc(&fp->arena, total ? total : 1, sizeof(*evs));
	uint32_t max_id = 0;

	if (!evs)
		return nomem(fp, err);
	for (size_t i = 0; i < f->n_ftrace_formats; i++)
		if (f->ftrace_formats[i].event)
			evs[n++] = f->ftrace_formats[i].event;
	for (size_t i = 0; i < f->n_event_formats; i++)
		if (f->event_formats[i].event)
			evs[n++] = f->event_formats[i].event;
	qsort(evs, n, sizeof(*evs), cmp_event);
	f->events = evs;
	f->n_events = n;
	for (size_t i = 0; i < n; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	fp->type_offset = 0;
	fp->type_size = 2;
	if (n && evs[0]->n_fields && !strcmp(evs[0]->fields[0].name, "common_type") &&
	    (evs[0]->fields[0].size == 1 || evs[0]->fields[0].size == 2 ||
	     evs[0]->fields[0].size == 4)) {
		fp->type_offset = evs[0]->fields[0].offset;
		fp->type_size = evs[0]->fields[0].size;
	}
	if (n && max_id < 65536) {
		fp->n_by_id = (size_t)max_id + 1;
		fp->by_id = tmx_arena_calloc(&fp->arena, fp->n_by_id, sizeof(*fp->by_id));
		if (!fp->by_id)
			return nomem(fp, err);
		/* Same id twice: the first one (ftrace formats come first), as libtraceevent. */
		for (size_t i = n; i-- > 0;)
			fp->by_id[evs[i]->id] = evs[i];
	}
	return TMX_OK;
}

const struct tdat_event *tdat_file_event(const struct tdat_file *f, uint32_t id)
{
	const struct tdat_file_priv *fp = tdat_priv(f);
	size_t lo = 0, hi = f->n_events;

	if (fp->by_id)
		return id < fp->n_by_id ? fp->by_id[id] : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->events[mid]->id < id)
			lo = mid + 1;
		else if (f->events[mid]->id > id)
			hi = mid;
		else
			return f->events[mid];
	}
	return NULL;
}

static int open_common(struct tdat_file_priv *fp, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct rd r;
	const uint8_t *m;
	const char *ver;
	uint32_t ps;
	const uint8_t *hdr;
	int ret;

	rd_init_file(&r, fp, 0, "initial format", err);
	if ((ret = rd_bytes(&r, TDAT_MAGIC_LEN, &m, "magic")))
		return ret;
	if (memcmp(m, TDAT_MAGIC, TDAT_MAGIC_LEN))
		return tmx_error_at(err, TMX_ERR_DATA, f->path, 0,
				    "not a trace.dat file: expected the magic 17 08 44 \"tracing\"");
	if ((ret = rd_str(&r, &ver, "version string")))
		return ret;
	if (!strcmp(ver, "6"))
		f->version = 6;
	else if (!strcmp(ver, "7"))
		f->version = 7;
	else
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, f->path, 10,
				    "trace.dat version \"%.16s\": tracemux reads versions 6 and 7", ver);
	if ((ret = rd_bytes(&r, 2, &hdr, "endianness and long size")))
		return ret;
	if (hdr[0] > 1)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 2,
				    "endianness byte %u (0: little, 1: big expected)", hdr[0]);
	f->big_endian = hdr[0] == 1;
	if (hdr[1] != 4 && hdr[1] != 8)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 1,
				    "long size %u (4 or 8 expected)", hdr[1]);
	f->long_size = hdr[1];
	if ((ret = rd_u32(&r, &ps, "page size")))
		return ret;
	if (ps < 32 || ps > TDAT_MAX_PAGE_SIZE)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 4,
				    "page size %u out of range (32..%u)", ps, TDAT_MAX_PAGE_SIZE);
	f->page_size = ps;
	ret = f->version == 7 ? open_v7(fp, &r, err) : open_v6(fp, &r, err);
	if (ret)
		return ret;
	if (!f->header_page.ptr)
		return tmx_error_set(err, TMX_ERR_DATA, f->path, "no header_page in the file");
	if ((ret = sort_events(fp, err)))
		return ret;
	/* trace-cmd prints usecs for these clocks or once TSC2NSEC converts. */
	const char *clock = f->buffers[0].clock;
	f->ts_in_ns = (f->has_tsc2nsec && f->tsc2nsec_mult) || !strcmp(clock, "local") ||
		      !strcmp(clock, "global") || !strcmp(clock, "uptime") || !strcmp(clock, "perf") ||
		      !strncmp(clock, "mono", 4) || !strcmp(clock, "tsc2nsec") ||
		      !strcmp(clock, "tai");
	return TMX_OK;
}

static int open_priv(struct tdat_file_priv *fp, const struct tdat_open_opts *opts,
		     struct tdat_file **out, struct tmx_error *err)
{
	int ret;

	if (opts)
		fp->opts = *opts;
	fp->max_section = TDAT_MAX_SECTION_UNCOMPRESSED;
	if (fp->opts.max_section && fp->opts.max_section < fp->max_section)
		fp->max_section = fp->opts.max_section;
	ret = open_common(fp, err);
	if (ret) {
		tdat_file_close(&fp->pub);
		return ret;
	}
	*out = &fp->pub;
	return TMX_OK;
}

int tdat_file_open(const char *path, const struct tdat_open_opts *opts, struct tdat_file **out,
		   struct tmx_error *err)
{
	struct tdat_file_priv *fp = calloc(1, sizeof(*fp));
	int ret;

	*out = NULL;
	if (!fp)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	tmx_arena_init(&fp->arena);
	if ((ret = tmx_mapfile_open(&fp->map, path, err))) {
		free(fp);
		return ret;
	}
	fp->mapped = true;
	fp->pub.path = fp->map.path;
	fp->pub.data = fp->map.data;
	fp->pub.size = fp->map.size;
	return open_priv(fp, opts, out, err);
}

int tdat_file_open_mem(const uint8_t *data, size_t size, const char *name,
		       const struct tdat_open_opts *opts, struct tdat_file **out,
		       struct tmx_error *err)
{
	struct tdat_file_priv *fp = calloc(1, sizeof(*fp));

	*out = NULL;
	if (!fp)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	tmx_arena_init(&fp->arena);
	fp->pub.path = tmx_arena_strdup(&fp->arena, name ? name : "(memory)");
	if (!fp->pub.path) {
		free(fp);
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	}
	fp->pub.data = size ? data : NULL;
	fp->pub.size = size;
	return open_priv(fp, opts, out, err);
}

void tdat_file_close(struct tdat_file *f)
{
	struct tdat_file_priv *fp;

	if (!f)
		return;
	fp = tdat_priv(f);
	for (size_t i = 0; i < fp->n_owned; i++)
		free(fp->owned[i]);
	free(fp->owned);
	tmx_arena_free(&fp->arena);
	if (fp->mapped)
		tmx_mapfile_close(&fp->map);
	free(fp);
}

/* ------------------------------------------------------------------ */
/* Time                                                                  */
/* ------------------------------------------------------------------ */

/* trace-cmd's mul_u64_u32_shr (from the kernel). */
static uint64_t mul_u64_u32_shr(uint64_t a, uint64_t mul, unsigned shift)
{
	uint32_t ah = (uint32_t)(a >> 32), al = (uint32_t)a;
	uint64_t ret;

	shift &= 63;
	ret = (al * mul) >> shift;
	if (ah)
		ret += shift <= 32 ? (ah * mul) << (32 - shift) : (ah * mul) >> (shift - 32);
	return ret;
}

static uint64_t correction(const struct tdat_file_priv *fp, uint64_t ts,
			   const struct tdat_ts_sample *min, const struct tdat_ts_sample *max)
{
	int64_t tscor;

	if (fp->tsync_flags & 1) {   /* TRACECMD_TSYNC_FLAG_INTERPOLATE */
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t off = (int64_t)(((uint64_t)ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));
		int64_t num, q;
		/* trace-cmd's (offset + delta / 2) / delta, without its overflows. */
		if (__builtin_add_overflow(off, delta / 2, &num))
			num = off;
		if (!delta)
			q = 0;
		else if (delta == -1)
			q = (int64_t)(0 - (uint64_t)num);
		else
			q = num / delta;
		tscor = (int64_t)((uint64_t)min->offset + (uint64_t)q);
	} else {
		tscor = min->offset;
	}
	ts = (ts * min->scaling) >> min->fraction;
	return ts + (uint64_t)tscor;
}

static uint64_t host_sync(const struct tdat_file_priv *fp, uint64_t ts, uint32_t cpu)
{
	const struct tdat_ts_cpu *t;
	uint32_t n;

	if (cpu >= fp->tsync_cpus)
		return ts;
	t = &fp->tsync_cpu[cpu];
	n = t->count;
	if (n == 1)
		return ts + (uint64_t)t->samples[0].offset;
	if (n == 2 || (int64_t)ts <= t->samples[0].time)
		return correction(fp, ts, &t->samples[0], &t->samples[1]);
	if ((int64_t)ts >= t->samples[n - 1].time)
		return correction(fp, ts, &t->samples[n - 2], &t->samples[n - 1]);
	/* The sample pair around ts (trace-cmd's binary search). */
	int64_t lo = 0, hi = n - 1, mid = (lo + hi) / 2;
	while (lo <= hi) {
		if ((int64_t)ts < t->samples[mid].time)
			hi = mid - 1;
		else if ((int64_t)ts > t->samples[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	if (mid < 0)
		mid = 0;
	if ((uint32_t)mid + 1 >= n)
		mid = n - 2;
	return correction(fp, ts, &t->samples[mid], &t->samples[mid + 1]);
}

uint64_t tdat_convert_ts_cpu(const struct tdat_file *f, uint64_t raw, uint32_t cpu)
{
	const struct tdat_file_priv *fp = tdat_priv(f);
	uint64_t ts = raw;

	if (fp->tsync)
		ts = host_sync(fp, ts, cpu);
	if (f->has_tsc2nsec && f->tsc2nsec_mult)
		ts = mul_u64_u32_shr(ts, f->tsc2nsec_mult, f->tsc2nsec_shift);
	return ts + (uint64_t)f->ts_offset;
}

uint64_t tdat_file_convert_ts(const struct tdat_file *f, uint64_t raw)
{
	return tdat_convert_ts_cpu(f, raw, 0);
}
