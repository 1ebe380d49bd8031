#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapfile.h"
#include "common/errors.h"

int tmx_mapfile_open(struct tmx_mapfile *m, const char *path, struct tmx_error *err)
{
	struct stat st;
	int fd;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot stat: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return tmx_error_set(err, TMX_ERR_IO, path, "not a regular file");
	}
	m->size = (size_t)st.st_size;
	if (m->size > 0) {
		void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			return tmx_error_set(err, TMX_ERR_IO, path, "cannot map: %s", strerror(e));
		}
		m->data = p;
	}
	close(fd);
	m->path = strdup(path);
	if (!m->path) {
		tmx_mapfile_close(m);
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	}
	return TMX_OK;
}

void tmx_mapfile_close(struct tmx_mapfile *m)
{
	if (m->data)
		munmap((void *)m->data, m->size);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

void tmx_mapfile_advise_sequential(struct tmx_mapfile *m)
{
	if (m->data)
		madvise((void *)m->data, m->size, MADV_SEQUENTIAL);
}

void tmx_mapfile_release(struct tmx_mapfile *m, size_t off, size_t len)
{
	/* madvise needs page-aligned starts; round inward. */
	long page = sysconf(_SC_PAGESIZE);
	size_t start = (off + (size_t)page - 1) & ~((size_t)page - 1);
	size_t end = (off + len) & ~((size_t)page - 1);

	if (m->data && end > start && end <= m->size)
		madvise((void *)(m->data + start), end - start, MADV_DONTNEED);
}
