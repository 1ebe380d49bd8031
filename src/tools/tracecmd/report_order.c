/*
 * libtracecmd's record order (report_impl.h).  Each buffer of each file is
 * a handle (trace-cmd's tracecmd_input) with one cursor per CPU; within a
 * handle the CPU whose next record has the smallest time comes first
 * (strict <: the lowest CPU index wins ties), across handles the first
 * handle in trace-cmd's list wins ties (the files' top buffers in
 * command-line order, then the instances of each file).  --cpu leaves CPUs
 * out, the filters drop records as they are taken; and every record is
 * checked before libtraceevent, which trusts it, reads it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "tools/tracecmd/report_impl.h"

static uint32_t read32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/*
 * libtraceevent reads fields and __data_loc / __rel_loc strings without
 * looking at the record size.  Returns -1 when a dynamic field lies outside
 * the record (or its string has no NUL), else the bytes its static fields
 * need (which may be more than the record: ftrace:kernel_stack records
 * store fewer `caller` entries than the format's array).
 */
static int64_t fields_need(const struct tep_format_field *fl, const uint8_t *d, uint32_t size,
			   bool swap)
{
	uint64_t need = 0;

	for (; fl; fl = fl->next) {
		uint64_t end, off, len;

		if (fl->offset < 0 || fl->size < 0)
			return -1;
		end = (uint64_t)fl->offset + (uint64_t)fl->size;
		if (end > need)
			need = end;
		if (!(fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->size != 4)
			continue;
		if (end > size)
			return -1;
		off = read32(d + fl->offset, swap);
		len = off >> 16;
		off &= 0xffff;
		if (fl->flags & TEP_FIELD_IS_RELATIVE)
			off += end;
		if (off + len > size)
			return -1;
		/* a string is printed up to its NUL: there must be one */
		if ((fl->flags & TEP_FIELD_IS_STRING) && !memchr(d + off, '\0', size - off))
			return -1;
	}
	return (int64_t)need;
}

#define TCR_MAX_PAD 65536

/*
 * The bytes that libtraceevent reads of `rec` (its event `ev`): -1 when it
 * cannot be given the record at all, else the record's size or more (the
 * format's static fields past its end).
 */
static int64_t bytes_read(const struct tcr_file *tf, const struct tep_event *ev,
			  const struct tdat_record *rec)
{
	int64_t a, b = (size_t)ev->id < tf->n_ev_by_id ? tf->need_by_id[ev->id] : TCR_NEED_VARIES;

	if (b == TCR_NEED_VARIES) {
		a = fields_need(ev->format.common_fields, rec->data, rec->size, tf->swap);
		b = fields_need(ev->format.fields, rec->data, rec->size, tf->swap);
		if (a < 0 || b < 0)
			return -1;
		if (b < a)
			b = a;
	}
	if (b < 0)
		return -1;
	return b > rec->size ? b : rec->size;
}

int64_t tcr_fixed_need(const struct tep_event *ev)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	int64_t a, b;

	for (int k = 0; k < 2; k++)
		for (const struct tep_format_field *fl = lists[k]; fl; fl = fl->next)
			if ((fl->flags & TEP_FIELD_IS_DYNAMIC) && fl->size == 4)
				return TCR_NEED_VARIES;
	/* without dynamic fields fields_need() reads no record */
	a = fields_need(lists[0], NULL, 0, false);
	b = fields_need(lists[1], NULL, 0, false);
	return a < 0 || b < 0 ? -1 : b > a ? b : a;
}

/*
 * The tep_record to hand libtraceevent for `rec`: the record itself (also
 * when the format's static fields run past its end but stay inside its page:
 * libtraceevent then reads what follows, as trace-cmd prints it), or a copy
 * padded with zeros when they would run past the page.  False when the record cannot
 * be given to libtraceevent at all.
 */
bool tcr_prepare(struct tcr *r, const struct tcr_file *tf, const struct tdat_record *rec,
		 struct tep_record *tr, struct tep_event **evp)
{
	struct tep_event *ev;
	int64_t b;

