/*
 * The XRay reader's output: the ascending runs of TSCs in llvm's unsorted
 * order found in one pass, one cursor per run merged by a heap (ties to
 * the earlier run: a stable sort by TSC in bounded memory), or one cursor
 * when unsorted output is asked for; each record made a model message,
 * between the streams' begin and packet messages and their ends.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/progress_count.h"
#include "model/field_class.h"
#include "xray/reader_impl.h"

/*
 * The value arrays' classes are set once (init_values); a record changes
 * only their values.
 */
static void init_values(struct xr_reader *r)
{
	struct tmx_value *v = r->pay;

	r->ctx[0] = (struct tmx_value){ .fc = r->fc_struct_ctx, .n_members = 3 };
	r->ctx[1] = (struct tmx_value){ .fc = r->fc_cpu };
	r->ctx[2] = (struct tmx_value){ .fc = r->fc_tid };
	r->ctx[3] = (struct tmx_value){ .fc = r->fc_pid };
	v[0] = (struct tmx_value){ .fc = r->fc_payload, .n_members = 7 };
	v[1] = (struct tmx_value){ .fc = r->fc_func_id };
	v[2] = (struct tmx_value){ .fc = r->fc_function };
	v[3] = (struct tmx_value){ .fc = r->fc_rtype };
	v[4] = (struct tmx_value){ .fc = r->fc_data_size };
	v[5] = (struct tmx_value){ .fc = r->fc_data };
	v[6] = (struct tmx_value){ .fc = r->fc_n_args };
	v[7] = (struct tmx_value){ .fc = r->fc_args };
	r->wall[0] = (struct tmx_value){ .fc = r->fc_wall, .n_members = 2 };
	r->wall[1] = (struct tmx_value){ .fc = r->fc_wall_sec };
	r->wall[2] = (struct tmx_value){ .fc = r->fc_wall_usec };
	r->ev_msg = (struct tmx_msg){ .kind = TMX_MSG_EVENT, .event = &r->ev, .has_ts = true };
	r->ev.scopes[TMX_SCOPE_COMMON_CONTEXT] = r->ctx;
}

/*
 * llvm-xray's `function` text of an id.  Texts made from the id alone
 * (decimal, "#id") are kept in a small direct-mapped cache: formatting them
 * again for every record was a tenth of the reading.
 */
static const char *function_text(struct xr_reader *r, int32_t id, size_t *len)
{
	struct xr_fn_slot *c = &r->fn_cache[(uint32_t)id % XR_FN_SLOTS];
	const char *t;

	if (c->len && c->id == id) {
		*len = c->len;
		return c->text;
	}
	t = xr_names_get(r->names, id, r->fn_buf, len);
	if (t != r->fn_buf || *len >= sizeof(c->text))
		return t;
	memcpy(c->text, t, *len);
	c->id = id;
	c->len = (uint8_t)*len;
	return c->text;
}

/*
 * The stream ranges and, sorted, the runs and chunks (reader_runs.c).
 * Unsorted, or a YAML trace (sorted in memory): one cursor.
 */
