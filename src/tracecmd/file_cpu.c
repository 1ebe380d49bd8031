/*
 * Where each CPU's ring-buffer data is: v7 buffer sections (flyrecord, or
 * latency text decompressed whole), v6 flyrecord/latency data after the
 * options or at an instance's offset; every CPU's data checked against the
 * file's size, compressed chunk headers scanned (sizes within limits) so
 * that cursors can decompress one chunk at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "tracecmd/file_impl.h"

int tdat_check_cpu_data(struct tdat_file_priv *fp, struct tdat_buffer *b, size_t bi,
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
			ch->ubase = c->uncompressed_size;
			c->uncompressed_size += ch->usize;
			if (ch->usize > cp[i].max_usize)
				cp[i].max_usize = ch->usize;
		}
	}
	return TMX_OK;
}

/* v7: each buffer's data section; latency text decompressed whole (it is text). */
int tdat_read_buffer_sections(struct tdat_file_priv *fp, struct tmx_error *err)
{
	for (size_t bi = 0; bi < fp->pub.n_buffers; bi++) {
		struct tdat_buffer *b = &fp->pub.buffers[bi];
		struct section s;
		int ret;
		if (!b->section_offset && !b->n_cpus && !b->latency) {
			fp->cpu_priv[bi] = NULL;
			continue;
		}
		if ((ret = tdat_section_header(fp, b->section_offset,
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
			if ((ret = tdat_own(fp, buf, err)))
				return ret;
			b->latency_text = text_of(buf, len);
			continue;
		}
		for (uint32_t i = 0; i < b->n_cpus; i++)
			b->cpus[i].compressed = (s.flags & 1) != 0;
		if ((ret = tdat_check_cpu_data(fp, b, bi, err)))
			return ret;
	}
	return TMX_OK;
}

/* v6: "flyrecord\0" + (offset, size) per CPU [+ trace clock], or "latency  \0" + text. */
int tdat_read_v6_data(struct tdat_file_priv *fp, struct tdat_buffer *b, struct rd *r,
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
		if (!tdat_read_sized_text(r, 8, &t, "trace clock"))
			b->clock = tdat_clock_from_text(fp, t.ptr, t.len);
		else
			*r = save;
	}
	return TMX_OK;
}
