/*
 * JSON strings (RFC 8259), the one writer of every JSON the library makes
 * (JSON Lines, Chrome, the CTF 2 metadata; `tracemux query --json` and
 * other programs through the public tmx_json_escape, tracemux/sink.h).
 * One policy: printable ASCII and valid UTF-8 as they are; the quote and
 * the backslash escaped; the control characters that have a two-character
 * escape (\b \f \n \r \t) with it, the others as \u00XX; a byte that is
 * not part of valid UTF-8 (common/utf8.h: overlong forms, surrogates, past
 * U+10FFFF, cut sequences) as the code point of its value (\u0080..\u00ff:
 * the byte read as Latin-1), one per byte, so the text is valid UTF-8,
 * nothing is lost, and it reads as every other output gives it: Parquet
 * (sink/parquet/fmap.c), Perfetto (sink/perfetto/fields.c) and the Python
 * package (python/src/convert.c) map such bytes the same way.
 */
#ifndef TMX_SINK_JSON_STRING_H
#define TMX_SINK_JSON_STRING_H

#include <stdbool.h>
#include <stddef.h>

#include "sink/outbuf.h"

/* `"s[0, n)"`, escaped as above. */
void json_string(struct outbuf *b, const char *s, size_t n);
/* `"key":`, preceded by a comma unless first. */
void json_key(struct outbuf *b, const char *key, bool first);

#endif
