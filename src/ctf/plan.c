/*
 * CTF decoding plans: compiling field class trees into flat op lists
 * (see plan.h), and the cache of a trace class's compiled plans.
 *
 * Compiling mirrors the tree walk of decode.c field for field: every op
 * decodes exactly the fields, in exactly the order, that the walk would,
 * so the values land in the same pre-order slots.  The compiler recurses
 * as deep as the class tree, which the metadata parser bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/decode.h"
#include "ctf/plan.h"
#include "io/bitread.h"
#include "model/field_class.h"
#include "common/grow.h"
#include "common/errors.h"

/* A run ends after this many bits (keeps item offsets small). */
#define CTF_RUN_MAX_BITS (UINT64_C(1) << 20)
/* Plans beyond this many run items are not built either. */
#define CTF_PLAN_MAX_ITEMS (UINT32_C(1) << 20)

/* Bytes as bits, saturated (a lower bound is all that is needed). */
static uint64_t bytes_bits(uint64_t bytes)
{
	return bytes > UINT64_MAX / 8 ? UINT64_MAX / 8 * 8 : bytes * 8;
}

uint64_t ctf_min_bits(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return fc->varlen ? 8 : fc->size;
	case TMX_FC_FLOAT:
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		return fc->size;
	case TMX_FC_STRING:
		/* The terminating NUL code unit, or the static length. */
		if (fc->str_length == TMX_STR_NUL_TERMINATED)
			return fc->str_encoding == TMX_STR_UTF8 ? 8 :
			       fc->str_encoding <= TMX_STR_UTF16LE ? 16 : 32;
		return fc->str_length == TMX_STR_STATIC ? bytes_bits(fc->length) : 0;
	case TMX_FC_BLOB:
		return fc->ref_slot < 0 ? bytes_bits(fc->length) : 0;
	case TMX_FC_STRUCT: {
		uint64_t sum = 0;
		for (size_t i = 0; i < fc->n_members; i++)
			sum += ctf_min_bits(fc->members[i].fc);
		return sum;
	}
	case TMX_FC_ARRAY:
		return fc->length > 64 ? 64 * ctf_min_bits(fc->elem) :
		       fc->length * ctf_min_bits(fc->elem);
	default:
		return 0;
	}
}

static bool range_contains(bool is_signed, const struct tmx_enum_range *r, uint64_t value)
{
	if (is_signed)
		return (int64_t)value >= (int64_t)r->lower && (int64_t)value <= (int64_t)r->upper;
	return value >= r->lower && value <= r->upper;
}

static bool ranges_contain(bool is_signed, const struct tmx_enum_range *r, size_t n,
			   uint64_t value)
{
	for (size_t i = 0; i < n; i++)
		if (range_contains(is_signed, &r[i], value))
			return true;
	return false;
}

/*
 * A selector's value as its ranges compare it: slots keep a fixed-length
 * field's raw bits, so a signed one is sign-extended (a variable-length
 * one is 64 bits already).
 */
static uint64_t selector_value(const struct tmx_field_class *tag, uint64_t raw)
{
	if (tag && tag->is_signed && tag->size >= 1 && tag->size <= 64)
		return (uint64_t)tmx_sign_extend(raw, tag->size);
	return raw;
}

int ctf_variant_select(const struct tmx_field_class *fc, uint64_t tag_value)
{
	const struct tmx_field_class *tag = fc->tag;
	bool is_signed = tag && tag->is_signed;

	tag_value = selector_value(tag, tag_value);
	if (!fc->option_for_mapping) {
		/* CTF 2: the first option whose ranges hold the value. */
		for (size_t o = 0; o < fc->n_members; o++)
			if (ranges_contain(is_signed, fc->members[o].ranges, fc->members[o].n_ranges,
					   tag_value))
				return (int)o;
		return -1;
	}
	for (size_t m = 0; m < tag->n_mappings; m++) {
		const struct tmx_enum_mapping *map = &tag->mappings[m];
		if (ranges_contain(is_signed, map->ranges, map->n_ranges, tag_value))
			return fc->option_for_mapping[m];
	}
	return -1;
}

