/*
 * Where the CTF writer puts a trace: babeltrace2's sink.ctf.fs rules, so
 * that `tracemux -o ctf -w DIR` and `babeltrace2 -o ctf -w DIR` make the
 * same tree (tests/golden/test_ctf_writer.py compares them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/paths.h"

static const char *env_str(const struct tmx_trace_class *tc, const char *name)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, name);
	return e && !e->is_int && e->str_value ? e->str_value : NULL;
}

static bool env_int(const struct tmx_trace_class *tc, const char *name, int64_t *v)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, name);
	if (!e || !e->is_int)
		return false;
	*v = e->int_value;
	return true;
}

/* What GLib's g_time_val_from_iso8601() accepts of LTTng's dates. */
static bool looks_iso8601(const char *s)
{
	int digits = 0;

	while (s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (digits == 8)
		return s[8] == 'T' && s[9] >= '0' && s[9] <= '9';
	return digits == 4 && s[4] == '-' && s[5] >= '0' && s[5] <= '9' && strchr(s, 'T');
}

static int append(char *buf, size_t size, const char *fmt, const char *a, long long n)
{
	size_t len = strlen(buf);
	int w = a ? snprintf(buf + len, size - len, fmt, a) : snprintf(buf + len, size - len, fmt, n);
	return w < 0 || (size_t)w >= size - len ? -1 : 0;
}

/* LTTng 2.11+: HOST/SESSION-DATETIME/DOMAIN[/uid/ID/BITS-bit | /pid/PROC-PID-DATETIME]. */
bool cw_lttng_trace_path(const struct tmx_trace_class *tc, char *out, size_t size)
{
	const char *tracer = env_str(tc, "tracer_name"), *host = env_str(tc, "hostname");
	const char *session = env_str(tc, "trace_name"), *date = env_str(tc, "trace_creation_datetime");
	const char *domain = env_str(tc, "domain");
	int64_t major, minor, v;

	out[0] = '\0';
	if (!tracer || (strcmp(tracer, "lttng-ust") && strcmp(tracer, "lttng-modules")))
		return false;
	if (!env_int(tc, "tracer_major", &major) || !env_int(tc, "tracer_minor", &minor) ||
	    !(major >= 3 || (major == 2 && minor >= 11)))
		return false;
	if (!host || !session || !date || !looks_iso8601(date) || !domain)
		return false;
	if (append(out, size, "%s", host, 0) || append(out, size, "/%s", session, 0) ||
	    append(out, size, "-%s", date, 0) || append(out, size, "/%s", domain, 0))
		return false;
	if (!strcmp(domain, "kernel"))
		return true;
	if (strcmp(domain, "ust"))
		return false;
	{
		const char *scheme = env_str(tc, "tracer_buffering_scheme");
		if (!scheme || append(out, size, "/%s", scheme, 0))
			return false;
		if (!strcmp(scheme, "uid")) {
			if (!env_int(tc, "tracer_buffering_id", &v) ||
			    append(out, size, "/%lld", NULL, v))
				return false;
			if (!env_int(tc, "architecture_bit_width", &v) ||
			    append(out, size, "/%lld-bit", NULL, v))
				return false;
			return true;
		}
		if (!strcmp(scheme, "pid")) {
			const char *proc = env_str(tc, "procname"), *vdate = env_str(tc, "vpid_datetime");
			if (!proc || !env_int(tc, "vpid", &v) || !vdate || !looks_iso8601(vdate))
				return false;
			return !append(out, size, "/%s", proc, 0) && !append(out, size, "-%lld", NULL, v) &&
			       !append(out, size, "-%s", vdate, 0);
		}
	}
	return false;
}

/*
 * `.` and `..` components become `_` and `__`; trailing slashes go.  Only
 * whole components are copied: one cut by the size could end as `..`.
 */
void cw_sanitize_trace_path(const char *in, char *out, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	for (const char *c = in; *c;) {
		const char *end = strchr(c, '/');
		const char *comp = c;
		size_t len;

		if (!end)
			end = c + strlen(c);
		len = (size_t)(end - c);
		if (len == 1 && c[0] == '.')
			comp = "_";
		else if (len == 2 && c[0] == '.' && c[1] == '.')
			comp = "__";
		if (n + len >= size)   /* the component and the NUL */
			break;
		memcpy(out + n, comp, len);
		n += len;
		if (!*end || n + 1 >= size)
			break;
		out[n++] = '/';
		c = end + 1;
	}
	while (n > 0 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "trace");
}

int cw_mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static bool path_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

void cw_trace_dir(const struct tmx_trace *trace, const char *out_dir, char *out, size_t size)
{
	char rel[PATH_MAX], san[PATH_MAX];

	if (!cw_lttng_trace_path(trace->cls, rel, sizeof(rel)))
		snprintf(rel, sizeof(rel), "%s", trace->name && trace->name[0] ? trace->name : "trace");
	cw_sanitize_trace_path(rel, san, sizeof(san));
	snprintf(out, size, "%s/%s", out_dir, san);
	for (unsigned suffix = 0; path_exists(out); suffix++)
		snprintf(out, size, "%s/%s-%u", out_dir, san, suffix);
}
