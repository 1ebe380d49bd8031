/*
 * What the Parquet sink's two sides share (internal to src/sink/parquet/):
 * parquet_sink.c, events in merged order into their tables (the sink
 * itself), and format.c, the rows of events as records or straight into
 * columns (the formatters: the sink's own, and one per worker of the
 * parallel runner, src/sink/split.h), with the class shapes both read.
 */
#ifndef TMX_SINK_PARQUET_SINK_IMPL_H
#define TMX_SINK_PARQUET_SINK_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/intmap.h"
#include "model/field_class.h"
#include "sink/outbuf.h"
#include "sink/parquet/fmap.h"
#include "sink/parquet/groupq.h"
#include "sink/parquet/labels.h"
#include "sink/parquet/meta.h"
#include "sink/parquet/parquet.h"
#include "sink/parquet/record.h"
#include "sink/parquet/table.h"
#include "tracemux/columns.h"
#include "tracemux/event.h"
#include "tracemux/model.h"

/*
 * The columns every event table starts with, of one type whatever the
 * input's format, so that the tables of a dataset made of CTF, trace.dat
 * and XRay traces read as one (DuckDB's read_parquet of every `.parquet`
 * file under the dataset, union_by_name = true): ts, cycles, event, host,
 * trace, stream_id, stream_class_id, cpu.  The partition keys (event,
 * host, trace) are in the files as well as in the directory names: a
 * recursive glob also matches
 * the meta tables at the top, which have no Hive keys, so DuckDB and
 * others leave Hive partitioning off and read the keys from the files.
 */
/*
 * Their types, as the column model (tracemux/columns.h) gives them: `ts`
 * is a BIGINT (INT64, no logical timestamp type) of nanoseconds from the
 * clock's origin for every clock: a TIMESTAMP would claim a Unix-epoch
 * origin, which a boot-time clock (trace.dat's local clock, LTTng's
 * monotonic clock without an offset, a TSC) does not have, and a dataset
 * mixing both would have two types.  Whether the origin is the Unix epoch
 * is in `_traces.parquet` (`clocks`) and `_streams.parquet`; where it is,
 * `make_timestamp_ns(ts)` (DuckDB) or `to_timestamp(ts / 1e9)` gives the
 * time of day.  `cpu` is null where the format does not know it (XRay's
 * own `cpu` field is also `common_context.cpu`, as CTF's `cpu_id` stays a
 * column).
 */
enum { COL_TS = TMX_COLUMN_TS, COL_CYCLES = TMX_COLUMN_CYCLES, COL_EVENT = TMX_COLUMN_EVENT,
       COL_HOST = TMX_COLUMN_HOST, COL_TRACE = TMX_COLUMN_TRACE, COL_STREAM_ID = TMX_COLUMN_STREAM_ID,
       COL_CPU = TMX_COLUMN_CPU };   /* the column model's (tracemux/columns.h) */

/*
 * A record's head: the shape's address, flags, and its packet's `seq` + 1
 * (0: none; the packet of the event's stream, table.h's pq_pk_put),
 * then its entries (record.h).
 */
#define REC_BAD_SCOPE 0x07              /* the scope that does not fit the class, + 1 */
#define REC_NOMEM 0x80
#define REC_SEQ (sizeof(void *) + 1)
#define REC_HEAD (REC_SEQ + 8)

/* A direct-mapped cache of streams' event counts (struct tmx_parquet). */
#define STREAM_CACHE 16

/* A direct-mapped cache of shapes by class, per formatting thread. */
#define SHAPE_CACHE 64

struct ptr_vec {
	void **items;
	size_t n, cap;
};

/* A directory of parts, shared by the tables of one class name. */
struct part_dir {
	char *path;
	unsigned next_part;
};

struct evtab {
	struct pq_table t;
	struct tmx_buf sig;        /* the schema as the footer writes it */
	struct part_dir *dir;
};

