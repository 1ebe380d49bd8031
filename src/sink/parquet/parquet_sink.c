/*
 * The Parquet sink (parquet.h): event classes to tables, events to rows,
 * the memory bound over all tables, and the meta tables at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/errors.h"
#include "common/grow.h"
#include "common/paths.h"
#include "sink/parquet/groupq.h"
#include "sink/parquet/meta.h"
#include "sink/parquet/parquet.h"
#include "sink/parquet/sink_impl.h"
#include "sink/parquet/thrift.h"
#include "common/intmap.h"
#include "sink/split.h"
#include "tracemux/event.h"
#include "tracemux/tracemux.h"

/*
 * Records buffered per row group, and by all tables together (beyond it
 * the largest table's group is written): a row is some 200 bytes of
 * records, so that four classes of 65536-row groups buffered 55 MiB with
 * a bound of 256 MiB, and the output's peak memory was 5 times the text
 * output's.  Once a LIST of integers became one entry (record.h), rows
 * were smaller, groups longer and the peak 20% higher with 24 MiB: 16 MiB
 * keeps it under what it was (81 MB with one job on 1M events, against
 * 87 MB), for files 0.1% larger.  8 MiB: groups whose records and
 * columns stay in the caches while they are made, applied and encoded;
 * with two jobs 5-10% less time and 40% less peak memory on the
 * benchmarks (74 -> 50 MB on 1M CTF events, 84 -> 50 MB on the
 * trace.dat), for files 0.1% and 1.3% larger.
 */
#define GROUP_BYTES (32u << 20)
#define TOTAL_BYTES (8u << 20)
#define PART_BYTES (1ull << 30)
/*
 * zstd's fastest regular level: compression was a third of the output's
 * CPU time at level 3 (zstd's default), level 1 takes about a quarter less
 * of it for files some 8% larger (every reader decompresses any level).
 */
#define ZSTD_LEVEL 1

static int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

/*
 * Hive's partition value: bytes other than A-Z a-z 0-9 - _ . as %XX.
 * False when it does not fit in `size` bytes.
 */
static bool percent_encode(const char *name, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	if (!name || !*name) {
		snprintf(out, size, "__HIVE_DEFAULT_PARTITION__");
		return true;
	}
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (o + 4 > size)
			return false;
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '_' || *s == '.') {
			out[o++] = (char)*s;
		} else {
			out[o++] = '%';
			out[o++] = hex[*s >> 4];
			out[o++] = hex[*s & 15];
		}
	}
	out[o] = '\0';
	return true;
}

static struct part_dir *part_dir(struct tmx_parquet *p, const char *path)
{
	struct part_dir *d;

	for (size_t i = 0; i < p->dirs.n; i++) {
		d = p->dirs.items[i];
		if (!strcmp(d->path, path))
			return d;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path)) || !pq_ptr_push(&p->dirs, d)) {
		if (d)
			free(d->path);
		free(d);
		return NULL;
	}
	return d;
}

/* The table of a new class's columns: an existing one with the same name and columns, or a new one. */
static int find_table(struct tmx_parquet *p, struct evtab *tab, struct class_map *cm,
		      struct tmx_error *err)
{
	struct pq_thrift t;

	pq_t_begin(&t, &tab->sig);
	pq_schema_thrift(&tab->t.schema, &t);
	if (tab->sig.oom)
		return nomem(err);
	for (size_t i = 0; i < p->tabs.n; i++) {
		struct evtab *o = p->tabs.items[i];
		if (o->dir == tab->dir && o->sig.len == tab->sig.len &&
		    !memcmp(o->sig.p, tab->sig.p, tab->sig.len)) {
			cm->tab = o;
			return TMX_OK;
		}
	}
	cm->tab = tab;
	return TMX_OK;
}

static void evtab_free(struct evtab *tab)
{
	if (!tab)
		return;
	pq_table_free(&tab->t);
	tmx_buf_free(&tab->sig);
	free(tab);
}

static void class_map_free(struct class_map *cm)
{
	free(cm);
}

