/*
 * Running a scope's compiled plan (ctf/plan.h): the fast way of decoding
 * that ctf/decode.c uses.  Runs of fixed-size fields are read with one
 * bounds check; everything else, and every run that does not fit or would
 * break the byte order rule, goes through the tree walk's per-field
 * functions (decode.c), so that values and errors are the walk's.
 */
#include <string.h>

#include "ctf/decode_impl.h"
#include "ctf/plan.h"
#include "io/bitread.h"
#include "common/errors.h"
#include "model/field_class.h"

/*
 * Decodes run items one by one, as the walk does: used when the run does
 * not fit in the packet, or when an item changes the byte order inside a
 * byte, so that the walk reports the error at the exact field.
 */
static int run_items_slowly(struct ctf_decoder *d, const struct ctf_run_item *it,
			    const struct ctf_run_item *end, struct ctf_values *vals,
			    size_t *scope_index, struct tmx_error *err)
{
	for (; it < end; it++) {
		int ret;
		if (it->code == CTF_IC_STRUCT_SCOPE)
			scope_index[it->scope] = vals->n;
		if (it->kind == CTF_ITEM_STRUCT) {
			/* The structure alone: its members are the next items. */
			ret = align_to(d, it->fc->align, it->fc, err);
			if (!ret)
				values_push(vals, it->fc)->n_members = it->len;
		} else {
			ret = ctf_decode_field(d, it->fc, vals, err);
		}
		if (ret)
			return ret;
	}
	return TMX_OK;
}

/*
 * tmx_read_bits with one 8-byte load when the 8 bytes from the field's
 * first byte lie inside the content (bits [0, limit) of base).
 */
static inline uint64_t read_bits_fast(const uint8_t *base, uint64_t pos, unsigned len, int be,
				      uint64_t limit)
{
	unsigned shift = (unsigned)(pos & 7);

	if (shift + len <= 64 && (pos & ~UINT64_C(7)) + 64 <= limit) {
		const uint8_t *q = base + pos / 8;
		uint64_t w;
		if (be)
			return (tmx_be64(q) << shift) >> (64 - len);
		w = tmx_le64(q) >> shift;
		return len == 64 ? w : w & ((UINT64_C(1) << len) - 1);
	}
	return tmx_read_bits(base, pos, len, be);
}

static uint64_t put_reversed(struct tmx_value *v, const struct ctf_run_item *it, uint64_t u);

/*
 * An integer or float item's value from its bits, converted as `conv`
 * says; returns the field's unsigned value (what note_item records): the
 * bits as read, or reversed.
 */
static inline uint64_t put_number_as(struct tmx_value *v, const struct ctf_run_item *it,
				     uint8_t conv, uint64_t u)
{
	switch (conv) {
	case CTF_CONV_U:
		v->u = u;
		break;
	case CTF_CONV_S:
		v->s = tmx_sign_extend(u, it->len);
		break;
	case CTF_CONV_BOOL:
		v->u = u != 0;
		break;
	case CTF_CONV_F32: {
		uint32_t u32 = (uint32_t)u;
		float f;
		memcpy(&f, &u32, sizeof(f));
		v->d = f;
		break;
	}
	case CTF_CONV_F64:
		memcpy(&v->d, &u, sizeof(v->d));
		break;
	default:
		return put_reversed(v, it, u);
	}
	return u;
}

/* A CTF 2 field of the opposite bit order: its bits reversed, then converted. */
static __attribute__((noinline)) uint64_t put_reversed(struct tmx_value *v,
						       const struct ctf_run_item *it, uint64_t u)
{
	u = tmx_reverse_bits(u, it->len);
	return put_number_as(v, it, it->rev, u);
}

static inline uint64_t put_number(struct tmx_value *v, const struct ctf_run_item *it, uint64_t u)
{
	return put_number_as(v, it, it->conv, u);
}

/*
 * The items [it, end) of a run that starts at bit `start` and lies inside
 * the content (the caller checked).  The walk's byte order state is kept
 * in bo_end_p and bo_last_p as the last bit-level item left it (aligned
 * items leave no shared byte: see ctf_op.bo_max).  Returns NULL, or the item
 * that would change the byte order inside a byte (nothing of it done).
 */
