/*
 * JSON strings (RFC 8259), the one writer of every JSON the library makes
 * (JSON Lines, Chrome, the CTF 2 metadata).  One policy: printable ASCII
 * and valid UTF-8 as they are; the quote and the backslash escaped; the
 * control characters that have a two-character escape (\b \f \n \r \t)
 * with it, the others as \u00XX; a byte that is not part of valid UTF-8
 * (common/utf8.h: overlong forms, surrogates, past U+10FFFF, cut sequences)
 * as U+FFFD, one per byte, which is what a UTF-8 decoder that replaces
 * errors gives, so the text is valid UTF-8 and reads the same everywhere.
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