bool ctf_optional_present(const struct tmx_field_class *fc, uint64_t sel_value)
{
	const struct tmx_field_class *sel = fc->tag;

	if (!sel || sel->kind == TMX_FC_BOOL)
		return sel_value != 0;
	return ranges_contain(sel->is_signed, fc->ranges, fc->n_ranges,
			      selector_value(sel, sel_value));
}

/* ------------------------------------------------------------------ */
/* Compiler                                                             */
/* ------------------------------------------------------------------ */

struct compiler {
	struct ctf_plan *pl;
	size_t cap_ops, cap_blocks, cap_items, cap_tags;
	uint32_t cur;        /* the block whose pushes are being counted */
	/* The open run (CTF_OP_RUN being filled), if run_open. */
	bool run_open;
	uint32_t run_op;
	uint64_t run_bits;   /* end of its last item, bits from its start */
	unsigned nest;       /* arrays and variants around the current block */
	bool too_big;
	struct tmx_error *err;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem, struct tmx_error *err)
{
	if (!tmx_grow_array(p, cap, need, elem, 16))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for a decoding plan");
	return TMX_OK;
}

/* Counts `n` values pushed by the current block's own ops. */
static void count_pushes(struct compiler *c, uint32_t n)
{
	c->pl->blocks[c->cur].reserve += n;
}

/* The fast code of an item whose kind, conversion and size are set. */
static uint8_t item_code(const struct ctf_run_item *it)
{
	static const uint8_t le[2][4] = {
		{ CTF_IC_U8, CTF_IC_LE16U, CTF_IC_LE32U, CTF_IC_LE64 },
		{ CTF_IC_S8, CTF_IC_LE16S, CTF_IC_LE32S, CTF_IC_LE64 },
	};
	static const uint8_t be[2][4] = {
		{ CTF_IC_U8, CTF_IC_BE16U, CTF_IC_BE32U, CTF_IC_BE64 },
		{ CTF_IC_S8, CTF_IC_BE16S, CTF_IC_BE32S, CTF_IC_BE64 },
	};
	int size;

	switch (it->kind) {
	case CTF_ITEM_STRUCT:
		return CTF_IC_STRUCT;
	case CTF_ITEM_TEXT:
		return CTF_IC_TEXT;
	case CTF_ITEM_SSTR:
		return CTF_IC_SSTR;
	case CTF_ITEM_BITS:
		return CTF_IC_BITS;
	default:
		break;
	}
	switch (it->len) {
	case 8:
		size = 0;
		break;
	case 16:
		size = 1;
		break;
	case 32:
		size = 2;
		break;
	case 64:
		size = 3;
		break;
	default:
		return CTF_IC_ALIGNED;
	}
	/* Noted values, booleans, reversed bits: the general case. */
	if (it->note || it->conv > CTF_CONV_S)
		return CTF_IC_ALIGNED;
	return it->be ? be[it->conv == CTF_CONV_S][size] : le[it->conv == CTF_CONV_S][size];
}

static void close_run(struct compiler *c)
{
	struct ctf_plan *pl = c->pl;
	struct ctf_op *op;

	if (!c->run_open)
		return;
	op = &pl->ops[c->run_op];
	op->bits = c->run_bits;
	for (uint32_t i = 0; i < op->b; i++) {
		op->noted |= pl->items[op->a + i].note != 0;
		op->has_bits |= pl->items[op->a + i].code == CTF_IC_BITS;
	}
	/* Whether the run leaves bo_end at UINT64_MAX (see ctf_op.bo_max). */
	for (uint32_t i = op->b; i-- > 0;) {
		const struct ctf_run_item *it = &pl->items[op->a + i];
		if (it->kind == CTF_ITEM_ALIGNED || it->kind == CTF_ITEM_BITS) {
			op->bo_max = it->kind == CTF_ITEM_ALIGNED;
			break;
		}
	}
	c->run_open = false;
}

/*
 * Appends a zeroed op (closing the open run); *idx is its index.  Sets
 * too_big past the limit.
 */