/*
 * What the rows of an event class look like: its columns and how its
 * values fill them.  Made once per class, at its first event, by the
 * thread that meets it (a worker of the parallel runner, under the sink's
 * lock), then only read.
 */
struct shape {
	const struct tmx_event_class *ec;
	bool ok;                        /* false: out of memory, or nested too deep */
	const struct tmx_field_class *fc[TMX_N_SCOPES];
	struct pq_fcols cols;           /* the class's columns and how each is written */
	struct pq_schema schema;
	struct pq_colinfo *ci;          /* of each column of the schema */
	bool static_heads;              /* pq_fcols_static: see pq_format_event */
	/*
	 * Its table has packet columns (parquet_sink.c, pk_setup): the
	 * packet context's values are all integers, and the CPU, when it is
	 * the packet's, an integer column's.
	 */
	bool pk_cols;
	/* pk_cols and static_heads: a worker may leave a record's packet entries out. */
	bool pk_omit;
	size_t pk_cpu_entry;            /* the bytes of the CPU's entry when it is the packet's */
	/* A record's room made at once: all of it but strings' and other LISTs' (pq_format_event). */
	size_t rec_room;
	/*
	 * The sink's thread's alone (workers never read them): the table of
	 * the class's events of `tab_trace` (parquet_sink.c, shape_table).
	 */
	const struct tmx_trace *tab_trace;
	struct pq_table *tab;
	/*
	 * The entries of the event, host and trace columns for events of
	 * each trace (record.h's include entries point here): made under the
	 * sink's lock, never changed, freed with the shape.
	 */
	struct names {
		struct names *next;
		const struct tmx_trace *trace;
		struct tmx_buf entries;
	} *names;
};

/* A formatter: the sink's own, or a worker's of the parallel runner. */
struct pq_fmt {
	struct tmx_parquet *p;
	struct shape_slot {
		const struct tmx_event_class *ec;
		const struct shape *sh;
		/* The entries of event, host and trace for events of `trace` (shape->names). */
		const struct tmx_trace *trace;
		const struct tmx_buf *names;
		/*
		 * Workers: the packet (its seq + 1; 0: none) whose entries a
		 * record of the class carried in this batch, which is one
		 * stream's events (so the class tells the table and the
		 * stream), and whether its CPU was no null (pq_format_event).
		 */
		uint64_t pk_seq1;
		bool pk_cpu;
	} cache[SHAPE_CACHE];
	/*
	 * rec: a worker's record, written on its outbuf's room (borrowed,
	 * tmx_parquet_format), or on its own memory when it outgrew it.
	 */
	struct tmx_buf rec, scratch;
	struct pq_labels labels;
	const struct tmx_value **cells; /* room for a value per column (pq_fcols_emit_rec/_direct) */
	size_t cap_cells;
	const struct tmx_trace_class *host_of;   /* trace_host()'s last trace class */
	const char *host;
	struct outbuf *out;             /* workers: where records go */
	/* How records are written (but its `ci`, the class's), made once (pq_fmt_new): workers'. */
	struct pq_rec_emit em;
	bool varied;                    /* em.varied's */
};

/* Which table an event class writes to (for one trace, when partitioned by trace). */
struct class_map {
	const struct tmx_event_class *ec;
	const struct tmx_trace *trace;  /* NULL unless partitioned by host or trace */
	uint32_t next;                  /* maps[] of the same class, other trace; UINT32_MAX */
	struct evtab *tab;
};

