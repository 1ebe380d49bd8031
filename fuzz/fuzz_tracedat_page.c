/*
 * libFuzzer harness: the ring-buffer page decoder alone.  The first byte
 * chooses the layout (bit 0: big endian, bit 1: 4-byte commit word), the
 * rest is one page of any size.
 */
#include <stdlib.h>
#include <string.h>

#include "tracecmd/tracedat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_file f;
	struct tdat_page pg;
	struct tmx_error err;
	uint8_t *page;

	if (size < 1 || size > (1u << 20))
		return 0;
	memset(&f, 0, sizeof(f));
	f.path = "page";
	f.big_endian = data[0] & 1;
	f.kernel_long_size = (data[0] & 2) ? 4 : 8;
	f.page_header_size = 8 + f.kernel_long_size;
	f.long_size = (uint8_t)f.kernel_long_size;
	/* An exact-size copy: any read past the page is caught by ASan. */
	page = malloc(size - 1 ? size - 1 : 1);
	if (!page)
		return 0;
	memcpy(page, data + 1, size - 1);
	if (!tdat_page_start(&pg, &f, page, (uint32_t)(size - 1), &err, 0)) {
		const uint8_t *d;
		uint32_t len;
		uint64_t sum = 0;
		while (!tdat_page_next(&pg, &d, &len, &err, 0) && d) {
			if (d < page || d + len > page + size - 1)
				abort();
			if (len)
				sum += d[0] + d[len - 1];
		}
		(void)sum;
	}
	free(page);
	return 0;
}
