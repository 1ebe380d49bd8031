/*
 * The streams of the CTF file-system source: the files that carry one
 * stream (same stream class and instance ID, e.g. LTTng tracefile rotation)
 * grouped, their packets in reading order (merged by time, a packet seen in
 * two overlapping snapshots kept once), and each stream a message iterator
 * giving babeltrace2's message sequence (discarded events and packets
 * included).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/progress_count.h"
#include "ctf/fs_impl.h"

/* ------------------------------------------------------------------ */
/* Streams                                                              */
/* ------------------------------------------------------------------ */

static bool same_stream(const struct ctf_file *a, const struct ctf_file *b)
{
	const struct ctf_packet_info *pa = &a->packets[0], *pb = &b->packets[0];

	return a->trace->logical == b->trace->logical && pa->sc->id == pb->sc->id &&
	       pa->has_stream_instance_id && pb->has_stream_instance_id &&
	       pa->stream_instance_id == pb->stream_instance_id;
}

static int cmp_file_time(const void *a, const void *b)
{
	const struct ctf_file *fa = *(struct ctf_file *const *)a;
	const struct ctf_file *fb = *(struct ctf_file *const *)b;
	const struct ctf_packet_info *pa = &fa->packets[0], *pb = &fb->packets[0];

	if (pa->has_ts_begin && pb->has_ts_begin && pa->ts_begin != pb->ts_begin)
		return pa->ts_begin < pb->ts_begin ? -1 : 1;
	return strcmp(fa->map.path, fb->map.path);
}

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		       struct tmx_error *err);

/* The streams are the reader's (fs_free destroys them), not the muxer's. */
static void stream_keep(struct tmx_msg_iter *it)
{
	(void)it;
}

static int stream_new(struct ctf_fs *src, struct ctf_file *first, uint64_t auto_id,
		      struct tmx_error *err)
{
	struct ctf_stream *s = calloc(1, sizeof(*s));
	const struct ctf_packet_info *p0 = &first->packets[0];

	if (!s || push_ptr((void ***)&s->files, &s->n_files, first) ||
	    push_ptr((void ***)&src->streams, &src->n_streams, s)) {
		if (s)
			free(s->files);
		free(s);
		return nomem(err);
	}
	s->iter.next = stream_next;
	s->iter.destroy = stream_keep;
	s->src = src;
	s->stream.cls = p0->sc;
	s->stream.trace = &first->trace->logical->trace;
	s->stream.id = p0->has_stream_instance_id ? p0->stream_instance_id : auto_id;
	s->stream.name = first->map.path;
	s->clock = p0->sc->default_clock;   /* of the logical trace's classes (ctf_data_tc) */
	if (s->clock)
		tmx_clock_conv_init(&s->conv, s->clock);
	return TMX_OK;
}

static bool all_timed(const struct ctf_stream *s)
{
	for (size_t f = 0; f < s->n_files; f++)
		for (size_t i = 0; i < s->files[f]->n_packets; i++)
			if (!s->files[f]->packets[i].has_ts_begin)
				return false;
	return true;
}

/* A damage entry sorts right after its file's last packet. */
static uint64_t entry_time(const struct stream_packet *e)
{
	const struct ctf_file *f = e->file;
	return f->packets[e->pi < f->n_packets ? e->pi : f->n_packets - 1].ts_begin;
}

static int cmp_entry_time(const void *a, const void *b)
{
	const struct stream_packet *x = a, *y = b;
	uint64_t tx = entry_time(x), ty = entry_time(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->file_rank != y->file_rank)
		return x->file_rank < y->file_rank ? -1 : 1;
	return x->pi < y->pi ? -1 : x->pi > y->pi;
}