static int add_op(struct compiler *c, enum ctf_op_kind kind, const struct tmx_field_class *fc,
		  uint32_t align, uint32_t *idx)
{
	struct ctf_plan *pl = c->pl;
	struct ctf_op *op;
	int ret;

	close_run(c);
	if (pl->n_ops >= CTF_PLAN_MAX_OPS) {
		c->too_big = true;
		return TMX_ERR_LIMIT;
	}
	ret = grow((void **)&pl->ops, &c->cap_ops, pl->n_ops + 1, sizeof(*pl->ops), c->err);
	if (ret)
		return ret;
	*idx = (uint32_t)pl->n_ops;
	op = &pl->ops[pl->n_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->fc = fc;
	op->align = align;
	return TMX_OK;
}

static int add_blocks(struct compiler *c, size_t n, uint32_t *first)
{
	struct ctf_plan *pl = c->pl;
	int ret;

	if (n > CTF_PLAN_MAX_OPS || pl->n_blocks + n > CTF_PLAN_MAX_OPS) {
		c->too_big = true;
		return TMX_ERR_LIMIT;
	}
	ret = grow((void **)&pl->blocks, &c->cap_blocks, pl->n_blocks + n, sizeof(*pl->blocks),
		   c->err);
	if (ret)
		return ret;
	*first = (uint32_t)pl->n_blocks;
	memset(&pl->blocks[pl->n_blocks], 0, n * sizeof(*pl->blocks));
	pl->n_blocks += n;
	return TMX_OK;
}

/*
 * Adds `fc` to the open run, or to a new one, as an item of `kind` that
 * starts at alignment `align` and takes `bits`.  It joins the open run when
 * its alignment divides the run's (the run starts aligned to that, so the
 * item's offset is a constant).  Sets *added to false, having done
 * nothing, when the item cannot go in a run at all.
 */
static int add_item(struct compiler *c, const struct tmx_field_class *fc,
		    enum ctf_item_kind kind, uint32_t align, uint64_t bits, bool *added)
{
	struct ctf_plan *pl = c->pl;
	struct ctf_run_item *it;
	struct ctf_op *op;
	uint64_t off = 0;
	int ret;

	*added = false;
	if (bits > CTF_RUN_MAX_BITS)
		return TMX_OK;
	if (pl->n_items >= CTF_PLAN_MAX_ITEMS) {
		c->too_big = true;
		return TMX_ERR_LIMIT;
	}
	if (c->run_open) {
		op = &pl->ops[c->run_op];
		off = (c->run_bits + align - 1) & ~(uint64_t)(align - 1);
		if (align > op->align || off + bits > CTF_RUN_MAX_BITS || op->b >= CTF_PLAN_MAX_OPS)
			close_run(c);
	}
	if (!c->run_open) {
		uint32_t idx;
		ret = add_op(c, CTF_OP_RUN, NULL, align, &idx);
		if (ret)
			return ret;
		pl->ops[idx].a = (uint32_t)pl->n_items;
		c->run_open = true;
		c->run_op = idx;
		c->run_bits = 0;
		off = 0;
	}
	ret = grow((void **)&pl->items, &c->cap_items, pl->n_items + 1, sizeof(*pl->items), c->err);
	if (ret)
		return ret;
	op = &pl->ops[c->run_op];
	it = &pl->items[pl->n_items++];
	memset(it, 0, sizeof(*it));
	it->fc = fc;
	it->off = (uint32_t)off;
	it->end = (uint32_t)(off + bits);
	it->kind = (uint8_t)kind;
	switch (kind) {
	case CTF_ITEM_STRUCT:
		it->len = (uint32_t)fc->n_members;
		break;
	case CTF_ITEM_TEXT:
	case CTF_ITEM_SSTR:
		it->len = (uint32_t)fc->length;
		break;
	default:
		it->len = fc->size;
		it->be = fc->byte_order == TMX_BO_BE;
		if (fc->kind == TMX_FC_FLOAT) {
			/* ctf_decode_float never notes a value, and always checks the byte order. */
			it->kind = CTF_ITEM_BITS;
			it->conv = fc->size == 32 ? CTF_CONV_F32 : CTF_CONV_F64;
		} else {
			it->conv = fc->kind == TMX_FC_BOOL ? CTF_CONV_BOOL :
				   fc->is_signed ? CTF_CONV_S : CTF_CONV_U;
			/* decode_impl.h: note_integer */
			it->note = (uint8_t)((fc->slot >= 0 ? CTF_NOTE_SLOT : 0) |
					     (fc->meaning ? CTF_NOTE_MEANING : 0) |
					     (fc->mapped_clock && fc->meaning != TMX_MEANING_TS_END ?
					      CTF_NOTE_CLOCK : 0));
			/*
			 * ctf_decode_integer's fast path, known to apply here: the run
			 * starts on a byte and the item is whole bytes at a whole-byte
			 * offset.  Otherwise its rules are applied when it runs.
			 */
			if (op->align % 8 == 0 && off % 8 == 0 && fc->size % 8 == 0)
				it->kind = CTF_ITEM_ALIGNED;
			else
				it->kind = CTF_ITEM_BITS;
		}
		if (fc->bit_order_rev) {
			/* The bits reversed first, then converted (decode_plan.c: put_number). */
			it->rev = it->conv;
			it->conv = fc->kind == TMX_FC_FLOAT ? CTF_CONV_FLOAT_REV : CTF_CONV_INT_REV;
		}
		break;
	}
	it->code = item_code(it);
	op->b++;
	c->run_bits = off + bits;
	count_pushes(c, 1);
	*added = true;
	return TMX_OK;
}

static int compile_field(struct compiler *c, const struct tmx_field_class *fc);

/*
 * Ends block `bi` (started at op `start`): sets its op count, and, for each
 * array or variant op of the block, how many values the rest of the block
 * pushes (op->after holds the pushes counted up to the op until then).
 */
static void end_block(struct compiler *c, uint32_t bi, uint32_t start)
{
	struct ctf_plan *pl = c->pl;
	uint32_t total = pl->blocks[bi].reserve;

	close_run(c);
	pl->blocks[bi].n_ops = (uint32_t)pl->n_ops - start;
	for (uint32_t i = start; i < pl->n_ops; i++) {
		struct ctf_op *op = &pl->ops[i];
		if (op->kind == CTF_OP_ARRAY || op->kind == CTF_OP_VARIANT ||
		    op->kind == CTF_OP_OPTIONAL) {
			op->after = total - op->after;
			i += op->skip;
		}
	}
}

/*
 * Compiles `fc` into the nested block `bi` (already allocated) of an array
 * or variant: its ops start at the current end of the op list.
 */
static int compile_block(struct compiler *c, uint32_t bi, const struct tmx_field_class *fc)
{
	struct ctf_plan *pl = c->pl;
	uint32_t saved = c->cur, start = (uint32_t)pl->n_ops;
	int ret;

	/* The decoder keeps one frame per nesting level on its stack. */
	if (c->nest >= CTF_PLAN_MAX_NEST) {
		c->too_big = true;
		return TMX_ERR_LIMIT;
	}
	close_run(c);
	pl->blocks[bi].start = start;
	c->cur = bi;
	c->nest++;
	ret = compile_field(c, fc);
	c->nest--;
	close_run(c);
	c->cur = saved;
	if (ret)
		return ret;
	end_block(c, bi, start);
	return TMX_OK;
}

static int compile_array(struct compiler *c, const struct tmx_field_class *fc)
{
	struct ctf_plan *pl = c->pl;
	const struct tmx_field_class *e = fc->elem;
	uint32_t idx, bi;
	int ret;

	/* A text array of static length: a fixed-size item. */
	if (fc->kind == TMX_FC_ARRAY && fc->is_text && fc->length <= CTF_RUN_MAX_BITS / 8 &&
	    e->align % 8 == 0) {
		bool added;
		ret = add_item(c, fc, CTF_ITEM_TEXT, fc->align > e->align ? fc->align : e->align,
			       fc->length * 8, &added);
		if (ret || added)
			return ret;
	}
	ret = add_op(c, CTF_OP_ARRAY, fc, fc->align, &idx);
	if (ret)
		return ret;
	count_pushes(c, 1);
	pl->ops[idx].after = pl->blocks[c->cur].reserve;
	if (fc->is_text)
		return TMX_OK;   /* one text value, no element ops */
	pl->ops[idx].bits = ctf_min_bits(e);
	pl->ops[idx].byte_elem = ctf_is_plain_byte_int(e);
	ret = add_blocks(c, 1, &bi);
	if (ret)
		return ret;
	pl->ops[idx].a = bi;
	ret = compile_block(c, bi, e);
	if (ret)
		return ret;
	pl->ops[idx].skip = (uint32_t)pl->n_ops - idx - 1;
	/* Elements of fixed layout: the decoder runs the run in a loop. */
	pl->ops[idx].elem_run = pl->blocks[bi].n_ops == 1 && pl->ops[idx + 1].kind == CTF_OP_RUN;
	return TMX_OK;
}

static int compile_variant(struct compiler *c, const struct tmx_field_class *fc)
{
	struct ctf_plan *pl = c->pl;
	uint32_t idx, first;
	int ret = add_op(c, CTF_OP_VARIANT, fc, fc->align, &idx);

	if (ret)
		return ret;
	count_pushes(c, 1);
	pl->ops[idx].after = pl->blocks[c->cur].reserve;
	ret = add_blocks(c, fc->n_members, &first);
	if (ret)
		return ret;
	pl->ops[idx].a = first;
	for (size_t o = 0; o < fc->n_members; o++) {
		uint32_t jump;
		ret = compile_block(c, first + (uint32_t)o, fc->members[o].fc);
		if (!ret)
			ret = add_op(c, CTF_OP_JUMP, NULL, 1, &jump);
		if (ret)
			return ret;
		pl->ops[jump].b = idx;
		pl->blocks[first + o].n_ops++;
	}
	pl->ops[idx].skip = (uint32_t)pl->n_ops - idx - 1;
	/* Every option jumps to the op after the last one. */
	for (size_t o = 0; o < fc->n_members; o++) {
		const struct ctf_block *b = &pl->blocks[first + o];
		pl->ops[b->start + b->n_ops - 1].a = (uint32_t)pl->n_ops;
	}
	/* Small tag values: the selected option, found once here. */
	if (fc->tag) {
		ret = grow((void **)&pl->tags, &c->cap_tags, pl->n_tags + CTF_VARIANT_TABLE,
			   sizeof(*pl->tags), c->err);
		if (ret)
			return ret;
		pl->ops[idx].b = (uint32_t)pl->n_tags;
		pl->ops[idx].has_table = true;
		for (uint64_t v = 0; v < CTF_VARIANT_TABLE; v++)
			pl->tags[pl->n_tags++] = ctf_variant_select(fc, v);
	}
	return TMX_OK;
}

/* A single op that pushes one value. */
static int compile_one(struct compiler *c, enum ctf_op_kind kind, const struct tmx_field_class *fc)
{
	uint32_t idx;
	int ret = add_op(c, kind, fc, fc->align, &idx);

	if (!ret)
		count_pushes(c, 1);
	return ret;
}

/* An optional: its op, then its field's block (run once when present). */
static int compile_optional(struct compiler *c, const struct tmx_field_class *fc)
{
	struct ctf_plan *pl = c->pl;
	uint32_t idx, bi;
	int ret = add_op(c, CTF_OP_OPTIONAL, fc, fc->align, &idx);

	if (ret)
		return ret;
	count_pushes(c, 1);
	pl->ops[idx].after = pl->blocks[c->cur].reserve;
	ret = add_blocks(c, 1, &bi);
	if (ret)
		return ret;
	pl->ops[idx].a = bi;
	ret = compile_block(c, bi, fc->elem);
	if (ret)
		return ret;
	pl->ops[idx].skip = (uint32_t)pl->n_ops - idx - 1;
	return TMX_OK;
}

/* Fixed-length integers, booleans, bit arrays; variable-length integers. */
static int compile_integer(struct compiler *c, const struct tmx_field_class *fc)
{
	bool added;
	int ret;

	if (fc->varlen)
		return compile_one(c, CTF_OP_VARINT, fc);
	/* GNU/C bitfields move to the next unit at run time: not in runs. */
	if (fc->bitfield_unit == 0 && fc->size >= 1 && fc->size <= 64) {
		ret = add_item(c, fc, CTF_ITEM_BITS, fc->align, fc->size, &added);
		if (ret || added)
			return ret;
	}
	return compile_one(c, CTF_OP_INT, fc);
}

/*
 * Strings: NUL-terminated UTF-8 ones as in CTF 1.8, static-length UTF-8
 * ones as run items (fixed size), the others (dynamic length, UTF-16/32,
 * transcoded) one op each.
 */
static int compile_string(struct compiler *c, const struct tmx_field_class *fc)
{
	bool added;
	int ret;

	if (fc->str_encoding == TMX_STR_UTF8) {
		if (fc->str_length == TMX_STR_NUL_TERMINATED)
			return compile_one(c, CTF_OP_STRING, fc);
		if (fc->str_length == TMX_STR_STATIC && fc->align % 8 == 0 &&
		    fc->length <= CTF_RUN_MAX_BITS / 8) {
			ret = add_item(c, fc, CTF_ITEM_SSTR, fc->align, fc->length * 8, &added);
			if (ret || added)
				return ret;
		}
	}
	return compile_one(c, CTF_OP_STRING_EXT, fc);
}

static int compile_blob(struct compiler *c, const struct tmx_field_class *fc)
{
	bool added;
	int ret;

	/* Static length: a fixed-size item, its value as a text array's. */
	if (fc->ref_slot < 0 && fc->align % 8 == 0 && fc->length <= CTF_RUN_MAX_BITS / 8) {
		ret = add_item(c, fc, CTF_ITEM_TEXT, fc->align, fc->length * 8, &added);
		if (ret || added)
			return ret;
	}
	return compile_one(c, CTF_OP_BLOB, fc);
}

static int compile_field(struct compiler *c, const struct tmx_field_class *fc)
{
	bool added;
	int ret;

	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		return compile_integer(c, fc);
	case TMX_FC_FLOAT:
		if (fc->size == 32 || fc->size == 64) {
			ret = add_item(c, fc, CTF_ITEM_BITS, fc->align, fc->size, &added);
			if (ret || added)
				return ret;
		}
		return compile_one(c, CTF_OP_FLOAT, fc);
	case TMX_FC_STRING:
		return compile_string(c, fc);
	case TMX_FC_BLOB:
		return compile_blob(c, fc);
	case TMX_FC_STRUCT:
		ret = add_item(c, fc, CTF_ITEM_STRUCT, fc->align, 0, &added);
		if (!ret && !added)
			ret = compile_one(c, CTF_OP_STRUCT, fc);
		for (size_t i = 0; !ret && i < fc->n_members; i++)
			ret = compile_field(c, fc->members[i].fc);
		return ret;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		return compile_array(c, fc);
	case TMX_FC_VARIANT:
		return compile_variant(c, fc);
	case TMX_FC_OPTIONAL:
		return compile_optional(c, fc);
	}
	return tmx_error_set(c->err, TMX_ERR_METADATA, NULL, "unknown field class kind %d",
			     (int)fc->kind);
}

