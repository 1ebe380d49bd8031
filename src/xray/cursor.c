/*
 * Cursors: llvm-xray's record sequence before its TSC sort, produced one
 * record at a time from the mapped file.
 *
 * FDR: keys (threads) in DenseMap order, each key's blocks in llvm's sorted
 * order, each block's records through llvm's TraceExpander state machine
 * (FDRTraceExpander.cpp): a record is complete when the next one starts
 * (call arguments attach to it), the record type and function id of the
 * record being built are sticky, EndOfBuffer ignores everything up to the
 * next NewBuffer.  Basic mode: the 32-byte records in file order, argument
 * records appended to the record before them.
 *
 * A cursor's position (struct xr_pos) is small and copyable: the sorted
 * output starts one cursor per ascending run of TSCs at a saved position.
 */
#include <stdlib.h>
#include <string.h>

#include "xray/internal.h"
#include "common/errors.h"

void xr_cursor_init(struct xr_cursor *c, const struct xr_pos *pos, uint64_t end_seq)
{
	memset(c, 0, sizeof(*c));
	if (pos)
		c->pos = *pos;
	c->end_seq = end_seq;
	c->key_end = UINT32_MAX;
}

void xr_cursor_free(struct xr_cursor *c)
{
	free(c->args);
	c->args = NULL;
	c->cap_args = 0;
}

