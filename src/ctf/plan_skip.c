/*
 * Steps over event bodies (ctf/plan.h: struct ctf_skip): a body plan that
 * can be stepped over without decoding it, when no one reads its values,
 * compiled once per event class into a short list of steps that
 * decode.c (skip_body) runs for each event of the class.
 *
 * What can be stepped over: runs of fixed-size fields, each leaving the
 * byte order state as skipping it would (the last item that sets it is an
 * aligned one; bit fields on whole bytes), whose noted integers are plain
 * ones; NUL-terminated strings; text or plain byte arrays and sequences
 * (their lengths are in the slots by then).  Anything else is decoded.
 *
 * Consecutive runs and fixed-length arrays are one step while their
 * alignments divide the step's first one: then every offset in it is a
 * constant, and whatever the plan checks op by op is one check of the
 * step's end against the content's.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ctf/plan.h"
#include "common/errors.h"

/* The steps being compiled: the open FIXED step, if any, and where it ends. */
struct scomp {
	const struct ctf_plan *pl;
	struct ctf_skip *sk;
	struct ctf_skip_step *open;
	uint64_t cur;          /* bits from the open step's aligned start */
};

/* Whether a run can be stepped over (see the top of the file). */
static bool run_fits(const struct ctf_plan *pl, const struct ctf_op *op)
{
	bool sets_bo = false;

	for (uint32_t i = op->a; i < op->a + op->b; i++) {
		const struct ctf_run_item *it = &pl->items[i];

		/* A reversed value is noted reversed: the plan's job. */
		if (it->note && it->conv > CTF_CONV_BOOL)
			return false;
		/* Bit fields not on bytes: their byte order checks are the decoder's. */
		if (it->kind == CTF_ITEM_BITS && (op->align % 8 || it->off % 8 || it->len % 8))
			return false;
		sets_bo |= it->kind == CTF_ITEM_ALIGNED || it->kind == CTF_ITEM_BITS;
	}
	return !sets_bo || op->bo_max;
}

static struct ctf_skip_step *new_step(struct scomp *c, uint8_t kind, uint32_t align)
{
	struct ctf_skip_step *st = &c->sk->steps[c->sk->n_steps++];

	st->kind = kind;
	st->align_m1 = align - 1;
	st->len_slot = -1;
	st->first = (uint32_t)(st > c->sk->steps ? st[-1].first + st[-1].n : 0);
	return st;
}

/*
 * Where a field of alignment `align` (and then `elem_align`) starts in the
 * open step, when it can join it and end by `bits` more; UINT64_MAX when
 * it cannot (then it starts a step of its own).
 */
static uint64_t join_at(const struct scomp *c, uint32_t align, uint32_t elem_align, uint64_t bits)
{
	uint64_t p;

	if (!c->open || (c->open->align_m1 + 1) % align || (c->open->align_m1 + 1) % elem_align)
		return UINT64_MAX;
	p = (c->cur + align - 1) & ~(uint64_t)(align - 1);
	p = (p + elem_align - 1) & ~(uint64_t)(elem_align - 1);
	return bits > UINT32_MAX - p ? UINT64_MAX : p;
}

static void add_run(struct scomp *c, const struct ctf_op *op)
{
	uint64_t p = join_at(c, op->align, 1, op->bits);

	if (p == UINT64_MAX) {
		c->open = new_step(c, CTF_SKIP_FIXED, op->align);
		c->cur = p = 0;
	}
	for (uint32_t i = op->a; i < op->a + op->b; i++) {
		const struct ctf_run_item *it = &c->pl->items[i];

		if (it->note)
			ctf_note_of_item(&c->sk->notes[c->open->first + c->open->n++], it,
					 p + it->off);
	}
	c->cur = p + op->bits;
	c->open->bits = c->cur;
	if (op->bo_max)
		c->open->bo_end_kind = CTF_HBO_MAX;
}

