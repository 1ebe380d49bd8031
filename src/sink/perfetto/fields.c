/* An event's payload as named scalar leaves: see fields.h. */
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "common/grow.h"
#include "common/utf8.h"
#include "sink/jsonval.h"
#include "sink/outbuf.h"
#include "sink/perfetto/fields.h"
#include "tracemux/event.h"

struct pf_render {
	struct json_keys *keys;
	struct tmx_buf text;      /* a rendered value */
	struct tmx_buf more;      /* the folded leaves' pairs */
	struct tmx_buf utf8;      /* text made valid UTF-8 */
	struct outbuf ob;        /* json_value's output, drained into `text` */
};

static void drain_text(void *ctx, const char *data, size_t len)
{
	tmx_buf_put(&((struct pf_render *)ctx)->text, data, len);
}

struct pf_render *pf_render_new(void)
{
	struct pf_render *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (!(r->keys = json_keys_new())) {
		free(r);
		return NULL;
	}
	outbuf_init(&r->ob, -1);
	outbuf_set_drain(&r->ob, drain_text, r);
	return r;
}

void pf_render_free(struct pf_render *r)
{
	if (!r)
		return;
	json_keys_free(r->keys);
	tmx_buf_free(&r->text);
	tmx_buf_free(&r->more);
	tmx_buf_free(&r->utf8);
	free(r);
}

const char *pf_utf8(struct pf_render *r, const char *s, size_t n, size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;
	uint64_t w;

	/* ASCII eight bytes at a time (most trace text is), the last ones in a load that overlaps */
	while (i + 8 <= n && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ull)))
		i += 8;
	if (i < n && n >= 8 && (memcpy(&w, u + n - 8, 8), !(w & 0x8080808080808080ull)))
		i = n;
	while (i < n) {
		if (u[i] < 0x80)
			i++;
		else if ((k = tmx_utf8_seq_len(u + i, n - i)))
			i += k;
		else
			break;
	}
	*out_len = n;
	if (i == n)
		return s;
	r->utf8.len = 0;
	tmx_buf_put(&r->utf8, s, i);
	while (i < n) {
		if (u[i] < 0x80) {
			tmx_buf_byte(&r->utf8, u[i++]);
		} else if ((k = tmx_utf8_seq_len(u + i, n - i))) {
			tmx_buf_put(&r->utf8, u + i, k);
			i += k;
		} else {
			/* U+0080..U+00FF in two bytes */
			tmx_buf_byte(&r->utf8, (uint8_t)(0xC0 | u[i] >> 6));
			tmx_buf_byte(&r->utf8, (uint8_t)(0x80 | (u[i] & 0x3F)));
			i++;
		}
	}
	*out_len = r->utf8.len;
	return r->utf8.p ? (const char *)r->utf8.p : "";
}

/* ---- the leaves of a class ---- */

static bool is_text(const struct tmx_field_class *fc)
{
	return tmx_fc_kind(fc) == TMX_FC_STRING || tmx_fc_is_text(fc);
}

static bool add_leaf(struct pf_leaves *l, size_t *cap, const char *prefix, const char *name,
		     uint8_t type, bool rendered)
{
	size_t pl = prefix ? strlen(prefix) + 1 : 0, nl = strlen(name);
	struct pf_leaf *lf;

	if (!tmx_grow_array((void **)&l->leaf, cap, l->n + 1, sizeof(*l->leaf), 8))
		return false;
	lf = &l->leaf[l->n];
	if (!(lf->name = malloc(pl + nl + 1)))
		return false;
	if (prefix) {
		memcpy(lf->name, prefix, pl - 1);
		lf->name[pl - 1] = '.';
	}
	memcpy(lf->name + pl, name, nl + 1);
	lf->type = type;
	lf->rendered = rendered;
	lf->int_array = 0;
	lf->raw = false;
	l->n++;
	return true;
}

static bool collect(struct pf_leaves *l, size_t *cap, const struct tmx_field_class *fc,
		    const char *prefix, const char *name)
{
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_STRUCT: {
		char *path = NULL;
		bool ok = true;

		if (name) {
			size_t pl = prefix ? strlen(prefix) + 1 : 0, nl = strlen(name);
			if (!(path = malloc(pl + nl + 1)))
				return false;
			if (prefix) {
				memcpy(path, prefix, pl - 1);
				path[pl - 1] = '.';
			}
			memcpy(path + pl, name, nl + 1);
		}
		for (size_t m = 0; ok && m < tmx_fc_member_count(fc); m++)
			ok = collect(l, cap, tmx_fc_member_class(fc, m), path,
				     tmx_fc_member_name(fc, m));
		free(path);
		return ok;
	}
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return add_leaf(l, cap, prefix, name,
				tmx_fc_is_signed(fc) ? PF_LEAF_INT : PF_LEAF_UINT, false);
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		return add_leaf(l, cap, prefix, name, PF_LEAF_UINT, false);
	case TMX_FC_FLOAT:
		return add_leaf(l, cap, prefix, name, PF_LEAF_DOUBLE, false);
	default:
		if (!add_leaf(l, cap, prefix, name, PF_LEAF_STRING, !is_text(fc)))
			return false;
		if ((tmx_fc_kind(fc) == TMX_FC_ARRAY || tmx_fc_kind(fc) == TMX_FC_SEQUENCE) &&
		    !is_text(fc) && tmx_fc_element(fc) && tmx_fc_kind(tmx_fc_element(fc)) == TMX_FC_INT)
			l->leaf[l->n - 1].int_array = tmx_fc_is_signed(tmx_fc_element(fc)) ?
				PF_INT_ARRAY_SIGNED : PF_INT_ARRAY_UNSIGNED;
		return true;
	}
}