struct tmx_parquet {
	char *dir;
	const struct tmx_source *src;
	struct pq_limits lim;
	struct pq_encoder enc;          /* the meta tables' */
	struct pq_groupq *q;            /* the event tables' row groups */
	struct pq_chunks chunks;        /* the event tables' records' buffers (table.h) */
	struct tmx_buf scratch;
	struct tmx_buf whole;           /* a record made whole (table.h, pq_pk_put) */
	unsigned partition;             /* TMX_PARQUET_BY_* */
	struct imap by_class;           /* event class address -> first of its maps[] */
	struct ptr_vec maps;            /* struct class_map * */
	struct ptr_vec tabs;            /* struct evtab *, each once */
	struct ptr_vec dirs;            /* struct part_dir * */
	size_t total;                   /* bytes buffered by all the tables */
	struct imap by_stream;          /* stream address -> events[] */
	/*
	 * The events[] index of recent streams, direct-mapped by address
	 * (merged order alternates between the streams: one last stream
	 * missed), UINT32_MAX: none.
	 */
	struct stream_slot {
		const struct tmx_stream *s;
		uint32_t slot;
	} stream_cache[STREAM_CACHE];
	/* put_event's last class (consecutive events often share it) */
	const struct tmx_event_class *last_ec;
	const struct tmx_trace *last_trace;
	struct class_map *last_cm;
	uint64_t *events;
	size_t n_streams, events_cap;
	struct pq_discarded discarded;
	pthread_mutex_t lock;           /* shapes, made by any thread */
	struct imap shape_of;           /* event class address -> shapes[] */
	struct ptr_vec shapes;
	struct pq_fmt *fmt;             /* the sink's own formatter */
};

static inline bool pq_ptr_push(struct ptr_vec *v, void *item)
{
	void *items = v->items;

	if (!tmx_grow_array(&items, &v->cap, v->n + 1, sizeof(void *), 8))
		return false;
	v->items = items;
	v->items[v->n++] = item;
	return true;
}

void pq_shape_free(struct shape *sh);
/* shape_of() when `slot` does not hold `ec`'s shape (under the sink's lock). */
struct shape_slot *pq_shape_find(struct pq_fmt *f, struct shape_slot *slot,
				 const struct tmx_event_class *ec);
/*
 * The entries of the event, host and trace columns of `ec`'s events of
 * `trace`, made at the first of them (under the sink's lock: any thread);
 * NULL when memory runs out.
 */
const struct tmx_buf *pq_names_of(struct pq_fmt *f, struct shape *sh,
				  const struct tmx_event_class *ec, const struct tmx_trace *trace);
/* A formatter: the sink's own, or (`worker`) one writing records to its outbuf. */
struct pq_fmt *pq_fmt_new(struct tmx_parquet *p, bool worker);
void pq_fmt_free(struct pq_fmt *f);

/*
 * The cache slot of `ec` with its shape, made when new, and room for its
 * columns in f->cells; slot->sh NULL when memory runs out.  Inlined: a
 * hit is a few instructions (once or twice per event).
 */
static inline __attribute__((always_inline)) struct shape_slot *
shape_of(struct pq_fmt *f, const struct tmx_event_class *ec)
{
	struct shape_slot *slot = &f->cache[((uintptr_t)ec >> 4) % SHAPE_CACHE];

	if (__builtin_expect(slot->ec == ec && slot->sh != NULL, 1))
		return slot;
	return pq_shape_find(f, slot, ec);
}

/*
 * What makes an event's row fail before any of its values is written:
 * REC_BAD_SCOPE's value (a scope that does not fit the class), REC_NOMEM,
 * or 0 with room for the class's columns in f->cells and the entries of
 * its names in slot->names.
 */
static inline __attribute__((always_inline)) uint8_t row_check(struct pq_fmt *f,
								struct shape_slot *slot,
								const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_stream *st = msg->stream;
	const struct shape *sh = slot->sh;

	if (!sh || !sh->ok)
		return REC_NOMEM;
	/*
	 * Every scope of the class is checked before a column gets a value:
	 * by a loop of a constant count, unrolled (a list of the class's
	 * scopes cost some 10 instructions an event more).
	 */
#pragma GCC unroll 4
	for (unsigned s = 0; s < TMX_N_SCOPES; s++)
		if (sh->fc[s] && (!e->scopes[s] || e->scopes[s][0].fc != sh->fc[s]))
			return (uint8_t)(s + 1);
	if (__builtin_expect(slot->trace != st->trace, 0)) {   /* once per class and trace */
		slot->names = pq_names_of(f, (struct shape *)sh, e->cls, st->trace);
		slot->trace = slot->names ? st->trace : NULL;
		if (!slot->names)
			return REC_NOMEM;
	}
	return 0;   /* (the cells' room: grown when the slot took the class, pq_shape_find) */
}