void ctf_plan_free(struct ctf_plan *pl)
{
	if (!pl)
		return;
	free(pl->ops);
	free(pl->blocks);
	free(pl->items);
	free(pl->tags);
	free(pl);
}

/* A scope of an event body: its start is recorded in scope_index[scope]. */
static int compile_scope(struct compiler *c, const struct tmx_field_class *fc,
			 enum tmx_scope scope)
{
	struct ctf_plan *pl = c->pl;
	uint32_t idx;
	bool added;
	int ret;

	if (fc->kind == TMX_FC_STRUCT) {
		/* The usual case: the mark rides on the structure's run item. */
		ret = add_item(c, fc, CTF_ITEM_STRUCT, fc->align, 0, &added);
		if (ret)
			return ret;
		if (added) {
			struct ctf_run_item *it = &pl->items[pl->n_items - 1];
			it->code = CTF_IC_STRUCT_SCOPE;
			it->scope = (uint8_t)scope;
			for (size_t i = 0; !ret && i < fc->n_members; i++)
				ret = compile_field(c, fc->members[i].fc);
			return ret;
		}
	}
	ret = add_op(c, CTF_OP_SCOPE, NULL, 1, &idx);
	if (ret)
		return ret;
	pl->ops[idx].a = (uint32_t)scope;
	return compile_field(c, fc);
}

