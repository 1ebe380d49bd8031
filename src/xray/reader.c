/*
 * The XRay source: opens a log, indexes it, and gives its records as model
 * messages in llvm-xray's order (see xray.h for the mapping).
 *
 * Memory stays bounded on huge logs: nothing is decoded ahead.  Opening
 * reads the file once to index it (FDR: one small descriptor per block;
 * basic: nothing) and, unless unsorted output is asked for, once more to
 * find the ascending runs of TSCs in llvm's unsorted order.  The sorted
 * output is then a merge of those runs, each read again from the mapping
 * by its own cursor: ties go to the earlier run, which is exactly a stable
 * sort by TSC.  Pages of the mapping are released as the reading goes.
 *
 * A damaged file: what comes before the damage is indexed and output, then
 * the error (offset, record) is returned; with `lenient` the reader warns
 * and resumes at the next buffer when it can.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/arena.h"
#include "model/field_class.h"
#include "model/source.h"
#include "xray/internal.h"
#include "model/errors.h"

/* Bounds: the positions of the sorted runs are kept in memory. */
#define XR_MAX_RUNS (1u << 17)
#define XR_MAX_BLOCKS (1u << 24)
#define XR_MAX_STREAMS (1u << 20)
/* Mapped pages are given back every so many bytes read. */
#define XR_RELEASE_BYTES ((uint64_t)16 << 20)

struct xr_run {
	struct xr_pos pos;
	uint64_t end_seq;
};

struct xr_reader {
	struct xr_file file;
	bool is_yaml;              /* llvm-xray's YAML trace (yaml_in.c) */
	struct xr_ytrace yaml;
	struct tmx_xray_opts opts;
	const struct tmx_diag *diag;
	struct xr_names *names;

	/* Index */
	struct xr_block *blocks;
	uint32_t n_blocks, cap_blocks;
	struct xr_key *keys;
	uint32_t n_keys, cap_keys;
	uint32_t *key_order;
	struct xr_densemap map;    /* FDR: (pid, tid) -> key; basic: -> stream */
	struct xr_layout layout;
	bool has_deferred;
	struct tmx_error deferred; /* damage found while indexing, reported last */
	uint64_t skipped_units, skipped_bytes;

	/* Model */
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_stream_class *sc;
	struct tmx_trace trace;
	struct tmx_stream *streams;
	struct tmx_packet *packets;
	uint32_t n_streams;
	/* Per stream: first and last TSC (found by the sorted pass). */
	uint64_t *ts_min, *ts_max;
	bool have_ranges;
	uint64_t *stream_bytes;   /* bytes of the file per stream (info) */
	const struct tmx_field_class *fc_struct_ctx, *fc_cpu, *fc_tid, *fc_pid;
	const struct tmx_field_class *fc_payload, *fc_func_id, *fc_function, *fc_rtype,
		*fc_data_size, *fc_data, *fc_n_args, *fc_args, *fc_arg;
	const struct tmx_field_class *fc_wall, *fc_wall_sec, *fc_wall_usec;

	/* Output */
	struct xr_cursor *cursors;    /* sorted: one per run; unsorted: one */
	uint32_t *heap;
	uint32_t n_heap, n_cursors;
	int phase;
	uint32_t phase_i;
	uint64_t since_release;
	struct tmx_msg msg;
	struct tmx_event ev;
	struct tmx_value ctx[4];
	struct tmx_value *pay;
	size_t cap_pay;
	char fn_buf[32];
};

/* ------------------------------------------------------------------ */
/* Model classes                                                        */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *fc_new(struct xr_reader *r, enum tmx_fc_kind kind)
{
	struct tmx_field_class *fc = tmx_arena_calloc(&r->arena, 1, sizeof(*fc));

	if (fc) {
		fc->kind = kind;
		fc->align = 8;
		fc->base = 10;
		fc->slot = -1;
		fc->ref_slot = -1;
	}
	return fc;
}

static struct tmx_field_class *fc_int(struct xr_reader *r, uint32_t bits, bool is_signed)
{
	struct tmx_field_class *fc = fc_new(r, TMX_FC_INT);

	if (fc) {
		fc->size = bits;
		fc->is_signed = is_signed;
		fc->byte_order = TMX_BO_LE;
	}
	return fc;
}

static struct tmx_field_class *fc_struct(struct xr_reader *r, size_t n, const char *const *names,
					 struct tmx_field_class **fcs)
{
	struct tmx_field_class *fc = fc_new(r, TMX_FC_STRUCT);

