/*
 * libtracemux — read binary trace formats into one common model.
 *
 *   struct tmx_source *src;
 *   tmx_ctf_fs_open(paths, n, &opts, &diag, &src, &err);
 *   while (tmx_source_next(src, &msg, &err) == TMX_OK && msg)
 *           ... msg->kind, msg->event ...
 *   tmx_source_free(src);
 *
 * A source merges all the streams of its inputs by time (see
 * include/tracemux/model.h for messages).  Calls return TMX_OK or an error
 * code with `err` filled; messages already returned stay valid output.
 */
#ifndef TRACEMUX_TRACEMUX_H
#define TRACEMUX_TRACEMUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACEMUX_VERSION_STRING "0.1.0"

struct tmx_source;

/* Options of the CTF file-system source (babeltrace2's src.ctf.fs). */
struct tmx_ctf_fs_opts {
	int64_t clock_offset_s;   /* added to every clock class offset */
	int64_t clock_offset_ns;
	bool force_origin_unix_epoch;
};

/*
 * Opens CTF traces: each path is a trace directory (with a `metadata`
 * file) or a directory containing traces at any depth.  All metadata is
 * parsed and every packet header indexed before this returns, so invalid
 * metadata or packet sizes fail here, before any event is produced.
 */
int tmx_ctf_fs_open(const char *const *paths, size_t n_paths,
		    const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		    struct tmx_source **out, struct tmx_error *err);

/* Sets *msg to the next message in time order, or NULL at the end. */
int tmx_source_next(struct tmx_source *src, const struct tmx_msg **msg,
		    struct tmx_error *err);

/* Number of physical traces and, for each, its metadata text. */
size_t tmx_source_trace_count(const struct tmx_source *src);
const char *tmx_source_trace_metadata(const struct tmx_source *src, size_t i);

void tmx_source_free(struct tmx_source *src);

#ifdef __cplusplus
}
#endif

#endif
