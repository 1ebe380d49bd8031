/*
 * The CTF metadata file: plain TSDL text, or packetized (spec 7.1): a
 * sequence of packets, each a 37-byte header (magic 0x75D11D57 in the
 * trace's byte order, UUID, checksum, content and packet sizes in bits,
 * compression/encryption/checksum schemes, major, minor) followed by
 * text up to the content size and padding up to the packet size.
 *
 * The header's version is the framing's: LTTng writes 1.8 there for CTF 2
 * metadata too (the CTF 2 spec does not define packetized metadata), so
 * the payload decides the language (metadata.c).  babeltrace 2.1.2 reads
 * such a payload as TSDL and fails; we read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/metadata.h"
#include "io/bitread.h"
#include "io/mapfile.h"
#include "common/errors.h"

#define METADATA_MAGIC UINT32_C(0x75D11D57)
#define PACKET_HEADER_SIZE 37

struct packet_header {
	uint8_t uuid[16];
	uint32_t checksum, content_bits, packet_bits;
	uint8_t compression, encryption, checksum_scheme, major, minor;
};

static uint32_t load32(const uint8_t *p, bool be)
{
	return (uint32_t)tmx_read_aligned(p, 4, be);
}

static bool is_packetized(const uint8_t *data, size_t size, bool *be)
{
	if (size < 4)
		return false;
	if (load32(data, false) == METADATA_MAGIC) {
		*be = false;
		return true;
	}
	if (load32(data, true) == METADATA_MAGIC) {
		*be = true;
		return true;
	}
	return false;
}

static int read_header(const uint8_t *p, bool be, struct packet_header *h)
{
	memcpy(h->uuid, p + 4, 16);
	h->checksum = load32(p + 20, be);
	h->content_bits = load32(p + 24, be);
	h->packet_bits = load32(p + 28, be);
	h->compression = p[32];
	h->encryption = p[33];
	h->checksum_scheme = p[34];
	h->major = p[35];
	h->minor = p[36];
	return TMX_OK;
}

static int check_header(const struct packet_header *h, const char *name, size_t off,
			size_t remaining, struct tmx_error *err)
{
	if (h->major != 1 || h->minor != 8)
		return tmx_error_at(err, TMX_ERR_METADATA, name, off,
				    "metadata packet version %u.%u, expected 1.8", h->major, h->minor);
	if (h->compression || h->encryption || h->checksum_scheme)
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, name, off,
				    "metadata packet uses compression (%u), encryption (%u) or a "
				    "checksum (%u): not supported", h->compression, h->encryption,
				    h->checksum_scheme);
	if (h->content_bits % 8 || h->packet_bits % 8)
		return tmx_error_at(err, TMX_ERR_METADATA, name, off,
				    "metadata packet sizes (content %u, packet %u bits) are not "
				    "multiples of 8", h->content_bits, h->packet_bits);
	if (h->content_bits < PACKET_HEADER_SIZE * 8)
		return tmx_error_at(err, TMX_ERR_METADATA, name, off,
				    "metadata packet content size (%u bits) is smaller than its "
				    "header", h->content_bits);
	if (h->content_bits > h->packet_bits)
		return tmx_error_at(err, TMX_ERR_METADATA, name, off,
				    "metadata packet content size (%u bits) is larger than its "
				    "packet size (%u bits)", h->content_bits, h->packet_bits);
	if (h->packet_bits / 8 > remaining)
		return tmx_error_at(err, TMX_ERR_METADATA, name, off,
				    "metadata packet size (%u bytes) goes past the end of the file "
				    "(%zu bytes remain)", h->packet_bits / 8, remaining);
	return TMX_OK;
}

static int decode_packets(const uint8_t *data, size_t size, bool be, const char *name,
			  struct ctf_metadata_text *out, struct tmx_error *err)
{
	size_t off = 0, len = 0;
	char *text = malloc(size + 1);   /* the text is never longer than the file */

	if (!text)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	while (off < size) {
		struct packet_header h;
		size_t content;
		int ret;

		if (size - off < PACKET_HEADER_SIZE) {
			free(text);
			return tmx_error_at(err, TMX_ERR_METADATA, name, off,
					    "truncated metadata packet header: %zu bytes, expected %d",
					    size - off, PACKET_HEADER_SIZE);
		}
		if (load32(data + off, be) != METADATA_MAGIC) {
			free(text);
			return tmx_error_at(err, TMX_ERR_METADATA, name, off,
					    "bad metadata packet magic, expected 0x75d11d57");
		}
		read_header(data + off, be, &h);
		ret = check_header(&h, name, off, size - off, err);
		if (!ret && out->has_uuid && memcmp(out->uuid, h.uuid, 16))
			ret = tmx_error_at(err, TMX_ERR_METADATA, name, off,
					   "metadata packet UUID differs from the first packet's");
		if (ret) {
			free(text);
			return ret;
		}
		memcpy(out->uuid, h.uuid, 16);
		out->has_uuid = true;
		content = h.content_bits / 8 - PACKET_HEADER_SIZE;
		memcpy(text + len, data + off + PACKET_HEADER_SIZE, content);
		len += content;
		off += h.packet_bits / 8;
	}
	text[len] = '\0';
	out->text = text;
	out->len = strnlen(text, len);   /* babeltrace2 stops at a NUL in the payload */
	out->packetized = true;
	out->packet_byte_order_be = be;
	return TMX_OK;
}

/*
 * A text that starts with the spec's signature comment must name version
 * 1.8, as babeltrace2 requires; a text without one is accepted
 * (babeltrace2 2.0.4 then compares uninitialized numbers).
 */
static int check_signature(const uint8_t *data, size_t size, const char *name,
			   struct tmx_error *err)
{
	char head[32];
	size_t n = size < sizeof(head) - 1 ? size : sizeof(head) - 1;
	unsigned major, minor;

	memcpy(head, data, n);
	head[n] = '\0';
	if (sscanf(head, "/* CTF %10u.%10u", &major, &minor) != 2 || (major == 1 && minor == 8))
		return TMX_OK;
	return tmx_error_at_line(err, TMX_ERR_METADATA, name, 1, 1,
				 "metadata signature says CTF %u.%u, expected 1.8", major, minor);
}

int ctf_metadata_decode(const uint8_t *data, size_t size, const char *name,
			struct ctf_metadata_text *out, struct tmx_error *err)
{
	bool be;

	memset(out, 0, sizeof(*out));
	if (size > CTF_METADATA_MAX_SIZE)
		return tmx_error_set(err, TMX_ERR_LIMIT, name,
				     "metadata file larger than %u bytes", CTF_METADATA_MAX_SIZE);
	if (is_packetized(data, size, &be))
		return decode_packets(data, size, be, name, out, err);
	if (size == 0)
		return tmx_error_set(err, TMX_ERR_METADATA, name, "empty metadata file");
	if (check_signature(data, size, name, err))
		return TMX_ERR_METADATA;
	out->text = malloc(size + 1);
	if (!out->text)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	memcpy(out->text, data, size);
	out->text[size] = '\0';
	out->len = size;
	return TMX_OK;
}

int ctf_metadata_read(const char *path, struct ctf_metadata_text *out, struct tmx_error *err)
{
	struct tmx_mapfile map;
	int ret = tmx_mapfile_open(&map, path, err);

	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	ret = ctf_metadata_decode(map.data, map.size, path, out, err);
	tmx_mapfile_close(&map);
	return ret;
}

void ctf_metadata_text_fini(struct ctf_metadata_text *t)
{
	free(t->text);
	memset(t, 0, sizeof(*t));
}
