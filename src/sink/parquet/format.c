/*
 * The rows of events (sink_impl.h): each class's shape (its columns and
 * how its values fill them, made once by whichever thread meets the class
 * first, under the sink's lock), the entries of its names, and an event's
 * row as a record (record.h): what the parallel runner's workers do for
 * each event (tmx_parquet_format), the merge then putting the records in
 * their tables (parquet_sink.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sink/parquet/sink_impl.h"
#include "sink/split.h"

void pq_shape_free(struct shape *sh)
{
	if (!sh)
		return;
	for (struct names *n = sh->names, *next; n; n = next) {
		next = n->next;
		tmx_buf_free(&n->entries);
		free(n);
	}
	pq_fcols_free(&sh->cols);
	pq_schema_free(&sh->schema);
	free(sh->ci);
	free(sh);
}

/* The scopes of a class, whose events are checked against them. */
static void class_scopes(const struct tmx_event_class *ec,
			 const struct tmx_field_class *fc[TMX_N_SCOPES])
{
	const struct tmx_stream_class *sc = ec->stream_class;

	fc[TMX_SCOPE_PACKET_CONTEXT] = sc->packet_context;
	fc[TMX_SCOPE_COMMON_CONTEXT] = sc->event_common_context;
	fc[TMX_SCOPE_SPECIFIC_CONTEXT] = ec->specific_context;
	fc[TMX_SCOPE_PAYLOAD] = ec->payload;
}

static struct shape *shape_new(const struct tmx_event_class *ec)
{
	struct shape *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->ec = ec;
	class_scopes(ec, sh->fc);
	pq_schema_init(&sh->schema);
	if (!pq_fcols_new(&sh->cols, ec, &sh->schema) || !pq_schema_finish(&sh->schema))
		return sh;   /* not ok: the table, made the same way, says why */
	sh->ci = calloc(sh->schema.n_cols ? sh->schema.n_cols : 1, sizeof(*sh->ci));
	if (!sh->ci)
		return sh;
	for (size_t c = 0; c < sh->schema.n_cols; c++)
		sh->ci[c] = (struct pq_colinfo){ sh->schema.elems[sh->schema.col_elem[c]].type.phys,
						 sh->schema.max_def[c] };
	sh->static_heads = pq_fcols_static(&sh->cols);
	/* row_emit leaves the packet's CPU out: an integer column's, or no packet columns. */
	sh->pk_cols = sh->cols.pk_ops &&
		      (sh->cols.pk_cpu < 0 || (pq_int_width(sh->ci[COL_CPU].phys) &&
					       !sh->schema.max_rep[COL_CPU]));
	sh->pk_omit = sh->pk_cols && sh->static_heads;
	if (sh->cols.pk_cpu >= 0)
		sh->pk_cpu_entry = PQ_REC_HEAD + pq_int_width(sh->ci[COL_CPU].phys);
	pq_fcols_rec_heads(&sh->cols, sh->ci);
	/* The record's head, its names' include entry, the fixed columns' entries, then the fields'. */
	sh->rec_room = REC_HEAD + PQ_REC_HEAD + sizeof(void *) + PQ_REC_FIXED_MAX + sh->cols.rec_room;
	sh->ok = true;
	return sh;
}

/* shape_of() when `slot` does not hold `ec`'s shape. */
__attribute__((noinline)) struct shape_slot *
pq_shape_find(struct pq_fmt *f, struct shape_slot *slot, const struct tmx_event_class *ec)
{
	struct tmx_parquet *p = f->p;
	const struct shape *sh = NULL;
	uint32_t *found;
	bool added;

	pthread_mutex_lock(&p->lock);
	/* A slot left at UINT32_MAX (no memory for the shape) is tried again. */
	found = imap_get(&p->shape_of, (uint64_t)(uintptr_t)ec, UINT32_MAX, &added);
	if (found && *found != UINT32_MAX) {
		sh = p->shapes.items[*found];
	} else if (found) {
		struct shape *made = shape_new(ec);
		if (made && pq_ptr_push(&p->shapes, made)) {
			*found = (uint32_t)(p->shapes.n - 1);
			sh = made;
		} else {
			pq_shape_free(made);
		}
	}
	pthread_mutex_unlock(&p->lock);
	/* The cells' room, grown for a class with more columns than any before (row_check). */
	if (sh && !tmx_grow_array((void **)&f->cells, &f->cap_cells, sh->cols.n, sizeof(*f->cells),
				  64))
		sh = NULL;
	slot->ec = ec;
	slot->sh = sh;
	slot->trace = NULL;
	slot->pk_seq1 = 0;
	return slot;
}

