/* Error objects: fixed-size, no allocation, so they work when memory is out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tracemux/error.h"
#include "common/errors.h"

static void set_file(struct tmx_error *err, const char *file)
{
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
}

static int verror(struct tmx_error *err, enum tmx_status code, const char *file,
		  const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	set_file(err, file);
	err->has_offset = false;
	err->offset = 0;
	err->line = err->col = 0;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int tmx_error_set(struct tmx_error *err, enum tmx_status code, const char *file,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(err, code, file, fmt, ap);
	va_end(ap);
	return code;
}

int tmx_error_at(struct tmx_error *err, enum tmx_status code, const char *file,
		 uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(err, code, file, fmt, ap);
	va_end(ap);
	if (err) {
		err->has_offset = true;
		err->offset = offset;
	}
	return code;
}

int tmx_error_at_line(struct tmx_error *err, enum tmx_status code, const char *file,
		      uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(err, code, file, fmt, ap);
	va_end(ap);
	if (err) {
		err->line = line;
		err->col = col;
	}
	return code;
}

void tmx_error_prefix(struct tmx_error *err, const char *fmt, ...)
{
	char buf[TMX_ERROR_MSG_MAX];
	size_t len, old_len;
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = strlen(buf);
	memcpy(buf + len, ": ", 3);
	len += 2;
	/* Append the old message, truncated to what fits. */
	old_len = strnlen(err->msg, sizeof(err->msg) - 1);
	if (old_len > sizeof(buf) - 1 - len)
		old_len = sizeof(buf) - 1 - len;
	memcpy(buf + len, err->msg, old_len);
	buf[len + old_len] = '\0';
	memcpy(err->msg, buf, sizeof(err->msg));
}

void tmx_error_format(const struct tmx_error *err, char *buf, unsigned size)
{
	if (!err->file[0])
		snprintf(buf, size, "%s", err->msg);
	else if (err->line)
		snprintf(buf, size, "%s:%u:%u: %s", err->file, err->line, err->col, err->msg);
	else if (err->has_offset)
		snprintf(buf, size, "%s: at byte %llu: %s", err->file,
			 (unsigned long long)err->offset, err->msg);
	else
		snprintf(buf, size, "%s: %s", err->file, err->msg);
}

const char *tmx_status_name(enum tmx_status code)
{
	switch (code) {
	case TMX_OK: return "ok";
	case TMX_ERR_IO: return "I/O error";
	case TMX_ERR_NOMEM: return "out of memory";
	case TMX_ERR_METADATA: return "invalid metadata";
	case TMX_ERR_DATA: return "invalid data";
	case TMX_ERR_UNSUPPORTED: return "unsupported";
	case TMX_ERR_USAGE: return "usage error";
	case TMX_ERR_LIMIT: return "limit exceeded";
	}
	return "unknown error";
}

static _Thread_local const struct tmx_warn_capture *thread_capture;

void tmx_warn_capture_set(const struct tmx_warn_capture *capture)
{
	thread_capture = capture;
}

bool tmx_warn_captured(void)
{
	return thread_capture != NULL;
}

static void vwarn(const struct tmx_diag *diag, const void *key, const char *fmt, va_list ap)
{
	char msg[TMX_ERROR_MSG_MAX];

	if (!diag || !diag->warn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (thread_capture)
		thread_capture->put(thread_capture->ctx, diag, key, msg);
	else
		diag->warn(diag->user, msg);
}

void tmx_warn(const struct tmx_diag *diag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(diag, NULL, fmt, ap);
	va_end(ap);
}

void tmx_warn_limit(const struct tmx_diag *diag, const void *key, unsigned limit,
		    const char *fmt, ...)
{
	char msg[TMX_ERROR_MSG_MAX];
	va_list ap;

	if (!diag || !diag->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (thread_capture && thread_capture->put_limit)
		thread_capture->put_limit(thread_capture->ctx, diag, key, limit, msg);
	else if (thread_capture)
		thread_capture->put(thread_capture->ctx, diag, NULL, msg);
	else
		diag->warn(diag->user, msg);
}

void tmx_warn_once(const struct tmx_diag *diag, const void *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(diag, key, fmt, ap);
	va_end(ap);
}
