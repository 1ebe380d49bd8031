/*
 * The XRay file header and the FDR record producer: one record at a time,
 * as llvm's FileBasedRecordProducer and RecordInitializer read them, every
 * length checked against the bytes that remain.
 */
#include <inttypes.h>

#include "xray/internal.h"
#include "common/errors.h"

const char *const xr_raw_names[] = {
	[XR_RAW_FUNCTION] = "Function",
	[XR_RAW_NEW_BUFFER] = "NewBuffer",
	[XR_RAW_END_OF_BUFFER] = "EndOfBuffer",
	[XR_RAW_NEW_CPU] = "NewCPUId",
	[XR_RAW_TSC_WRAP] = "TSCWrap",
	[XR_RAW_WALLTIME] = "WalltimeMarker",
	[XR_RAW_CUSTOM] = "CustomEventMarker",
	[XR_RAW_CALL_ARG] = "CallArgument",
	[XR_RAW_EXTENTS] = "BufferExtents",
	[XR_RAW_TYPED] = "TypedEventMarker",
	[XR_RAW_PID] = "Pid",
};

int xr_parse_header(const uint8_t *data, size_t size, const char *path,
		    struct tmx_xray_header *h, struct tmx_error *err)
{
	uint32_t bits;

	if (size < XR_HEADER_SIZE)
		return tmx_error_at(err, TMX_ERR_DATA, path, 0,
				    "XRay file header: need 32 bytes, the file has %zu", size);
	h->version = xr_u16(data);
	h->type = xr_u16(data + 2);
	bits = xr_u32(data + 4);
	h->constant_tsc = bits & 1;
	h->nonstop_tsc = (bits >> 1) & 1;
	h->cycle_frequency = xr_u64(data + 8);
	h->buffer_size = 0;
	if (h->type == 1 && h->version >= 1 && h->version <= 5) {
		h->buffer_size = xr_u64(data + 16);
		return TMX_OK;
	}
	if (h->type == 0 && h->version >= 1 && h->version <= 3)
		return TMX_OK;
	if (h->type == 0 || h->type == 1)
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, path, 0,
				    "XRay %s log version %u is not supported (FDR: versions 1 to 5, "
				    "basic: versions 1 to 3)",
				    h->type ? "FDR" : "basic", h->version);
	return tmx_error_at(err, TMX_ERR_UNSUPPORTED, path, 2,
			    "not an XRay log: header type %u (version %u); expected type 0 "
			    "(basic mode) or 1 (FDR mode)", h->type, h->version);
}

/*
 * v3+: llvm seeks byte by byte for the next BufferExtents introducer (0x0F)
 * once the current buffer is used up, skipping whatever lies between.
 */
static int next_extents(const struct xr_file *f, struct xr_prod *p, struct xr_raw *r,
			struct tmx_error *err)
{
	const uint8_t *d = f->map.data;
	uint64_t size = f->map.size, off = p->off;

	while (off < size && d[off] != (7 << 1 | 1))
		off++;
	if (off >= size)
		return tmx_error_at(err, TMX_ERR_DATA, f->map.path, p->off,
				    "FDR: %" PRIu64 " trailing byte%s without a BufferExtents record "
				    "(0x0f) after the last buffer",
				    size - p->off, size - p->off == 1 ? "" : "s");
	if (size - off < XR_FDR_META_SIZE)
		return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
				    "FDR: BufferExtents record truncated: %" PRIu64
				    " of 16 bytes before the end of the file", size - off);
	*r = (struct xr_raw){ .kind = XR_RAW_EXTENTS, .off = off, .u64 = xr_u64(d + off + 1) };
	p->extent_left = r->u64;
	p->off = off + XR_FDR_META_SIZE;
	return TMX_OK;
}

int xr_fdr_produce(const struct xr_file *f, struct xr_prod *p, struct xr_raw *r,
		   struct tmx_error *err)
{
	const uint8_t *d = f->map.data, *rec;
	uint64_t size = f->map.size, off = p->off, len, left = size - off;
	unsigned version = f->h.version;
	uint8_t b;