static inline __attribute__((always_inline)) const struct ctf_run_item *
run_fast(struct ctf_decoder *d, const struct ctf_run_item *it, const struct ctf_run_item *end,
	 uint64_t start, struct tmx_value *v, size_t *scope_index, size_t n0,
	 uint64_t *bo_end_p, uint8_t *bo_last_p, bool may_bits)
{
	/* may_bits: the items may be CTF_IC_BITS ones (a constant: two versions of the loop). */
	const struct ctf_run_item *first = it;
	const uint8_t *base = d->base;
	/* Byte-addressed items are only in runs that start on a byte. */
	const uint8_t *p = base + start / 8;
	const uint64_t limit = d->limit;
	uint64_t bo_end = *bo_end_p;
	uint8_t bo_last = *bo_last_p;

	for (; it < end; it++, v++) {
		const uint8_t *q = p + it->off / 8;
		uint64_t u;

		v->fc = it->fc;
		switch (it->code) {
		case CTF_IC_U8:
			v->u = q[0];
			continue;
		case CTF_IC_S8:
			v->s = (int8_t)q[0];
			continue;
		case CTF_IC_LE16U:
			v->u = tmx_le16(q);
			continue;
		case CTF_IC_LE16S:
			v->s = (int16_t)tmx_le16(q);
			continue;
		case CTF_IC_LE32U:
			v->u = tmx_le32(q);
			continue;
		case CTF_IC_LE32S:
			v->s = (int32_t)tmx_le32(q);
			continue;
		case CTF_IC_LE64:
			v->u = tmx_le64(q);
			continue;
		case CTF_IC_BE16U:
			v->u = tmx_be16(q);
			continue;
		case CTF_IC_BE16S:
			v->s = (int16_t)tmx_be16(q);
			continue;
		case CTF_IC_BE32U:
			v->u = tmx_be32(q);
			continue;
		case CTF_IC_BE32S:
			v->s = (int32_t)tmx_be32(q);
			continue;
		case CTF_IC_BE64:
			v->u = tmx_be64(q);
			continue;
		case CTF_IC_STRUCT:
			v->n_members = it->len;
			continue;
		case CTF_IC_STRUCT_SCOPE:
			scope_index[it->scope] = n0 + (size_t)(it - first);
			v->n_members = it->len;
			continue;
		case CTF_IC_TEXT:
			v->str.ptr = (const char *)q;
			v->str.len = it->len;
			continue;
		case CTF_IC_SSTR: {
			/* ctf_decode_string_ext: the text ends at the first NUL. */
			const uint8_t *nul = memchr(q, 0, it->len);
			v->str.ptr = (const char *)q;
			v->str.len = nul ? (uint64_t)(nul - q) : it->len;
			continue;
		}
		case CTF_IC_ALIGNED:
			u = tmx_read_aligned(q, it->len / 8, it->be);
			break;
		default: {
			/* CTF_IC_BITS: ctf_decode_integer / ctf_decode_float, less the bounds checks. */
			uint64_t pos = start + it->off;
			if (!may_bits)
				__builtin_unreachable();
			if (it->conv < CTF_CONV_F32 && (pos & 7) == 0 && (it->len & 7) == 0) {
				u = tmx_read_aligned(base + pos / 8, it->len / 8, it->be);
				bo_end = UINT64_MAX;
				break;
			}
			if ((pos & 7) && pos == bo_end && it->be != bo_last) {
				*bo_end_p = bo_end;
				*bo_last_p = bo_last;
				return it;
			}
			u = read_bits_fast(base, pos, it->len, it->be, limit);
			bo_end = pos + it->len;
			bo_last = it->be;
			break;
		}
		}
		u = put_number(v, it, u);
		if (it->note)
			note_item(d, it, u);
	}
	*bo_end_p = bo_end;
	*bo_last_p = bo_last;
	return NULL;
}

