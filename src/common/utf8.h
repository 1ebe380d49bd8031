/* UTF-8 decoding and validation, shared by the outputs that must write valid UTF-8. */
#ifndef TMX_COMMON_UTF8_H
#define TMX_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The code point of the valid UTF-8 sequence at `s` (at most `n` bytes,
 * n >= 1) in *cp, and the sequence's length; 0 if invalid (*cp then
 * unspecified): overlong forms, surrogates and values past U+10FFFF are
 * not UTF-8.
 */
static inline size_t tmx_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, c = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, c = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
	    (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* Length of the valid UTF-8 sequence at `s` (as tmx_utf8_decode), 0 if invalid. */
static inline size_t tmx_utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;

	return tmx_utf8_decode(s, n, &cp);
}

#endif
