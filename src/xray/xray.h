/*
 * The LLVM XRay reader (FDR versions 1-5, basic versions 1-3, and
 * llvm-xray's YAML traces): its model mapping and the constants outputs
 * read are in model/xray_map.h.
 */
#ifndef TMX_XRAY_H
#define TMX_XRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/reader.h"
#include "model/xray_map.h"
#include "tracemux/tracemux.h"

extern const struct tmx_source_ops tmx_xray_source_ops;

/*
 * Whether a file starting with the n bytes at `head` is llvm-xray's YAML
 * trace rather than a binary log: after comments, blank lines and
 * directives, a document start (---), a flow mapping or a `header:` or
 * `records:` key.  `whole_file`: the n bytes are the whole file (else a
 * head of nothing but comments may still be YAML).
 */
bool tmx_xray_looks_like_yaml(const unsigned char *head, size_t n, bool whole_file);

/*
 * Opens one log (and its instrumentation map or symbols when `opts` asks,
 * loaded per log as llvm-xray does); sets *impl, the reader behind
 * tmx_xray_source_ops.  `opts` is the library's copy (tmx_xray_open).
 */
int tmx_xray_reader_open(const char *path, const struct tmx_xray_opts *opts,
			 const struct tmx_diag *diag, void **impl, struct tmx_error *err);

/* The file header of the XRay reader `impl`. */
const struct tmx_xray_header *tmx_xray_reader_header(const void *impl);

#endif