/*
 * The walk's bo_end just before item `it` of a run (after `first`):
 * set by the last bit-level or aligned item before it, else `before`.
 */
static uint64_t bo_end_before(const struct ctf_run_item *first, const struct ctf_run_item *it,
			      uint64_t local, uint64_t before)
{
	while (it > first) {
		--it;
		if (it->kind == CTF_ITEM_ALIGNED)
			return UINT64_MAX;
		if (it->kind == CTF_ITEM_BITS)
			return local;
	}
	return before;
}

/*
 * A run (see ctf/plan.h): when it fits, one bounds check covers every
 * item; else, or at an item that would change the byte order inside a
 * byte, the items are decoded as the walk decodes them, for its error.
 */
static inline __attribute__((always_inline)) int
run_items(struct ctf_decoder *d, const struct ctf_plan *pl, const struct ctf_op *op,
	  struct ctf_values *vals, size_t *scope_index, struct tmx_error *err, bool may_bits)
{
	const struct ctf_run_item *first = pl->items + op->a, *end = first + op->b, *it;
	const uint64_t limit = d->limit;
	const uint64_t start = (d->pos + op->align - 1) & ~(uint64_t)(op->align - 1);
	const size_t n0 = vals->n;   /* every item pushes one value */
	uint64_t bo_end = d->bo_end;
	uint8_t bo_last = d->bo_last;

	if (__builtin_expect(start > limit || op->bits > limit - start, 0))
		return run_items_slowly(d, first, end, vals, scope_index, err);
	it = run_fast(d, first, end, start, vals->v + n0, scope_index, n0, &bo_end, &bo_last,
		      may_bits);
	if (__builtin_expect(it == NULL, 1)) {
		vals->n = n0 + op->b;
		d->pos = start + op->bits;
		d->bo_end = op->bo_max ? UINT64_MAX : bo_end;
		d->bo_last = bo_last;
		return TMX_OK;
	}
	/* Where the walk would be: right after the previous item, in its state. */
	vals->n = n0 + (size_t)(it - first);
	if (it != first)
		d->pos = start + it[-1].end;
	d->bo_end = bo_end_before(first, it, bo_end, bo_end);
	d->bo_last = bo_last;
	return run_items_slowly(d, it, end, vals, scope_index, err);
}

/* run_items, out of line: the hot call site in ctf_run_plan keeps it inline. */
static __attribute__((noinline)) int run_items_outlined(struct ctf_decoder *d,
							const struct ctf_plan *pl,
							const struct ctf_op *op,
							struct ctf_values *vals,
							struct tmx_error *err)
{
	return run_items(d, pl, op, vals, NULL, err, true);
}

/*
 * `count` elements of an array whose element is one run (ops[a] of `op`,
 * the ARRAY op), after its value.  When the element's size is a multiple
 * of its alignment, the elements are contiguous: one bounds check and one
 * loop cover them all.  Otherwise, or when they do not all fit, element
 * after element (each exact, as above).
 */
static __attribute__((noinline)) int run_elements(struct ctf_decoder *d,
						  const struct ctf_plan *pl,
						  const struct ctf_op *eop, uint64_t count,
						  struct ctf_values *vals, struct tmx_error *err)
{
	const struct ctf_run_item *first = pl->items + eop->a, *end = first + eop->b, *it = NULL;
	const uint64_t limit = d->limit, bits = eop->bits;
	const uint64_t start = (d->pos + eop->align - 1) & ~(uint64_t)(eop->align - 1);
	const size_t n0 = vals->n;
	uint64_t bo_end = d->bo_end, k = 0;
	uint8_t bo_last = d->bo_last;
	int ret = TMX_OK;

