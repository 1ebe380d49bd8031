/*
 * The XRay reader's output: the ascending runs of TSCs in llvm's unsorted
 * order found in one pass, one cursor per run merged by a heap (ties to
 * the earlier run: a stable sort by TSC in bounded memory), or one cursor
 * when unsorted output is asked for; each record made a model message,
 * between the streams' begin and packet messages and their ends.
 */
#include <stdlib.h>

#include "model/errors.h"
#include "model/field_class.h"
#include "xray/reader_impl.h"

/* ------------------------------------------------------------------ */
/* Runs and the merge                                                   */
/* ------------------------------------------------------------------ */

struct xr_run {
	struct xr_pos pos;
	uint64_t end_seq;
};

static bool heap_less(const struct xr_reader *r, uint32_t a, uint32_t b)
{
	uint64_t ta = r->cursors[a].rec.tsc, tb = r->cursors[b].rec.tsc;

	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct xr_reader *r, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < r->n_heap && heap_less(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->n_heap && heap_less(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

/*
 * The ascending runs of TSCs in llvm's unsorted order, one cursor each,
 * merged by a heap.  Unsorted: one cursor.
 */
int xr_setup_output(struct xr_reader *r, struct tmx_error *err)
{
	struct xr_run *runs = NULL;
	uint32_t n_runs = 0, cap_runs = 0;
	struct xr_cursor c;
	uint64_t prev = 0;
	int ret = TMX_OK;

	r->ts_min = malloc((r->n_streams ? r->n_streams : 1) * sizeof(*r->ts_min));
	r->ts_max = calloc(r->n_streams ? r->n_streams : 1, sizeof(*r->ts_max));
	if (!r->ts_min || !r->ts_max)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < r->n_streams; i++)
		r->ts_min[i] = UINT64_MAX;
	/* A YAML trace is in memory: sorted there, read by one cursor. */
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
	}
	if (r->opts.unsorted || r->is_yaml) {
		if (!(r->cursors = calloc(1, sizeof(*r->cursors))) ||
		    !(r->heap = calloc(1, sizeof(*r->heap))))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		xr_cursor_init(&r->cursors[0], NULL, UINT64_MAX);
		r->n_cursors = 1;
		return TMX_OK;
	}
	xr_cursor_init(&c, NULL, UINT64_MAX);
	for (;;) {
		struct xr_pos before = c.pos;
		bool got;
		if ((ret = xr_cursor_next(&r->layout, &c, &got, err)))
			break;
		if (!got)
			break;
		maybe_release(r, 16);
		if (c.rec.stream < r->n_streams) {
			if (c.rec.tsc < r->ts_min[c.rec.stream])
				r->ts_min[c.rec.stream] = c.rec.tsc;
			if (c.rec.tsc > r->ts_max[c.rec.stream])
				r->ts_max[c.rec.stream] = c.rec.tsc;
		}
		if (n_runs == 0 || c.rec.tsc < prev) {
			if (n_runs == XR_MAX_RUNS) {
				ret = tmx_error_set(err, TMX_ERR_LIMIT, r->file.map.path,
						    "XRay records go back in time more than %u "
						    "times: too many runs to sort in bounded memory "
						    "(use --sort=false)", XR_MAX_RUNS);
				break;
			}
			if (n_runs == cap_runs) {
				uint32_t cap = cap_runs ? cap_runs * 2 : 64;
				void *p = realloc(runs, (size_t)cap * sizeof(*runs));
				if (!p) {
					ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
					break;
				}
				runs = p;
				cap_runs = cap;
			}
			if (n_runs)
				runs[n_runs - 1].end_seq = before.seq;
			runs[n_runs++] = (struct xr_run){ .pos = before, .end_seq = UINT64_MAX };
		}
		prev = c.rec.tsc;
	}
	xr_cursor_free(&c);
	r->have_ranges = !ret;
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	if (!ret && (!(r->cursors = calloc(n_runs ? n_runs : 1, sizeof(*r->cursors))) ||
		     !(r->heap = calloc(n_runs ? n_runs : 1, sizeof(*r->heap)))))
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < n_runs && !ret; i++) {
		bool got;
		xr_cursor_init(&r->cursors[i], &runs[i].pos, runs[i].end_seq);
		r->n_cursors = i + 1;
		if ((ret = xr_cursor_next(&r->layout, &r->cursors[i], &got, err)))
			break;
		if (got)
			r->heap[r->n_heap++] = i;
		/*
		 * Each cursor's first read faults in the file where its run
		 * starts, and on recent kernels a fault maps a whole large
		 * page-cache folio (up to 2 MiB): released every few cursors, or
		 * a log with a hundred runs peaks at 200 MB of mapped file here.
		 */
		if (i % 8 == 7)
			tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	}
	free(runs);
	if (ret)
		return ret;
	for (uint32_t i = r->n_heap / 2; i-- > 0;)
		heap_down(r, i);
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static int fill_event(struct xr_reader *r, const struct xr_record *rec, struct tmx_error *err)
{
	const struct tmx_clock_class *cc = r->tc->clocks[0];
	struct tmx_value *v;
	size_t need = 8 + (size_t)rec->n_args, len;
	const char *fn;

	if (rec->kind >= TMX_XRAY_N_EVENT_CLASSES || rec->stream >= r->n_streams)
		return tmx_error_set(err, TMX_ERR_DATA, r->file.map.path,
				     "XRay: internal error: record of kind %u for stream %u of %u",
				     rec->kind, rec->stream, r->n_streams);

	r->ctx[0] = (struct tmx_value){ .fc = r->fc_struct_ctx, .n_members = 3 };
	r->ctx[1] = (struct tmx_value){ .fc = r->fc_cpu, .u = rec->cpu };
	r->ctx[2] = (struct tmx_value){ .fc = r->fc_tid, .u = rec->tid };
	r->ctx[3] = (struct tmx_value){ .fc = r->fc_pid, .u = rec->pid };
	if (need > r->cap_pay) {
		size_t cap = need < 16 ? 16 : need * 2;
		void *p = realloc(r->pay, cap * sizeof(*r->pay));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->pay = p;
		r->cap_pay = cap;
	}
	v = r->pay;
	if (rec->kind == TMX_XRAY_EV_WALLTIME) {
		v[0] = (struct tmx_value){ .fc = r->fc_wall, .n_members = 2 };
		v[1] = (struct tmx_value){ .fc = r->fc_wall_sec, .u = rec->wall_sec };
		v[2] = (struct tmx_value){ .fc = r->fc_wall_usec, .u = rec->wall_usec };
	} else {
		fn = xr_names_get(r->names, rec->func_id, r->fn_buf, &len);
		v[0] = (struct tmx_value){ .fc = r->fc_payload, .n_members = 7 };
		v[1] = (struct tmx_value){ .fc = r->fc_func_id, .s = rec->func_id };
		v[2] = (struct tmx_value){ .fc = r->fc_function };
		v[2].str.ptr = fn;
		v[2].str.len = len;
		v[3] = (struct tmx_value){ .fc = r->fc_rtype, .u = rec->record_type };
		v[4] = (struct tmx_value){ .fc = r->fc_data_size, .u = rec->data_size };
		v[5] = (struct tmx_value){ .fc = r->fc_data };
		/* Never NULL: outputs hand the bytes to memchr & co. */
		v[5].str.ptr = rec->data ? (const char *)rec->data : "";
		v[5].str.len = rec->data_size;
		v[6] = (struct tmx_value){ .fc = r->fc_n_args, .u = rec->n_args };
		v[7] = (struct tmx_value){ .fc = r->fc_args, .count = rec->n_args };
		for (uint32_t i = 0; i < rec->n_args; i++)
			v[8 + i] = (struct tmx_value){ .fc = r->fc_arg, .u = rec->args[i] };
	}
	r->ev = (struct tmx_event){
		.cls = r->sc->event_classes[rec->kind],
		.packet = &r->packets[rec->stream],
		.scopes = { [TMX_SCOPE_COMMON_CONTEXT] = r->ctx, [TMX_SCOPE_PAYLOAD] = r->pay },
	};
	r->msg = (struct tmx_msg){
		.kind = TMX_MSG_EVENT, .stream = &r->streams[rec->stream],
		.packet = &r->packets[rec->stream], .event = &r->ev, .has_ts = true,
		.cycles = rec->tsc,
	};
	/* The emulated clock (1 GHz, no offset): cycles are nanoseconds. */
	if (cc->frequency == UINT64_C(1000000000) && !cc->offset_s && !cc->offset_cycles &&
	    rec->tsc <= (uint64_t)INT64_MAX)
		r->msg.ns = (int64_t)rec->tsc;
	else if (!tmx_clock_ns_from_origin(cc, rec->tsc, &r->msg.ns))
		r->msg.ns = INT64_MAX;
	return TMX_OK;
}

static int next_event(struct xr_reader *r, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct xr_cursor *c;
	uint32_t ci;
	bool got;
	int ret;

	*msg = NULL;
	if (r->opts.unsorted || r->is_yaml) {
		c = &r->cursors[0];
		if ((ret = xr_cursor_next(&r->layout, c, &got, err)))
			return ret;
		if (!got)
			return TMX_OK;
		maybe_release(r, 16);
		if ((ret = fill_event(r, &c->rec, err)))
			return ret;
		*msg = &r->msg;
		return TMX_OK;
	}
	if (!r->n_heap)
		return TMX_OK;
	ci = r->heap[0];
	c = &r->cursors[ci];
	if ((ret = fill_event(r, &c->rec, err)))
		return ret;
	/* The message holds copies (and pointers into the mapping): advance. */
	if ((ret = xr_cursor_next(&r->layout, c, &got, err)))
		return ret;
	maybe_release(r, 16);
	if (!got) {
		xr_cursor_free(c);
		r->heap[0] = r->heap[--r->n_heap];
	}
	heap_down(r, 0);
	*msg = &r->msg;
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