	to_tep_record(rec, tr);
	*evp = NULL;
	if (!common_inside(tf, rec))
		return false;
	*evp = ev = tcr_event_of(tf, rec);
	if (!ev)
		return true;
	if ((b = bytes_read(tf, ev, rec)) < 0)
		return false;
	/* What follows the record in its page: libtraceevent reads it, as in trace-cmd. */
	if (b <= rec->avail)
		return true;
	if (b > TCR_MAX_PAD)
		return false;
	if (!tmx_grow_array((void **)&r->pad, &r->pad_size, (size_t)b, 1, 256))
		return false;
	memcpy(r->pad, rec->data, rec->size);
	memset(r->pad + rec->size, 0, (size_t)b - rec->size);
	tr->data = r->pad;
	return true;
}

/*
 * The cursors, or with workers what they read of them (report_par.c),
 * through h->heads: a cursor is asked again only once a record was taken
 * from it.
 */
static __attribute__((noinline)) int peek_cursor(struct tcr *r, struct tcr_handle *h, size_t i,
						 struct tmx_error *err)
{
	struct tcr_head *hd = &h->heads[i];
	int ret = r->par ? tcr_par_peek(r, h, i, &hd->rec, err)
			 : tdat_cursor_peek(h->cur[i], &hd->rec, err);

	if (ret)
		return ret;
	hd->ts = hd->rec ? rec_time(h->file, hd->rec) : 0;
	hd->known = true;
	return TMX_OK;
}

static inline int cursor_peek(struct tcr *r, struct tcr_handle *h, size_t i,
			      const struct tdat_record **rec, struct tmx_error *err)
{
	int ret;

	if (!h->heads[i].known && (ret = peek_cursor(r, h, i, err)))
		return ret;
	*rec = h->heads[i].rec;
	return TMX_OK;
}

/* With workers: the next record too, when their batch has it, without another call. */
static __attribute__((noinline)) int par_next(struct tcr *r, struct tcr_handle *h, size_t i,
					      const struct tdat_record **rec, struct tmx_error *err)
{
	struct tcr_head *hd = &h->heads[i];
	int ret;

	if (!(ret = tcr_par_next(r, h, i, rec, &hd->rec, err)) && hd->rec) {
		hd->ts = rec_time(h->file, hd->rec);
		hd->known = true;
	}
	return ret;
}

static inline __attribute__((always_inline)) int cursor_next(struct tcr *r, struct tcr_handle *h,
							     size_t i,
							     const struct tdat_record **rec,
							     struct tmx_error *err)
{
	h->heads[i].known = false;
	return r->par ? par_next(r, h, i, rec, err) : tdat_cursor_next(h->cur[i], rec, err);
}

/* The handle's next record that passes the filters, into h->rec (NULL at the end). */
static int handle_next(struct tcr *r, struct tcr_handle *h, struct tmx_error *err)
{
	for (;;) {
		const struct tdat_record *best = NULL, *rec;
		size_t best_i = 0;
		uint64_t best_ts = 0;
		struct tep_record tr;
		int ret;

		/* --cpu too: trace-cmd reads the CPUs in their order (the first wins ties) */
		for (size_t i = 0; i < h->n_cpus; i++) {
			const struct tcr_head *hd = &h->heads[i];

			if (h->listed && !h->listed[i])
				continue;
			if (!hd->known && (ret = peek_cursor(r, h, i, err)))
				return ret;
			if (hd->rec && (!best || hd->ts < best_ts)) {
				best = hd->rec;
				best_ts = hd->ts;
				best_i = i;
			}
		}
		if (!best) {
			h->done = true;
			h->rec = NULL;
			return TMX_OK;
		}
		if ((ret = cursor_next(r, h, best_i, &rec, err)))
			return ret;
		if (!rec) {   /* cannot happen after a peek; do not loop on it */
			h->done = true;
			return TMX_OK;
		}
		if (h->file->n_pos || h->file->n_neg) {
			struct tep_event *ev;
			/* A record libtraceevent cannot read matches no filter. */
			if (!tcr_prepare(r, h->file, rec, &tr, &ev) || !tcr_filter_pass(h->file, &tr))
				continue;
		}
		/* --events / --filter: after the -F filters, as one more of them. */
		if (r->o->keep && !r->o->keep(r->o->keep_ctx, (size_t)(h->file - r->files), rec))
			continue;
		/* -I / -S: trace-cmd's test_filters() drops them after the -F filters. */
		if ((r->o->no_irqs || r->o->no_softirqs) && common_inside(h->file, rec)) {
			int fl;
			to_tep_record(rec, &tr);
			fl = tep_data_flags(h->file->tep, &tr);
			if ((r->o->no_irqs && (fl & TRACE_FLAG_HARDIRQ)) ||
			    (r->o->no_softirqs && (fl & TRACE_FLAG_SOFTIRQ)))
				continue;
		}
		h->rec = rec;
		h->ts = best_ts;   /* rec is the record peeked as best */
		h->rec_cursor = best_i;
		return TMX_OK;
	}
}