bool pf_leaves_of(struct pf_leaves *l, const struct tmx_field_class *fc)
{
	size_t cap = 0;

	memset(l, 0, sizeof(*l));
	if (!fc)
		return true;
	if (tmx_fc_kind(fc) == TMX_FC_STRUCT ? !collect(l, &cap, fc, NULL, NULL)
					     : !collect(l, &cap, fc, NULL, "value")) {
		pf_leaves_free(l);
		return false;
	}
	l->n_all = l->n;
	if (l->n > PF_LEAVES_MAX) {
		/* The leaves past the 30th are folded into one string leaf. */
		for (size_t i = PF_LEAVES_MAX - 1; i < l->n; i++)
			free(l->leaf[i].name);
		l->n = PF_LEAVES_MAX - 1;
		if (!add_leaf(l, &cap, NULL, "_more", PF_LEAF_STRING, true)) {
			pf_leaves_free(l);
			return false;
		}
	}
	return true;
}

void pf_leaves_free(struct pf_leaves *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->leaf[i].name);
	free(l->leaf);
	memset(l, 0, sizeof(*l));
}

/* ---- the leaves of a value ---- */

struct walk {
	const struct pf_leaves *l;
	struct pf_render *r;
	void (*fn)(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v);
	void *ctx;
	size_t k;                /* leaf number in the unfolded list */
};

/* -o json's text of vals[i] in r->text (reset first); returns the index after it. */
static size_t render(struct pf_render *r, const struct tmx_value *vals, size_t i)
{
	size_t next;

	r->text.len = 0;
	next = json_value(&r->ob, r->keys, vals, i);
	outbuf_flush(&r->ob);
	return next;
}

static size_t walk_value(struct walk *w, const struct tmx_field_class *fc, const char *name,
			 const struct tmx_value *vals, size_t i)
{
	const struct tmx_value *v = &vals[i];
	struct pf_leaf_value lv;   /* each branch below sets what its leaf type reads */
	bool folded = w->l->n_all > PF_LEAVES_MAX && w->k >= PF_LEAVES_MAX - 1;
	size_t next = i + 1;
	uint8_t type;

	/* the library's own field classes, read directly (once per field of every event) */
	if (fc->kind == TMX_FC_STRUCT) {
		size_t j = i + 1;

		for (size_t m = 0; m < fc->n_members && m < v->n_members; m++)
			j = walk_value(w, fc->members[m].fc, fc->members[m].name, vals, j);
		return j;
	}
	if (folded) {
		/* name=value, as -o json writes the value */
		struct tmx_buf *mb = &w->r->more;
		const char *leaf_name = name ? name : "value";

		next = render(w->r, vals, i);
		if (mb->len)
			tmx_buf_byte(mb, ' ');
		tmx_buf_put(mb, leaf_name, strlen(leaf_name));
		tmx_buf_byte(mb, '=');
		tmx_buf_put(mb, w->r->text.p, w->r->text.len);
		w->k++;
		return next;
	}
	lv.index = w->k++;
	type = w->l->leaf[lv.index].type;
	if (w->l->leaf[lv.index].raw && v->count) {
		/* its consumer reads the elements (useq.c's packed arrays) */
		lv.s = NULL;
		lv.len = 0;
		lv.arr = v;
		next = tmx_value_skip(vals, i);
	} else if (w->l->leaf[lv.index].rendered) {
		next = render(w->r, vals, i);
		lv.s = (const char *)w->r->text.p;
		lv.len = w->r->text.len;
		lv.arr = v;
	} else if (type == PF_LEAF_STRING) {
		if (fc->kind == TMX_FC_STRING && v->fc == fc) {
			/* a string: cut at its NUL when decoded, as tmx_value_text says */
			lv.s = v->str.ptr ? v->str.ptr : "";
			lv.len = (size_t)v->str.len;
		} else if (!(lv.s = tmx_value_text(v, &lv.len))) {
			lv.s = "", lv.len = 0;
		}
		lv.s = pf_utf8(w->r, lv.s, lv.len, &lv.len);
		next = tmx_value_skip(vals, i);
	} else if (type == PF_LEAF_DOUBLE) {
		lv.d = v->d;
	} else {
		lv.i = v->s;
		lv.u = v->u;
	}
	w->fn(w->ctx, &w->l->leaf[lv.index], &lv);
	return next;
}

void pf_leaves_walk(const struct pf_leaves *l, const struct tmx_value *vals, struct pf_render *r,
		    void (*fn)(void *ctx, const struct pf_leaf *leaf,
			       const struct pf_leaf_value *v),
		    void *ctx)
{
	struct walk w = { l, r, fn, ctx, 0 };

	if (!vals || !l->n)
		return;
	r->more.len = 0;
	walk_value(&w, vals[0].fc, NULL, vals, 0);
	if (l->n_all > PF_LEAVES_MAX) {
		struct pf_leaf_value lv = { .index = PF_LEAVES_MAX - 1,
					    .s = r->more.p ? (const char *)r->more.p : "",
					    .len = r->more.len };
		fn(ctx, &l->leaf[PF_LEAVES_MAX - 1], &lv);
	}
}
