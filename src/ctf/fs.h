/*
 * The CTF file-system reader as the source layer opens it
 * (src/source/open.c makes it tmx_ctf_fs_open(); fs_impl.h is its inside).
 */
#ifndef TMX_CTF_FS_H
#define TMX_CTF_FS_H

#include "model/reader.h"
#include "tracemux/tracemux.h"

/* Its operations: per-stream iterators (stream_iters), no next. */
extern const struct tmx_source_ops ctf_fs_ops;

/*
 * Finds the traces under `paths`, parses their metadata and indexes every
 * data file's packets (tmx_ctf_fs_open's checks); sets *impl, the reader
 * behind ctf_fs_ops.  `opts` is copied (tmx_opts_copy's size rule).
 */
int ctf_fs_reader_open(const char *const *paths, size_t n_paths,
		       const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		       void **impl, struct tmx_error *err);

#endif
