/*
 * trace.dat files as a source of the common model: the classes of a file
 * (see source_impl.h and the mapping in source.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tasks.h"
#include "tracecmd/source_impl.h"

/* ------------------------------------------------------------------ */
/* Classes                                                               */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *int_fc(struct tmx_arena *a, const struct tdat_file *f,
				      uint32_t bytes, bool is_signed, uint8_t base)
{
	struct tmx_field_class *fc = tmx_fc_new(a, TMX_FC_INT);
	if (fc) {
		fc->size = bytes * 8;
		fc->is_signed = is_signed;
		fc->byte_order = f->big_endian ? TMX_BO_BE : TMX_BO_LE;
		fc->base = base;
	}
	return fc;
}

/* The fast path's operation for pf (whose kind and classes are set) of a file of byte order `swap`. */
static void plan_op(struct plan_field *pf, bool swap)
{
	static const uint8_t ints[2][2][9] = {
		{ { [1] = OP_U8, [2] = OP_U16, [4] = OP_U32, [8] = OP_X64 },
		  { [1] = OP_S8, [2] = OP_S16, [4] = OP_S32, [8] = OP_X64 } },
		{ { [1] = OP_U8, [2] = OP_U16_SW, [4] = OP_U32_SW, [8] = OP_X64_SW },
		  { [1] = OP_S8, [2] = OP_S16_SW, [4] = OP_S32_SW, [8] = OP_X64_SW } },
	};

	pf->off = pf->fd->offset;
	pf->size = pf->fd->size;
	if (pf->elem) {
		pf->es = (uint8_t)(pf->elem->size / 8);
		pf->esgn = pf->elem->is_signed;
	}
	switch (pf->kind) {
	case P_INT: pf->op = ints[swap][pf->fc->is_signed][pf->size]; break;
	case P_TEXT: pf->op = OP_TEXT; break;
	case P_FLEX_TEXT: pf->op = OP_FLEX_TEXT; break;
	case P_ARRAY:
	case P_BYTES:
		pf->op = OP_ELEMS;
		pf->len = (uint32_t)pf->fc->length;
		break;
	case P_DYN_STRING: pf->op = OP_DYN_STRING; break;
	default:
		pf->op = OP_DYN_SEQ;
		pf->esgn = false;   /* read unsigned (put_ints' callers) */
		break;
	}
}

static int plan_field(struct tmx_arena *a, const struct tdat_file *f, const struct tdat_field *fd,
		      struct plan_field *pf)
{
	bool sgn = (fd->flags & TDAT_FIELD_SIGNED) != 0;
	uint8_t base = (fd->flags & TDAT_FIELD_POINTER) ? 16 : 10;

	pf->fd = fd;
	if (fd->flags & TDAT_FIELD_DYNAMIC) {
		if (fd->flags & TDAT_FIELD_STRING) {
			pf->kind = P_DYN_STRING;
			pf->fc = tmx_fc_new(a, TMX_FC_STRING);
			if (pf->fc)
				pf->fc->encoding = TMX_ENC_UTF8;
		} else {
			uint32_t es = fd->elem_size == 1 || fd->elem_size == 2 || fd->elem_size == 4 ||
				      fd->elem_size == 8 ? fd->elem_size : 1;
			pf->kind = P_DYN_SEQ;
			pf->elem = int_fc(a, f, es, false, es == 1 ? 16 : 10);
			pf->fc = tmx_fc_new(a, TMX_FC_SEQUENCE);
			if (pf->fc)
				pf->fc->elem = pf->elem;
		}
	} else if (fd->flags & TDAT_FIELD_ARRAY) {
		if ((fd->flags & TDAT_FIELD_STRING) && fd->elem_size == 1) {
			pf->kind = fd->size ? P_TEXT : P_FLEX_TEXT;
			pf->elem = int_fc(a, f, 1, sgn, 10);
			pf->fc = tmx_fc_new(a, fd->size ? TMX_FC_ARRAY : TMX_FC_STRING);
			if (pf->fc) {
				pf->fc->elem = fd->size ? pf->elem : NULL;
				pf->fc->length = fd->size;
				pf->fc->is_text = fd->size != 0;
				pf->fc->encoding = TMX_ENC_UTF8;
			}
			if (pf->elem)
				pf->elem->encoding = TMX_ENC_UTF8;
		} else {
			uint32_t es = fd->elem_size;
			bool ok = es == 1 || es == 2 || es == 4 || es == 8;
			pf->kind = P_ARRAY;
			pf->elem = int_fc(a, f, ok ? es : 1, ok && sgn, ok ? base : 16);
			pf->fc = tmx_fc_new(a, TMX_FC_ARRAY);
			if (pf->fc) {
				pf->fc->elem = pf->elem;
				pf->fc->length = ok ? fd->count : fd->size;
			}
		}
	} else if (fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8) {
		pf->kind = P_INT;
		pf->fc = int_fc(a, f, fd->size, sgn, base);
	} else {
		pf->kind = P_BYTES;
		pf->elem = int_fc(a, f, 1, false, 16);
		pf->fc = tmx_fc_new(a, TMX_FC_ARRAY);
		if (pf->fc) {
			pf->fc->elem = pf->elem;
			pf->fc->length = fd->size;
		}
	}
	if (!pf->fc || ((pf->kind == P_ARRAY || pf->kind == P_DYN_SEQ || pf->kind == P_BYTES ||
			 pf->kind == P_TEXT) && !pf->elem))
		return -1;
	plan_op(pf, tdm_swapped(f));
	return 0;
}