/*
 * Compiles the scopes (NULL ones skipped) into a new plan's top block.
 * `mark`: record where each scope begins (event bodies).
 */
static int compile_top(const struct tmx_field_class *const *scopes, size_t n, bool mark,
		       struct ctf_plan **out, struct tmx_error *err)
{
	struct compiler c;
	uint32_t bi;
	int ret;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.err = err;
	c.pl = calloc(1, sizeof(*c.pl));
	if (!c.pl)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for a decoding plan");
	ret = add_blocks(&c, 1, &bi);
	for (size_t k = 0; !ret && k < n; k++) {
		if (!scopes[k])
			continue;
		ret = mark ? compile_scope(&c, scopes[k], (enum tmx_scope)k) :
		      compile_field(&c, scopes[k]);
	}
	if (ret) {
		ctf_plan_free(c.pl);
		/* Too big to plan: the decoder walks the trees instead. */
		return c.too_big ? TMX_OK : ret;
	}
	end_block(&c, bi, 0);
	*out = c.pl;
	return TMX_OK;
}

int ctf_plan_compile(const struct tmx_field_class *fc, struct ctf_plan **out,
		     struct tmx_error *err)
{
	*out = NULL;
	if (!fc)
		return TMX_OK;
	return compile_top(&fc, 1, false, out, err);
}