/*
 * The handle whose record comes next into *best (NULL when every handle is
 * done): the smallest time, the first handle on ties.  Its record is
 * h->rec; the caller clears it once used.
 */
int tcr_next_handle(struct tcr *r, struct tcr_handle **best, struct tmx_error *err)
{
	int ret;

	*best = NULL;
	for (size_t i = 0; i < r->n_handles; i++) {
		struct tcr_handle *h = &r->handles[i];
		if (!h->rec && !h->done && (ret = handle_next(r, h, err)))
			return ret;
		if (h->rec && (!*best || h->ts < (*best)->ts))
			*best = h;
	}
	return TMX_OK;
}

/* --cpu LIST as trace-cmd's parse_cpulist(): "N", "A-B", separated by ',' or ':'. */
int tcr_parse_cpu_list(struct tcr *r, const char *s, struct tmx_error *err)
{
	const char *p = s;

	if (!(r->cpu_list = malloc(TMX_TCREPORT_MAX_CPUS * sizeof(*r->cpu_list))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	do {
		unsigned long a, b;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "invalid character '%c' in cpu string '%s'", *p, s);
		b = a = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				return tmx_error_set(err, TMX_ERR_USAGE, NULL,
						     "invalid character '%c' in cpu string '%s'", *p, s);
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "range of cpu numbers must be lower to greater");
		if (b >= TMX_TCREPORT_MAX_CPUS)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL, "cpu %lu: at most %d CPUs", b,
					     TMX_TCREPORT_MAX_CPUS);
		for (; a <= b; a++) {
			bool dup = false;
			for (size_t i = 0; i < r->n_cpu_list; i++)
				dup |= r->cpu_list[i] == a;
			if (!dup)
				r->cpu_list[r->n_cpu_list++] = (unsigned)a;
		}
		if (*p == ',' || *p == ':')
			p++;
		else if (*p)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "invalid character '%c' in cpu string '%s'", *p, s);
	} while (*p);
	return TMX_OK;
}

/* The function graph look-ahead reads the handle's CPUs as handle_next() does. */
static int fg_peek(const struct tfg_handle *fh, size_t i, const struct tdat_record **rec,
		   struct tmx_error *err)
{
	struct tcr_handle *h = (struct tcr_handle *)((char *)fh - offsetof(struct tcr_handle, fg));

	return cursor_peek(h->r, h, i, rec, err);
}

static int fg_next(const struct tfg_handle *fh, size_t i, const struct tdat_record **rec,
		   struct tmx_error *err)
{
	struct tcr_handle *h = (struct tcr_handle *)((char *)fh - offsetof(struct tcr_handle, fg));

	return cursor_next(h->r, h, i, rec, err);
}

/* rec_time() for the function graph look-ahead (funcgraph.h). */
static uint64_t fg_time(const void *tf, const struct tdat_record *rec)
{
	return rec_time(tf, rec);
}