	if (version >= 3 && p->extent_left == 0)
		return next_extents(f, p, r, err);
	rec = d + off;
	b = rec[0];
	if (xr_fdr_is_function(b)) {
		uint32_t w;
		if (left < XR_FDR_FUNC_SIZE) {
			*r = (struct xr_raw){ .kind = XR_RAW_FUNCTION, .off = off };
			r->crosses = version >= 3 && p->extent_left < XR_FDR_FUNC_SIZE;
			return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
					    "FDR: function record truncated: %" PRIu64
					    " of 8 bytes before the end of the file", left);
		}
		w = xr_u32(rec);
		*r = (struct xr_raw){ .kind = XR_RAW_FUNCTION, .off = off };
		r->fkind = (uint8_t)xr_fdr_func_kind(b);
		if (!xr_fdr_function_ok(b))
			return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
					    "FDR: unknown function record kind %u (0 enter, 1 exit, "
					    "2 tail exit, 3 enter with arguments)", r->fkind);
		r->func_id = w >> 4;
		r->delta = xr_u32(rec + 4);
		len = XR_FDR_FUNC_SIZE;
	} else {
		unsigned kind = b >> 1;
		static const uint8_t raw_of_kind[10] = {
			XR_RAW_NEW_BUFFER, XR_RAW_END_OF_BUFFER, XR_RAW_NEW_CPU, XR_RAW_TSC_WRAP,
			XR_RAW_WALLTIME, XR_RAW_CUSTOM, XR_RAW_CALL_ARG, XR_RAW_EXTENTS,
			XR_RAW_TYPED, XR_RAW_PID,
		};
		if (kind >= 10)
			return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
					    "FDR: unknown metadata record kind %u (byte 0x%02x; kinds "
					    "are 0 to 9)", kind, b);
		if (left < XR_FDR_META_SIZE) {
			*r = (struct xr_raw){ .kind = raw_of_kind[kind], .off = off };
			r->crosses = version >= 3 && p->extent_left < XR_FDR_META_SIZE;
			return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
					    "FDR: %s record truncated: %" PRIu64
					    " of 16 bytes before the end of the file",
					    xr_raw_names[raw_of_kind[kind]], left);
		}
		*r = (struct xr_raw){ .kind = raw_of_kind[kind], .off = off };
		len = XR_FDR_META_SIZE;
		switch (r->kind) {
		case XR_RAW_END_OF_BUFFER:
			if (version >= 2)
				return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
						    "FDR: EndOfBuffer record in a version %u log "
						    "(only version 1 has them)", version);
			break;
		case XR_RAW_NEW_BUFFER:
		case XR_RAW_PID:
			r->i32 = (int32_t)xr_u32(rec + 1);
			break;
		case XR_RAW_NEW_CPU:
			r->cpu = xr_u16(rec + 1);
			r->u64 = xr_u64(rec + 3);
			break;
		case XR_RAW_TSC_WRAP:
		case XR_RAW_CALL_ARG:
		case XR_RAW_EXTENTS:
			r->u64 = xr_u64(rec + 1);
			break;
		case XR_RAW_WALLTIME:
			r->u64 = xr_u64(rec + 1);
			r->usec = xr_u32(rec + 9);
			break;
		case XR_RAW_CUSTOM:
		case XR_RAW_TYPED: {
			int32_t n = (int32_t)xr_u32(rec + 1);
			if (n <= 0)
				return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
						    "FDR: %s with payload size %" PRId32
						    " (must be > 0)", xr_raw_names[r->kind], n);
			if (r->kind == XR_RAW_TYPED || version >= 5) {
				r->i32 = (int32_t)xr_u32(rec + 5);
				if (r->kind == XR_RAW_TYPED)
					r->event_type = xr_u16(rec + 9);
			} else {
				r->has_tsc = true;
				r->u64 = xr_u64(rec + 5);
				/*
				 * The CPU field exists from v4 on, but llvm-xray 14 reads
				 * these two bytes in every version (unused garbage before
				 * v4): so do we, to print what it prints.
				 */
				r->cpu = xr_u16(rec + 13);
			}
			if ((uint64_t)n > left - XR_FDR_META_SIZE) {
				r->crosses = version >= 3 &&
					     p->extent_left < XR_FDR_META_SIZE + (uint64_t)n;
				return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
						    "FDR: %s payload truncated: %" PRId32
						    " bytes announced, %" PRIu64
						    " before the end of the file",
						    xr_raw_names[r->kind], n, left - XR_FDR_META_SIZE);
			}
			r->data = rec + XR_FDR_META_SIZE;
			r->data_size = (uint32_t)n;
			len += (uint32_t)n;
			break;
		}
		default:
			break;
		}
	}
	if (r->kind == XR_RAW_EXTENTS) {
		p->extent_left = r->u64;
	} else if (version >= 3) {
		if (len > p->extent_left) {
			r->crosses = true;
			return tmx_error_at(err, TMX_ERR_DATA, f->map.path, off,
					    "FDR: %s record of %" PRIu64 " bytes crosses the end of "
					    "its buffer (%" PRIu64 " bytes left by BufferExtents)",
					    xr_raw_names[r->kind], len, p->extent_left);
		}
		p->extent_left -= len;
	}
	p->off = off + len;
	if (r->kind == XR_RAW_NEW_BUFFER)
		p->block_start = off;
	/*
	 * v1 buffers were written whole: after EndOfBuffer, the rest of the
	 * buffer (buffer_size from its NewBuffer) is fill, skipped.
	 */
	if (r->kind == XR_RAW_END_OF_BUFFER && f->h.buffer_size &&
	    f->h.buffer_size <= size - p->block_start &&
	    p->block_start + f->h.buffer_size > p->off)
		p->off = p->block_start + f->h.buffer_size;
	return TMX_OK;
}