/* Appends `/KEY=VALUE` (the value percent-encoded) to `path`. */
static int add_level(struct tmx_parquet *p, char *path, size_t size, const char *key,
		     const char *value, struct tmx_error *err)
{
	/* A directory name is at most 255 bytes (NAME_MAX), `KEY=` included. */
	char enc[255 + 1];
	size_t len = strlen(path);

	if (!percent_encode(value, enc, sizeof(enc) - strlen(key) - 1))
		return tmx_error_set(err, TMX_ERR_LIMIT, p->dir,
				     "%s `%.64s...` too long for a directory name", key, value);
	if ((size_t)snprintf(path + len, size - len, "/%s=%s", key, enc) >= size - len)
		return tmx_error_set(err, TMX_ERR_LIMIT, p->dir, "path too long");
	return TMX_OK;
}

/* DIR/event=NAME[/host=HOST][/trace=TRACE] */
static int table_path(struct tmx_parquet *p, const struct tmx_event_class *ec,
		      const struct tmx_trace *trace, char *path, size_t size, struct tmx_error *err)
{
	int ret;

	snprintf(path, size, "%s", p->dir);
	ret = add_level(p, path, size, "event", ec->name, err);
	if (!ret && (p->partition & TMX_PARQUET_BY_HOST))
		ret = add_level(p, path, size, "host", pq_trace_host(trace->cls), err);
	if (!ret && (p->partition & TMX_PARQUET_BY_TRACE))
		ret = add_level(p, path, size, "trace", trace->name, err);
	return ret;
}

static int build_class(struct tmx_parquet *p, const struct tmx_event_class *ec,
		       const struct tmx_trace *trace, struct class_map *cm, struct evtab *tab,
		       struct tmx_error *err)
{
	struct pq_fcols cols;
	char path[4096];
	bool ok;
	int ret = table_path(p, ec, trace, path, sizeof(path), err);

	if (ret)
		return ret;
	tab->dir = part_dir(p, path);
	if (!tab->dir)
		return nomem(err);
	ret = pq_table_init(&tab->t, path, &tab->dir->next_part, &p->lim, err);
	if (ret)
		return ret;
	tab->t.q = p->q;
	tab->t.chunks = &p->chunks;
	cm->ec = ec;
	cm->trace = p->partition ? trace : NULL;
	cm->next = UINT32_MAX;
	/* The shape's columns, made again: the maps are the shape's. */
	ok = pq_fcols_new(&cols, ec, &tab->t.schema);
	pq_fcols_free(&cols);
	if (!ok)
		return nomem(err);
	ret = pq_table_ready(&tab->t, err);
	return ret ? ret : find_table(p, tab, cm, err);
}

/*
 * The class map of `ec` for events of `trace`, made at its first event.
 * Partitioned, a class has one map per trace (in a chain from by_class):
 * traces of one class are rare (several trace.dat files of one session).
 */
static int class_of(struct tmx_parquet *p, const struct tmx_event_class *ec,
		    const struct tmx_trace *trace, struct class_map **out, struct tmx_error *err)
{
	uint32_t *found = imap_find(&p->by_class, (uint64_t)(uintptr_t)ec);
	struct class_map *cm, *last = NULL;
	struct evtab *tab;
	bool added;
	int ret;

	for (uint32_t i = found ? *found : UINT32_MAX; i != UINT32_MAX; i = last->next) {
		last = p->maps.items[i];
		if (!p->partition || last->trace == trace) {
			*out = last;
			return TMX_OK;
		}
	}
	cm = calloc(1, sizeof(*cm));
	tab = calloc(1, sizeof(*tab));
	ret = cm && tab ? build_class(p, ec, trace, cm, tab, err) : nomem(err);
	if (!ret && cm->tab == tab && !pq_ptr_push(&p->tabs, tab))
		ret = nomem(err);
	if (ret || cm->tab != tab)
		evtab_free(tab);   /* not kept: a failure, or a table of the same columns exists */
	if (ret || !pq_ptr_push(&p->maps, cm)) {
		class_map_free(cm);
		return ret ? ret : nomem(err);
	}
	/* From here on, the map is freed with the sink. */
	if (last)
		last->next = (uint32_t)(p->maps.n - 1);
	else if (!imap_get(&p->by_class, (uint64_t)(uintptr_t)ec, (uint32_t)(p->maps.n - 1), &added))
		return nomem(err);
	*out = cm;
	return TMX_OK;
}

