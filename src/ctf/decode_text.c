/*
 * CTF 2 string text (see decode_text.h): the chunked storage of transcoded
 * strings and the UTF-16/32 to UTF-8 transcoding (CTF 2 spec 6.4.11-6.4.14).
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/decode_text.h"
#include "io/bitread.h"
#include "common/errors.h"

void ctf_text_fini(struct ctf_text *t)
{
	for (unsigned k = 0; k < CTF_TEXT_CHUNKS; k++)
		free(t->chunk[k]);
	memset(t, 0, sizeof(*t));
}

/* Where chunk k starts in the chunks laid end to end. */
static uint64_t chunk_start(unsigned k)
{
	return (uint64_t)CTF_TEXT_MIN * ((UINT64_C(1) << k) - 1);
}

int ctf_text_room(struct ctf_text *t, size_t need, char **out, struct tmx_error *err)
{
	/* The chunk that `at` is in: chunk_start(k) <= at < chunk_start(k + 1). */
	unsigned k = 63 - (unsigned)__builtin_clzll(t->at / CTF_TEXT_MIN + 1);
	uint64_t used = t->at - chunk_start(k);

	for (; k < CTF_TEXT_CHUNKS; k++, used = 0) {
		uint64_t size = (uint64_t)CTF_TEXT_MIN << k;
		if (need > size - used)
			continue;
		if (size > SIZE_MAX || (!t->chunk[k] && !(t->chunk[k] = malloc((size_t)size))))
			break;
		t->at = chunk_start(k) + used;
		*out = t->chunk[k] + used;
		return TMX_OK;
	}
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL,
			     "out of memory for a transcoded string (%zu bytes)", need);
}

static inline uint32_t load_unit(const uint8_t *p, uint8_t encoding)
{
	switch (encoding) {
	case TMX_STR_UTF16BE:
		return tmx_be16(p);
	case TMX_STR_UTF16LE:
		return tmx_le16(p);
	case TMX_STR_UTF32BE:
		return tmx_be32(p);
	default:
		return tmx_le32(p);
	}
}

static size_t put_utf8(char *dst, uint32_t c)
{
	if (c < 0x80) {
		dst[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		dst[0] = (char)(0xC0 | c >> 6);
		dst[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		dst[0] = (char)(0xE0 | c >> 12);
		dst[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		dst[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	dst[0] = (char)(0xF0 | c >> 18);
	dst[1] = (char)(0x80 | ((c >> 12) & 0x3F));
	dst[2] = (char)(0x80 | ((c >> 6) & 0x3F));
	dst[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

static size_t fault_at(struct ctf_utf_fault *fault, size_t index, uint32_t value,
		       const char *what)
{
	fault->index = index;
	fault->value = value;
	fault->what = what;
	return SIZE_MAX;
}

size_t ctf_utf_to_utf8(const uint8_t *src, size_t n, uint8_t encoding, char *dst,
		       struct ctf_utf_fault *fault)
{
	const unsigned unit = ctf_str_unit(encoding);
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = load_unit(src + i * unit, encoding);

		if (unit == 4) {
			if (c > 0x10FFFF)
				return fault_at(fault, i, c, "a UTF-32 value above 0x10FFFF");
			if (c >= 0xD800 && c <= 0xDFFF)
				return fault_at(fault, i, c, "a UTF-32 surrogate value");
		} else if (c >= 0xDC00 && c <= 0xDFFF) {
			return fault_at(fault, i, c, "a lone UTF-16 low surrogate");
		} else if (c >= 0xD800 && c <= 0xDBFF) {
			uint32_t lo = i + 1 < n ? load_unit(src + (i + 1) * unit, encoding) : 0;
			if (lo < 0xDC00 || lo > 0xDFFF)
				return fault_at(fault, i, c, "a lone UTF-16 high surrogate");
			c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
			i++;
		}
		len += put_utf8(dst + len, c);
	}
	return len;
}
