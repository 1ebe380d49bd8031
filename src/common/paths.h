/* Output directories of the CTF writer (babeltrace2's sink.ctf.fs rules). */
#ifndef TMX_COMMON_PATHS_H
#define TMX_COMMON_PATHS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "tracemux/model.h"

/*
 * LTTng 2.11+ traces: HOST/SESSION-DATETIME/DOMAIN[/uid/ID/BITS-bit |
 * /pid/PROC-PID-DATETIME] from the trace environment.  False when the
 * environment does not have what it takes.
 */
bool cw_lttng_trace_path(const struct tmx_trace_class *tc, char *out, size_t size);
/* `.` and `..` components become `_` and `__`; trailing `/` go; "" is `trace`. */
void cw_sanitize_trace_path(const char *in, char *out, size_t size);
/*
 * OUT_DIR/PATH for a trace, PATH from its LTTng environment, else its name,
 * else `trace`; `-0`, `-1`... added while it exists.
 */
void cw_trace_dir(const struct tmx_trace *trace, const char *out_dir, char *out, size_t size);
/* mkdir -p; 0 or -1 with errno. */
int cw_mkdir_p(char *path);

#endif