/* The cache slot of stream `s` (STREAM_CACHE slots). */
static inline struct stream_slot *stream_slot(struct tmx_parquet *p, const struct tmx_stream *s)
{
	return &p->stream_cache[((uintptr_t)s >> 4) % STREAM_CACHE];
}

/* The event count of a stream, found or added (and cached). */
static __attribute__((noinline)) uint64_t *stream_events(struct tmx_parquet *p,
							 const struct tmx_stream *s)
{
	bool added;
	uint32_t *slot;
	void *events = p->events;
	struct stream_slot *c = stream_slot(p, s);

	slot = imap_get(&p->by_stream, (uint64_t)(uintptr_t)s, (uint32_t)p->n_streams, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (!tmx_grow_array(&events, &p->events_cap, p->n_streams + 1, sizeof(uint64_t), 16)) {
			*slot = UINT32_MAX;   /* counted nowhere; the row still is written */
			return NULL;
		}
		p->events = events;
		p->events[p->n_streams++] = 0;
	}
	c->s = s;
	c->slot = *slot;
	return *slot == UINT32_MAX ? NULL : &p->events[*slot];
}

/* One more event of `s`: a cache hit inlined (once per event). */
static inline __attribute__((always_inline)) void count_event(struct tmx_parquet *p,
							     const struct tmx_stream *s)
{
	struct stream_slot *c = stream_slot(p, s);
	uint64_t *count;

	if (__builtin_expect(c->s == s, 1)) {
		if (c->slot != UINT32_MAX)
			p->events[c->slot]++;
		return;
	}
	if ((count = stream_events(p, s)))
		++*count;
}

static uint64_t stream_events_of(void *user, const struct tmx_stream *s)
{
	struct tmx_parquet *p = user;
	uint32_t *slot = imap_find(&p->by_stream, (uint64_t)(uintptr_t)s);

	return slot && *slot != UINT32_MAX ? p->events[*slot] : 0;
}

/* The largest buffer goes out when all of them hold too much together. */
static int bound_memory(struct tmx_parquet *p, struct tmx_error *err)
{
	struct evtab *big = NULL;
	int ret;

	if (p->total < TOTAL_BYTES)
		return TMX_OK;
	for (size_t i = 0; i < p->tabs.n; i++) {
		struct evtab *tab = p->tabs.items[i];
		if (!big || tab->t.bytes > big->t.bytes)
			big = tab;
	}
	p->total -= big->t.bytes;
	ret = pq_table_flush(&big->t, &p->enc, err);
	big->t.bytes = 0;   /* also when the flush failed: that table writes nothing more */
	return ret;
}

/* The table of `sh`'s events of `st`, made at the first of them (in merged order). */
static inline __attribute__((always_inline)) int table_of(struct tmx_parquet *p, const struct shape *sh,
							 const struct tmx_stream *st,
							 struct pq_table **out, struct tmx_error *err)
{
	struct class_map *cm = NULL;
	int ret;

	if (sh->ec == p->last_ec && st->trace == p->last_trace) {
		cm = p->last_cm;
	} else {
		ret = class_of(p, sh->ec, st->trace, &cm, err);
		if (ret)
			return ret;
		p->last_ec = sh->ec;
		p->last_trace = st->trace;
		p->last_cm = cm;
	}
	*out = &cm->tab->t;
	return TMX_OK;
}

/*
 * The table of `sh`'s events of `st`: kept in the shape, since
 * consecutive events in merged order are of classes that alternate and
 * table_of's one last class misses; a record's shape then tells its
 * table without a look-up of the class.  The shape is only read by the
 * other threads, which never read these fields.
 */
static inline __attribute__((always_inline)) int shape_table(struct tmx_parquet *p,
							    const struct shape *sh,
							    const struct tmx_stream *st,
							    struct pq_table **out,
							    struct tmx_error *err)
{
	struct shape *mine = (struct shape *)sh;
	int ret;

	if (sh->tab && sh->tab_trace == st->trace) {
		*out = sh->tab;
		return TMX_OK;
	}
	if ((ret = table_of(p, sh, st, out, err)))
		return ret;
	mine->tab = *out;
	mine->tab_trace = st->trace;
	return TMX_OK;
}

