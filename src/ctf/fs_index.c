/*
 * The data stream files of a CTF trace and their packet index, read at
 * open: every packet header and context decoded (or LTTng's index file
 * taken when it agrees with the data), so that bad sizes fail before any
 * output.  Lenient, a damaged packet is skipped to the next packet magic;
 * strict, the packets before the damage are kept and the damage is
 * reported when the stream reaches it.  Packet times that tracer quirks
 * make wrong are fixed in the index, as babeltrace2 does.
 */
#define _GNU_SOURCE   /* memmem, asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "ctf/fs_impl.h"
#include "ctf/lttng_index.h"
#include "model/field_class.h"

void ctf_fs_file_free(struct ctf_file *f)
{
	if (!f)
		return;
	tmx_mapfile_close(&f->map);
	free(f->packets);
	free(f->damage);
	free(f->end_pending);
	free(f);
}

/* Reports a damaged packet in lenient mode and counts what is skipped. */
void ctf_fs_skip_damage(struct ctf_fs *src, const struct tmx_error *damage, uint64_t bytes)
{
	char msg[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(damage, msg, sizeof(msg));
	tmx_warn(src->diag, "%s; skipping %llu bytes to the next packet", msg,
		 (unsigned long long)bytes);
	/* Streams may be read on several threads (src/par/). */
	__atomic_fetch_add(&src->skipped_packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&src->skipped_bytes, bytes, __ATOMIC_RELAXED);
}

/*
 * The next offset after `off` where a packet header can start: the packet
 * magic (0xC1FC1FC1) in the trace's byte order.  The file size if none.
 */
static uint64_t next_magic(const struct ctf_file *f, uint64_t off)
{
	const struct tmx_trace_class *tc = ctf_data_tc(f->trace);
	static const uint8_t le[4] = { 0xC1, 0x1F, 0xFC, 0xC1 }, be[4] = { 0xC1, 0xFC, 0x1F, 0xC1 };
	const uint8_t *magic = tc->native_byte_order == TMX_BO_BE ? be : le;
	const uint8_t *p;

	if (!tc->packet_header || tc->packet_header->n_members == 0 ||
	    tc->packet_header->members[0].fc->meaning != TMX_MEANING_MAGIC || off + 1 >= f->map.size)
		return f->map.size;
	p = memmem(f->map.data + off + 1, f->map.size - off - 1, magic, 4);
	return p ? (uint64_t)(p - f->map.data) : f->map.size;
}

static int index_packets(struct ctf_fs *src, struct ctf_file *f, struct tmx_error *err)
{
	struct ctf_decoder dec;
	uint64_t off = 0;
	size_t cap = 0;
	int ret = ctf_decoder_init(&dec, ctf_data_tc(f->trace), f->map.path, f->map.data, f->map.size, err);

	dec.headers_only = true;
	while (!ret && off < f->map.size) {
		struct ctf_packet_info info;

		ret = ctf_decode_packet_start(&dec, off, &info, err);
		if (ret && ret != TMX_ERR_NOMEM && src->opts->lenient) {
			uint64_t next = next_magic(f, off);
			ctf_fs_skip_damage(src, err, next - off);
			off = next;
			ret = TMX_OK;
			continue;
		}
		if (ret)
			break;
		if (f->n_packets == cap) {
			void *p = f->packets;
			if (!tmx_grow_array(&p, &cap, cap + 1, sizeof(*f->packets), 16)) {
				ret = nomem(err);
				break;
			}
			f->packets = p;
		}
		f->packets[f->n_packets++] = info;
		/*
		 * Reading a header maps pages around it (whole folios): drop
		 * them now, so that indexing a huge file stays small.
		 */
		tmx_mapfile_release(&f->map, off, info.packet_bits / 8);
		off += info.packet_bits / 8;
	}
	ctf_decoder_fini(&dec);
	tmx_mapfile_release(&f->map, 0, f->map.size);
	if (!ret)
		return TMX_OK;
	tmx_error_prefix(err, "cannot index CTF data stream file");
	if (f->n_packets == 0 || ret == TMX_ERR_NOMEM)
		return ret;
	/*
	 * A damaged packet after good ones: the good packets are still read and
	 * printed, and the error is reported when the stream reaches the damage.
	 */
	f->damage = malloc(sizeof(*f->damage));
	if (!f->damage)
		return nomem(err);
	*f->damage = *err;
	return TMX_OK;
}

/*
 * Decodes every event of packet `pi` for the times of its first and last
 * event.  Returns false if it has none or cannot be decoded.
 */
/*
 * The times of a packet's first and last events, by `dec` (the file's, set
 * up by the caller, which reads only the times: the bodies are stepped
 * over, with the same errors); false when it has none.
 */
static bool packet_event_times(struct ctf_decoder *dec, const struct ctf_file *f, size_t pi,
			       uint64_t *first, uint64_t *last)
{
	struct ctf_packet_info info;
	struct tmx_error err;
	bool any = false;

	dec->clock = 0;   /* as a decoder of its own */
	if (!ctf_decode_packet_start(dec, f->packets[pi].offset, &info, &err)) {
		for (;;) {
			const struct tmx_event_class *ec;
			size_t scopes[TMX_N_SCOPES];
			bool more;
			if (ctf_decode_event(dec, &more, info.sc, &ec, scopes, &err) || !more)
				break;
			if (!any)
				*first = dec->event_clock;
			*last = dec->event_clock;
			any = true;
		}
	}
	tmx_mapfile_release((struct tmx_mapfile *)&f->map, f->packets[pi].offset,
			    f->packets[pi].packet_bits / 8);
	return any;
}

/*
 * Packet times that the tracer's quirks make wrong, fixed in the index (as
 * babeltrace2).  `lazy` (packet_ends_unread, without the begin quirk, which
 * the reading order needs): the end of only each file's last packet is
 * fixed now, the others' when read (ctf_fs_fix_end).
 */
static int fix_index(struct ctf_file *f, bool lazy)
{
	const struct ctf_quirks *q = &f->trace->quirks;
	struct ctf_decoder dec;
	struct tmx_error err;
	uint64_t first, last;

	if (!q->end_is_last_event && !q->begin_is_first_event && !q->zero_end_is_last_event)
		return TMX_OK;
	lazy = lazy && !q->begin_is_first_event && q->end_is_last_event && f->n_packets > 1;
	if (lazy && !(f->end_pending = calloc(f->n_packets, sizeof(*f->end_pending))))
		return TMX_ERR_NOMEM;
	/* one decoder for the file: its plans are made once, not per packet */
	if (ctf_decoder_init(&dec, ctf_data_tc(f->trace), f->map.path, f->map.data, f->map.size, &err))
		return TMX_OK;
	dec.values_unread = true;
	for (size_t i = 0; i < f->n_packets; i++) {
		struct ctf_packet_info *pk = &f->packets[i];
		if (!(q->end_is_last_event && pk->has_ts_end) &&
		    !(q->begin_is_first_event && pk->has_ts_begin))
			break;
		if (lazy && i + 1 < f->n_packets) {
			f->end_pending[i] = true;
			continue;
		}
		if (!packet_event_times(&dec, f, i, &first, &last))
			continue;
		if (q->end_is_last_event && pk->has_ts_end)
			pk->ts_end = last;
		/* babeltrace2 leaves the first packet's beginning as it is. */
		if (q->begin_is_first_event && pk->has_ts_begin && i > 0)
			pk->ts_begin = first;
	}
	/* lttng-crash: the last packets, never closed, have timestamp_end 0. */
	for (size_t i = f->n_packets; q->zero_end_is_last_event && i-- > 0;) {
		struct ctf_packet_info *pk = &f->packets[i];
		ctf_fs_fix_end(f, i);   /* the end quirk first, as when not lazy */
		if (!pk->has_ts_end || pk->ts_end != 0)
			break;
		if (packet_event_times(&dec, f, i, &first, &last))
			pk->ts_end = last;
	}
	ctf_decoder_fini(&dec);
	return TMX_OK;
}

void ctf_fs_fix_end(struct ctf_file *f, size_t pi)
{
	struct ctf_decoder dec;
	struct tmx_error err;
	uint64_t first, last;

	if (!f->end_pending || pi >= f->n_packets || !f->end_pending[pi])
		return;
	f->end_pending[pi] = false;
	if (ctf_decoder_init(&dec, ctf_data_tc(f->trace), f->map.path, f->map.data, f->map.size, &err))
		return;
	dec.values_unread = true;
	if (packet_event_times(&dec, f, pi, &first, &last))
		f->packets[pi].ts_end = last;
	ctf_decoder_fini(&dec);
}

/*
 * LTTng writes `index/NAME.idx` next to each data file: when it is there and
 * agrees with the file, it replaces reading every packet header.  One that
 * contradicts the file is reported, and the file is read instead.
 */
static bool use_lttng_index(struct ctf_fs *src, struct ctf_file *f)
{
	const char *slash = strrchr(f->map.path, '/');
	struct tmx_error err;
	char *idx;
	bool used;

	if (!slash || asprintf(&idx, "%.*s/index/%s.idx", (int)(slash - f->map.path), f->map.path,
			       slash + 1) < 0)
		return false;
	if (access(idx, F_OK)) {
		free(idx);
		return false;
	}
	used = ctf_lttng_index_read(idx, ctf_data_tc(f->trace), f->map.size, &f->packets, &f->n_packets,
				    &err) == TMX_OK;
	if (!used) {
		char msg[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
		tmx_error_format(&err, msg, sizeof(msg));
		tmx_warn(src->diag, "%s; reading the packet headers of %s instead", msg, f->map.path);
	}
	free(idx);
	return used && f->n_packets > 0;
}

int ctf_fs_file_open(struct ctf_fs *src, struct ctf_trace *t, const char *path,
		     struct tmx_error *err)
{
	struct ctf_file *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return nomem(err);
	f->trace = t;
	ret = tmx_mapfile_open(&f->map, path, err);
	if (!ret && !use_lttng_index(src, f))
		ret = index_packets(src, f, err);
	if (!ret && fix_index(f, src->opts->packet_ends_unread))
		ret = nomem(err);
	if (!ret && push_ptr((void ***)&src->files, &src->n_files, f))
		ret = nomem(err);
	if (ret)
		ctf_fs_file_free(f);
	return ret;
}
