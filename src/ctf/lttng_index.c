/*
 * LTTng packet index files (`index/NAME.idx` next to a data stream file):
 * a header (magic 0xC1F1DCC1, version, entry length) and one big-endian
 * entry per packet: offset, packet and content sizes (bits), timestamps,
 * discarded events counter, stream ID, and since version 1.1 the stream
 * instance ID and the packet sequence number.
 *
 * An index saves reading every packet header of a large file.  It is only
 * trusted if it agrees with the data file: packets back to back from offset
 * 0, sizes that fit the file, content within packet.  Anything else is
 * reported and the caller scans the file instead.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/lttng_index.h"
#include "io/bitread.h"
#include "io/mapfile.h"
#include "common/errors.h"
#include "model/field_class.h"

#define INDEX_MAGIC UINT32_C(0xC1F1DCC1)
#define HEADER_SIZE 16
#define ENTRY_1_0_SIZE 56      /* up to the stream ID */
#define ENTRY_1_1_SIZE 72      /* + stream instance ID, packet sequence number */

static uint64_t be64(const uint8_t *p)
{
	return tmx_read_aligned(p, 8, 1);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)tmx_read_aligned(p, 4, 1);
}

/* Which packet fields the stream class has, so that the index says the same. */
static bool has_meaning(const struct tmx_field_class *st, enum tmx_meaning m)
{
	for (size_t i = 0; st && i < st->n_members; i++)
		if (st->members[i].fc->meaning == m)
			return true;
	return false;
}

static const struct tmx_stream_class *stream_class(const struct tmx_trace_class *tc,
						   uint64_t id)
{
	for (size_t i = 0; i < tc->n_stream_classes; i++)
		if (tc->stream_classes[i]->id == id)
			return tc->stream_classes[i];
	return tc->n_stream_classes == 1 && !tc->stream_classes[0]->id_is_set ?
	       tc->stream_classes[0] : NULL;
}

static int entry_to_info(const uint8_t *e, uint32_t len, const struct tmx_trace_class *tc,
			 uint64_t expected_offset, uint64_t file_size, struct ctf_packet_info *info,
			 const char *path, uint64_t entry_off, struct tmx_error *err)
{
	const struct tmx_field_class *pc;

	memset(info, 0, sizeof(*info));
	info->offset = be64(e);
	info->packet_bits = be64(e + 8);
	info->content_bits = be64(e + 16);
	info->sc = stream_class(tc, be64(e + 48));
	if (!info->sc)
		return tmx_error_at(err, TMX_ERR_DATA, path, entry_off,
				    "index entry names stream class %llu, unknown to the metadata",
				    (unsigned long long)be64(e + 48));
	if (info->offset != expected_offset || info->packet_bits % 8 || info->packet_bits == 0 ||
	    info->content_bits > info->packet_bits || info->packet_bits / 8 > file_size ||
	    info->offset > file_size - info->packet_bits / 8)
		return tmx_error_at(err, TMX_ERR_DATA, path, entry_off,
				    "index entry (offset %llu, %llu bits) does not match the data "
				    "file (%llu bytes, next packet expected at %llu)",
				    (unsigned long long)info->offset,
				    (unsigned long long)info->packet_bits,
				    (unsigned long long)file_size,
				    (unsigned long long)expected_offset);
	pc = info->sc->packet_context;
	info->has_ts_begin = has_meaning(pc, TMX_MEANING_TS_BEGIN);
	info->has_ts_end = has_meaning(pc, TMX_MEANING_TS_END);
	info->ts_begin = be64(e + 24);
	info->ts_end = be64(e + 32);
	info->has_discarded = has_meaning(pc, TMX_MEANING_EVENTS_DISCARDED);
	info->events_discarded = be64(e + 40);
	if (len >= ENTRY_1_1_SIZE) {
		info->has_stream_instance_id = has_meaning(tc->packet_header,
							   TMX_MEANING_STREAM_INSTANCE_ID);
		info->stream_instance_id = be64(e + 56);
		info->has_seq_num = has_meaning(pc, TMX_MEANING_PACKET_SEQ_NUM);
		info->seq_num = be64(e + 64);
	}
	return TMX_OK;
}

int ctf_lttng_index_read(const char *idx_path, const struct tmx_trace_class *tc,
			 uint64_t file_size, struct ctf_packet_info **out, size_t *n_out,
			 struct tmx_error *err)
{
	struct tmx_mapfile map;
	struct ctf_packet_info *infos = NULL;
	uint32_t major, len;
	uint64_t n, expected = 0;
	int ret = tmx_mapfile_open(&map, idx_path, err);

	*out = NULL;
	*n_out = 0;
	if (ret)
		return ret;
	if (map.size < HEADER_SIZE || be32(map.data) != INDEX_MAGIC) {
		ret = tmx_error_at(err, TMX_ERR_DATA, idx_path, 0,
				   "not an LTTng index (bad magic or shorter than its header)");
		goto out;
	}
	major = be32(map.data + 4);
	len = be32(map.data + 12);
	if (major != 1 || len < ENTRY_1_0_SIZE) {
		ret = tmx_error_at(err, TMX_ERR_UNSUPPORTED, idx_path, 4,
				   "LTTng index version %u with %u-byte entries is not supported",
				   major, len);
		goto out;
	}
	if ((map.size - HEADER_SIZE) % len) {
		ret = tmx_error_at(err, TMX_ERR_DATA, idx_path, map.size,
				   "LTTng index ends inside an entry");
		goto out;
	}
	n = (map.size - HEADER_SIZE) / len;
	infos = calloc(n ? n : 1, sizeof(*infos));
	if (!infos) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, idx_path, "out of memory");
		goto out;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = HEADER_SIZE + i * len;
		ret = entry_to_info(map.data + off, len, tc, expected, file_size, &infos[i],
				    idx_path, off, err);
		if (ret)
			goto out;
		expected = infos[i].offset + infos[i].packet_bits / 8;
	}
	if (expected != file_size) {
		ret = tmx_error_at(err, TMX_ERR_DATA, idx_path, map.size,
				   "LTTng index covers %llu bytes of a %llu-byte data file",
				   (unsigned long long)expected, (unsigned long long)file_size);
		goto out;
	}
	*out = infos;
	*n_out = (size_t)n;
	infos = NULL;
out:
	free(infos);
	tmx_mapfile_close(&map);
	return ret;
}