int ctf_plan_compile_body(const struct tmx_field_class *const scopes[TMX_N_SCOPES],
			  struct ctf_plan **out, struct tmx_error *err)
{
	bool any = false;

	*out = NULL;
	for (int k = 0; k < TMX_N_SCOPES; k++)
		any = any || scopes[k];
	if (!any)
		return TMX_OK;
	return compile_top(scopes, TMX_N_SCOPES, true, out, err);
}

/* ------------------------------------------------------------------ */
/* Cache                                                                */
/* ------------------------------------------------------------------ */

int ctf_plans_new(const struct tmx_trace_class *tc, struct ctf_plans **out,
		  struct tmx_error *err)
{
	struct ctf_plans *ps = calloc(1, sizeof(*ps));

	*out = NULL;
	if (!ps)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for decoding plans");
	ps->tc = tc;
	if (tc->n_stream_classes) {
		ps->streams = calloc(tc->n_stream_classes, sizeof(*ps->streams));
		if (!ps->streams) {
			free(ps);
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL,
					     "out of memory for decoding plans");
		}
	}
	*out = ps;
	return TMX_OK;
}

static void free_stream_plans(struct ctf_stream_plans *sp)
{
	ctf_plan_free(sp->packet_context);
	ctf_plan_free(sp->event_header);
	ctf_header_prog_free(sp->header_prog);
	if (sp->events) {
		for (size_t i = 0; i < sp->n_events; i++) {
			ctf_plan_free(sp->events[i].body);
			ctf_skip_free(sp->events[i].skip);
		}
		free(sp->events);
	}
}