	if (bits % eop->align == 0 && start <= limit && (bits == 0 || count <= (limit - start) / bits) &&
	    count <= (SIZE_MAX / sizeof(struct tmx_value) - n0) / (eop->b + 1)) {
		ret = values_reserve(vals, (size_t)count * eop->b, err);
		if (ret)
			return ret;
		for (; k < count; k++) {
			it = run_fast(d, first, end, start + k * bits, vals->v + n0 + k * eop->b, NULL,
				      0, &bo_end, &bo_last, true);
			if (__builtin_expect(it != NULL, 0))
				break;
		}
		if (!it) {
			vals->n = n0 + (size_t)count * eop->b;
			d->pos = start + count * bits;
			d->bo_end = eop->bo_max ? UINT64_MAX : bo_end;
			d->bo_last = bo_last;
			return TMX_OK;
		}
		/* Element k breaks the byte order rule at item `it`: as the walk. */
		vals->n = n0 + (size_t)k * eop->b + (size_t)(it - first);
		if (it != first)
			d->pos = start + k * bits + it[-1].end;
		else if (k > 0)
			d->pos = start + k * bits;
		d->bo_end = bo_end_before(first, it, bo_end,
					  k > 0 && eop->bo_max ? UINT64_MAX : bo_end);
		d->bo_last = bo_last;
		ret = run_items_slowly(d, it, end, vals, NULL, err);
		k++;
	}
	for (; k < count && !ret; k++) {
		ret = values_reserve(vals, eop->b, err);
		if (!ret)
			ret = run_items_outlined(d, pl, eop, vals, err);
	}
	return ret;
}

/*
 * ctf_decode_field + decode_array up to the elements.  Returns the number of
 * element blocks still to run in *length (0 when the array was decoded
 * whole: text, plain bytes, or no elements).
 */
static int array_start(struct ctf_decoder *d, const struct ctf_op *op, struct ctf_values *vals,
		       uint64_t *length, struct tmx_error *err)
{
	const struct tmx_field_class *fc = op->fc, *e = fc->elem;
	uint64_t n = fc->kind == TMX_FC_SEQUENCE ? d->slots[fc->ref_slot] : fc->length;
	int ret = align_to(d, op->align, fc, err);

	*length = 0;
	if (ret)
		return ret;
	/* Element alignment applies even to an empty array. */
	ret = align_to(d, e->align, fc, err);
	if (ret)
		return ret;
	if (fc->is_text)
		return ctf_decode_text(d, fc, n, vals, err);
	if (!op->bits && n > CTF_MAX_EMPTY_ELEMENTS)
		return ctf_too_many_empty(d, n, err);
	if (op->byte_elem && d->pos % 8 == 0 && n <= (d->limit - d->pos) / e->size)
		return ctf_decode_byte_int_array(d, fc, n, vals, err);
	values_push(vals, fc)->count = n;
	*length = n;
	return TMX_OK;
}

/* ctf_decode_field + decode_variant up to the option: its index in *option. */
static int variant_start(struct ctf_decoder *d, const struct ctf_plan *pl,
			 const struct ctf_op *op, struct ctf_values *vals, uint32_t *option,
			 struct tmx_error *err)
{
	const struct tmx_field_class *fc = op->fc;
	uint64_t tag_value = d->slots[fc->ref_slot];
	int o, ret = align_to(d, op->align, fc, err);

	if (ret)
		return ret;
	o = op->has_table && tag_value < CTF_VARIANT_TABLE ? pl->tags[op->b + tag_value] :
	    ctf_variant_select(fc, tag_value);
	if (o < 0)
		return ctf_no_option(d, fc, tag_value, err);
	values_push(vals, fc)->option = (uint32_t)o;
	*option = (uint32_t)o;
	return TMX_OK;
}

/* A nested block being run: the elements of an array, an optional's field. */
struct plan_frame {
	const struct ctf_op *start, *end;  /* the block's ops */
	const struct ctf_op *resume;       /* the op after the array's blocks */
	uint32_t reserve;                  /* the block's own pushes */
	uint32_t after;                    /* the enclosing block's pushes after resume */
	uint64_t left;                     /* runs of the block still to come */
};

/*
 * Runs plan `pl`, appending to `vals`.  No recursion: array elements use a
 * stack of frames, bounded by the plan compiler (CTF_PLAN_MAX_NEST); a
 * variant continues with its option's ops, which jump past the other
 * options at their end.  The room for the values a block's own ops push is
 * reserved once per run of the block; ops that run nested blocks reserve
 * the room for the rest of the enclosing block again afterwards.
 * `scope_index` receives where each scope begins (event body plans).
 */
