/*
 * A UUID's canonical text, 8-4-4-4-12 lowercase hexadecimal digits: what
 * CTF 1.8 metadata writes (`uuid = "..."`), what babeltrace2 prints and
 * what the CTF 2 UIDs of babeltrace 2.1 hold.  One copy for the readers
 * that parse it and the outputs and commands that print it.
 */
#ifndef TMX_COMMON_UUID_H
#define TMX_COMMON_UUID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/hexdigit.h"

#define TMX_UUID_TEXT_LEN 36

/* Whether byte i of the text is one of the four dashes. */
static inline bool tmx_uuid_dash_at(size_t i)
{
	return i == 8 || i == 13 || i == 18 || i == 23;
}

/* `u` as text in out[0, 36], NUL-terminated. */
static inline void tmx_uuid_text(char out[TMX_UUID_TEXT_LEN + 1], const uint8_t u[16])
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	for (size_t i = 0; i < TMX_UUID_TEXT_LEN; i++) {
		if (tmx_uuid_dash_at(i)) {
			out[i] = '-';
			continue;
		}
		out[i++] = hex[u[k] >> 4];
		out[i] = hex[u[k++] & 15];
	}
	out[TMX_UUID_TEXT_LEN] = '\0';
}

/* The canonical form only (either case): false when `s` is NULL or not one. */
static inline bool tmx_uuid_parse(const char *s, uint8_t out[16])
{
	size_t k = 0;

	if (!s || strlen(s) != TMX_UUID_TEXT_LEN)
		return false;
	for (size_t i = 0; i < TMX_UUID_TEXT_LEN; i++) {
		int hi, lo;
		if (tmx_uuid_dash_at(i)) {
			if (s[i] != '-')
				return false;
			continue;
		}
		hi = tmx_hex_digit(s[i]);
		lo = tmx_hex_digit(s[++i]);
		if (hi < 0 || lo < 0)
			return false;
		out[k++] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

#endif