/* A text or byte array: in the open step when its length is fixed and it fits there. */
static void add_array(struct scomp *c, const struct ctf_op *op)
{
	const struct tmx_field_class *fc = op->fc, *e = fc->elem;
	const uint64_t elem_bits = fc->is_text ? 8 : e->size;
	const bool fixed = fc->kind != TMX_FC_SEQUENCE && elem_bits &&
			   fc->length <= UINT32_MAX / elem_bits;
	const bool opened = fixed && !c->open;
	struct ctf_skip_step *st;
	uint64_t p = UINT64_MAX;

	if (opened) {
		c->open = new_step(c, CTF_SKIP_FIXED, op->align);
		c->cur = 0;
	}
	if (fixed)
		p = join_at(c, op->align, e->align, fc->length * elem_bits);
	/* A byte array must start on a byte: known here only in a byte-aligned step. */
	if (p != UINT64_MAX && !fc->is_text && ((c->open->align_m1 + 1) % 8 || p % 8))
		p = UINT64_MAX;
	if (p == UINT64_MAX) {
		if (opened)   /* the step opened for it alone: not needed */
			c->sk->n_steps--;
		st = new_step(c, CTF_SKIP_ARRAY, op->align);
		st->text = fc->is_text;
		st->len_slot = fc->kind == TMX_FC_SEQUENCE ? fc->ref_slot : -1;
		st->length = fc->length;
		st->elem_align_m1 = e->align - 1;
		st->bits = elem_bits;
		st->bo_last = (uint8_t)e->byte_order;
		c->open = NULL;
		return;
	}
	c->cur = p + fc->length * elem_bits;
	c->open->bits = c->cur;
	if (!fc->is_text) {
		c->open->bo_end_kind = CTF_HBO_AT;
		c->open->bo_end = (uint32_t)c->cur;
		c->open->bo_last_set = true;
		c->open->bo_last = (uint8_t)e->byte_order;
	}
}

int ctf_skip_compile(const struct ctf_plan *pl, struct ctf_skip **out, struct tmx_error *err)
{
	struct scomp c = { .pl = pl };

	*out = NULL;
	for (size_t o = 0; o < pl->n_ops; o++) {
		const struct ctf_op *op = &pl->ops[o];

		if (op->kind == CTF_OP_ARRAY && (op->fc->is_text || op->byte_elem))
			o += op->skip;
		else if (op->kind == CTF_OP_RUN ? !run_fits(pl, op) :
			 op->kind != CTF_OP_SCOPE && op->kind != CTF_OP_STRING)
			return TMX_OK;
	}
	c.sk = calloc(1, sizeof(*c.sk));
	if (c.sk) {
		c.sk->steps = calloc(pl->n_ops ? pl->n_ops : 1, sizeof(*c.sk->steps));
		c.sk->notes = calloc(pl->n_items ? pl->n_items : 1, sizeof(*c.sk->notes));
	}
	if (!c.sk || !c.sk->steps || !c.sk->notes) {
		ctf_skip_free(c.sk);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	for (size_t o = 0; o < pl->n_ops; o++) {
		const struct ctf_op *op = &pl->ops[o];

		if (op->kind == CTF_OP_RUN) {
			add_run(&c, op);
		} else if (op->kind == CTF_OP_STRING) {
			new_step(&c, CTF_SKIP_STRING, op->align);
			c.open = NULL;
		} else if (op->kind == CTF_OP_ARRAY) {
			add_array(&c, op);
			o += op->skip;
		}
	}
	for (size_t i = 0; i < c.sk->n_steps; i++) {
		struct ctf_skip_step *st = &c.sk->steps[i];

		st->notes = c.sk->notes + st->first;
		if (st->kind == CTF_SKIP_FIXED && !st->n && !st->bo_last_set &&
		    st->bo_end_kind != CTF_HBO_AT)
			st->kind = CTF_SKIP_PLAIN;
	}
	*out = c.sk;
	return TMX_OK;
}

void ctf_skip_free(struct ctf_skip *sk)
{
	if (!sk)
		return;
	free(sk->steps);
	free(sk->notes);
	free(sk);
}