void ctf_plans_free(struct ctf_plans *ps)
{
	if (!ps)
		return;
	ctf_plan_free(ps->packet_header);
	if (ps->streams)
		for (size_t i = 0; i < ps->tc->n_stream_classes; i++)
			free_stream_plans(&ps->streams[i]);
	free(ps->streams);
	free(ps);
}

int ctf_plans_packet_header(struct ctf_plans *ps, struct ctf_plan **out,
			    struct tmx_error *err)
{
	if (!ps->header_compiled) {
		int ret = ctf_plan_compile(ps->tc->packet_header, &ps->packet_header, err);
		if (ret)
			return ret;
		ps->header_compiled = true;
	}
	*out = ps->packet_header;
	return TMX_OK;
}

static int compile_stream(struct ctf_stream_plans *sp, const struct tmx_stream_class *sc,
			  struct tmx_error *err)
{
	int ret;

	sp->sc = sc;
	sp->dense_ids = true;
	for (size_t i = 0; i < sc->n_event_classes && sp->dense_ids; i++)
		sp->dense_ids = sc->event_classes[i]->id == i;
	if (sc->n_event_classes) {
		sp->events = calloc(sc->n_event_classes, sizeof(*sp->events));
		if (!sp->events)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL,
					     "out of memory for decoding plans");
		sp->n_events = sc->n_event_classes;
	}
	ret = ctf_plan_compile(sc->packet_context, &sp->packet_context, err);
	if (!ret)
		ret = ctf_plan_compile(sc->event_header, &sp->event_header, err);
	if (!ret)
		ret = ctf_header_prog_compile(sp->event_header, &sp->header_prog, err);
	if (ret)
		return ret;
	sp->compiled = true;
	return TMX_OK;
}

