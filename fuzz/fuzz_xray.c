/*
 * libFuzzer harness: an XRay log (FDR or basic) in memory.  The reader
 * opens it (header, FDR block index and verification, sorted runs) four
 * ways -- sorted, unsorted, lenient on one thread, sorted on the reader's
 * threads -- and every message is read; the
 * sorted pass also goes through the llvm-xray YAML writer (to /dev/null),
 * so payload quoting and escaping see every byte string.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sink/xray/yaml.h"
#include "tracemux/tracemux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One thread (jobs = 0 would start one per CPU), then the reader's own threads. */
	static const struct tmx_xray_opts modes[] = {
		{ .size = sizeof(struct tmx_xray_opts), .jobs = 1 }, { .size = sizeof(struct tmx_xray_opts), .unsorted = true, .jobs = 1 },
		{ .size = sizeof(struct tmx_xray_opts), .lenient = true, .jobs = 1 }, { .size = sizeof(struct tmx_xray_opts), .jobs = 2 },
	};
	char path[64];
	int fd, null_fd;

	fd = memfd_create("fuzz.xray", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (write(fd, data, size) == (ssize_t)size) {
		const char *paths[1] = { path };
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			struct tmx_source *src;
			const struct tmx_msg *m;
			struct tmx_error err;
			struct tmx_xray_yaml *y = NULL;
			if (tmx_xray_open(paths, 1, &modes[i], NULL, &src, &err))
				continue;
			if (i == 0 && null_fd >= 0)
				y = tmx_xray_yaml_new(null_fd, src);
			while (!tmx_source_next(src, &m, &err) && m)
				if (y && tmx_xray_yaml_consume(y, m, &err))
					break;
			if (y) {
				tmx_xray_yaml_finish(y, &err);
				tmx_xray_yaml_free(y);
			}
			tmx_source_free(src);
		}
	}
	if (null_fd >= 0)
		close(null_fd);
	close(fd);
	return 0;
}
