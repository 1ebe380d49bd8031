/*
 * Filling a tmx_error and sending warnings: for the library's own code
 * (and its tools and tests), not part of the installed API, which has
 * only tmx_error_set (include/tracemux/error.h).
 */
#ifndef TMX_COMMON_ERRORS_H
#define TMX_COMMON_ERRORS_H

#include <stdbool.h>

#include "tracemux/error.h"

/* tmx_error_set (public: tracemux/error.h) with a byte offset in the file. */
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
/*
 * A warning said once per `key` (a clock, say) over the whole run.  Without
 * a capture the caller keeps its own list of keys already warned about; a
 * capture gets the key and deduplicates (see below).
 */
void tmx_warn_once(const struct tmx_diag *diag, const void *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A warning said at most `limit` times per `key` over the run (a stream's
 * first records of unknown events).  The caller counts its own and stops
 * at the limit; a capture gets the key and the limit too, so that a
 * stream read in segments on several threads (src/par/split.c), each
 * segment counting its own, is counted once more in merged order.
 */
void tmx_warn_limit(const struct tmx_diag *diag, const void *key, unsigned limit,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Warnings of the calling thread diverted (the parallel runner's workers,
 * src/par/): instead of diag->warn, `put` gets them, to be handed to
 * diag->warn later at their place in merged order.  NULL restores the
 * direct path.
 */
struct tmx_warn_capture {
	void (*put)(void *ctx, const struct tmx_diag *diag, const void *key, const char *msg);
	void *ctx;
	/* tmx_warn_limit's warnings (NULL: they go to put without a key). */
	void (*put_limit)(void *ctx, const struct tmx_diag *diag, const void *key, unsigned limit,
			  const char *msg);
};
void tmx_warn_capture_set(const struct tmx_warn_capture *capture);
bool tmx_warn_captured(void);

#endif