/* The `host` of a trace (the `hostname` of its environment, as the partition), the last one kept. */
static const char *trace_host(struct pq_fmt *f, const struct tmx_trace *trace)
{
	if (trace->cls != f->host_of) {
		f->host_of = trace->cls;
		f->host = pq_trace_host(trace->cls);
	}
	return f->host;
}

/*
 * The entries of the event, host and trace columns of `ec`'s events of
 * `trace`, made at the first of them (under the sink's lock: any thread);
 * NULL when memory runs out.
 */
const struct tmx_buf *pq_names_of(struct pq_fmt *f, struct shape *sh,
				     const struct tmx_event_class *ec, const struct tmx_trace *trace)
{
	struct tmx_parquet *p = f->p;
	struct names *n;
	const char *host;

	pthread_mutex_lock(&p->lock);
	for (n = sh->names; n && n->trace != trace; n = n->next)
		;
	if (!n && (n = calloc(1, sizeof(*n)))) {
		struct pq_rec_emit em = { &n->entries, sh->ci, &f->scratch, &f->labels, NULL, NULL, NULL,
					  false };

		n->trace = trace;
		if (ec->name)   /* null without a name, as Hive's default partition reads */
			pq_rec_text(&em, COL_EVENT, 0, ec->name, strlen(ec->name));
		else
			pq_rec_null(&n->entries, COL_EVENT, 0, 0);
		host = trace_host(f, trace);
		if (host)
			pq_rec_text(&em, COL_HOST, 0, host, strlen(host));
		else
			pq_rec_null(&n->entries, COL_HOST, 0, 0);
		pq_rec_text(&em, COL_TRACE, 0, trace->name, strlen(trace->name));
		if (n->entries.oom) {
			tmx_buf_free(&n->entries);
			free(n);
			n = NULL;
		} else {
			n->next = sh->names;
			sh->names = n;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return n ? &n->entries : NULL;
}

/*
 * The record of an event into f->rec, empty (record.h, after REC_HEAD
 * bytes: the shape and flags).  Inlined in its one caller,
 * tmx_parquet_format.
 */
static inline void pq_format_event(struct pq_fmt *f, const struct tmx_msg *msg)
{
	struct shape_slot *slot = shape_of(f, msg->event->cls);
	const struct shape *sh = slot->sh;
	const struct tmx_packet *pkt = msg->event->packet;
	struct tmx_buf *r = &f->rec;
	uint64_t seq = pkt ? pkt->seq + 1 : 0;
	uint8_t flags;
	bool cpu;

	/*
	 * Room made once for the entries that do not ask for it (all but
	 * strings and LISTs of another length than their class's).
	 */
	flags = row_check(f, slot, msg);
	if (!tmx_buf_reserve(r, flags ? REC_HEAD : sh->rec_room))
		goto done;
	/* (stores through a local: through r->p, r->p would be read again after each) */
	{
		uint8_t *p = r->p;

		memcpy(p, &sh, sizeof(sh));
		memcpy(p + REC_SEQ, &seq, 8);
	}
	r->len = REC_HEAD;
	if (flags)
		goto done;
	f->em.ci = sh->ci;
	/*
	 * The packet's entries (the stream's ids, the packet context's, its
	 * CPU) left out when a record of the batch carried them: the merge
	 * keeps the last ones of each table and stream (table.h,
	 * pq_pk_put), and a batch is one stream's events in its order, so
	 * that the class's cache slot tells which (tmx_parquet_batch clears
	 * them).
	 */
	f->em.pk_known = sh->pk_omit && seq && slot->pk_seq1 == seq;
again:
	f->varied = false;
	r->len = (size_t)(pq_rec_include_at(r->p + REC_HEAD, slot->names) - r->p);
	cpu = row_emit(f, sh, msg, &f->em, true);
	/*
	 * A class whose rows have the same entry heads but for the fixed
	 * columns' nulls: those nulls said in the include entry's head
	 * (record.h), whose names also tell the class, so that its rows'
	 * heads are known from that head alone (transpose.c); + 4 for a
	 * record without its packet's entries, whose CPU is the packet's.
	 */
	if (sh->static_heads && !f->varied && !r->oom) {
		if (f->em.pk_known) {
			cpu = sh->cols.pk_cpu >= 0 ? slot->pk_cpu : cpu;
			r->p[REC_HEAD + 4] = (uint8_t)(5 + msg->has_ts + 2 * cpu);
		} else {
			r->p[REC_HEAD + 4] = (uint8_t)(1 + msg->has_ts + 2 * cpu);
			if (sh->pk_omit && seq) {
				slot->pk_seq1 = seq;
				slot->pk_cpu = cpu;
			}
		}
	} else if (f->em.pk_known && !r->oom) {   /* heads of its own: the record whole */
		f->em.pk_known = false;
		goto again;
	}
	if (r->oom)
		flags = REC_NOMEM;
done:
	if (r->oom) {   /* the head at least, for the error */
		r->oom = false;
		r->len = 0;
		tmx_buf_put(r, &sh, sizeof(sh));
		tmx_buf_byte(r, REC_NOMEM);
		if (r->oom)
			r->len = 0;
		return;
	}
	r->p[sizeof(sh)] = flags;
	if (flags)
		r->len = REC_HEAD;
}

struct pq_fmt *pq_fmt_new(struct tmx_parquet *p, bool worker)
{
	struct pq_fmt *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->p = p;
	f->em = (struct pq_rec_emit){ &f->rec, NULL, &f->scratch, &f->labels, NULL, NULL,
				     &f->varied, false };
	if (worker) {
		if (!(f->out = malloc(sizeof(*f->out)))) {
			free(f);
			return NULL;
		}
		outbuf_init(f->out, -1);
	}
	return f;
}

void pq_fmt_free(struct pq_fmt *f)
{
	if (!f)
		return;
	tmx_buf_free(&f->rec);
	tmx_buf_free(&f->scratch);
	tmx_buf_free(&f->labels.join);
	free(f->cells);
	free(f->out);
	free(f);
}

struct pq_fmt *tmx_parquet_worker_new(const struct tmx_parquet *p)
{
	/* Workers share the shapes, made under the sink's lock. */
	return pq_fmt_new((struct tmx_parquet *)p, true);
}

void tmx_parquet_worker_free(struct pq_fmt *w)
{
	pq_fmt_free(w);
}

void tmx_parquet_batch(struct pq_fmt *w)
{
	for (size_t k = 0; k < SHAPE_CACHE; k++)
		w->cache[k].pk_seq1 = 0;
}

struct outbuf *tmx_parquet_worker_outbuf(struct pq_fmt *w)
{
	return w->out;
}

/*
 * Room for a record in the outbuf before it is written there: a record
 * longer than the room left moves to memory of its own (tmx_buf_borrow),
 * then is copied; with this much, only records that long do.
 */
#define REC_ROOM (64u << 10)

/*
 * An event's record as the piece's bytes; nothing for other messages.
 * The record is written in the outbuf's room, which the parallel runner
 * points at the batch's text (src/par/worker.c): where the merge reads
 * it, not copied there.
 */
void tmx_parquet_format(struct pq_fmt *w, const struct tmx_msg *msg, uint64_t hole[SINK_HOLES])
{
	struct outbuf *out = w->out;
	struct tmx_buf *r = &w->rec;

	hole[0] = hole[1] = SINK_NO_POS;
	if (msg->kind != TMX_MSG_EVENT)
		return;
	tmx_buf_borrow(r, outbuf_reserve(out, REC_ROOM), OUTBUF_SIZE - out->len);
	pq_format_event(w, msg);
	if (__builtin_expect(r->borrowed, 1)) {
		outbuf_commit(out, (const char *)r->p + r->len);
	} else {   /* it outgrew the room */
		outbuf_write(out, (const char *)r->p, r->len);
		tmx_buf_free(r);
	}
}