/* The error of a row that failed (row_check's flags). */
static int row_error(const struct shape *sh, const struct tmx_stream *st, uint8_t flags,
		     struct tmx_error *err)
{
	if (flags & REC_BAD_SCOPE)
		return tmx_error_set(err, TMX_ERR_DATA, st->name,
				     "event of class `%s`: its %s does not have the class's fields",
				     sh->ec->name ? sh->ec->name : "",
				     tmx_scope_name((enum tmx_scope)((flags & REC_BAD_SCOPE) - 1)));
	return nomem(err);
}

/* A row is in table `t` (its bytes were `before`): counted, its group written when full. */
static inline __attribute__((always_inline)) int row_done(struct tmx_parquet *p, struct pq_table *t,
							 const struct tmx_stream *st, size_t before,
							 struct tmx_error *err)
{
	int ret;

	count_event(p, st);
	/* The table's bytes before and after, a row group written or not. */
	p->total -= before;
	ret = pq_table_row_end(t, &p->enc, err);
	p->total += t->bytes;
	if (ret || p->total < TOTAL_BYTES)   /* bound_memory()'s test, without the call */
		return ret;
	return bound_memory(p, err);
}

/*
 * How `sh`'s records hold their packet's entries (table.h, pq_pk_put):
 * the packet context's runs after the stream's ids' run, and the CPU's
 * entry at the end when it is the packet's.
 */
static inline struct pq_pk_layout pk_layout(const struct shape *sh)
{
	return (struct pq_pk_layout){ PQ_REC_HEAD + 16 + sh->cols.pk_bytes,
				      sh->pk_cpu_entry ? (unsigned)(sh->pk_cpu_entry - PQ_REC_HEAD) : 0 };
}

/*
 * The packet columns of `sh`'s table `t` (table.h, pq_pk): the packet
 * context's integers (pq_fcols.pk_ops), the stream's ids and the CPU
 * when it is the packet context's and an integer column; none when the
 * packet context has other values.  False without memory.
 */
static bool pk_setup(struct pq_table *t, const struct shape *sh)
{
	size_t n = pq_fcols_pk_cols(&sh->cols, NULL, 0), k = 0;
	uint32_t *cols;
	bool ok;

	if (!sh->pk_cols)
		return pq_pk_setup(t, NULL, 0, pk_layout(sh));
	if (!(cols = malloc((n + 3) * sizeof(*cols))))
		return false;
	cols[k++] = COL_STREAM_ID;
	cols[k++] = TMX_COLUMN_STREAM_CLASS_ID;
	if (sh->cols.pk_cpu >= 0)
		cols[k++] = COL_CPU;
	k += pq_fcols_pk_cols(&sh->cols, cols + k, n);
	ok = pq_pk_setup(t, cols, k, pk_layout(sh));
	free(cols);
	return ok;
}

/*
 * A direct row's packet in its table's packet columns (t->pk.n_cols):
 * whether their values are the table's already (em.pk_known).
 */
static inline __attribute__((always_inline)) bool pk_row(struct pq_table *t,
							 const struct shape *sh,
							 const struct tmx_msg *msg)
{
	const struct tmx_packet *pkt = msg->event->packet;
	const void *key = pkt ? msg->stream : NULL;
	uint64_t seq = pkt ? pkt->seq : 0;
	const struct tmx_value *pc = msg->event->scopes[TMX_SCOPE_PACKET_CONTEXT];
	bool fits = true;

	if (!t->n_rows)   /* the group's first row */
		pq_pk_begin(t);
	if (!t->pk.on)
		return false;
	if (__builtin_expect(pq_pk_known(t, key, seq, pq_pk_rows(t, false)), 1))
		return true;
	if (sh->cols.pk_cpu >= 0)
		fits = pq_cpu_of(&pc[sh->cols.pk_cpu]) <= UINT32_MAX;   /* no null (row_emit) */
	pq_pk_new(t, key, seq, fits, pq_pk_rows(t, false));
	return false;
}

