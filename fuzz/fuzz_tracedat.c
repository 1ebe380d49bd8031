/*
 * libFuzzer harness: a whole trace.dat in memory.  The file layer opens it
 * (every header, section, option, format), every CPU of every buffer is
 * read with a cursor, and, when it opened, the model source decodes every
 * event's fields from the same bytes (through a memfd, as it maps files).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracecmd/tracedat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Small caps: a fuzzer input must not make a 1 GiB section legal. */
	struct tdat_open_opts oo = { .max_section = 8u << 20 };
	struct tdat_file *f;
	struct tmx_error err;
	struct tmx_source *src;
	const struct tmx_msg *m;
	char path[64];
	int fd;

	if (tdat_file_open_mem(data, size, "fuzz.dat", &oo, &f, &err))
		return 0;
	for (size_t b = 0; b < f->n_buffers; b++)
		for (uint32_t c = 0; c < f->buffers[b].n_cpus; c++) {
			struct tdat_cursor *cur;
			const struct tdat_record *r;
			if (tdat_cursor_open(f, b, c, &cur, &err))
				continue;
			while (!tdat_cursor_next(cur, &r, &err) && r)
				;
			tdat_cursor_close(cur);
		}
	tdat_file_close(f);

	fd = memfd_create("fuzz.dat", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		const char *paths[1] = { path };
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!tmx_tracedat_open(paths, 1, NULL, NULL, &src, &err)) {
			while (!tmx_source_next(src, &m, &err) && m)
				(void)tdat_record_of(m);
			tmx_source_free(src);
		}
	}
	close(fd);
	return 0;
}
