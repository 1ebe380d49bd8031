/*
 * `-o ctf -p lttng-kernel=yes` (CLI: --lttng-kernel): a trace.dat written
 * as an LTTng kernel trace, for lttng-analyses and Trace Compass.  The
 * writer does not know ftrace: the messages go through the library's
 * kernel event mapping (src/model/kmap.c: lttng-modules 2.13's names,
 * fields and environment) and are written as any others.
 */
#include "common/errors.h"
#include "model/kmap.h"
#include "sink/ctf/cw_impl.h"

int tmx_ctf_writer_lttng_kernel(struct tmx_ctf_writer *w, struct tmx_source *src,
				struct tmx_error *err)
{
	if (!tmx_kmap_applies(src))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "sink `ctf`: lttng-kernel needs trace.dat inputs (ftrace's "
				     "kernel events); LTTng traces are written as they are");
	return tmx_kmap_new(src, &w->kmap, err);
}

int cw_lttng_kernel_msg(struct tmx_ctf_writer *w, const struct tmx_msg **msg,
			struct tmx_error *err)
{
	if (!tmx_kmap_msg(w->kmap, *msg, msg))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	return TMX_OK;
}
