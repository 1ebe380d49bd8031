/*
 * The XRay reader's index, read once at open: FDR buffers (blocks) found,
 * verified as llvm's BlockVerifier does and filed by (pid, tid) as its
 * BlockIndexer does, in llvm's order; basic-mode records checked; a YAML
 * trace's threads in file order.  Damage ends the index (strict: reported
 * after what comes before it) or is skipped with a warning (lenient).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/errors.h"
#include "xray/reader_impl.h"

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

/* Moves past the well-formed function records at p (llvm's 8-byte FunctionRecord); false if none. */
static bool skip_functions(const struct xr_file *f, struct xr_prod *p)
{
	const uint8_t *d = f->map.data;
	uint64_t off = p->off, size = f->map.size;

	if (f->h.version >= 3) {
		uint64_t left = p->extent_left;
		while (off + XR_FDR_FUNC_SIZE <= size && left >= XR_FDR_FUNC_SIZE &&
		       xr_fdr_function_ok(d[off])) {
			off += XR_FDR_FUNC_SIZE;
			left -= XR_FDR_FUNC_SIZE;
		}
		p->extent_left = left;
	} else {
		while (off + XR_FDR_FUNC_SIZE <= size && xr_fdr_function_ok(d[off]))
			off += XR_FDR_FUNC_SIZE;
	}
	if (off == p->off)
		return false;
	p->off = off;
	return true;
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

/* The FDR index being made: the producer's place and the verifier's state. */
struct fdr_ix {
	struct xr_reader *r;
	const struct xr_file *f;
	struct xr_prod p;
	enum vstate vs;
	bool in_block, have_cpu, typed_in_block;
	bool resync;            /* lenient: after damage, skipping to the next buffer */
	uint64_t resync_from;
};

/* What a step of the index says: go on, stop (damage, not lenient), or an error code (> 0). */
#define IX_NEXT 0
#define IX_STOP (-1)

/* The block being filled, NULL between blocks. */
static struct xr_block *ix_block(const struct fdr_ix *x)
{
	return x->in_block ? &x->r->blocks[x->r->n_blocks - 1] : NULL;
}

/*
 * compiler-rt 14 counts a typed event's payload but not its 16-byte
 * marker in BufferExtents, and writes only that many bytes: the buffer's
 * last record can be cut.  llvm-xray then fails on the whole log; we drop
 * the cut record, say so, and go on with the next buffer.
 */
static int cut_typed_record(struct fdr_ix *x, const struct xr_prod *save, const struct xr_raw *raw,
			    struct tmx_error *err)
{
	struct xr_block *b = ix_block(x);
	int ret;

	tmx_warn(x->r->diag, "%s: at byte %" PRIu64 ": %s record cut by the end of "
		 "its buffer (%" PRIu64 " bytes left by BufferExtents): the "
		 "buffer held typed events, whose size compiler-rt 14 "
		 "under-counts; the record is lost", x->f->map.path, raw->off,
		 xr_raw_names[raw->kind], save->extent_left);
	b->end = save->off;
	if ((ret = file_block(x->r, x->r->n_blocks - 1, err)))
		return ret;
	x->in_block = false;
	x->vs = V_UNKNOWN;
	x->p = *save;
	x->p.off = save->off + save->extent_left;
	x->p.extent_left = 0;
	return IX_NEXT;
}

/* A record the producer refused (`e`): the cut typed record, else damage and resynchronizing. */
static int produce_failed(struct fdr_ix *x, const struct xr_prod *save, const struct xr_raw *raw,
			  struct tmx_error *e, struct tmx_error *err)
{
	const struct xr_file *f = x->f;
	struct xr_block *b = ix_block(x);

	if (e->code != TMX_ERR_DATA)
		return *err = *e, e->code;
	if (raw->crosses && x->typed_in_block && b && terminal(x->vs) &&
	    save->extent_left <= f->map.size - save->off)
		return cut_typed_record(x, save, raw, err);
	if (b)
		b->end = e->has_offset && e->offset > save->off ? e->offset : save->off;
	if (!x->resync) {
		damage(x->r, e);
		x->resync_from = save->off;
	}
	if (!x->r->opts.lenient)
		return IX_STOP;
	x->resync = true;
	/* Resume: v3+ at the next BufferExtents; v1 at the next buffer. */
	if (f->h.version >= 3) {
		x->p = *save;
		x->p.off = (e->has_offset ? e->offset : save->off) + 1;
		x->p.extent_left = 0;
	} else if (f->h.version == 1 && f->h.buffer_size &&
		   x->p.block_start + f->h.buffer_size > save->off &&
		   f->h.buffer_size <= f->map.size - x->p.block_start) {
		x->p = *save;
		x->p.off = x->p.block_start + f->h.buffer_size;
	} else {
		return IX_STOP;
	}
	x->in_block = false;
	x->vs = V_UNKNOWN;
	return IX_NEXT;
}

/* A NewBuffer record: the block before it is filed (or dropped when unreadable), a new one starts. */
static int new_buffer(struct fdr_ix *x, const struct xr_prod *save, const struct xr_raw *raw,
		      struct tmx_error *err)
{
	struct xr_reader *r = x->r;
	struct xr_block *b = ix_block(x);
	struct tmx_error e;
	int ret;

	if (b) {
		b->end = raw->off;
		if (!terminal(x->vs)) {
			tmx_error_at(&e, TMX_ERR_DATA, x->f->map.path, b->start.off,
				     "FDR: buffer of thread %" PRId32 " ends after "
				     "its %s record (no CPU record: nothing to read)",
				     b->tid, vstate_names[x->vs]);
			damage(r, &e);
			if (!r->opts.lenient)
				return IX_STOP;
			r->n_blocks--;
		} else if ((ret = file_block(r, r->n_blocks - 1, err))) {
			return ret;
		}
	}
	if ((ret = new_block(r, save, raw->i32, err)))
		return ret;
	x->in_block = true;
	x->have_cpu = false;
	x->typed_in_block = false;
	if (x->resync)
		r->skipped_bytes += raw->off - x->resync_from;
	x->resync = false;
	x->vs = V_NEW_BUFFER;
	return IX_NEXT;
}

/* A record outside of any buffer, or out of BlockVerifier's order: damage. */
static int misplaced(struct fdr_ix *x, const struct xr_raw *raw, struct tmx_error *err)
{
	struct xr_reader *r = x->r;
	struct xr_block *b = ix_block(x);
	struct tmx_error e;
	int ret;

	if (!b)
		tmx_error_at(&e, TMX_ERR_DATA, x->f->map.path, raw->off,
			     "FDR: %s record outside of any buffer (a buffer starts "
			     "with a NewBuffer record)", xr_raw_names[raw->kind]);
	else
		tmx_error_at(&e, TMX_ERR_DATA, x->f->map.path, raw->off,
			     "FDR: %s record after %s in the buffer of thread %"
			     PRId32 " (a buffer is NewBuffer, WalltimeMarker, [Pid,] "
			     "NewCPUId, then records)",
			     xr_raw_names[raw->kind], vstate_names[x->vs], b->tid);
	damage(r, &e);
	if (b && (!r->opts.lenient || terminal(x->vs))) {
		/* Keep what came before the bad record. */
		b->end = raw->off;
		if (terminal(x->vs) && (ret = file_block(r, r->n_blocks - 1, err)))
			return ret;
	} else if (b) {
		r->n_blocks--;
	}
	x->in_block = false;
	if (!r->opts.lenient)
		return IX_STOP;
	x->resync = true;
	x->resync_from = raw->off;
	x->vs = V_UNKNOWN;
	return IX_NEXT;
}

/* What the block keeps of a record in its place: wall time, pid, first TSC, typed events. */
static void note_record(struct fdr_ix *x, struct xr_block *b, const struct xr_raw *raw)
{
	switch (raw->kind) {
	case XR_RAW_WALLTIME:
		b->wall_sec = raw->u64;
		b->wall_usec = raw->usec;
		break;
	case XR_RAW_PID:
		b->pid = (uint64_t)(int64_t)raw->i32;
		break;
	case XR_RAW_NEW_CPU:
		if (!x->have_cpu)
			b->first_tsc = raw->u64;
		x->have_cpu = true;
		break;
	case XR_RAW_TYPED:
		x->typed_in_block = true;
		break;
	default:
		break;
	}
}

/* One record (or a run of function records) at x->p. */
static int index_step(struct fdr_ix *x, struct tmx_error *err)
{
	struct xr_prod save = x->p;
	struct xr_block *b = ix_block(x);
	struct xr_raw raw;
	struct tmx_error e;
	enum vstate to;

	/*
	 * Function records, nearly all of them, in a buffer past its header:
	 * any terminal state takes them, and these are the ones the producer
	 * would read without an error.
	 */
	if (b && terminal(x->vs) && skip_functions(x->f, &x->p)) {
		if (x->vs != V_EOB)
			x->vs = V_FUNCTION;
		return IX_NEXT;
	}
	raw.crosses = false;
	if (xr_fdr_produce(x->f, &x->p, &raw, &e))
		return produce_failed(x, &save, &raw, &e, err);
	if (raw.kind == XR_RAW_EXTENTS)
		return IX_NEXT;
	if (raw.kind == XR_RAW_NEW_BUFFER)
		return new_buffer(x, &save, &raw, err);
	if (!b && x->resync)
		return IX_NEXT;
	to = vstate_of(raw.kind);
	if (!b || (x->vs != V_EOB && !transition_ok(x->vs, to)))
		return misplaced(x, &raw, err);
	if (x->vs != V_EOB)
		x->vs = to;
	note_record(x, b, &raw);
	return IX_NEXT;
}

/* The end of the log: a truncated last buffer said, the last block filed. */
static int index_end(struct fdr_ix *x, struct tmx_error *err)
{
	struct xr_reader *r = x->r;
	const struct xr_file *f = x->f;
	struct tmx_error e;
	int ret;

	if (x->resync)
		r->skipped_bytes += f->map.size - x->resync_from;
	/* llvm-xray accepts this silently; the end of the log is missing. */
	if (f->h.version >= 3 && x->p.off >= f->map.size && x->p.extent_left && !r->has_deferred) {
		tmx_error_at(&e, TMX_ERR_DATA, f->map.path, f->map.size,
			     "FDR: the file ends %" PRIu64 " bytes before the end of its last "
			     "buffer (as its BufferExtents record says): truncated log",
			     x->p.extent_left);
		damage(r, &e);
	}
	if (x->in_block && r->n_blocks) {
		struct xr_block *b = &r->blocks[r->n_blocks - 1];
		if (!terminal(x->vs) && !r->has_deferred) {
			tmx_error_at(&e, TMX_ERR_DATA, f->map.path, b->start.off,
				     "FDR: the last buffer (thread %" PRId32 ") ends after its %s "
				     "record", b->tid, vstate_names[x->vs]);
			damage(r, &e);
		}
		if (terminal(x->vs) && (ret = file_block(r, r->n_blocks - 1, err)))
			return ret;
	}
	return TMX_OK;
}

/*
 * Reads every FDR record once: block boundaries, their (pid, tid), wall time
 * and first TSC, and llvm's block verification.  Damage ends the index at
 * the faulty record (its block keeps the records before it).
 */
int xr_index_fdr(struct xr_reader *r, struct tmx_error *err)
{
	struct fdr_ix x = {
		.r = r, .f = &r->file, .vs = V_UNKNOWN,
		.p = { .off = XR_HEADER_SIZE, .block_start = XR_HEADER_SIZE },
	};
	uint64_t last_off = x.p.off;
	int ret;

	while (x.p.off < r->file.map.size) {
		maybe_release(r, x.p.off - last_off);
		last_off = x.p.off;
		if ((ret = index_step(&x, err)) == IX_STOP)
			break;
		if (ret)
			return ret;
	}
	if ((ret = index_end(&x, err)))
		return ret;
	/* Threads in DenseMap order, each one's blocks as llvm sorts them. */
	if (!(r->key_order = malloc((r->n_keys ? r->n_keys : 1) * sizeof(*r->key_order))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	xr_densemap_values(&r->map, r->key_order);
	for (uint32_t k = 0; k < r->n_keys; k++)
		xr_sort_blocks(r->keys[k].blocks, r->keys[k].n_blocks, r->blocks);
	r->layout = (struct xr_layout){ .file = &r->file, .fdr = true, .blocks = r->blocks,
					.keys = r->keys, .key_order = r->key_order,
					.n_keys = r->n_keys };
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	return TMX_OK;
}

/* Basic mode: every record checked, threads found. */
int xr_index_basic(struct xr_reader *r, struct tmx_error *err)
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
int xr_index_yaml(struct xr_reader *r, struct tmx_error *err)
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
	if ((ret = xr_build_classes(r, m->path, err)))
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