/* An event's record (format_event) into its table, in merged order. */
static int put_event(struct tmx_parquet *p, const struct tmx_msg *msg, const uint8_t *rec,
		     size_t len, struct tmx_error *err)
{
	const struct tmx_stream *st = msg->stream;
	const struct shape *sh;
	struct pq_table *t;
	size_t before;
	uint64_t seq1;
	uint8_t flags;
	int ret;

	if (len < REC_HEAD)
		return nomem(err);
	memcpy(&sh, rec, sizeof(sh));   /* a shape made by a worker, under the sink's lock */
	flags = rec[sizeof(sh)];
	if (!sh)
		return nomem(err);
	if ((ret = shape_table(p, sh, st, &t, err)))
		return ret;
	if (t->broken)
		return TMX_OK;   /* its error was reported */
	if (flags)
		return row_error(sh, st, flags, err);
	before = t->bytes;
	if (__builtin_expect(!t->pk.set, 0) && !pk_setup(t, sh))
		return nomem(err);
	memcpy(&seq1, rec + REC_SEQ, 8);
	if (!t->pk.n_cols)
		pq_table_add_record(t, rec + REC_HEAD, len - REC_HEAD);
	else if ((ret = pq_pk_put(t, msg->stream, rec + REC_HEAD, len - REC_HEAD, seq1,
				  &p->whole)))
		return ret == PQ_PK_LOST ? tmx_error_set(err, TMX_ERR_DATA, st->name,
							 "a row's packet values were lost")
					 : nomem(err);
	return row_done(p, t, st, before, err);
}

/*
 * Sequentially, an event's row straight into its table's columns: no
 * record made, copied and read again.  The table's bytes grow by what
 * the record would have held, so that groups end at the same rows.
 */
static int put_direct(struct tmx_parquet *p, const struct tmx_msg *msg, struct tmx_error *err)
{
	const struct tmx_stream *st = msg->stream;
	struct pq_fmt *f = p->fmt;
	struct shape_slot *slot = shape_of(f, msg->event->cls);
	const struct shape *sh = slot->sh;
	struct pq_rec_emit em = { NULL, NULL, &f->scratch, &f->labels, NULL, NULL, NULL, false };
	struct pq_table *t;
	size_t before;
	uint8_t flags;
	int ret;

	if (!sh)
		return nomem(err);
	if ((ret = shape_table(p, sh, st, &t, err)))
		return ret;
	if (t->broken)
		return TMX_OK;   /* its error was reported */
	if ((flags = row_check(f, slot, msg)))
		return row_error(sh, st, flags, err);
	if (__builtin_expect(t->n_recs != 0, 0))
		pq_table_apply_recs(t);   /* records before (the parallel path's): in first */
	em.cols = pq_table_direct_cols(t);
	if (!em.cols)
		return nomem(err);
	if (__builtin_expect(!t->pk.set, 0) && !pk_setup(t, sh))
		return nomem(err);
	if (t->pk.n_cols)
		em.pk_known = pk_row(t, sh, msg);
	if (!t->room_rows && !pq_table_direct_room(t))
		return nomem(err);
	t->room_rows--;
	before = t->bytes;
	em.ci = sh->ci;
	em.bytes = &t->bytes;
	pq_rec_apply_include(em.cols, slot->names, &t->inc);
	t->bytes += PQ_REC_HEAD + sizeof(slot->names);   /* pq_rec_include's */
	row_emit(f, sh, msg, &em, false);
	return row_done(p, t, st, before, err);
}

static struct pq_meta_ctx meta_ctx(struct tmx_parquet *p)
{
	return (struct pq_meta_ctx){ p->dir, &p->lim, &p->enc, &p->scratch };
}

/*
 * A message in merged order: an event's record (`rec`), or a
 * discarded-items message.  Not inlined: tmx_parquet_emit's common case
 * (put_quick) then saves no registers.
 */
static __attribute__((noinline)) int put_msg(struct tmx_parquet *p, const struct tmx_msg *msg,
					     const uint8_t *rec, size_t len, struct tmx_error *err)
{
	struct pq_meta_ctx ctx;

	switch (msg->kind) {
	case TMX_MSG_EVENT:
		return put_event(p, msg, rec, len, err);
	case TMX_MSG_DISCARDED_EVENTS:
	case TMX_MSG_DISCARDED_PACKETS:
		ctx = meta_ctx(p);
		return pq_discarded_add(&p->discarded, &ctx, msg, err);
	default:
		return TMX_OK;
	}
}