int xr_setup_output(struct xr_reader *r, struct tmx_error *err)
{
	int ret;

	r->ts_min = malloc((r->n_streams ? r->n_streams : 1) * sizeof(*r->ts_min));
	r->ts_max = calloc(r->n_streams ? r->n_streams : 1, sizeof(*r->ts_max));
	if (!r->ts_min || !r->ts_max)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < r->n_streams; i++)
		r->ts_min[i] = UINT64_MAX;
	if (!(r->pay = malloc(16 * sizeof(*r->pay))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	r->cap_pay = 16;
	init_values(r);
	xr_cursor_init(&r->cursor, NULL, UINT64_MAX);
	if (r->is_yaml) {
		if ((ret = xr_yaml_order(&r->yaml, r->opts.unsorted, err)))
			return ret;
		for (size_t i = 0; i < r->yaml.n_recs; i++) {
			const struct xr_yrec *y = &r->yaml.recs[i];
			if (y->tsc < r->ts_min[y->stream])
				r->ts_min[y->stream] = y->tsc;
			if (y->tsc > r->ts_max[y->stream])
				r->ts_max[y->stream] = y->tsc;
		}
		r->have_ranges = true;
		return TMX_OK;
	}
	return r->opts.unsorted ? TMX_OK : xr_find_runs(r, err);
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static int fill_event(struct xr_reader *r, const struct xr_record *rec, struct tmx_error *err)
{
	const struct tmx_clock_class *cc = r->tc->clocks[0];
	struct tmx_value *v;
	size_t need = 8 + (size_t)rec->n_args, len;

	if (rec->kind >= TMX_XRAY_N_EVENT_CLASSES || rec->stream >= r->n_streams)
		return tmx_error_set(err, TMX_ERR_DATA, r->file.map.path,
				     "XRay: internal error: record of kind %u for stream %u of %u",
				     rec->kind, rec->stream, r->n_streams);
	r->ctx[1].u = rec->cpu;
	r->ctx[2].u = rec->tid;
	r->ctx[3].u = rec->pid;
	if (need > r->cap_pay) {
		size_t cap = need * 2;
		void *p = realloc(r->pay, cap * sizeof(*r->pay));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->pay = p;
		r->cap_pay = cap;
	}
	if (rec->kind == TMX_XRAY_EV_WALLTIME) {
		r->wall[1].u = rec->wall_sec;
		r->wall[2].u = rec->wall_usec;
		r->ev.scopes[TMX_SCOPE_PAYLOAD] = r->wall;
	} else {
		v = r->pay;
		v[1].s = rec->func_id;
		v[2].str.ptr = function_text(r, rec->func_id, &len);
		v[2].str.len = len;
		v[3].u = rec->record_type;
		v[4].u = rec->data_size;
		/* Never NULL: outputs hand the bytes to memchr & co. */
		v[5].str.ptr = rec->data ? (const char *)rec->data : "";
		v[5].str.len = rec->data_size;
		v[6].u = rec->n_args;
		v[7].count = rec->n_args;
		for (uint32_t i = 0; i < rec->n_args; i++)
			v[8 + i] = (struct tmx_value){ .fc = r->fc_arg, .u = rec->args[i] };
		r->ev.scopes[TMX_SCOPE_PAYLOAD] = v;
	}
	r->ev.cls = r->sc->event_classes[rec->kind];
	r->ev.packet = &r->packets[rec->stream];
	r->ev_msg.stream = &r->streams[rec->stream];
	r->ev_msg.packet = &r->packets[rec->stream];
	r->ev_msg.cycles = rec->tsc;
	/* The emulated clock (1 GHz, no offset): cycles are nanoseconds. */
	if (cc->frequency == UINT64_C(1000000000) && !cc->offset_s && !cc->offset_cycles &&
	    rec->tsc <= (uint64_t)INT64_MAX)
		r->ev_msg.ns = (int64_t)rec->tsc;
	else if (!tmx_clock_ns_from_origin(cc, rec->tsc, &r->ev_msg.ns))
		r->ev_msg.ns = INT64_MAX;
	return TMX_OK;
}

static uint64_t total_bytes(struct xr_reader *r)
{
	if (!r->have_total) {
		r->total_bytes = xr_total_bytes(r);
		r->have_total = true;
	}
	return r->total_bytes;
}

void xr_count_records(struct xr_reader *r, uint64_t n)
{
	uint64_t total = total_bytes(r);

	r->recs_done = n == r->n_recs ? r->n_recs : r->recs_done + n;
	/* Exact in 128 bits: never past the total, the total at the end. */
	tmx_count_set(&r->bytes_done,
		      r->recs_done >= r->n_recs ? total :
		      (uint64_t)((unsigned __int128)total * r->recs_done / r->n_recs));
}

/*
 * Unsorted and YAML (one cursor in file order): how far the cursor is, as
 * the index counts the streams' bytes -- FDR blocks passed, basic records
 * passed, YAML records in proportion.
 */
static void count_unsorted(struct xr_reader *r)
{
	const struct xr_cursor *c = &r->cursor;
	uint64_t total = total_bytes(r), done;

	if (r->is_yaml)
		done = r->yaml.n_recs ? (uint64_t)((unsigned __int128)total * c->pos.seq /
						   r->yaml.n_recs) : 0;
	else if (r->layout.fdr)
		done = c->blocks_bytes + (c->pos.in_block && c->pos.prod.off > c->blk_start ?
					  c->pos.prod.off - c->blk_start : 0);
	else
		done = c->pos.off > XR_HEADER_SIZE ? c->pos.off - XR_HEADER_SIZE : 0;
	tmx_count_set(&r->bytes_done, done < total ? done : total);
}

static int next_event(struct xr_reader *r, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct xr_chunk *ch;
	struct xr_record *rec;
	bool got;
	int ret;

	*msg = NULL;
	if (r->opts.unsorted || r->is_yaml) {
		if ((ret = xr_cursor_next(&r->layout, &r->cursor, &got, err)))
			return ret;
		if (!got)
			return TMX_OK;
		maybe_release(r, 16);
		if (++r->unsorted_tick == 1024) {
			r->unsorted_tick = 0;
			count_unsorted(r);
		}
		rec = &r->cursor.rec;
	} else {
		for (;;) {
			if (!(ch = r->chunk) && r->started_chunks)
				return TMX_OK;
			if (ch && ch->next < ch->n)
				break;
			if (ch && ch->ret) {
				*err = ch->err;
				return ch->ret;
			}
			r->started_chunks = true;
			xr_next_chunk(r);
		}
		rec = &ch->recs[ch->next++];
		/* A chunk without arguments has no array: no offset from NULL. */
		rec->args = rec->n_args ? ch->args + ch->next_arg : NULL;
		ch->next_arg += rec->n_args;
	}
	if ((ret = fill_event(r, rec, err)))
		return ret;
	*msg = &r->ev_msg;
	return TMX_OK;
}

enum { PH_STREAM_BEGIN, PH_PACKET_BEGIN, PH_EVENTS, PH_PACKET_END, PH_STREAM_END, PH_ERROR,
       PH_DONE };

void xr_reader_set_filter(void *impl, const struct tmx_reader_filter *f)
{
	struct xr_reader *r = impl;

	r->filter = f;
}

int xr_reader_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct xr_reader *r = impl;
	static const enum tmx_msg_kind kinds[] = {
		[PH_STREAM_BEGIN] = TMX_MSG_STREAM_BEGIN, [PH_PACKET_BEGIN] = TMX_MSG_PACKET_BEGIN,
		[PH_PACKET_END] = TMX_MSG_PACKET_END, [PH_STREAM_END] = TMX_MSG_STREAM_END,
	};
	int ret;

	*msg = NULL;
	for (;;) {
		switch (r->phase) {
		case PH_EVENTS:
			if ((ret = next_event(r, msg, err))) {
				r->phase = PH_DONE;
				return ret;
			}
			if (*msg && r->filter && !r->filter->keep(r->filter->ctx, *msg))
				continue;
			if (*msg)
				return TMX_OK;
			xr_count_records(r, r->n_recs);   /* every record read */
			r->phase++;
			r->phase_i = 0;
			continue;
		case PH_ERROR:
			r->phase = PH_DONE;
			if (r->has_deferred) {
				*err = r->deferred;
				return err->code;
			}
			continue;
		case PH_DONE:
			return TMX_OK;
		default:
			if (r->phase_i >= r->n_streams) {
				r->phase++;
				r->phase_i = 0;
				continue;
			}
			r->msg = (struct tmx_msg){ .kind = kinds[r->phase],
						   .stream = &r->streams[r->phase_i] };
			if (r->phase == PH_PACKET_BEGIN || r->phase == PH_PACKET_END)
				r->msg.packet = &r->packets[r->phase_i];
			r->phase_i++;
			*msg = &r->msg;
			return TMX_OK;
		}
	}
}
