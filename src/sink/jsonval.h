/*
 * JSON values of decoded fields: integers exact (64-bit included), enums
 * {"value":N,"labels":[...]}, variants {"option":NAME,"value":...}, floats
 * as numbers (null if not finite), text through json_string() (always
 * valid UTF-8: a byte that is not part of valid UTF-8 is U+FFFD).
 */
#ifndef TMX_SINK_JSON_JSONVAL_H
#define TMX_SINK_JSON_JSONVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sink/json_string.h"
#include "sink/outbuf.h"
#include "tracemux/model.h"

/* A float as printf's %.17g (null if not finite) into `out`; returns its length. */
size_t json_double(char out[32], double d);
/*
 * The keys of the structure classes met, formatted once per class: one
 * per formatter (not shared between threads).
 */
struct json_keys;
struct json_keys *json_keys_new(void);
void json_keys_free(struct json_keys *k);
/*
 * The value at vals[i] and its subtree, structure keys through `keys`
 * (NULL: formatted each time); returns the index after it.
 */
size_t json_value(struct outbuf *b, struct json_keys *keys, const struct tmx_value *vals,
		  size_t i);
/*
 * The members of the structure at vals[0] as `"key":value` pairs, a comma
 * before each but when *first (then cleared); returns the number of
 * values read.
 */
size_t json_members(struct outbuf *b, struct json_keys *keys, const struct tmx_value *vals,
		    bool *first);

#endif
