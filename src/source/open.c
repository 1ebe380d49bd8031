/*
 * tmx_open(): which reader takes each input.  The formats have nothing in
 * common on disk, so a look at the path (directory or file) and at a
 * file's first bytes is enough to tell them apart.  Also each format's own
 * opening (tmx_ctf_fs_open...): its reader made a source.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "ctf/fs.h"
#include "model/opts.h"
#include "source/source.h"
#include "tracecmd/tracedat.h"
#include "tracemux/tracemux.h"
#include "xray/xray.h"

#define N_FORMATS (TMX_FORMAT_XRAY + 1)

/*
 * An XRay log starts with a 32-byte header: version (1 to 5) and type
 * (0: basic, 1: FDR) as little-endian 16-bit words.
 */
static bool looks_like_xray(const unsigned char *head, size_t n)
{
	unsigned version, type;

	if (n < 32)
		return false;
	version = head[0] | (unsigned)head[1] << 8;
	type = head[2] | (unsigned)head[3] << 8;
	return version >= 1 && version <= 5 && type <= 1;
}

int tmx_detect_format(const char *path, enum tmx_trace_format *fmt, struct tmx_error *err)
{
	/* Enough for the comments that may come before a YAML document. */
	unsigned char head[4096];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st))
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open: %s", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*fmt = TMX_FORMAT_CTF;
		return TMX_OK;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open: %s", strerror(errno));
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot read: %s", strerror(errno));
	if ((size_t)n >= TDAT_MAGIC_LEN && !memcmp(head, TDAT_MAGIC, TDAT_MAGIC_LEN))
		*fmt = TMX_FORMAT_TRACEDAT;
	else if (looks_like_xray(head, (size_t)n) ||
		 tmx_xray_looks_like_yaml(head, (size_t)n, (size_t)n < sizeof(head)))
		*fmt = TMX_FORMAT_XRAY;
	else if (n < 4)
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, path,
				     "unknown trace format: a %zd-byte file is not a CTF trace "
				     "directory, nor a trace-cmd trace.dat file, nor an LLVM XRay "
				     "log (32-byte header), nor llvm-xray's YAML trace", n);
	else
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, path,
				     "unknown trace format: not a CTF trace directory, nor a "
				     "trace-cmd trace.dat file (magic 17 08 44 \"tracing\"), nor an "
				     "LLVM XRay log (version 1-5, type 0 or 1 at offset 0; found "
				     "version %u, type %u%s), nor llvm-xray's YAML trace (a mapping "
				     "of header: and records:)",
				     head[0] | (unsigned)head[1] << 8, head[2] | (unsigned)head[3] << 8,
				     n < 32 ? ", and less than a 32-byte header" : "");
	return TMX_OK;
}

int tmx_ctf_fs_open(const char *const *paths, size_t n_paths,
		    const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		    struct tmx_source **out, struct tmx_error *err)
{
	void *impl;
	int ret;

	*out = NULL;
	if ((ret = ctf_fs_reader_open(paths, n_paths, opts, diag, &impl, err)))
		return ret;
	return tmx_source_new(&ctf_fs_ops, impl, out, err);
}

int tmx_tracedat_open(const char *const *paths, size_t n_paths,
		      const struct tmx_tracedat_opts *opts, const struct tmx_diag *diag,
		      struct tmx_source **out, struct tmx_error *err)
{
	void *impl;
	int ret;

	*out = NULL;
	if ((ret = tdat_reader_open(paths, n_paths, opts, diag, &impl, err)))
		return ret;
	return tmx_source_new(&tdat_source_ops, impl, out, err);
}