/* Sequentially: an event's row straight into its table's columns (put_direct). */
int tmx_parquet_consume(struct tmx_parquet *p, const struct tmx_msg *msg, struct tmx_error *err)
{
	if (msg->kind == TMX_MSG_EVENT)
		return put_direct(p, msg, err);
	return put_msg(p, msg, NULL, 0, err);
}

/* ---- the split for the parallel runner (src/sink/split.h; the formatters: format.c) ---- */

/*
 * The merge's common case, nearly every record (table.h,
 * pq_pk_put_quick): an event's record of a table that its shape knows,
 * of a stream that the count's cache holds, that ends no chunk, row
 * group nor memory bound.  True when it was that, the record put;
 * else nothing was done.  Its one call, the copy, comes last, so that
 * it needs none of the registers that put_msg's cases save.
 */
static inline __attribute__((always_inline)) bool put_quick(struct tmx_parquet *p,
							   const struct tmx_msg *msg,
							   const uint8_t *rec, size_t len)
{
	const struct tmx_stream *st = msg->stream;
	struct stream_slot *c = stream_slot(p, st);
	const struct shape *sh;
	struct pq_table *t;
	uint64_t seq1;
	size_t add;
	uint8_t *d;

	/* (the marker first: records whose heads depend on their values, marker 0, are put_msg's) */
	if (msg->kind != TMX_MSG_EVENT || len <= REC_HEAD + 4 || !pq_pk_cut(rec[REC_HEAD + 4], 1) ||
	    c->s != st || c->slot == UINT32_MAX)
		return false;
	memcpy(&sh, rec, sizeof(sh));
	memcpy(&seq1, rec + REC_SEQ, 8);
	if (!sh || rec[sizeof(sh)] || !(t = sh->tab) || sh->tab_trace != st->trace || t->broken ||
	    !t->pk.n_cols)
		return false;
	len -= REC_HEAD;
	rec += REC_HEAD;
	/* (row_done's tests: no group written, no bound_memory) */
	if (p->total >= TOTAL_BYTES ||
	    !(d = pq_pk_put_quick(t, st, rec, len, seq1, TOTAL_BYTES - p->total, &add)))
		return false;
	p->total += add;
	p->events[c->slot]++;
	memcpy(d, rec, len);
	return true;
}

int tmx_parquet_emit(struct tmx_parquet *p, const struct sink_piece *pc, struct tmx_error *err)
{
	if (put_quick(p, pc->msg, (const uint8_t *)pc->text, pc->len))
		return TMX_OK;
	return put_msg(p, pc->msg, (const uint8_t *)pc->text, pc->len, err);
}

/* Row groups are encoded on the runner's threads from now on. */
void tmx_parquet_side_start(struct tmx_parquet *p, const struct sink_side *side)
{
	/* A group per thread in flight: more only held memory (the merge encodes meanwhile). */
	pq_groupq_async(p->q, side->wake, side->ctx, (size_t)side->threads);
}

bool tmx_parquet_side_run(struct tmx_parquet *p)
{
	return pq_groupq_run(p->q);
}

/*
 * The merge is over: the last row groups are queued while the runner's
 * threads still encode (after a failure, tmx_parquet_finish writes them
 * alone), then everything is written and the sink is on its own again.
 */
int tmx_parquet_side_end(struct tmx_parquet *p, int status, struct tmx_error *err)
{
	struct tmx_error e = { 0 };
	int ret = TMX_OK;

	for (size_t i = 0; !status && i < p->tabs.n; i++) {
		struct evtab *tab = p->tabs.items[i];
		int r = pq_table_flush(&tab->t, &p->enc, &e);
		if (r && !ret) {
			ret = r;
			*err = e;
		}
	}
	{
		int r = pq_groupq_sync(p->q, &e);
		if (r && !ret) {
			ret = r;
			*err = e;
		}
	}
	return ret;
}