static int build_plan(struct tmx_arena *a, const struct tdat_file *f, const struct tdat_field *fds,
		      size_t n, struct plan *p)
{
	p->n = n;
	p->f = tmx_arena_calloc(a, n ? n : 1, sizeof(*p->f));
	p->fc = tmx_fc_new(a, TMX_FC_STRUCT);
	if (!p->f || !p->fc)
		return -1;
	p->fc->n_members = n;
	p->fc->members = tmx_arena_calloc(a, n ? n : 1, sizeof(*p->fc->members));
	if (!p->fc->members)
		return -1;
	p->n_vals = 1 + n;
	p->fixed_end = 0;
	p->dyn = false;
	for (size_t i = 0; i < n; i++) {
		const struct plan_field *pf = &p->f[i];
		uint64_t end;
		if (plan_field(a, f, &fds[i], &p->f[i]))
			return -1;
		p->fc->members[i].name = (char *)fds[i].name;
		p->fc->members[i].fc = pf->fc;
		if (pf->op == OP_ELEMS)
			p->n_vals += pf->len;
		/* what decode_plan's per-field check asks of the record */
		end = (uint64_t)pf->off + (pf->kind >= P_DYN_STRING ? 4 : pf->size);
		if (pf->kind != P_FLEX_TEXT && end > p->fixed_end)
			p->fixed_end = end;
		p->dyn |= pf->kind >= P_DYN_STRING;
	}
	return 0;
}

/* te->all: tf's common plan (if any) then te's payload plan, each after an OP_STRUCT. */
static int build_all(struct tmx_arena *a, const struct plan *common, struct tdm_event *te)
{
	const struct plan *parts[2] = { common->fc ? common : NULL, &te->payload };
	struct plan *all = &te->all;
	size_t k = 0;

	all->n = (common->fc ? common->n + 1 : 0) + te->payload.n + 2;
	if (!(all->f = tmx_arena_calloc(a, all->n, sizeof(*all->f))))
		return -1;
	all->f[all->n - 1].op = OP_END;
	all->n_vals = 1;   /* the slot decode_fast gives OP_END */
	all->dyn = false;
	for (size_t i = 0; i < 2; i++) {
		const struct plan *p = parts[i];
		if (!p)
			continue;
		all->f[k].fc = p->fc;
		all->f[k].op = OP_STRUCT;
		all->f[k++].len = (uint32_t)p->n;
		memcpy(all->f + k, p->f, p->n * sizeof(*p->f));
		k += p->n;
		all->n_vals += p->n_vals;
		if (p->fixed_end > all->fixed_end)
			all->fixed_end = p->fixed_end;
		all->dyn |= p->dyn;
	}
	return 0;
}

/* tf->dense: the event classes by id, for ids up to the largest (at most 64 Ki). */
static int build_dense(struct tdm_file *tf, size_t n)
{
	uint32_t max = 0;

	for (size_t i = 0; i < n; i++)
		if (tf->by_id_events[i]->ec.id > max)
			max = (uint32_t)tf->by_id_events[i]->ec.id;
	tf->n_dense = n ? (size_t)(max < 65535 ? max : 65535) + 1 : 0;
	tf->dense = tmx_arena_calloc(&tf->arena, tf->n_dense ? tf->n_dense : 1, sizeof(*tf->dense));
	if (!tf->dense)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (tf->by_id_events[i]->ec.id < tf->n_dense)
			tf->dense[tf->by_id_events[i]->ec.id] = tf->by_id_events[i];
	return 0;
}

