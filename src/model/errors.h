/*
 * Filling a tmx_error and sending warnings: for the library's own code
 * (and its CLI and tests), not part of the installed API, where errors are
 * only read (include/tracemux/error.h).
 */
#ifndef TMX_MODEL_ERRORS_H
#define TMX_MODEL_ERRORS_H

#include "tracemux/error.h"

/* Sets `err` (may be NULL) and returns `code`. */
int tmx_error_set(struct tmx_error *err, enum tmx_status code, const char *file,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Same, with a byte offset in the file. */
int tmx_error_at(struct tmx_error *err, enum tmx_status code, const char *file,
		 uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Same, with a line and column in a text file. */
int tmx_error_at_line(struct tmx_error *err, enum tmx_status code, const char *file,
		      uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Prepends "context: " to the message (a cause chain in one line). */
void tmx_error_prefix(struct tmx_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Formats a warning and hands it to diag->warn (nothing when diag or warn is NULL). */
void tmx_warn(const struct tmx_diag *diag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
