/* UTF-8 validation shared by the outputs that must write valid UTF-8. */
#ifndef TMX_IO_UTF8_H
#define TMX_IO_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length of the valid UTF-8 sequence at `s` (at most `n` bytes, n >= 1),
 * 0 if invalid: overlong forms, surrogates and values past U+10FFFF are
 * not UTF-8.
 */
static inline size_t tmx_utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

#endif