	if (!fc || !(fc->members = tmx_arena_calloc(&r->arena, n, sizeof(*fc->members))))
		return NULL;
	fc->n_members = n;
	for (size_t i = 0; i < n; i++) {
		if (!fcs[i] || !(fc->members[i].name = tmx_arena_strdup(&r->arena, names[i])))
			return NULL;
		fc->members[i].fc = fcs[i];
	}
	return fc;
}

static int add_env(struct xr_reader *r, size_t *n, const char *name, bool is_int, int64_t iv,
		   const char *sv)
{
	struct tmx_env_entry *e = &r->tc->env[(*n)++];

	e->name = tmx_arena_strdup(&r->arena, name);
	e->is_int = is_int;
	e->int_value = iv;
	e->str_value = sv ? tmx_arena_strdup(&r->arena, sv) : NULL;
	return e->name && (!sv || e->str_value) ? 0 : -1;
}

static int build_classes(struct xr_reader *r, const char *path, struct tmx_error *err)
{
	static const char *const ev_names[TMX_XRAY_N_EVENT_CLASSES] = {
		"function-enter", "function-exit", "function-tail-exit", "function-enter-arg",
		"custom-event", "typed-event", "walltime",
	};
	static const char *const ctx_names[] = { "cpu", "tid", "pid" };
	static const char *const pay_names[] = { "func_id", "function", "record_type",
						 "data_size", "data", "n_args", "args" };
	static const char *const wall_names[] = { "seconds", "microseconds" };
	const struct tmx_xray_header *h = &r->file.h;
	struct tmx_arena *a = &r->arena;
	struct tmx_clock_class *cc;
	struct tmx_field_class *m[7], *data, *args, *u8;
	size_t n_env = 0;
	int bad = 0;

	r->tc = tmx_arena_calloc(a, 1, sizeof(*r->tc));
	r->sc = tmx_arena_calloc(a, 1, sizeof(*r->sc));
	cc = tmx_arena_calloc(a, 1, sizeof(*cc));
	if (!r->tc || !r->sc || !cc)
		goto nomem;
	r->tc->format = TMX_FORMAT_XRAY;
	cc->name = tmx_arena_strdup(a, "xray_tsc");
	cc->description = tmx_arena_strdup(a, "XRay time stamp counter (header cycle_frequency)");
	cc->frequency = h->cycle_frequency ? h->cycle_frequency : UINT64_C(1000000000);
	if (!h->cycle_frequency)
		tmx_warn(r->diag, "%s: XRay header cycle frequency is 0: taking 1 GHz", path);
	cc->origin_is_unix_epoch = cc->frequency == UINT64_C(1000000000);
	if (!cc->name || !cc->description)
		goto nomem;

	r->tc->native_byte_order = TMX_BO_LE;
	r->tc->n_slots = 2;
	if (!(r->tc->env = tmx_arena_calloc(a, 8, sizeof(*r->tc->env))))
		goto nomem;
	bad |= add_env(r, &n_env, "tracer_name", false, 0, "llvm-xray");
	bad |= add_env(r, &n_env, "xray_mode", false, 0, h->type ? "fdr" : "basic");
	bad |= add_env(r, &n_env, "xray_version", true, h->version, NULL);
	bad |= add_env(r, &n_env, "xray_type", true, h->type, NULL);
	bad |= add_env(r, &n_env, "constant_tsc", true, h->constant_tsc, NULL);
	bad |= add_env(r, &n_env, "nonstop_tsc", true, h->nonstop_tsc, NULL);
	bad |= add_env(r, &n_env, "cycle_frequency", true, (int64_t)h->cycle_frequency, NULL);
	if (h->type && !r->is_yaml)   /* a YAML trace has no buffers */
		bad |= add_env(r, &n_env, "buffer_size", true, (int64_t)h->buffer_size, NULL);
	if (bad)
		goto nomem;
	r->tc->n_env = n_env;
	if (!(r->tc->clocks = tmx_arena_calloc(a, 1, sizeof(*r->tc->clocks))) ||
	    !(r->tc->stream_classes = tmx_arena_calloc(a, 1, sizeof(*r->tc->stream_classes))))
		goto nomem;
	r->tc->clocks[0] = cc;
	r->tc->n_clocks = 1;
	r->tc->stream_classes[0] = r->sc;
	r->tc->n_stream_classes = 1;

	/* Common context: cpu, tid, pid. */
	m[0] = fc_int(r, 16, false);
	m[1] = fc_int(r, 32, false);
	m[2] = fc_int(r, 32, false);
	r->fc_cpu = m[0], r->fc_tid = m[1], r->fc_pid = m[2];
	if (!(r->fc_struct_ctx = fc_struct(r, 3, ctx_names, m)))
		goto nomem;

	/* Payload of the record classes. */
	u8 = fc_int(r, 8, false);
	data = fc_new(r, TMX_FC_SEQUENCE);
	args = fc_new(r, TMX_FC_SEQUENCE);
	m[0] = fc_int(r, 32, true);
	m[1] = fc_new(r, TMX_FC_STRING);
	m[2] = fc_int(r, 16, false);
	m[3] = fc_int(r, 32, false);
	m[4] = data;
	m[5] = fc_int(r, 32, false);
	m[6] = args;
	if (!u8 || !data || !args || !m[1] || !m[3] || !m[5])
		goto nomem;
	m[1]->encoding = TMX_ENC_UTF8;
	u8->encoding = TMX_ENC_UTF8;
	m[3]->slot = 0;
	m[5]->slot = 1;
	data->elem = u8;
	data->is_text = true;
	data->ref_slot = 0;
	data->ref_path = tmx_arena_strdup(a, "data_size");
	args->elem = fc_int(r, 64, false);
	args->ref_slot = 1;
	args->ref_path = tmx_arena_strdup(a, "n_args");
	if (!args->elem || !data->ref_path || !args->ref_path)
		goto nomem;
	r->fc_func_id = m[0], r->fc_function = m[1], r->fc_rtype = m[2];
	r->fc_data_size = m[3], r->fc_data = m[4], r->fc_n_args = m[5], r->fc_args = m[6];
	r->fc_arg = args->elem;
	if (!(r->fc_payload = fc_struct(r, 7, pay_names, m)))
		goto nomem;
	m[0] = fc_int(r, 64, false);
	m[1] = fc_int(r, 32, false);
	r->fc_wall_sec = m[0], r->fc_wall_usec = m[1];
	if (!(r->fc_wall = fc_struct(r, 2, wall_names, m)))
		goto nomem;

	r->sc->default_clock = cc;
	r->sc->event_common_context = (struct tmx_field_class *)r->fc_struct_ctx;
	r->sc->trace_class = r->tc;
	r->sc->n_event_classes = TMX_XRAY_N_EVENT_CLASSES;
	if (!(r->sc->event_classes = tmx_arena_calloc(a, TMX_XRAY_N_EVENT_CLASSES,
						      sizeof(*r->sc->event_classes))))
		goto nomem;
	for (unsigned i = 0; i < TMX_XRAY_N_EVENT_CLASSES; i++) {
		struct tmx_event_class *ec = tmx_arena_calloc(a, 1, sizeof(*ec));
		if (!ec || !(ec->name = tmx_arena_strdup(a, ev_names[i])))
			goto nomem;
		ec->id = i;
		ec->log_level = TMX_LOG_LEVEL_NONE;
		ec->payload = (struct tmx_field_class *)(i == TMX_XRAY_EV_WALLTIME ? r->fc_wall
										   : r->fc_payload);
		ec->stream_class = r->sc;
		r->sc->event_classes[i] = ec;
	}
	if (!(r->trace.name = tmx_arena_strdup(a, path)))
		goto nomem;
	r->trace.cls = r->tc;
	return TMX_OK;
nomem:
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

/* A stream for a new (pid, tid) key. */
static int add_stream(struct xr_reader *r, uint32_t pid, uint32_t tid, uint32_t *idx,
		      struct tmx_error *err)
{
	char name[64];

	if (r->n_streams >= XR_MAX_STREAMS)
		return tmx_error_set(err, TMX_ERR_LIMIT, r->file.map.path,
				     "more than %u threads", XR_MAX_STREAMS);
	if ((r->n_streams & (r->n_streams - 1)) == 0) {
		size_t cap = r->n_streams ? (size_t)r->n_streams * 2 : 1;
		void *s = realloc(r->streams, cap * sizeof(*r->streams));
		if (!s)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->streams = s;
		if (!(s = realloc(r->stream_bytes, cap * sizeof(*r->stream_bytes))))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->stream_bytes = s;
	}
	r->stream_bytes[r->n_streams] = 0;
	if (pid)
		snprintf(name, sizeof(name), "pid %" PRIu32 " tid %" PRIu32, pid, tid);
	else
		snprintf(name, sizeof(name), "tid %" PRIu32, tid);
	r->streams[r->n_streams] = (struct tmx_stream){
		.id = r->n_streams, .name = tmx_arena_strdup(&r->arena, name), .cls = r->sc,
		.trace = &r->trace,
	};
	if (!r->streams[r->n_streams].name)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	*idx = r->n_streams++;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Indexing                                                             */
/* ------------------------------------------------------------------ */

static void maybe_release(struct xr_reader *r, uint64_t bytes)
{
	r->since_release += bytes;
	if (r->since_release >= XR_RELEASE_BYTES) {
		tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
		r->since_release = 0;
	}
}

/*
 * Damage found while indexing: strict, it ends the index (reported after
 * the output); lenient, a warning and the caller resumes.
 */
static void damage(struct xr_reader *r, const struct tmx_error *e)
{
	if (r->opts.lenient) {
		char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
		tmx_error_format(e, buf, sizeof(buf));
		tmx_warn(r->diag, "%s (skipped)", buf);
		r->skipped_units++;
		return;
	}
	if (!r->has_deferred) {
		r->deferred = *e;
		r->has_deferred = true;
	}
}

/* BlockVerifier's transitions (BlockVerifier.cpp), by raw kind. */
enum vstate { V_UNKNOWN, V_NEW_BUFFER, V_WALL, V_PID, V_CPU, V_WRAP, V_CUSTOM, V_TYPED,
	      V_FUNCTION, V_CALL_ARG, V_EOB };

static enum vstate vstate_of(uint8_t kind)
{
	switch (kind) {
	case XR_RAW_NEW_BUFFER: return V_NEW_BUFFER;
	case XR_RAW_WALLTIME: return V_WALL;
	case XR_RAW_PID: return V_PID;
	case XR_RAW_NEW_CPU: return V_CPU;
	case XR_RAW_TSC_WRAP: return V_WRAP;
	case XR_RAW_CUSTOM: return V_CUSTOM;
	case XR_RAW_TYPED: return V_TYPED;
	case XR_RAW_FUNCTION: return V_FUNCTION;
	case XR_RAW_CALL_ARG: return V_CALL_ARG;
	default: return V_EOB;
	}
}

static bool transition_ok(enum vstate from, enum vstate to)
{
	const unsigned body = 1u << V_CPU | 1u << V_WRAP | 1u << V_CUSTOM | 1u << V_TYPED |
			      1u << V_FUNCTION | 1u << V_EOB;
	static const unsigned allowed[] = {
		[V_UNKNOWN] = 1u << V_NEW_BUFFER,
		[V_NEW_BUFFER] = 1u << V_WALL,
		[V_WALL] = 1u << V_PID | 1u << V_CPU,
		[V_PID] = 1u << V_CPU,
	};

	if (from <= V_PID)
		return allowed[from] >> to & 1;
	if (from == V_FUNCTION || from == V_CALL_ARG)
		return (body | 1u << V_CALL_ARG) >> to & 1;
	return body >> to & 1;
}

static const char *const vstate_names[] = {
	"start of block", "NewBuffer", "WalltimeMarker", "Pid", "NewCPUId", "TSCWrap",
	"CustomEventMarker", "TypedEventMarker", "Function", "CallArgument", "EndOfBuffer",
};

static bool terminal(enum vstate s)
{
	return s >= V_CPU;
}

static int new_block(struct xr_reader *r, const struct xr_prod *start, int32_t tid,
		     struct tmx_error *err)
{
	struct xr_block *b;

	if (r->n_blocks >= XR_MAX_BLOCKS)
		return tmx_error_at(err, TMX_ERR_LIMIT, r->file.map.path, start->off,
				    "more than %u FDR buffers", XR_MAX_BLOCKS);
	if (r->n_blocks == r->cap_blocks) {
		uint32_t cap = r->cap_blocks ? r->cap_blocks * 2 : 64;
		void *p = realloc(r->blocks, (size_t)cap * sizeof(*r->blocks));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->blocks = p;
		r->cap_blocks = cap;
	}
	b = &r->blocks[r->n_blocks++];
	*b = (struct xr_block){ .start = *start, .end = r->file.map.size, .tid = tid };
	return TMX_OK;
}

/* BlockIndexer::flush: the block joins its (pid, tid) key. */
static int file_block(struct xr_reader *r, uint32_t bi, struct tmx_error *err)
{
	struct xr_block *b = &r->blocks[bi];
	struct xr_key *k;
	uint32_t ki;
	bool inserted;
	int ret;

	if (xr_densemap_insert(&r->map, b->pid, b->tid, r->n_keys, &ki, &inserted))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if (inserted) {
		uint32_t s;
		if (r->n_keys == r->cap_keys) {
			uint32_t cap = r->cap_keys ? r->cap_keys * 2 : 16;
			void *p = realloc(r->keys, (size_t)cap * sizeof(*r->keys));
			if (!p)
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			r->keys = p;
			r->cap_keys = cap;
		}
		if ((ret = add_stream(r, (uint32_t)b->pid, (uint32_t)b->tid, &s, err)))
			return ret;
		r->keys[r->n_keys++] = (struct xr_key){ .pid = b->pid, .tid = b->tid, .stream = s };
	}
	k = &r->keys[ki];
	if (k->n_blocks == k->cap_blocks) {
		uint32_t cap = k->cap_blocks ? k->cap_blocks * 2 : 4;
		void *p = realloc(k->blocks, (size_t)cap * sizeof(*k->blocks));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		k->blocks = p;
		k->cap_blocks = cap;
	}
	k->blocks[k->n_blocks++] = bi;
	b->key = ki;
	r->stream_bytes[k->stream] += b->end - b->start.off;
	return TMX_OK;
}

/*
 * Reads every FDR record once: block boundaries, their (pid, tid), wall time
 * and first TSC, and llvm's block verification.  Damage ends the index at
 * the faulty record (its block keeps the records before it).
 */
static int index_fdr(struct xr_reader *r, struct tmx_error *err)
{
	const struct xr_file *f = &r->file;
	struct xr_prod p = { .off = XR_HEADER_SIZE, .block_start = XR_HEADER_SIZE };
	enum vstate vs = V_UNKNOWN;
	bool in_block = false, have_cpu = false, typed_in_block = false;
	bool resync = false;   /* lenient: after damage, skipping to the next buffer */
	uint64_t last_off = p.off, resync_from = 0;
	struct tmx_error e;
	int ret;

	while (p.off < f->map.size) {
		struct xr_prod save = p;
		struct xr_block *b = in_block ? &r->blocks[r->n_blocks - 1] : NULL;
		struct xr_raw raw;
		enum vstate to;

		maybe_release(r, p.off - last_off);
		last_off = p.off;
		raw.crosses = false;
		if (xr_fdr_produce(f, &p, &raw, &e)) {
			if (e.code != TMX_ERR_DATA)
				return *err = e, e.code;
			/*
			 * compiler-rt 14 counts a typed event's payload but not its
			 * 16-byte marker in BufferExtents, and writes only that many
			 * bytes: the buffer's last record can be cut.  llvm-xray then
			 * fails on the whole log; we drop the cut record, say so, and
			 * go on with the next buffer.
			 */
			if (raw.crosses && typed_in_block && b && terminal(vs) &&
			    save.extent_left <= f->map.size - save.off) {
				tmx_warn(r->diag, "%s: at byte %" PRIu64 ": %s record cut by the end of "
					 "its buffer (%" PRIu64 " bytes left by BufferExtents): the "
					 "buffer held typed events, whose size compiler-rt 14 "
					 "under-counts; the record is lost", f->map.path, raw.off,
					 xr_raw_names[raw.kind], save.extent_left);
				b->end = save.off;
				if ((ret = file_block(r, r->n_blocks - 1, err)))
					return ret;
				in_block = false;
				vs = V_UNKNOWN;
				p = save;
				p.off = save.off + save.extent_left;
				p.extent_left = 0;
				continue;
			}
			if (b)
				b->end = e.has_offset && e.offset > save.off ? e.offset : save.off;
			if (!resync) {
				damage(r, &e);
				resync_from = save.off;
			}
			if (!r->opts.lenient)
				break;
			resync = true;
			/* Resume: v3+ at the next BufferExtents; v1 at the next buffer. */
			if (f->h.version >= 3) {
				p = save;
				p.off = (e.has_offset ? e.offset : save.off) + 1;
				p.extent_left = 0;
			} else if (f->h.version == 1 && f->h.buffer_size &&
				   p.block_start + f->h.buffer_size > save.off &&
				   f->h.buffer_size <= f->map.size - p.block_start) {
				p = save;
				p.off = p.block_start + f->h.buffer_size;
			} else {
				break;
			}
			in_block = false;
			vs = V_UNKNOWN;
			continue;
		}
		if (raw.kind == XR_RAW_EXTENTS)
			continue;
		to = vstate_of(raw.kind);
		if (raw.kind == XR_RAW_NEW_BUFFER) {
			if (b) {
				b->end = raw.off;
				if (!terminal(vs)) {
					tmx_error_at(&e, TMX_ERR_DATA, f->map.path, b->start.off,
						     "FDR: buffer of thread %" PRId32 " ends after "
						     "its %s record (no CPU record: nothing to read)",
						     b->tid, vstate_names[vs]);
					damage(r, &e);
					if (!r->opts.lenient)
						break;
					r->n_blocks--;
				} else if ((ret = file_block(r, r->n_blocks - 1, err))) {
					return ret;
				}
			}
			if ((ret = new_block(r, &save, raw.i32, err)))
				return ret;
			in_block = true;
			have_cpu = false;
			typed_in_block = false;
			if (resync)
				r->skipped_bytes += raw.off - resync_from;
			resync = false;
			vs = V_NEW_BUFFER;
			continue;
		}
		if (!b && resync)
			continue;
		if (!b || (vs != V_EOB && !transition_ok(vs, to))) {
			if (!b)
				tmx_error_at(&e, TMX_ERR_DATA, f->map.path, raw.off,
					     "FDR: %s record outside of any buffer (a buffer starts "
					     "with a NewBuffer record)", xr_raw_names[raw.kind]);
			else
				tmx_error_at(&e, TMX_ERR_DATA, f->map.path, raw.off,
					     "FDR: %s record after %s in the buffer of thread %"
					     PRId32 " (a buffer is NewBuffer, WalltimeMarker, [Pid,] "
					     "NewCPUId, then records)",
					     xr_raw_names[raw.kind], vstate_names[vs], b->tid);
			damage(r, &e);
			if (b && (!r->opts.lenient || terminal(vs))) {
				/* Keep what came before the bad record. */
				b->end = raw.off;
				if (terminal(vs) && (ret = file_block(r, r->n_blocks - 1, err)))
					return ret;
			} else if (b) {
				r->n_blocks--;
			}
			in_block = false;
			if (!r->opts.lenient)
				break;
			resync = true;
			resync_from = raw.off;
			vs = V_UNKNOWN;
			continue;
		}
		if (vs != V_EOB)
			vs = to;
		switch (raw.kind) {
		case XR_RAW_WALLTIME:
			b->wall_sec = raw.u64;
			b->wall_usec = raw.usec;
			break;
		case XR_RAW_PID:
			b->pid = (uint64_t)(int64_t)raw.i32;
			break;
		case XR_RAW_NEW_CPU:
			if (!have_cpu)
				b->first_tsc = raw.u64;
			have_cpu = true;
			break;
		case XR_RAW_TYPED:
			typed_in_block = true;
			break;
		default:
			break;
		}
	}
	if (resync)
		r->skipped_bytes += f->map.size - resync_from;
	/* llvm-xray accepts this silently; the end of the log is missing. */
	if (f->h.version >= 3 && p.off >= f->map.size && p.extent_left && !r->has_deferred) {
		tmx_error_at(&e, TMX_ERR_DATA, f->map.path, f->map.size,
			     "FDR: the file ends %" PRIu64 " bytes before the end of its last "
			     "buffer (as its BufferExtents record says): truncated log",
			     p.extent_left);
		damage(r, &e);
	}
	if (in_block && r->n_blocks) {
		struct xr_block *b = &r->blocks[r->n_blocks - 1];
		if (!terminal(vs) && !r->has_deferred) {
			tmx_error_at(&e, TMX_ERR_DATA, f->map.path, b->start.off,
				     "FDR: the last buffer (thread %" PRId32 ") ends after its %s "
				     "record", b->tid, vstate_names[vs]);
			damage(r, &e);
		}
		if (terminal(vs) && (ret = file_block(r, r->n_blocks - 1, err)))
			return ret;
	}
	/* Threads in DenseMap order, each one's blocks as llvm sorts them. */
	if (!(r->key_order = malloc((r->n_keys ? r->n_keys : 1) * sizeof(*r->key_order))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	xr_densemap_values(&r->map, r->key_order);
	for (uint32_t k = 0; k < r->n_keys; k++)
		xr_sort_blocks(r->keys[k].blocks, r->keys[k].n_blocks, r->blocks);
	r->layout = (struct xr_layout){ .file = f, .fdr = true, .blocks = r->blocks,
					.keys = r->keys, .key_order = r->key_order,
					.n_keys = r->n_keys };
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	return TMX_OK;
}

/* Basic mode: every record checked, threads found. */
static int index_basic(struct xr_reader *r, struct tmx_error *err)
{
	const struct xr_file *f = &r->file;
	const uint8_t *d = f->map.data;
	uint64_t size = f->map.size, off = XR_HEADER_SIZE, end = size;
	int32_t last_fid = 0;
	uint32_t last_tid = 0, last_pid = 0;
	bool have_last = false;
	struct tmx_error e;
	int ret;

	for (; off + XR_BASIC_RECORD_SIZE <= size; off += XR_BASIC_RECORD_SIZE) {
		const uint8_t *rec = d + off;
		uint16_t type = xr_u16(rec);

		maybe_release(r, XR_BASIC_RECORD_SIZE);
		if (type == 0) {
			uint32_t s, pid = xr_u32(rec + 20), tid = xr_u32(rec + 16);
			bool inserted;
			if (rec[3] > 3) {
				tmx_error_at(&e, TMX_ERR_DATA, f->map.path, off,
					     "basic: unknown function record kind %u (0 enter, "
					     "1 exit, 2 tail exit, 3 enter with arguments)", rec[3]);
				goto bad;
			}
			if (xr_densemap_insert(&r->map, pid, (int32_t)tid, r->n_streams, &s,
					       &inserted))
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			if (inserted && (ret = add_stream(r, pid, tid, &s, err)))
				return ret;
			r->stream_bytes[s] += XR_BASIC_RECORD_SIZE;
			last_fid = (int32_t)xr_u32(rec + 4);
			last_tid = tid;
			last_pid = pid;
			have_last = true;
			continue;
		}
		if (type == 1) {
			int32_t fid = (int32_t)xr_u32(rec + 4);
			if (!have_last) {
				tmx_error_at(&e, TMX_ERR_DATA, f->map.path, off,
					     "basic: argument record with no function record "
					     "before it");
				goto bad;
			}
			if (fid != last_fid || xr_u32(rec + 8) != last_tid ||
			    (f->h.version >= 3 && xr_u32(rec + 12) != last_pid)) {
				tmx_error_at(&e, TMX_ERR_DATA, f->map.path, off,
					     "basic: argument record for function %" PRId32
					     " thread %" PRIu32 " after a record of function %"
					     PRId32 " thread %" PRIu32, fid, xr_u32(rec + 8),
					     last_fid, last_tid);
				goto bad;
			}
			continue;
		}
		tmx_error_at(&e, TMX_ERR_DATA, f->map.path, off,
			     "basic: unknown record type %u (0 function, 1 argument)", type);
bad:
		damage(r, &e);
		if (!r->opts.lenient) {
			end = off;
			break;
		}
		r->skipped_bytes += XR_BASIC_RECORD_SIZE;
		/* The bad record is skipped; arguments after it have no owner. */
		have_last = false;
	}
	if (off < size && end == size) {
		tmx_error_at(&e, TMX_ERR_DATA, f->map.path, off,
			     "basic: truncated record: %" PRIu64 " of 32 bytes before the end of "
			     "the file", size - off);
		damage(r, &e);
		end = off;
	}
	r->layout = (struct xr_layout){ .file = f, .fdr = false, .basic_end = end,
					.basic_streams = &r->map };
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	return TMX_OK;
}

/*
 * A YAML trace: read whole (records before a fault kept, the fault
 * reported after them), its threads found in file order.
 */
static int index_yaml(struct xr_reader *r, struct tmx_error *err)
{
	const struct tmx_mapfile *m = &r->file.map;
	struct tmx_error e;
	int ret;

	ret = xr_yaml_load(m->path, m->data, m->size, r->opts.lenient, r->diag, &r->yaml, &e);
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	if (ret && (ret != TMX_ERR_DATA || !r->yaml.has_header))
		return *err = e, ret;
	if (ret) {   /* reported after the records (even lenient: nothing to resume at) */
		r->deferred = e;
		r->has_deferred = true;
	}
	r->file.h = r->yaml.h;
	r->skipped_units = r->yaml.skipped;
	r->skipped_bytes = r->yaml.skipped_bytes;
	if ((ret = build_classes(r, m->path, err)))
		return ret;
	for (size_t i = 0; i < r->yaml.n_recs; i++) {
		struct xr_yrec *y = &r->yaml.recs[i];
		uint32_t s;
		bool inserted;
		if (xr_densemap_insert(&r->map, y->pid, (int32_t)y->tid, r->n_streams, &s, &inserted))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		if (inserted && (ret = add_stream(r, y->pid, y->tid, &s, err)))
			return ret;
		r->stream_bytes[s] += y->span;
		y->stream = s;
	}
	r->layout = (struct xr_layout){ .file = &r->file, .yaml = &r->yaml };
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Runs and the merge                                                   */
/* ------------------------------------------------------------------ */

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
static int setup_output(struct xr_reader *r, struct tmx_error *err)
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

static int reader_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err)
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

/* ------------------------------------------------------------------ */
/* Source operations                                                    */
/* ------------------------------------------------------------------ */

static void reader_free(void *impl)
{
	struct xr_reader *r = impl;

	if (!r)
		return;
	for (uint32_t i = 0; i < r->n_cursors; i++)
		xr_cursor_free(&r->cursors[i]);
	free(r->cursors);
	free(r->heap);
	for (uint32_t k = 0; k < r->n_keys; k++)
		free(r->keys[k].blocks);
	free(r->keys);
	free(r->key_order);
	free(r->blocks);
	xr_densemap_free(&r->map);
	free(r->streams);
	free(r->packets);
	free(r->ts_min);
	free(r->ts_max);
	free(r->stream_bytes);
	free(r->pay);
	xr_names_free(r->names);
	xr_yaml_free(&r->yaml);
	tmx_arena_free(&r->arena);
	tmx_mapfile_close(&r->file.map);
	free(r);
}

static size_t reader_stream_count(const void *impl)
{
	return ((const struct xr_reader *)impl)->n_streams;
}

static void reader_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	const struct xr_reader *r = impl;

	*info = (struct tmx_stream_info){ .stream = &r->streams[i], .n_packets = 1,
					  .n_files = 1, .bytes = r->stream_bytes[i] };
	/* Time range: known after the sorted pass (not with opts.unsorted). */
	if (r->have_ranges && r->ts_min[i] <= r->ts_max[i] &&
	    tmx_clock_ns_from_origin(r->tc->clocks[0], r->ts_min[i], &info->begin_ns) &&
	    tmx_clock_ns_from_origin(r->tc->clocks[0], r->ts_max[i], &info->end_ns))
		info->has_range = true;
}

static size_t reader_logical_trace_count(const void *impl)
{
	(void)impl;
	return 1;
}

static const struct tmx_trace *reader_logical_trace(const void *impl, size_t i)
{
	(void)i;
	return &((const struct xr_reader *)impl)->trace;
}

static void reader_skipped(const void *impl, uint64_t *units, uint64_t *bytes)
{
	const struct xr_reader *r = impl;

	*units = r->skipped_units;
	*bytes = r->skipped_bytes;
}

const struct tmx_source_ops tmx_xray_source_ops = {
	.format = "xray",
	.next = reader_next,
	.free = reader_free,
	.stream_count = reader_stream_count,
	.stream_info = reader_stream_info,
	.logical_trace_count = reader_logical_trace_count,
	.logical_trace = reader_logical_trace,
	.skipped = reader_skipped,
};

const struct tmx_xray_header *tmx_xray_source_header(const struct tmx_source *src)
{
	const struct xr_reader *r = tmx_source_impl(src, &tmx_xray_source_ops);

	return r ? &r->file.h : NULL;
}

static int open_one(const char *path, const struct tmx_xray_opts *opts,
		    const struct tmx_diag *diag, struct xr_names *names, struct tmx_source **out,
		    struct tmx_error *err)
{
	struct xr_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		xr_names_free(names);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	r->opts = *opts;
	r->diag = diag;
	r->names = names;
	tmx_arena_init(&r->arena);
	xr_densemap_init(&r->map);
	if ((ret = tmx_mapfile_open(&r->file.map, path, err)))
		goto fail;
	tmx_mapfile_advise_sequential(&r->file.map);
	r->is_yaml = tmx_xray_looks_like_yaml(r->file.map.data, r->file.map.size, true);
	if (r->is_yaml)
		ret = index_yaml(r, err);
	else if (!(ret = xr_parse_header(r->file.map.data, r->file.map.size, path, &r->file.h,
					 err)) &&
		 !(ret = build_classes(r, path, err)))
		ret = r->file.h.type ? index_fdr(r, err) : index_basic(r, err);
	if (ret)
		goto fail;
	if (!(r->packets = calloc(r->n_streams ? r->n_streams : 1, sizeof(*r->packets)))) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < r->n_streams; i++)
		r->packets[i] = (struct tmx_packet){ .stream = &r->streams[i] };
	if ((ret = setup_output(r, err)))
		goto fail;
	return tmx_source_new(&tmx_xray_source_ops, r, out, err);
fail:
	reader_free(r);
	return ret;
}

int tmx_xray_open(const char *const *paths, size_t n_paths, const struct tmx_xray_opts *opts,
		  const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err)
{
	static const struct tmx_xray_opts no_opts;
	struct tmx_source **srcs;
	int ret = TMX_OK;
	size_t n = 0;

	*out = NULL;
	if (!opts)
		opts = &no_opts;
	if (n_paths == 0)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "no XRay log given");
	if (!(srcs = calloc(n_paths, sizeof(*srcs))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (; n < n_paths && !ret; n++) {
		struct xr_names *names = NULL;
		if ((opts->instr_map || opts->symbolize) &&
		    (ret = xr_names_load(opts->instr_map, opts->symbolize, diag, &names, err)))
			break;
		ret = open_one(paths[n], opts, diag, names, &srcs[n], err);
	}
	if (ret) {
		for (size_t i = 0; i < n; i++)
			if (srcs[i])
				tmx_source_free(srcs[i]);
		free(srcs);
		return ret;
	}
	if (n_paths == 1) {
		*out = srcs[0];
		free(srcs);
		return TMX_OK;
	}
	ret = tmx_source_merge(srcs, n_paths, out, err);
	free(srcs);
	return ret;
}
