/*
 * Event header programs (ctf/plan.h: struct ctf_header_prog): an event
 * header plan of runs and one variant of runs, compiled into one case per
 * variant option, each the header's size and its noted items at constant
 * offsets.  decode.c (run_header_prog) runs them.
 *
 * A case stands for the plan's ops only where every offset is a constant:
 * each run's and the variant's alignment divides the header's, which
 * starts on a byte.  Whatever the plan would check per field at run time
 * other than the content's end (a byte order change inside a byte between
 * two of the header's fields) is decided here, once per case.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/plan.h"
#include "common/errors.h"
#include "common/grow.h"

/* One case being compiled: the plan's state as it would be after each op. */
struct hsim {
	uint64_t pos;          /* bits from the header's aligned start */
	uint8_t bo_kind;       /* CTF_HBO_*: bo_end as the runs left it */
	uint64_t bo_end;       /* CTF_HBO_AT: bits from the start */
	bool last_set;
	uint8_t last;
	bool slow;             /* the plan must decode this case */
};

struct hcomp {
	const struct ctf_plan *pl;
	struct ctf_header_prog *hp;
	size_t n_notes, cap_notes;
	uint32_t align;
	/* The variant's tag: the last item before it that sets its slot. */
	int32_t tag_slot;
	bool tag_found;
	size_t tag_note;       /* its note in the case being compiled (SIZE_MAX: none yet) */
	bool unfit;            /* the header has another shape: no program */
	struct tmx_error *err;
};

/*
 * The bits a run leaves in the byte order state, as run_fast and
 * run_items do (decode_plan.c), and whether one of its items would change
 * the byte order inside a byte.  The state before the header is unknown,
 * but it ends at or before the header's start, which is on a byte: no
 * item of the header that starts inside a byte can meet it.
 */
static void sim_byte_order(struct hsim *s, const struct ctf_run_item *it, uint64_t start)
{
	uint64_t pos = start + it->off;

	if (it->kind != CTF_ITEM_BITS)
		return;
	if (it->conv < CTF_CONV_F32 && pos % 8 == 0 && it->len % 8 == 0) {
		s->bo_kind = CTF_HBO_MAX;
		return;
	}
	if (pos % 8 && s->bo_kind == CTF_HBO_AT && pos == s->bo_end && s->last_set &&
	    it->be != s->last)
		s->slow = true;
	s->bo_kind = CTF_HBO_AT;
	s->bo_end = pos + it->len;
	s->last_set = true;
	s->last = it->be;
}

/* Noted item `it` at `off` (ctf_note_of_item), with its shifts in the first word. */
static int add_note(struct hcomp *c, const struct ctf_run_item *it, uint64_t off, bool is_tag)
{
	struct ctf_header_note *n;

	if (!tmx_grow_array((void **)&c->hp->notes, &c->cap_notes, c->n_notes + 1,
			    sizeof(*c->hp->notes), 8))
		return tmx_error_set(c->err, TMX_ERR_NOMEM, NULL,
				     "out of memory for an event header program");
	n = &c->hp->notes[c->n_notes++];
	ctf_note_of_item(n, it, off);
	if (off + it->len <= 64) {
		n->lsh = (uint8_t)(it->be ? off : 64 - off - it->len);
		n->rsh = (uint8_t)(64 - it->len);
	}
	n->is_tag = is_tag;
	return TMX_OK;
}

/* A run of the case: its noted items, its byte order effect, its size. */
static int sim_run(struct hcomp *c, struct hsim *s, const struct ctf_op *op, bool before_tag)
{
	const struct ctf_plan *pl = c->pl;
	uint64_t start;
	bool is_tag;
	int ret;

	if (c->align % op->align) {
		c->unfit = true;
		return TMX_OK;
	}
	start = (s->pos + op->align - 1) & ~(uint64_t)(op->align - 1);
	for (uint32_t i = op->a; i < op->a + op->b; i++) {
		const struct ctf_run_item *it = &pl->items[i];

		sim_byte_order(s, it, start);
		if (!it->note)
			continue;
		/* note_item records the bits as read: reversed ones are the plan's. */
		if (it->conv > CTF_CONV_BOOL) {
			c->unfit = true;
			return TMX_OK;
		}
		is_tag = before_tag && (it->note & CTF_NOTE_SLOT) && it->fc->slot == c->tag_slot;
		if (is_tag) {
			/* The last one before the variant is what it reads. */
			if (c->tag_note != SIZE_MAX)
				c->hp->notes[c->tag_note].is_tag = false;
			c->tag_note = c->n_notes;
			c->hp->tag_off = (uint32_t)(start + it->off);
			c->hp->tag_len = (uint8_t)it->len;
			c->hp->tag_end = (uint32_t)(start + it->off + it->len);
			c->hp->tag_be = it->be;
			c->hp->tag_in_word = start + it->off + it->len <= 64;
			if (c->hp->tag_in_word)
				c->hp->tag_lsh = (uint8_t)(it->be ? start + it->off :
							   64 - start - it->off - it->len);
			c->tag_found = true;
		}
		ret = add_note(c, it, start + it->off, is_tag);
		if (ret)
			return ret;
	}
	if (op->bo_max)
		s->bo_kind = CTF_HBO_MAX;
	s->pos = start + op->bits;
	return TMX_OK;
}