/*
 * The CPU column's value of the CPU field's value `v` (tmx_event_cpu's
 * rule; NULL: no such field): above UINT32_MAX for a null.
 * tmx_value_uint64's own case inline first: the CPU is most often an
 * unsigned integer.
 */
static inline uint64_t pq_cpu_of(const struct tmx_value *v)
{
	uint64_t cpu;

	if (v && v->fc->kind == TMX_FC_INT && !v->fc->is_signed)
		return v->u;
	return v && tmx_value_uint64(v, &cpu) ? cpu : UINT64_MAX;
}

/*
 * The row of an event whose row_check() passed, into a record or straight
 * into the columns; the names' entries are the caller's.  Returns whether
 * the CPU column has a value (else a null).  `rec`: em->rec != NULL, a
 * constant in both callers (pq_format_event, put_direct), so that
 * neither path tests the other's.
 */
static inline __attribute__((always_inline)) bool row_emit(struct pq_fmt *f, const struct shape *sh,
							  const struct tmx_msg *msg,
							  const struct pq_rec_emit *em, bool rec)
{
	const struct tmx_stream *st = msg->stream;
	const struct tmx_value *cpu_value;
	uint64_t cpu, ts[2] = { (uint64_t)msg->ns, msg->cycles }, ids[2] = { st->id, st->cls->id };

	/* A record's entries without asking for room: made for the class (shape.rec_room). */
	if (rec) {
		em->rec->len = (size_t)(pq_rec_fixed_at(em->rec->p + em->rec->len,
							msg->has_ts ? ts : NULL, ids) -
					em->rec->p);
		if (em->pk_known)   /* the ids' entry, the last, taken back */
			em->rec->len -= PQ_REC_HEAD + 16;
		/* tmx_event_cpu, the field found once per class */
		cpu_value = pq_fcols_emit_rec(em, &sh->cols, msg->event->scopes, f->cells);
	} else {
		pq_emit_fixed(em, msg->has_ts ? ts : NULL, ids);
		cpu_value = pq_fcols_emit_direct(em, &sh->cols, msg->event->scopes, f->cells);
	}
	/*
	 * The packet's CPU: the table's, not null (a record's: its caller
	 * knows it from the record that carried the packet's entries).
	 */
	if (em->pk_known && sh->cols.pk_cpu >= 0) {
		if (!rec)
			*em->bytes += sh->pk_cpu_entry;
		return true;
	}
	cpu = pq_cpu_of(cpu_value);
	if (rec) {   /* in the room pq_fcols_emit_rec leaves for it */
		struct tmx_buf *b = em->rec;
		uint8_t *h = b->p + b->len;

		if (b->oom)
			return false;
		if (cpu > UINT32_MAX) {
			b->len += (size_t)(pq_rec_head_at(h, COL_CPU | PQ_REC_NULL, 0, 0) - h);
			return false;
		}
		h = pq_rec_head_at(h, COL_CPU, 0, em->ci[COL_CPU].max_def);
		b->len = (size_t)(pq_rec_run_value(h, cpu, em->ci[COL_CPU].phys) - b->p);
		return true;
	}
	if (cpu > UINT32_MAX) {
		pq_emit_null(em, COL_CPU, 0, 0);
		return false;
	}
	pq_emit_int(em, COL_CPU, 0, cpu);
	return true;
}

#endif