int ctf_run_plan(struct ctf_decoder *d, const struct ctf_plan *pl, struct ctf_values *vals,
		    size_t *scope_index, struct tmx_error *err)
{
	struct plan_frame stack[CTF_PLAN_MAX_NEST];
	unsigned depth = 0;
	const struct ctf_op *op = pl->ops + pl->blocks[0].start;
	const struct ctf_op *end = op + pl->blocks[0].n_ops, *top_end = end;
	uint64_t runs;   /* ARRAY, OPTIONAL: runs of the nested block */
	int ret = values_reserve(vals, pl->blocks[0].reserve, err);

	while (!ret) {
		if (op == end) {
			struct plan_frame *f;
			if (depth == 0)
				return TMX_OK;
			f = &stack[depth - 1];
			if (f->left) {
				/* The next array element. */
				f->left--;
				op = f->start;
				ret = values_reserve(vals, f->reserve, err);
				continue;
			}
			op = f->resume;
			ret = values_reserve(vals, f->after, err);
			depth--;
			end = depth ? stack[depth - 1].end : top_end;
			continue;
		}
		switch (op->kind) {
		case CTF_OP_RUN:
			/* Runs without bit-level items: a loop without their byte order rule. */
			ret = op->has_bits ? run_items(d, pl, op, vals, scope_index, err, true) :
			      run_items(d, pl, op, vals, scope_index, err, false);
			op++;
			break;
		case CTF_OP_STRUCT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				values_push(vals, op->fc)->n_members = (uint32_t)op->fc->n_members;
			op++;
			break;
		case CTF_OP_INT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_integer(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_FLOAT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_float(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_STRING:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_string(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_SCOPE:
			scope_index[op->a] = vals->n;
			op++;
			break;
		case CTF_OP_VARIANT: {
			/* The option's ops are in this block: no frame, it ends with a jump. */
			uint32_t option = 0;
			const struct ctf_block *b;
			ret = variant_start(d, pl, op, vals, &option, err);
			if (ret)
				break;
			b = &pl->blocks[op->a + option];
			ret = values_reserve(vals, b->reserve, err);
			op = pl->ops + b->start;
			break;
		}
		case CTF_OP_JUMP:
			ret = values_reserve(vals, pl->ops[op->b].after, err);
			op = pl->ops + op->a;
			break;
		case CTF_OP_VARINT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_varint(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_STRING_EXT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_string_ext(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_BLOB:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_blob(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_OPTIONAL: {
			bool present = false;
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_optional(d, op->fc, vals, &present, err);
			if (ret)
				break;
			/* Its field's block runs once or not at all. */
			runs = present;
			goto nested_block;
		}
		case CTF_OP_ARRAY:
			ret = array_start(d, op, vals, &runs, err);
			if (ret)
				break;
			if (runs && op->elem_run) {
				/* Elements of fixed layout: their run, in one loop. */
				ret = run_elements(d, pl, op + 1, runs, vals, err);
				runs = 0;
				if (ret)
					break;
			}
		nested_block:
			if (runs == 0) {
				/* Decoded whole: on to the next op of this block. */
				ret = values_reserve(vals, op->after, err);
				op += 1 + op->skip;
				break;
			}
			stack[depth].start = pl->ops + pl->blocks[op->a].start;
			stack[depth].end = stack[depth].start + pl->blocks[op->a].n_ops;
			stack[depth].resume = op + 1 + op->skip;
			stack[depth].reserve = pl->blocks[op->a].reserve;
			stack[depth].after = op->after;
			stack[depth].left = runs - 1;
			op = stack[depth].start;
			end = stack[depth].end;
			ret = values_reserve(vals, stack[depth].reserve, err);
			depth++;
			break;
		default:
			return tmx_error_set(err, TMX_ERR_DATA, d->path, "unknown plan op %d",
					     (int)op->kind);
		}
	}
	return ret;
}