/* The ops of variant option `o` (its block, less the jump that ends it). */
static int sim_option(struct hcomp *c, struct hsim *s, const struct ctf_op *vop, uint32_t o)
{
	const struct ctf_plan *pl = c->pl;
	const struct ctf_block *b = &pl->blocks[vop->a + o];
	int ret;

	if (c->align % vop->align) {
		c->unfit = true;
		return TMX_OK;
	}
	s->pos = (s->pos + vop->align - 1) & ~(uint64_t)(vop->align - 1);
	for (uint32_t i = b->start; i + 1 < b->start + b->n_ops; i++) {
		if (pl->ops[i].kind != CTF_OP_RUN) {
			s->slow = true;
			return TMX_OK;
		}
		ret = sim_run(c, s, &pl->ops[i], false);
		if (ret || c->unfit)
			return ret;
	}
	return TMX_OK;
}

/* Case `o` (the variant's option `o`; 0 without a variant). */
static int compile_case(struct hcomp *c, uint32_t o)
{
	const struct ctf_plan *pl = c->pl;
	struct ctf_header_case *hc = &c->hp->cases[o];
	struct hsim s = { .bo_kind = CTF_HBO_KEEP };
	bool seen_variant = false;
	int ret = TMX_OK;

	hc->first = (uint32_t)c->n_notes;
	c->tag_note = SIZE_MAX;
	for (uint32_t i = 0; i < pl->blocks[0].n_ops && !ret && !c->unfit; i++) {
		const struct ctf_op *op = &pl->ops[i];

		if (op->kind == CTF_OP_RUN) {
			ret = sim_run(c, &s, op, !seen_variant);
		} else if (op->kind == CTF_OP_VARIANT && !seen_variant) {
			seen_variant = true;
			ret = sim_option(c, &s, op, o);
			i += op->skip;
		} else {
			c->unfit = true;
		}
	}
	if (s.pos > UINT32_MAX)
		c->unfit = true;
	hc->fast = !s.slow;
	hc->bits = (uint32_t)s.pos;
	hc->bo_end_kind = s.bo_kind;
	hc->bo_end = (uint32_t)s.bo_end;
	hc->bo_last_set = s.last_set;
	hc->bo_last = s.last;
	hc->n = (uint32_t)c->n_notes - hc->first;
	hc->in_word = true;
	hc->big = hc->n && c->hp->notes[hc->first].be;
	for (uint32_t i = hc->first; i < hc->first + hc->n; i++)
		hc->in_word &= c->hp->notes[i].off + c->hp->notes[i].len <= 64 &&
			       c->hp->notes[i].be == hc->big;
	return ret;
}

/* The variant of the header's top block, if it has one (NULL also when it has two). */
static const struct ctf_op *top_variant(const struct ctf_plan *pl, bool *two)
{
	const struct ctf_op *v = NULL;

	*two = false;
	for (uint32_t i = 0; i < pl->blocks[0].n_ops; i++) {
		const struct ctf_op *op = &pl->ops[i];
		if (op->kind != CTF_OP_VARIANT)
			continue;
		*two = v != NULL;
		v = op;
		i += op->skip;
	}
	return v;
}

int ctf_header_prog_compile(const struct ctf_plan *pl, struct ctf_header_prog **out,
			    struct tmx_error *err)
{
	struct hcomp c = { .pl = pl, .err = err, .tag_slot = -1 };
	const struct ctf_op *vop;
	bool two;
	int ret = TMX_OK;

	*out = NULL;
	if (!pl || pl->blocks[0].n_ops == 0 || pl->ops[0].kind != CTF_OP_RUN ||
	    pl->ops[0].align % 8)
		return TMX_OK;
	vop = top_variant(pl, &two);
	if (two || (vop && !vop->has_table))
		return TMX_OK;
	c.hp = calloc(1, sizeof(*c.hp));
	if (!c.hp)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL,
				     "out of memory for an event header program");
	c.align = pl->ops[0].align;
	c.hp->align_m1 = c.align - 1;
	c.hp->n_cases = vop ? vop->fc->n_members : 1;
	c.hp->cases = calloc(c.hp->n_cases ? c.hp->n_cases : 1, sizeof(*c.hp->cases));
	if (!c.hp->cases)
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL,
				    "out of memory for an event header program");
	if (vop) {
		c.hp->variant = vop->fc;
		c.tag_slot = vop->fc->ref_slot;
		memcpy(c.hp->table, &pl->tags[vop->b], sizeof(c.hp->table));
	}
	for (uint32_t o = 0; !ret && !c.unfit && o < c.hp->n_cases; o++)
		ret = compile_case(&c, o);
	if (ret || c.unfit || (vop && !c.tag_found) || c.hp->n_cases == 0) {
		ctf_header_prog_free(c.hp);
		return ret;
	}
	*out = c.hp;
	return TMX_OK;
}

void ctf_header_prog_free(struct ctf_header_prog *hp)
{
	if (!hp)
		return;
	free(hp->cases);
	free(hp->notes);
	free(hp);
}
