/*
 * tracemux — errors and diagnostics.
 *
 * The library never prints and never exits: a failing call fills a
 * tmx_error (code, file, byte offset or line:column, message) and returns
 * its code.  Warnings go to a caller-supplied callback.
 */
#ifndef TRACEMUX_ERROR_H
#define TRACEMUX_ERROR_H

#include "tracemux/export.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tmx_status {
	TMX_OK = 0,
	TMX_ERR_IO,          /* cannot open/read/map a file */
	TMX_ERR_NOMEM,
	TMX_ERR_METADATA,    /* invalid TSDL or format description */
	TMX_ERR_DATA,        /* invalid or truncated binary data */
	TMX_ERR_UNSUPPORTED, /* valid but not supported */
	TMX_ERR_USAGE,       /* bad option or argument */
	TMX_ERR_LIMIT,       /* a resource limit was hit */
};

#define TMX_ERROR_MSG_MAX 1024
#define TMX_ERROR_FILE_MAX 512

struct tmx_error {
	enum tmx_status code;
	char file[TMX_ERROR_FILE_MAX]; /* "" when not about a file */
	bool has_offset;
	uint64_t offset;               /* byte offset in `file` */
	uint32_t line, col;            /* text position (1-based), 0 if none */
	char msg[TMX_ERROR_MSG_MAX];
};

/* Formats "file:line:col: msg" or "file: at byte N: msg" into buf. */
TMX_API void tmx_error_format(const struct tmx_error *err, char *buf, unsigned size);
TMX_API const char *tmx_status_name(enum tmx_status code);
/*
 * Fills `err` (may be NULL) with `code`, `file` (NULL: not about a file)
 * and the printf-formatted message, and returns `code`: a program's own
 * errors in the library's shape (a usage error it finds, say), reported
 * as the library's are.
 */
TMX_API int tmx_error_set(struct tmx_error *err, enum tmx_status code, const char *file,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Warnings: the library calls `warn` (if set) with each formatted message. */
struct tmx_diag {
	void (*warn)(void *user, const char *msg);
	void *user;
};

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_ERROR_H */