int tmx_parquet_new(const struct tmx_parquet_opts *opts, const struct tmx_source *src,
		    struct tmx_parquet **out, struct tmx_error *err)
{
	struct tmx_parquet *p = calloc(1, sizeof(*p));
	char *dir;

	*out = NULL;
	if (p)
		pthread_mutex_init(&p->lock, NULL);
	if (!p || !(p->dir = strdup(opts->dir)) || !pq_encoder_zstd(&p->enc, ZSTD_LEVEL) ||
	    !(p->q = pq_groupq_new(ZSTD_LEVEL)) || !(p->fmt = pq_fmt_new(p, false))) {
		tmx_parquet_free(p);
		return nomem(err);
	}
	/* Made now, so that a bad directory fails before any event. */
	dir = p->dir;
	if (cw_mkdir_p(dir)) {
		int ret = tmx_error_set(err, TMX_ERR_IO, opts->dir, "cannot create the directory: %s",
					strerror(errno));
		tmx_parquet_free(p);
		return ret;
	}
	p->src = src;
	p->partition = opts->partition;
	p->lim = (struct pq_limits){
		.group_rows = opts->row_group_rows ? (int64_t)opts->row_group_rows : 65536,
		.group_bytes = GROUP_BYTES,
		.file_groups = opts->part_row_groups ? opts->part_row_groups : 128,
		.file_bytes = PART_BYTES,
	};
	*out = p;
	return TMX_OK;
}

/* Keeps the first error, goes on with the rest. */
static void keep(int *ret, struct tmx_error *err, int r, const struct tmx_error *e)
{
	if (r && !*ret) {
		*ret = r;
		if (err)
			*err = *e;
	}
}

int tmx_parquet_finish(struct tmx_parquet *p, struct tmx_error *err)
{
	struct pq_meta_ctx ctx = meta_ctx(p);
	struct tmx_error e = { 0 };
	int ret = TMX_OK;

	/* Every table's last row group, then the parts closed once all are written. */
	for (size_t i = 0; i < p->tabs.n; i++)
		keep(&ret, err, pq_table_flush(&((struct evtab *)p->tabs.items[i])->t, &p->enc, &e),
		     &e);
	keep(&ret, err, pq_groupq_drain(p->q, &e), &e);
	for (size_t i = 0; i < p->tabs.n; i++)
		keep(&ret, err, pq_table_close(&((struct evtab *)p->tabs.items[i])->t, &p->enc, &e),
		     &e);
	keep(&ret, err, pq_discarded_close(&p->discarded, &ctx, &e), &e);
	keep(&ret, err, pq_write_streams(&ctx, p->src, stream_events_of, p, &e), &e);
	keep(&ret, err, pq_write_traces(&ctx, p->src, &e), &e);
	p->total = 0;
	return ret;
}

void tmx_parquet_free(struct tmx_parquet *p)
{
	if (!p)
		return;
	/* Groups not written refer to the tables: they go first. */
	pq_groupq_free(p->q);
	for (size_t i = 0; i < p->maps.n; i++)
		class_map_free(p->maps.items[i]);
	for (size_t i = 0; i < p->tabs.n; i++)
		evtab_free(p->tabs.items[i]);
	pq_chunks_free(&p->chunks);
	for (size_t i = 0; i < p->dirs.n; i++) {
		struct part_dir *d = p->dirs.items[i];
		free(d->path);
		free(d);
	}
	for (size_t i = 0; i < p->shapes.n; i++)
		pq_shape_free(p->shapes.items[i]);
	free(p->maps.items);
	free(p->tabs.items);
	free(p->dirs.items);
	free(p->shapes.items);
	free(p->by_class.keys);
	free(p->by_class.vals);
	free(p->by_stream.keys);
	free(p->by_stream.vals);
	free(p->shape_of.keys);
	free(p->shape_of.vals);
	free(p->events);
	pq_discarded_free(&p->discarded);
	tmx_buf_free(&p->scratch);
	tmx_buf_free(&p->whole);
	pq_encoder_free_bufs(&p->enc);
	pq_encoder_zstd_free(&p->enc);
	pq_fmt_free(p->fmt);
	pthread_mutex_destroy(&p->lock);
	free(p->dir);
	free(p);
}