int ctf_plans_stream(struct ctf_plans *ps, const struct tmx_stream_class *sc,
		     struct ctf_stream_plans **out, struct tmx_error *err)
{
	const struct tmx_trace_class *tc = ps->tc;

	if (ps->last && ps->last->sc == sc) {
		*out = ps->last;
		return TMX_OK;
	}
	for (size_t i = 0; i < tc->n_stream_classes; i++) {
		struct ctf_stream_plans *sp = &ps->streams[i];
		if (tc->stream_classes[i] != sc)
			continue;
		if (!sp->compiled) {
			/* A failed attempt may have left parts: start over. */
			free_stream_plans(sp);
			memset(sp, 0, sizeof(*sp));
			int ret = compile_stream(sp, sc, err);
			if (ret)
				return ret;
		}
		ps->last = sp;
		*out = sp;
		return TMX_OK;
	}
	return tmx_error_set(err, TMX_ERR_DATA, NULL,
			     "stream class %llu is not part of the trace class",
			     (unsigned long long)sc->id);
}

/* The index of event class `id` in sc->event_classes (model.c's search). */
static bool event_index(const struct ctf_stream_plans *sp, uint64_t id, size_t *index)
{
	const struct tmx_stream_class *sc = sp->sc;
	size_t lo = 0, hi = sc->n_event_classes;

	if (id < hi && (sp->dense_ids || sc->event_classes[id]->id == id)) {
		*index = (size_t)id;
		return true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = sc->event_classes[mid]->id;
		if (mid_id == id) {
			*index = mid;
			return true;
		}
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

int ctf_plans_event(struct ctf_stream_plans *sp, uint64_t id, struct ctf_event_plans **out,
		    struct tmx_error *err)
{
	struct ctf_event_plans *ep;
	size_t i;
	int ret;

	*out = NULL;
	if (!event_index(sp, id, &i))
		return TMX_OK;
	ep = &sp->events[i];
	if (!ep->compiled) {
		const struct tmx_event_class *ec = sp->sc->event_classes[i];
		const struct tmx_field_class *scopes[TMX_N_SCOPES] = { NULL };

		scopes[TMX_SCOPE_COMMON_CONTEXT] = sp->sc->event_common_context;
		scopes[TMX_SCOPE_SPECIFIC_CONTEXT] = ec->specific_context;
		scopes[TMX_SCOPE_PAYLOAD] = ec->payload;
		ctf_plan_free(ep->body);
		ctf_skip_free(ep->skip);
		memset(ep, 0, sizeof(*ep));
		ep->ec = ec;
		ret = ctf_plan_compile_body(scopes, &ep->body, err);
		if (ret)
			return ret;
		ep->compiled = true;
	}
	*out = ep;
	return TMX_OK;
}

void ctf_note_of_item(struct ctf_header_note *n, const struct ctf_run_item *it, uint64_t off)
{
	memset(n, 0, sizeof(*n));
	n->off = (uint32_t)off;
	n->len = (uint8_t)it->len;
	n->be = it->be;
	n->slot = it->note & CTF_NOTE_SLOT ? it->fc->slot : -1;
	n->meaning = it->note & CTF_NOTE_MEANING ? (uint8_t)it->fc->meaning : 0;
	n->clock_mask = it->note & CTF_NOTE_CLOCK ? ctf_clock_mask(it->len) : 0;
}
