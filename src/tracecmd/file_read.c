/*
 * Reading a trace.dat safely: numbers in the file's byte order, and a
 * reader that checks every size against the bytes that remain before it
 * reads, over the mapped file or a decompressed section (errors give the
 * file offset, or the section's and the position in its data); the v7
 * section headers and their (possibly compressed) content.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/file_impl.h"

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

void rd_init_file(struct rd *r, struct tdat_file_priv *fp, uint64_t off, const char *what,
		  struct tmx_error *err)
{
	*r = (struct rd){ fp, fp->pub.data, fp->pub.size, (size_t)off, 0, false, what, err };
}

__attribute__((format(printf, 2, 3)))
int rd_fail(struct rd *r, const char *fmt, ...)
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

int rd_need(struct rd *r, uint64_t n, const char *item)
{
	if (r->pos > r->n || n > r->n - r->pos)
		return rd_fail(r, "%s needs %llu bytes, only %zu remain", item,
			       (unsigned long long)n, r->pos > r->n ? 0 : r->n - r->pos);
	return TMX_OK;
}

int rd_u16(struct rd *r, uint16_t *v, const char *item)
{
	int ret = rd_need(r, 2, item);
	if (!ret) {
		*v = tdat_read16(&r->fp->pub, r->p + r->pos);
		r->pos += 2;
	}
	return ret;
}

int rd_u32(struct rd *r, uint32_t *v, const char *item)
{
	int ret = rd_need(r, 4, item);
	if (!ret) {
		*v = tdat_read32(&r->fp->pub, r->p + r->pos);
		r->pos += 4;
	}
	return ret;
}

int rd_u64(struct rd *r, uint64_t *v, const char *item)
{
	int ret = rd_need(r, 8, item);
	if (!ret) {
		*v = tdat_read64(&r->fp->pub, r->p + r->pos);
		r->pos += 8;
	}
	return ret;
}

int rd_bytes(struct rd *r, uint64_t n, const uint8_t **out, const char *item)
{
	int ret = rd_need(r, n, item);
	if (!ret) {
		*out = r->p + r->pos;
		r->pos += (size_t)n;
	}
	return ret;
}

/* A NUL-terminated string inside the data; *out points to it (terminated). */
int rd_str(struct rd *r, const char **out, const char *item)
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

int tdat_read_sized_text(struct rd *r, int size_bytes, struct tdat_text *t, const char *item)
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

int tdat_own(struct tdat_file_priv *fp, void *p, struct tmx_error *err)
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

/* ------------------------------------------------------------------ */
/* v7 sections                                                           */
/* ------------------------------------------------------------------ */

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

int tdat_section_header(struct tdat_file_priv *fp, uint64_t off, int expect_id,
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
int tdat_section_reader(struct tdat_file_priv *fp, const struct section *s, struct rd *r,
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
	if ((ret = tdat_own(fp, buf, err)))
		return ret;
	*r = (struct rd){ fp, buf, usize, 0, s->data_off, true, section_name(s->id), err };
	return TMX_OK;
}
