/*
 * Reading a caller's options struct that can grow (a leading `size_t size`,
 * see the rule in include/tracemux/tracemux.h) into the library's own
 * zeroed copy: SQLite's and zstd's way of keeping old and new programs
 * working with one shared library.
 */
#ifndef TMX_MODEL_OPTS_H
#define TMX_MODEL_OPTS_H

#include <stddef.h>

#include "tracemux/error.h"

/*
 * A larger size is taken as never set (garbage) and refused rather than
 * the bytes up to it read: no options struct comes near it.
 */
#define TMX_OPTS_SIZE_MAX 4096

/*
 * Copies min(its size, dst_size) bytes of `src` (NULL: none) into `dst`,
 * zeroed first, and sets dst's size to dst_size.  Fails with TMX_ERR_USAGE
 * naming `name` (the struct) when the size does not cover the size member,
 * or is over TMX_OPTS_SIZE_MAX, or is larger than dst_size with a byte past dst_size not zero (an option
 * this library does not know).
 */
int tmx_opts_copy(void *dst, size_t dst_size, const void *src, const char *name,
		  struct tmx_error *err);

/* Bytes [from, to) of `p` all zero; else the first that is not, in *at. */
int tmx_opts_zero_tail(const void *p, size_t from, size_t to, size_t *at);

#endif