/*
 * The CPUs of handle h that --cpu lists.  trace-cmd 3.1.6 numbers the CPUs
 * of all its handles in one sequence (libtracecmd's multi-handle iterator
 * passes that index as the CPU): each handle's CPU ids from h->cpu_base, the
 * sum of the max_cpu of the handles before it.  So `--cpu 1` on two 2-CPU files is
 * the first file's CPU 1, and `--cpu 2` the second file's CPU 0.
 */
static int list_cpus(struct tcr *r, struct tcr_handle *h, const struct tdat_buffer *b,
		     struct tmx_error *err)
{
	if (!(h->listed = calloc(b->n_cpus, sizeof(*h->listed))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < b->n_cpus; i++)
		for (size_t k = 0; k < r->n_cpu_list && !h->listed[i]; k++)
			h->listed[i] = h->cpu_base + b->cpus[i].cpu == r->cpu_list[k];
	return TMX_OK;
}

/*
 * libtracecmd's max_cpu of a handle: the file's for its top buffer; an
 * instance copies it and takes more if its own CPUs need more.
 */
static uint64_t handle_max_cpu(const struct tcr_file *tf, const struct tdat_buffer *b)
{
	uint64_t n = tf->cpus > 0 ? (uint64_t)tf->cpus : 0;

	if (b != &tf->f->buffers[0]) {
		if (b->n_cpus > n)
			n = b->n_cpus;
		for (uint32_t i = 0; i < b->n_cpus; i++)
			if ((uint64_t)b->cpus[i].cpu + 1 > n)
				n = (uint64_t)b->cpus[i].cpu + 1;
	}
	return n;
}

int tcr_add_handle(struct tcr *r, struct tcr_file *tf, size_t buffer, const char *label,
		   struct tmx_error *err)
{
	const struct tdat_buffer *b = &tf->f->buffers[buffer];
	struct tcr_handle *h;
	int ret = TMX_OK;

	if (!tmx_grow_array((void **)&r->handles, &r->cap_handles, r->n_handles + 1,
			    sizeof(*r->handles), 8))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	h = &r->handles[r->n_handles++];
	memset(h, 0, sizeof(*h));
	h->r = r;
	h->file = tf;
	h->buffer = buffer;
	h->label = label;
	h->cpu_base = r->cpu_base;
	if (b->latency || !b->n_cpus)
		h->done = true;
	else if (r->n_cpu_list)
		ret = list_cpus(r, h, b, err);
	r->cpu_base += handle_max_cpu(tf, b);
	if (ret || h->done)
		return ret;
	if (!(h->cur = calloc(b->n_cpus, sizeof(*h->cur))) ||
	    !(h->heads = calloc(b->n_cpus, sizeof(*h->heads))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < b->n_cpus; i++) {
		if ((ret = tdat_cursor_open(tf->f, buffer, i, &h->cur[i], err)))
			return ret;
		h->n_cpus = i + 1;
	}
	h->fg = (struct tfg_handle){ h->n_cpus, h->listed, fg_peek, fg_next, fg_time, tf };
	return TMX_OK;
}

/*
 * --ts-check: trace-cmd 3.1.6 warns when a printed record is older than the
 * one printed before it (from any handle), naming its CPU by the index of
 * list_cpus().
 */
void tcr_check_ts(struct tcr *r, struct tcr_handle *h)
{
	if (r->check_ts > h->ts && r->o->diag && r->o->diag->warn) {
		char msg[200];
		snprintf(msg, sizeof(msg), "WARNING: Record on cpu %llu went backwards: %lld to %lld "
			 "delta: -%lld", (unsigned long long)(h->cpu_base + h->rec->cpu),
			 (long long)r->check_ts, (long long)h->ts, (long long)(r->check_ts - h->ts));
		r->o->diag->warn(r->o->diag->user, msg);
	}
	r->check_ts = h->ts;
}
