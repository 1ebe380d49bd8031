#include <string.h>

#include "common/errors.h"
#include "model/opts.h"
#include "tracemux/tracemux.h"

int tmx_opts_zero_tail(const void *p, size_t from, size_t to, size_t *at)
{
	const unsigned char *b = p;

	for (size_t i = from; i < to; i++)
		if (b[i]) {
			*at = i;
			return 0;
		}
	return 1;
}

int tmx_opts_copy(void *dst, size_t dst_size, const void *src, const char *name,
		  struct tmx_error *err)
{
	size_t size, at;

	memset(dst, 0, dst_size);
	memcpy(dst, &dst_size, sizeof(size_t));
	if (!src)
		return TMX_OK;
	memcpy(&size, src, sizeof(size));   /* size is the first member of every such struct */
	if (size < sizeof(size_t) || size > TMX_OPTS_SIZE_MAX)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "struct %s: size is %zu, not sizeof(struct %s) (initialize it with its "
				     "TMX_..._OPTS_INIT)", name, size, name);
	if (size > dst_size && !tmx_opts_zero_tail(src, dst_size, size, &at))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "struct %s: size %zu is larger than this library's %zu and byte %zu is "
				     "not zero: an option this library (%s) does not know is set",
				     name, size, dst_size, at, TRACEMUX_VERSION_STRING);
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       (size < dst_size ? size : dst_size) - sizeof(size_t));
	return TMX_OK;
}