/* The same packet in two files (overlapping LTTng snapshots). */
static bool same_packet(const struct stream_packet *x, const struct stream_packet *y)
{
	const struct ctf_packet_info *a = entry_info(x), *b = entry_info(y);

	if (!(a && b && x->file != y->file && a->ts_begin == b->ts_begin &&
	      a->packet_bits == b->packet_bits && a->content_bits == b->content_bits &&
	      a->has_seq_num == b->has_seq_num && a->seq_num == b->seq_num &&
	      a->events_discarded == b->events_discarded))
		return false;
	/* the end times as fixed (packet_ends_unread leaves them for now) */
	ctf_fs_fix_end(x->file, x->pi);
	ctf_fs_fix_end(y->file, y->pi);
	return a->ts_end == b->ts_end;
}

/*
 * The reading order: files one after the other, or -- when every packet
 * has a beginning time -- all packets merged by time, which also takes
 * snapshots that overlap apart.  Duplicated packets are kept once.
 */
static int build_packet_list(struct ctf_stream *s)
{
	size_t n = 0;

	for (size_t f = 0; f < s->n_files; f++)
		n += s->files[f]->n_packets + (s->files[f]->damage != NULL);
	s->plist = calloc(n ? n : 1, sizeof(*s->plist));
	if (!s->plist)
		return -1;
	for (size_t f = 0; f < s->n_files; f++) {
		struct ctf_file *file = s->files[f];
		size_t end = file->n_packets + (file->damage != NULL);
		for (size_t i = 0; i < end; i++) {
			struct stream_packet *e = &s->plist[s->n_plist++];
			e->file = file;
			e->pi = i;
			e->file_rank = f;
		}
	}
	if (s->n_files > 1 && all_timed(s)) {
		size_t kept = 0;
		qsort(s->plist, s->n_plist, sizeof(*s->plist), cmp_entry_time);
		for (size_t i = 0; i < s->n_plist; i++) {
			bool dup = false;
			for (size_t j = kept; j-- > 0 && entry_time(&s->plist[j]) ==
						       entry_time(&s->plist[i]) && !dup;)
				dup = same_packet(&s->plist[j], &s->plist[i]);
			if (!dup)
				s->plist[kept++] = s->plist[i];
		}
		s->n_plist = kept;
	}
	return 0;
}

