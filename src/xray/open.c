/* Placeholder until the XRay reader lands (issue 5): replaced by the reader. */
#include "tracemux/tracemux.h"

int tmx_xray_open(const char *const *paths, size_t n_paths, const struct tmx_xray_opts *opts,
		  const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err)
{
	(void)n_paths, (void)opts, (void)diag;
	*out = NULL;
	return tmx_error_set(err, TMX_ERR_UNSUPPORTED, paths[0], "XRay reading is not implemented yet");
}