static int add_env(struct tdm_file *tf, size_t *cap, const char *name, bool is_int, int64_t iv,
		   const char *sv, size_t slen)
{
	struct tmx_trace_class *tc = &tf->tc;
	struct tmx_env_entry *e;

	if (tc->n_env == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		tc->env = tmx_arena_grow(&tf->arena, tc->env, *cap, nc, sizeof(*tc->env));
		if (!tc->env)
			return -1;
		*cap = nc;
	}
	e = &tc->env[tc->n_env++];
	e->name = (char *)name;
	e->is_int = is_int;
	e->int_value = iv;
	e->str_value = NULL;
	if (!is_int && !(e->str_value = tmx_arena_strndup(&tf->arena, sv ? sv : "", sv ? slen : 0)))
		return -1;
	return 0;
}

static int cmp_ec(const void *a, const void *b)
{
	const struct tmx_event_class *x = *(const struct tmx_event_class *const *)a;
	const struct tmx_event_class *y = *(const struct tmx_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

int tdm_build_file(struct tdm_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	struct tmx_arena *a = &tf->arena;
	size_t cap = 0, n = 0;
	char *buffers = NULL;
	size_t blen = 0;
	bool fail = false;

	tf->tc.format = TMX_FORMAT_TRACEDAT;
	tf->tc.major = (uint32_t)f->version;
	tf->tc.native_byte_order = f->big_endian ? TMX_BO_BE : TMX_BO_LE;
	tf->swap = tdm_swapped(f);
	tf->trace.name = (char *)f->path;
	tf->trace.cls = &tf->tc;
	/* saved_cmdlines: the tasks of the model (lines that do not read are left out) */
	if (tmx_tasks_from_cmdlines(a, f->cmdlines.ptr, f->cmdlines.len, &tf->trace.tasks))
		fail = true;

	tf->clock.name = tmx_arena_strdup(a, f->buffers[0].clock);
	tf->clock.description = "trace-cmd trace clock (record timestamps as trace-cmd reports them)";
	tf->clock.frequency = 1000000000;
	tf->clocks[0] = &tf->clock;
	tf->tc.clocks = tf->clocks;
	tf->tc.n_clocks = 1;

	/* Environment. */
	fail |= add_env(tf, &cap, "trace_format", false, 0, "trace-cmd.dat", 13) != 0;
	fail |= add_env(tf, &cap, "file_version", true, f->version, NULL, 0) != 0;
	if (f->uname.len) {
		/* "Linux HOST RELEASE MACHINE": the second word is the host name. */
		const char *p = memchr(f->uname.ptr, ' ', f->uname.len);
		fail |= add_env(tf, &cap, "uname", false, 0, f->uname.ptr, f->uname.len) != 0;
		if (p) {
			const char *s = p + 1, *e = memchr(s, ' ', f->uname.len - (size_t)(s - f->uname.ptr));
			size_t hl = e ? (size_t)(e - s) : f->uname.len - (size_t)(s - f->uname.ptr);
			if (hl)
				fail |= add_env(tf, &cap, "hostname", false, 0, s, hl) != 0;
		}
	}
	fail |= add_env(tf, &cap, "trace_clock", false, 0, f->buffers[0].clock,
			strlen(f->buffers[0].clock)) != 0;
	fail |= add_env(tf, &cap, "cpus", true, f->max_cpu, NULL, 0) != 0;
	for (size_t i = 0; i < f->n_buffers; i++)
		blen += strlen(f->buffers[i].name) + 1;
	buffers = tmx_arena_alloc(a, blen + 1);
	if (buffers) {
		size_t o = 0;
		for (size_t i = 0; i < f->n_buffers; i++) {
			size_t l = strlen(f->buffers[i].name);
			if (i)
				buffers[o++] = ',';
			memcpy(buffers + o, f->buffers[i].name, l);
			o += l;
		}
		buffers[o] = '\0';
		fail |= add_env(tf, &cap, "buffers", false, 0, buffers, o) != 0;
	} else {
		fail = true;
	}
	if (f->version_text.len)
		fail |= add_env(tf, &cap, "tracecmd_version", false, 0, f->version_text.ptr,
				f->version_text.len) != 0;
	fail |= add_env(tf, &cap, "compression", false, 0, f->compression, strlen(f->compression)) != 0;
	if (f->has_trace_id)
		fail |= add_env(tf, &cap, "trace_id", true, (int64_t)f->trace_id, NULL, 0) != 0;
	if (f->has_tsc2nsec)
		fail |= add_env(tf, &cap, "tsc2nsec_mult", true, f->tsc2nsec_mult, NULL, 0) != 0;
	{
		/* what the reader passed over (trace-cmd 3.4's BTF...): `tracemux info` names it */
		char skipped[1024];
		size_t sl = tdat_skipped_text(f, skipped, sizeof(skipped));
		if (sl)
			fail |= add_env(tf, &cap, "skipped", false, 0, skipped, sl) != 0;
	}
	if (fail || !tf->clock.name)
		return tdm_nomem(err);

	/* Stream class: packet context { cpu_id }, common context, events. */
	tf->sc.trace_class = &tf->tc;
	tf->sc.default_clock = &tf->clock;
	tf->scs[0] = &tf->sc;
	tf->tc.stream_classes = tf->scs;
	tf->tc.n_stream_classes = 1;
	tf->pctx_fc = tmx_fc_new(a, TMX_FC_STRUCT);
	if (!tf->pctx_fc || !(tf->pctx_fc->members = tmx_arena_calloc(a, 1, sizeof(struct tmx_member))))
		return tdm_nomem(err);
	tf->pctx_fc->n_members = 1;
	tf->pctx_fc->members[0].name = "cpu_id";
	if (!(tf->pctx_fc->members[0].fc = int_fc(a, f, 4, false, 10)))
		return tdm_nomem(err);
	tf->sc.packet_context = tf->pctx_fc;

	/* Common fields: those of the first event (they are the same for all). */
	const struct tdat_event *first = NULL;
	for (size_t i = 0; i < f->n_events && !first; i++)
		if (f->events[i]->n_common)
			first = f->events[i];
	if (first) {
		if (build_plan(a, f, first->fields, first->n_common, &tf->common))
			return tdm_nomem(err);
		tf->sc.event_common_context = tf->common.fc;
	}

	tf->sc.event_classes = tmx_arena_calloc(a, f->n_events ? f->n_events : 1,
						sizeof(*tf->sc.event_classes));
	tf->by_id_events = tmx_arena_calloc(a, f->n_events ? f->n_events : 1,
					    sizeof(*tf->by_id_events));
	if (!tf->sc.event_classes || !tf->by_id_events)
		return tdm_nomem(err);
	for (size_t i = 0; i < f->n_events; i++) {
		const struct tdat_event *ev = f->events[i];
		struct tdm_event *te;
		size_t sl, nl;
		if (n && tf->by_id_events[n - 1]->ev->id == ev->id)
			continue;   /* same id twice: the first format wins */
		te = tmx_arena_calloc(a, 1, sizeof(*te));
		if (!te)
			return tdm_nomem(err);
		te->ev = ev;
		sl = strlen(ev->system);
		nl = strlen(ev->name);
		te->ec.name = tmx_arena_alloc(a, sl + nl + 2);
		if (!te->ec.name)
			return tdm_nomem(err);
		memcpy(te->ec.name, ev->system, sl);
		te->ec.name[sl] = ':';
		memcpy(te->ec.name + sl + 1, ev->name, nl + 1);
		te->ec.id = ev->id;
		te->ec.log_level = TMX_LOG_LEVEL_NONE;
		te->ec.stream_class = &tf->sc;
		if (build_plan(a, f, ev->n_fields ? ev->fields + ev->n_common : NULL,
			       ev->n_fields - ev->n_common, &te->payload))
			return tdm_nomem(err);
		if (build_all(a, &tf->common, te))
			return tdm_nomem(err);
		te->ec.payload = te->payload.fc;
		tf->by_id_events[n] = te;
		tf->sc.event_classes[n++] = &te->ec;
	}
	tf->sc.n_event_classes = n;
	qsort(tf->sc.event_classes, n, sizeof(*tf->sc.event_classes), cmp_ec);
	if (build_dense(tf, n))
		return tdm_nomem(err);
	return TMX_OK;
}