/* Groups the files of the same stream, ordered by time. */
int ctf_fs_make_streams(struct ctf_fs *src, struct tmx_error *err)
{
	uint64_t auto_id = 0;

	for (size_t i = 0; i < src->n_files; i++) {
		struct ctf_file *f = src->files[i];
		struct ctf_stream *group = NULL;

		if (f->n_packets == 0)
			continue;    /* an empty file carries no stream */
		for (size_t s = 0; s < src->n_streams && !group; s++)
			if (same_stream(src->streams[s]->files[0], f))
				group = src->streams[s];
		if (group) {
			if (push_ptr((void ***)&group->files, &group->n_files, f))
				return nomem(err);
			continue;
		}
		if (stream_new(src, f, auto_id++, err))
			return err->code;
	}
	for (size_t s = 0; s < src->n_streams; s++) {
		struct ctf_stream *st = src->streams[s];
		qsort(st->files, st->n_files, sizeof(*st->files), cmp_file_time);
		st->stream.name = st->files[0]->map.path;
		if (build_packet_list(st))
			return nomem(err);
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Stream iteration: babeltrace2's message sequence                     */
/* ------------------------------------------------------------------ */

/*
 * A time on the stream's clock is beyond int64 nanoseconds from origin (a
 * huge offset_s, say): the messages go on without it, which babeltrace2
 * refuses to do (it rejects the trace), so say why, once per clock.
 */
static __attribute__((cold)) void time_out_of_range(const struct ctf_stream *s, uint64_t cycles)
{
	struct ctf_fs *src = s->src;
	const struct tmx_clock_class *cc = s->clock;

	/*
	 * On a worker thread of the parallel runner the capture deduplicates
	 * (in merged order); the list is the sequential path's.
	 */
	if (!tmx_warn_captured()) {
		for (size_t i = 0; i < src->n_out_of_range; i++)
			if (src->out_of_range[i] == cc)
				return;
		/* Without memory to remember it, the warning may come again: harmless. */
		(void)push_ptr((void ***)&src->out_of_range, &src->n_out_of_range, (void *)cc);
	}
	tmx_warn_once(src->diag, cc,
		 "%s: clock `%s` (freq = %llu, offset_s = %lld, offset = %llu): %llu cycles "
		 "cannot be converted to nanoseconds from origin (beyond int64): the times on "
		 "this clock are left out",
		 s->files[0]->trace->dir, cc->name, (unsigned long long)cc->frequency,
		 (long long)cc->offset_s, (unsigned long long)cc->offset_cycles,
		 (unsigned long long)cycles);
}

static inline void set_time(const struct ctf_stream *s, uint64_t cycles, bool *has, uint64_t *cyc,
		     int64_t *ns)
{
	*has = s->clock != NULL && tmx_clock_conv_ns(&s->conv, cycles, ns);
	*cyc = cycles;
	if (__builtin_expect(!*has && s->clock, 0))
		time_out_of_range(s, cycles);
}

static struct tmx_msg *make_msg(struct ctf_stream *s, enum tmx_msg_kind kind)
{
	struct tmx_msg *m = &s->msg;

	/* Only discarded-item messages set the count and range: cleared after them. */
	if (m->kind == TMX_MSG_DISCARDED_EVENTS || m->kind == TMX_MSG_DISCARDED_PACKETS)
		memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->stream = &s->stream;
	m->has_ts = false;
	m->cycles = 0;
	m->ns = 0;
	m->packet = &s->packet;
	m->event = NULL;
	return m;
}

/*
 * Released in batches of this many bytes (see ctf_stream.rel_file): what
 * a stream's reading keeps resident, and one madvise per batch.  4 MiB
 * kept 16 MiB of the 4-stream benchmark trace resident, a third of the
 * Python package's peak growth over a DataFrame's size (1.47, 1.5 at
 * most); with 1 MiB it is 1.31, for about 1.5% more CPU time with -o
 * dummy --jobs 2 (33 more calls on its 45 MB).
 */
#define RELEASE_BATCH (1u << 20)

static void release_pending(struct ctf_stream *s)
{
	if (s->rel_file && s->rel_len)
		tmx_mapfile_release(&s->rel_file->map, s->rel_off, s->rel_len);
	s->rel_file = NULL;
	s->rel_len = 0;
}

/* Done with these bytes: their pages need not stay resident. */
static void release_later(struct ctf_stream *s, struct ctf_file *f, uint64_t off, uint64_t len)
{
	if (s->rel_file != f || off != s->rel_off + s->rel_len) {
		release_pending(s);
		s->rel_file = f;
		s->rel_off = off;
	}
	s->rel_len += len;
	if (s->rel_len >= RELEASE_BATCH)
		release_pending(s);
}

static void close_decoder(struct ctf_stream *s)
{
	release_pending(s);
	if (s->dec_file) {
		ctf_decoder_fini(&s->dec);
		s->dec_file = NULL;
	}
}

static int open_packet(struct ctf_stream *s, struct tmx_error *err)
{
	const struct stream_packet *e = &s->plist[s->next];
	struct ctf_file *f = e->file;
	int ret;

	if (s->dec_file != f) {
		/* The stream's clock goes on in its next file (as babeltrace2's). */
		uint64_t clock = s->dec_file ? s->dec.clock : 0;

		close_decoder(s);
		ret = ctf_decoder_init(&s->dec, ctf_data_tc(f->trace), f->map.path, f->map.data,
				       f->map.size, err);
		if (ret)
			return ret;
		s->dec.clock = clock;
		s->dec_file = f;
		ctf_fs_stream_set_filter(s);
		tmx_mapfile_advise_sequential(&f->map);
	}
	ret = ctf_decode_packet_start(&s->dec, f->packets[e->pi].offset, &s->cur, err);
	if (ret)
		return ret;
	/* The index has the times with the tracer quirks fixed. */
	s->cur.ts_begin = f->packets[e->pi].ts_begin;
	s->cur.ts_end = f->packets[e->pi].ts_end;
	return TMX_OK;
}

static void fill_packet(struct ctf_stream *s)
{
	struct tmx_packet *p = &s->packet;

	p->stream = &s->stream;
	p->context = s->cur.sc->packet_context ? s->dec.packet_context.v : NULL;
	p->offset = s->cur.offset;
	p->seq = s->n_packets_read++;
	set_time(s, s->cur.ts_begin, &p->has_begin, &p->begin_cycles, &p->begin_ns);
	p->has_begin = p->has_begin && s->cur.has_ts_begin;
	set_time(s, s->cur.ts_end, &p->has_end, &p->end_cycles, &p->end_ns);
	p->has_end = p->has_end && s->cur.has_ts_end;
}

/* Discarded events: the counter's growth since the previous packet. */
static const struct tmx_msg *discarded_events(struct ctf_stream *s)
{
	const struct ctf_packet_info *c = &s->cur, *p = &s->prev;
	uint64_t count;
	struct tmx_msg *m;

	if (!c->has_discarded)
		return NULL;
	count = s->has_prev && p->has_discarded ? c->events_discarded - p->events_discarded :
						  c->events_discarded;
	if (count == 0)
		return NULL;
	m = make_msg(s, TMX_MSG_DISCARDED_EVENTS);
	m->count = count;
	if (c->has_ts_begin && c->has_ts_end) {
		uint64_t begin = s->has_prev ? p->ts_end : c->ts_begin;
		set_time(s, begin, &m->has_range, &m->begin_cycles, &m->begin_ns);
		set_time(s, c->ts_end, &m->has_range, &m->end_cycles, &m->end_ns);
		m->has_ts = m->has_range;
		m->cycles = m->begin_cycles;
		m->ns = m->begin_ns;
	}
	return m;
}

/* Discarded packets: a gap in packet_seq_num. */
static const struct tmx_msg *discarded_packets(struct ctf_stream *s)
{
	const struct ctf_packet_info *c = &s->cur, *p = &s->prev;
	struct tmx_msg *m;

	if (!s->has_prev || !c->has_seq_num || !p->has_seq_num || c->seq_num <= p->seq_num + 1)
		return NULL;
	m = make_msg(s, TMX_MSG_DISCARDED_PACKETS);
	m->count = c->seq_num - p->seq_num - 1;
	if (c->has_ts_begin && p->has_ts_end) {
		set_time(s, p->ts_end, &m->has_range, &m->begin_cycles, &m->begin_ns);
		set_time(s, c->ts_begin, &m->has_range, &m->end_cycles, &m->end_ns);
		m->has_ts = m->has_range;
		m->cycles = m->begin_cycles;
		m->ns = m->begin_ns;
	}
	return m;
}

/* The packet at s->next is behind us: its size counts as read (the index's, as tmx_stream_info's). */
static void count_packet(struct ctf_stream *s)
{
	const struct ctf_packet_info *pk = entry_info(&s->plist[s->next]);

	if (pk)
		s->bytes_packets += pk->packet_bits / 8;
	tmx_count_set(&s->bytes_read, s->bytes_packets);
}

/* Events between two looks at the decoder's place in its packet. */
#define CTF_PROGRESS_EVENTS 4096

/* Inside the current packet: its bytes decoded so far (never past its size). */
static void count_inside(struct ctf_stream *s)
{
	const struct ctf_packet_info *pk = entry_info(&s->plist[s->next]);
	uint64_t in = s->dec.pos / 8, size = pk ? pk->packet_bits / 8 : 0;

	tmx_count_set(&s->bytes_read, s->bytes_packets + (in < size ? in : size));
}

static void advance_packet(struct ctf_stream *s)
{
	struct ctf_file *f = s->plist[s->next].file;

	count_packet(s);
	release_later(s, f, s->cur.offset, s->cur.packet_bits / 8);
	s->prev = s->cur;
	s->has_prev = true;
	s->next++;
}

static const struct tmx_msg *event_msg(struct ctf_stream *s, const struct tmx_event_class *ec,
				       const size_t scope_index[TMX_N_SCOPES])
{
	struct tmx_msg *m = &s->msg;
	struct tmx_event *e = &s->event;

	/* After an event, what all events share is set already. */
	if (m->kind != TMX_MSG_EVENT) {
		make_msg(s, TMX_MSG_EVENT);
		m->event = e;
		e->packet = &s->packet;
	}
	e->cls = ec;
	e->scopes[TMX_SCOPE_PACKET_CONTEXT] = s->packet.context;
	if (s->dec.values_unread || s->dec.body_skipped) {   /* (ctf/decode.h) */
		e->scopes[TMX_SCOPE_COMMON_CONTEXT] = NULL;
		e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT] = NULL;
		e->scopes[TMX_SCOPE_PAYLOAD] = NULL;
	} else {
		for (int i = TMX_SCOPE_COMMON_CONTEXT; i < TMX_N_SCOPES; i++)
			e->scopes[i] = scope_index[i] == SIZE_MAX ? NULL :
				       &s->dec.event.v[scope_index[i]];
	}
	set_time(s, s->dec.event_clock, &m->has_ts, &m->cycles, &m->ns);
	return m;
}

/*
 * At the end of a packet, babeltrace2 sets the stream's clock to the
 * packet's `timestamp_end` as decoded (its field moves the clock only
 * then), but for the LTTng quirks: an lttng-crash packet's zero end, and an
 * end before the last event in the versions whose packets end at their last
 * event.  The next packet's events without a time of their own get that
 * value (events of streams whose only clock-mapped field is `timestamp_end`).
 */
static void clock_at_packet_end(struct ctf_stream *s)
{
	struct ctf_decoder *d = &s->dec;
	const struct ctf_quirks *q = &s->plist[s->next].file->trace->quirks;
	uint64_t end = d->special[TMX_MEANING_TS_END];

	if (!d->special_set[TMX_MEANING_TS_END])
		return;
	if (q->zero_end_is_last_event && end == 0 &&
	    (!d->special_set[TMX_MEANING_TS_BEGIN] || d->special[TMX_MEANING_TS_BEGIN] != 0))
		return;
	if (q->end_is_last_event && end < d->clock)
		return;
	d->clock = end;
}

static bool packet_before_skip(const struct ctf_stream *s)
{
	const struct stream_packet *e = &s->plist[s->next];
	const struct ctf_packet_info *pk = entry_info(e);
	int64_t end_ns;

	if (pk && s->skip_set)
		ctf_fs_fix_end(e->file, e->pi);   /* (packet_ends_unread) */
	return pk && s->skip_set && s->clock && pk->has_ts_end &&
	       tmx_clock_conv_ns(&s->conv, pk->ts_end, &end_ns) && end_ns < s->skip_before_ns;
}

/*
 * Lenient mode: the rest of a packet that fails to decode is skipped (what
 * was decoded of it has been emitted) and reading goes on with the next
 * packet.  Returns false when not lenient.
 */
static bool lenient_skip(struct ctf_stream *s, const struct tmx_error *err)
{
	const struct stream_packet *e = &s->plist[s->next];
	const struct ctf_packet_info *pk = entry_info(e);

	if (!s->src->opts->lenient || err->code == TMX_ERR_NOMEM)
		return false;
	ctf_fs_skip_damage(s->src, err, pk ? pk->packet_bits / 8 : 0);
	count_packet(s);
	s->next++;
	s->state = ST_PACKET_START;
	return true;
}

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		       struct tmx_error *err)
{
	struct ctf_stream *s = (struct ctf_stream *)it;
	const struct tmx_event_class *ec;
	size_t scope_index[TMX_N_SCOPES];
	bool more;
	int ret;

again:
	*msg = NULL;
	switch (s->state) {
	case ST_BEGIN:
		s->state = ST_PACKET_START;
		*msg = make_msg(s, TMX_MSG_STREAM_BEGIN);
		return TMX_OK;
	case ST_PACKET_START:
		/* Packets trimmed away: known from the index, not decoded at all. */
		while (s->next < s->n_plist && packet_before_skip(s)) {
			s->cur = *entry_info(&s->plist[s->next]);
			advance_packet(s);
		}
		if (s->next >= s->n_plist) {
			s->state = ST_DONE;
			close_decoder(s);
			*msg = make_msg(s, TMX_MSG_STREAM_END);
			return TMX_OK;
		}
		if (!entry_info(&s->plist[s->next])) {
			/* The damaged packet found while indexing. */
			s->state = ST_DONE;
			*err = *s->plist[s->next].file->damage;
			return err->code;
		}

		ret = open_packet(s, err);
		if (ret) {
			if (lenient_skip(s, err))
				goto again;
			s->state = ST_DONE;
			return ret;
		}
		fill_packet(s);
		s->state = ST_DISCARDED_PACKETS;
		if ((*msg = discarded_events(s)))
			return TMX_OK;
		/* fall through */
	case ST_DISCARDED_PACKETS:
		s->state = ST_PACKET_BEGIN;
		if ((*msg = discarded_packets(s)))
			return TMX_OK;
		/* fall through */
	case ST_PACKET_BEGIN: {
		struct tmx_msg *m = make_msg(s, TMX_MSG_PACKET_BEGIN);
		s->state = ST_EVENTS;
		m->has_ts = s->packet.has_begin;
		m->cycles = s->packet.begin_cycles;
		m->ns = s->packet.begin_ns;
		*msg = m;
		return TMX_OK;
	}
	case ST_EVENTS:
		ret = ctf_decode_event(&s->dec, &more, s->cur.sc, &ec, scope_index, err);
		if (ret) {
			if (lenient_skip(s, err))
				goto again;
			s->state = ST_DONE;
			return ret;
		}
		if (++s->progress_tick == CTF_PROGRESS_EVENTS) {
			s->progress_tick = 0;
			count_inside(s);
		}
		if (more) {
			if (s->dec.skipped)   /* of a class that the filter never keeps */
				goto again;
			*msg = event_msg(s, ec, scope_index);
			return TMX_OK;
		} else {
			struct tmx_msg *m = make_msg(s, TMX_MSG_PACKET_END);
			m->has_ts = s->packet.has_end;
			m->cycles = s->packet.end_cycles;
			m->ns = s->packet.end_ns;
			*msg = m;
			clock_at_packet_end(s);
			advance_packet(s);
			s->state = ST_PACKET_START;
			return TMX_OK;
		}
	case ST_DONE:
		return TMX_OK;
	}
	return TMX_OK;
}

void ctf_fs_stream_set_filter(struct ctf_stream *s)
{
	const struct tmx_reader_filter *f = s->src->filter;

	/* A decoder is set up with its file; until then, it has nothing to keep. */
	if (s->dec_file) {
		ctf_decoder_set_wanted(&s->dec, f ? f->wanted : NULL, f ? f->ctx : NULL);
		s->dec.values_unread = s->src->skip_fields;
		ctf_decoder_set_reads(&s->dec, s->src->reads, s->src->reads_ctx);
	}
}

void ctf_fs_stream_destroy(struct ctf_stream *s)
{
	close_decoder(s);
	free(s->plist);
	free(s->files);
	free(s);
}