/* One reader per log, merged by time when there are several. */
int tmx_xray_open(const char *const *paths, size_t n_paths, const struct tmx_xray_opts *in,
		  const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err)
{
	struct tmx_xray_opts opts;
	struct tmx_source **srcs;
	int ret = TMX_OK;
	size_t n = 0;

	*out = NULL;
	if ((ret = tmx_opts_copy(&opts, sizeof(opts), in, "tmx_xray_opts", err)))
		return ret;
	if (n_paths == 0)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "no XRay log given");
	if (!(srcs = calloc(n_paths, sizeof(*srcs))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (; n < n_paths && !ret; n++) {
		void *impl;

		if (!(ret = tmx_xray_reader_open(paths[n], &opts, diag, &impl, err)))
			ret = tmx_source_new(&tmx_xray_source_ops, impl, &srcs[n], err);
	}
	if (ret) {
		for (size_t i = 0; i < n; i++)
			if (srcs[i])
				tmx_source_free(srcs[i]);
		free(srcs);
		return ret;
	}
	if (n_paths == 1) {
		*out = srcs[0];
		free(srcs);
		return TMX_OK;
	}
	ret = tmx_source_merge(srcs, n_paths, out, err);
	free(srcs);
	return ret;
}

size_t tdat_source_file_count(const struct tmx_source *src)
{
	return tdat_reader_file_count(src ? tmx_source_impl(src, &tdat_source_ops) : NULL);
}

const struct tdat_file *tdat_source_file(const struct tmx_source *src, size_t i)
{
	return tdat_reader_file(src ? tmx_source_impl(src, &tdat_source_ops) : NULL, i);
}

const struct tmx_xray_header *tmx_xray_source_header(const struct tmx_source *src)
{
	return tmx_xray_reader_header(tmx_source_impl(src, &tmx_xray_source_ops));
}

static int open_format(enum tmx_trace_format fmt, const char *const *paths, size_t n,
		       const struct tmx_open_opts *o, const struct tmx_diag *diag,
		       struct tmx_source **out, struct tmx_error *err)
{
	switch (fmt) {
	case TMX_FORMAT_CTF:
		return tmx_ctf_fs_open(paths, n, &o->ctf, diag, out, err);
	case TMX_FORMAT_TRACEDAT:
		return tmx_tracedat_open(paths, n, &o->tracedat, diag, out, err);
	default:
		return tmx_xray_open(paths, n, &o->xray, diag, out, err);
	}
}

/*
 * The caller's tmx_open_opts into `o` (see the rule in tracemux.h).  The
 * nested structs are walked by their own sizes: one grown by appending
 * moves those after it in a program built with newer headers, and an older
 * program's nested struct is shorter than the library's.
 */
static int open_opts_copy(const struct tmx_open_opts *in, struct tmx_open_opts *o,
			  struct tmx_error *err)
{
	const unsigned char *p = (const unsigned char *)in;
	struct nested {
		void *dst;
		size_t dst_size, align;
		const char *name;
	} nested[] = {
		{ &o->ctf, sizeof(o->ctf), _Alignof(struct tmx_ctf_fs_opts), "tmx_ctf_fs_opts" },
		{ &o->tracedat, sizeof(o->tracedat), _Alignof(struct tmx_tracedat_opts), "tmx_tracedat_opts" },
		{ &o->xray, sizeof(o->xray), _Alignof(struct tmx_xray_opts), "tmx_xray_opts" },
	};
	size_t size, off = sizeof(size_t), at;
	int ret;

	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	for (size_t i = 0; i < sizeof(nested) / sizeof(nested[0]); i++)
		memcpy(nested[i].dst, &nested[i].dst_size, sizeof(size_t));
	if (!in)
		return TMX_OK;
	memcpy(&size, p, sizeof(size));
	if (size < sizeof(size_t) || size > TMX_OPTS_SIZE_MAX)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "struct tmx_open_opts: size is %zu, not sizeof(struct tmx_open_opts) "
				     "(initialize it with TMX_OPEN_OPTS_INIT)", size);
	for (size_t i = 0; i < sizeof(nested) / sizeof(nested[0]); i++) {
		const struct nested *n = &nested[i];
		size_t nsize;

		off = (off + n->align - 1) / n->align * n->align;
		if (size < off + sizeof(size_t))
			return TMX_OK;   /* an older layout without it: defaults */
		memcpy(&nsize, p + off, sizeof(nsize));
		if (nsize > size - off)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "struct tmx_open_opts: its %s at byte %zu has size %zu, past the "
					     "struct's size %zu", n->name, off, nsize, size);
		if ((ret = tmx_opts_copy(n->dst, n->dst_size, p + off, n->name, err)))
			return ret;
		off += nsize;
	}
	/* Members appended after the nested structs would be read here. */
	if (size > off && !tmx_opts_zero_tail(p, off, size, &at))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "struct tmx_open_opts: size %zu is larger than this library's and byte "
				     "%zu is not zero: an option this library (%s) does not know is set",
				     size, at, TRACEMUX_VERSION_STRING);
	return TMX_OK;
}

int tmx_open(const char *const *paths, size_t n_paths, const struct tmx_open_opts *in,
	     const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err)
{
	struct tmx_open_opts own;
	const struct tmx_open_opts *opts = &own;
	const char **by_format[N_FORMATS] = { 0 };
	size_t n_by_format[N_FORMATS] = { 0 };
	struct tmx_source *srcs[N_FORMATS];
	size_t n_srcs = 0;
	int ret = TMX_OK;

	*out = NULL;
	if ((ret = open_opts_copy(in, &own, err)))
		return ret;
	for (int f = 0; f < N_FORMATS && !ret; f++)
		if (!(by_format[f] = malloc((n_paths ? n_paths : 1) * sizeof(char *))))
			ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n_paths && !ret; i++) {
		enum tmx_trace_format fmt = TMX_FORMAT_CTF;
		if (!(ret = tmx_detect_format(paths[i], &fmt, err)))
			by_format[fmt][n_by_format[fmt]++] = paths[i];
	}
	for (int f = 0; f < N_FORMATS && !ret; f++)
		if (n_by_format[f] && !(ret = open_format(f, by_format[f], n_by_format[f], opts,
							  diag, &srcs[n_srcs], err)))
			n_srcs++;
	for (int f = 0; f < N_FORMATS; f++)
		free(by_format[f]);
	if (ret) {
		while (n_srcs)
			tmx_source_free(srcs[--n_srcs]);
		return ret;
	}
	if (n_srcs == 1) {
		*out = srcs[0];
		return TMX_OK;
	}
	return tmx_source_merge(srcs, n_srcs, out, err);
}