static int push_arg(struct xr_cursor *c, uint64_t v, struct tmx_error *err)
{
	if (c->rec.n_args == c->cap_args) {
		uint32_t cap = c->cap_args ? c->cap_args * 2 : 4;
		uint64_t *a = cap > c->cap_args ? realloc(c->args, cap * sizeof(*a)) : NULL;
		if (!a)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		c->args = a;
		c->cap_args = cap;
	}
	c->args[c->rec.n_args++] = v;
	c->rec.args = c->args;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Basic mode                                                           */
/* ------------------------------------------------------------------ */

static int basic_next(const struct xr_layout *l, struct xr_cursor *c, bool *got,
		      struct tmx_error *err)
{
	const uint8_t *d = l->file->map.data, *r;
	struct xr_record *rec = &c->rec;
	uint32_t stream;
	bool found, owned = true;
	int ret;

	*got = false;
	if (c->pos.off < XR_HEADER_SIZE)
		c->pos.off = XR_HEADER_SIZE;
	/*
	 * The records the index accepted: in strict mode basic_end stops before
	 * the first bad one; in lenient mode bad records and argument records
	 * without their function record are skipped here as they were there.
	 */
	for (;;) {
		if (c->pos.off + XR_BASIC_RECORD_SIZE > l->basic_end)
			return TMX_OK;
		r = d + c->pos.off;
		if (xr_u16(r) == 0 && r[3] <= 3)
			break;
		c->pos.off += XR_BASIC_RECORD_SIZE;
	}
	memset(rec, 0, sizeof(*rec));
	rec->kind = r[3];
	rec->cpu = r[2];
	rec->func_id = (int32_t)xr_u32(r + 4);
	rec->tsc = xr_u64(r + 8);
	rec->tid = xr_u32(r + 16);
	rec->pid = xr_u32(r + 20);
	for (c->pos.off += XR_BASIC_RECORD_SIZE;
	     c->pos.off + XR_BASIC_RECORD_SIZE <= l->basic_end && xr_u16(d + c->pos.off) == 1;
	     c->pos.off += XR_BASIC_RECORD_SIZE) {
		const uint8_t *a = d + c->pos.off;
		/* llvm-xray's check (Trace.cpp): same function, thread (and pid from v3). */
		owned = owned && (int32_t)xr_u32(a + 4) == rec->func_id && xr_u32(a + 8) == rec->tid &&
			(l->file->h.version < 3 || xr_u32(a + 12) == rec->pid);
		if (owned && (ret = push_arg(c, xr_u64(a + 16), err)))
			return ret;
	}
	stream = xr_densemap_find(l->basic_streams, rec->pid, (int32_t)rec->tid, &found);
	if (!found)
		return tmx_error_at(err, TMX_ERR_DATA, l->file->map.path, c->pos.off,
				    "basic: internal error: a thread missing from the index");
	rec->stream = stream;
	c->pos.seq++;
	*got = true;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* FDR: llvm's TraceExpander                                            */
/* ------------------------------------------------------------------ */

/* Starts the next record (resetCurrentRecord has emitted the last one). */
static void start_record(struct xr_cursor *c, uint8_t kind, const struct xr_layout *l)
{
	struct xr_record *rec = &c->rec;
	const struct xr_key *key = &l->keys[l->key_order[c->pos.key_pos]];

	rec->kind = kind;
	rec->record_type = c->pos.record_type;
	rec->func_id = c->pos.func_id;
	rec->tid = (uint32_t)c->pos.tid;
	rec->pid = c->pos.pid;
	rec->cpu = c->pos.cpu;
	rec->data = NULL;
	rec->data_size = 0;
	rec->n_args = 0;
	rec->args = NULL;
	rec->stream = key->stream;
}

/* A function record starts the next record; its TSC is a delta. */
static void begin_function(struct xr_cursor *c, const struct xr_layout *l, uint8_t fkind,
			   uint32_t func_id, uint32_t delta)
{
	c->pos.base_tsc += delta;
	c->pos.func_id = (int32_t)func_id;
	start_record(c, fkind, l);
	c->rec.tsc = c->pos.base_tsc;
}

/*
 * Whether a well-formed function record starts at the cursor, inside its
 * block and (v3+) its buffer extents: what xr_fdr_produce would accept as
 * one without an error.
 */
static inline bool function_record_at(const struct xr_layout *l, const struct xr_pos *p)
{
	const uint8_t *fr = l->file->map.data + p->prod.off;

	return p->prod.off + XR_FDR_FUNC_SIZE <= p->blk_end &&
	       p->blk_end <= l->file->map.size && xr_fdr_function_ok(fr[0]) &&
	       (l->file->h.version < 3 || p->prod.extent_left >= XR_FDR_FUNC_SIZE);
}

/*
 * Moves the cursor to where its next record starts, across the ends of
 * blocks and keys (a key's end is llvm's Expander.flush(): a new expander,
 * its state reset, for the next key).  False when there is no more to
 * read for the record being built: the end of the cursor's keys, or a
 * key's end while `building`.
 */
static bool seek_record(const struct xr_layout *l, struct xr_cursor *c, bool building,
			const struct xr_key **keyp)
{
	struct xr_pos *p = &c->pos;

	for (;;) {
		const struct xr_key *key;

		if (p->key_pos >= l->n_keys || p->key_pos >= c->key_end)
			return false;
		key = &l->keys[l->key_order[p->key_pos]];
		if (!p->in_block) {
			const struct xr_block *b;
			if (p->blk_pos >= key->n_blocks) {
				uint32_t key_pos = p->key_pos + 1;
				uint64_t seq = p->seq;
				memset(p, 0, sizeof(*p));
				p->key_pos = key_pos;
				p->seq = seq;
				if (building)
					return false;
				continue;
			}
			b = &l->blocks[key->blocks[p->blk_pos]];
			p->prod = b->start;
			p->blk_end = b->end;
			p->in_block = true;
			c->blk_start = b->start.off;
		}
		if (p->prod.off >= p->blk_end) {
			c->blocks_bytes += p->blk_end - c->blk_start;   /* as the index counts it */
			p->in_block = false;
			p->blk_pos++;
			continue;
		}
		*keyp = key;
		return true;
	}
}

/*
 * Nearly every record is a well-formed function record: decoded here,
 * without the general producer, when function_record_at() says so.  It
 * starts the next record (unless the thread's buffer is being ignored).
 */
static void take_function(const struct xr_layout *l, struct xr_cursor *c, bool *building)
{
	struct xr_pos *p = &c->pos;
	const uint8_t *fr = l->file->map.data + p->prod.off;

	p->prod.off += XR_FDR_FUNC_SIZE;
	if (l->file->h.version >= 3)
		p->prod.extent_left -= XR_FDR_FUNC_SIZE;
	if (!p->ignoring) {
		begin_function(c, l, xr_fdr_func_kind(fr[0]), xr_u32(fr) >> 4, xr_u32(fr + 4));
		*building = true;
	}
}

/* The record at the cursor: the one looked ahead at if it is there, else produced. */
static int read_raw(const struct xr_layout *l, struct xr_cursor *c, const struct xr_prod *at,
		    struct xr_raw *r, struct tmx_error *err)
{
	if (c->la_valid && c->la_at.off == at->off && c->la_at.extent_left == at->extent_left &&
	    c->la_at.block_start == at->block_start) {
		*r = c->la;
		c->pos.prod = c->la_next;
		c->la_valid = false;
		return TMX_OK;
	}
	return xr_fdr_produce(l->file, &c->pos.prod, r, err);
}

/*
 * A record that only changes the cursor's state (or, for an argument,
 * the record being built): applied; false for the records that start one.
 */
static bool apply_state(const struct xr_layout *l, struct xr_cursor *c, const struct xr_raw *r,
			bool building, int *ret, struct tmx_error *err)
{
	struct xr_pos *p = &c->pos;

	switch (r->kind) {
	case XR_RAW_EXTENTS:
		/* Not part of any block: llvm's indexer drops them. */
		return true;
	case XR_RAW_CALL_ARG:
		if (building && !(*ret = push_arg(c, r->u64, err)))
			c->rec.kind = TMX_XRAY_EV_ENTER_ARG;
		return true;
	case XR_RAW_NEW_BUFFER:
		p->ignoring = false;
		p->tid = r->i32;
		if (l->file->h.version == 2)
			p->pid = (uint32_t)r->i32;
		return true;
	case XR_RAW_PID:
		p->pid = (uint32_t)r->i32;
		return true;
	case XR_RAW_NEW_CPU:
		p->cpu = r->cpu;
		p->base_tsc = r->u64;
		return true;
	case XR_RAW_TSC_WRAP:
		p->base_tsc = r->u64;
		return true;
	default:
		return false;
	}
}

/* Ours: a wall-time event at the block's first TSC, the block's Pid (v3+: it comes next). */
static void walltime_record(const struct xr_layout *l, struct xr_cursor *c,
			    const struct xr_key *key, const struct xr_raw *r)
{
	const struct xr_block *b = &l->blocks[key->blocks[c->pos.blk_pos]];

	start_record(c, TMX_XRAY_EV_WALLTIME, l);
	c->rec.tsc = b->first_tsc;
	if (l->file->h.version >= 3)
		c->rec.pid = (uint32_t)b->pid;
	c->rec.wall_sec = r->u64;
	c->rec.wall_usec = r->usec;
}

/* A custom or typed event starts the next record. */
static void begin_event(const struct xr_layout *l, struct xr_cursor *c, const struct xr_raw *r)
{
	struct xr_pos *p = &c->pos;
	struct xr_record *rec = &c->rec;

	start_record(c, r->kind == XR_RAW_CUSTOM ? TMX_XRAY_EV_CUSTOM : TMX_XRAY_EV_TYPED, l);
	if (r->has_tsc) {
		rec->tsc = r->u64;
		rec->cpu = r->cpu;
	} else {
		p->base_tsc += (uint64_t)(int64_t)r->i32;
		rec->tsc = p->base_tsc;
	}
	if (r->kind == XR_RAW_TYPED)
		rec->record_type = p->record_type = r->event_type;
	rec->data = r->data;
	rec->data_size = r->data_size;
}

/*
 * The next record of an FDR log: a function record or an event, with the
 * argument records that follow it, which is complete at the next record
 * that starts one (read again on the next call: looked ahead at).
 */
static int fdr_next(const struct xr_layout *l, struct xr_cursor *c, bool *got,
		    struct tmx_error *err)
{
	struct xr_pos *p = &c->pos;
	const struct xr_key *key;
	bool building = false;
	int ret = TMX_OK;

	*got = false;
	while (seek_record(l, c, building, &key)) {
		struct xr_prod save = p->prod;
		struct xr_raw r;

		if (function_record_at(l, p)) {
			if (building)
				break;
			take_function(l, c, &building);
			continue;
		}
		if ((ret = read_raw(l, c, &save, &r, err)))
			return ret;
		if (apply_state(l, c, &r, building, &ret, err)) {
			if (ret)
				return ret;
			continue;
		}
		/* Function, custom/typed event, EndOfBuffer, walltime: the record
		 * being built is complete.  Give it back first and read this one
		 * again on the next call. */
		if (building) {
			c->la = r;
			c->la_at = save;
			c->la_next = p->prod;
			c->la_valid = true;
			p->prod = save;
			break;
		}
		if (r.kind == XR_RAW_END_OF_BUFFER) {
			p->ignoring = true;
		} else if (r.kind == XR_RAW_WALLTIME) {
			walltime_record(l, c, key, &r);
			p->seq++;
			*got = true;
			return TMX_OK;
		} else if (p->ignoring) {
			continue;
		} else if (r.kind == XR_RAW_FUNCTION) {
			begin_function(c, l, r.fkind, r.func_id, r.delta);
			building = true;
		} else if (r.kind == XR_RAW_CUSTOM || r.kind == XR_RAW_TYPED) {
			begin_event(l, c, &r);
			building = true;
		}
	}
	if (building) {
		p->seq++;
		*got = true;
	}
	return TMX_OK;
}

int xr_cursor_next(const struct xr_layout *l, struct xr_cursor *c, bool *got,
		   struct tmx_error *err)
{
	if (c->pos.seq >= c->end_seq) {
		*got = false;
		return TMX_OK;
	}
	if (l->yaml) {
		xr_yaml_next(l->yaml, c, got);
		return TMX_OK;
	}
	return l->fdr ? fdr_next(l, c, got, err) : basic_next(l, c, got, err);
}
