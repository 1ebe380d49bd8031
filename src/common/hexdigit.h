/* The value of a hexadecimal digit, in either case: what the parsers share. */
#ifndef TMX_COMMON_HEXDIGIT_H
#define TMX_COMMON_HEXDIGIT_H

/* 0 to 15, or -1 when `c` is not a hexadecimal digit. */
static inline int tmx_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
