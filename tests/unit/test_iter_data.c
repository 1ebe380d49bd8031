/*
 * Bit-level decoding cases of yactfr (corpus yactfr-tests/iter-data/ctf-1).
 *
 * Each case has a metadata file, a binary data stream and yactfr's element
 * dump.  We decode the stream with our decoder and compare the sequence of
 * leaf values (integers, floats, strings, event record names) with the
 * leaves of yactfr's dump: names, values and order must agree.  A `fail-*`
 * case must end in a decoding error after exactly the leaves yactfr
 * produced before its error.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"
#include "io/mapfile.h"

#define CASES_DIR TMX_CORPUS "/yactfr-tests/iter-data/ctf-1"

/* A growable list of leaf lines. */
struct leaves {
	char **v;
	size_t n, cap;
};

static void leaves_add(struct leaves *l, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = strdup(buf);
}

static void leaves_free(struct leaves *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* yactfr's raw data notation: printable bytes as is, others as $xx. */
static void escape_bytes(char *out, size_t size, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '$')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, size - o, "$%02x", c);
	}
	out[o] = '\0';
}

/* ---- our side: walk decoded values ---- */

static size_t walk(const struct tmx_value *v, size_t i, size_t n, const char *name,
		   struct leaves *out)
{
	const struct tmx_field_class *fc;
	char sep[2] = { ':', '\0' };
	char text[4096];

	if (i >= n)
		return n;
	fc = v[i].fc;
	if (!name) {
		name = "";
		sep[0] = '\0';
	}
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		if (fc->is_signed)
			leaves_add(out, "FLSI:%s%s%lld", name, sep, (long long)v[i].s);
		else
			leaves_add(out, "FLUI:%s%s%llu", name, sep, (unsigned long long)v[i].u);
		return i + 1;
	case TMX_FC_FLOAT:
		leaves_add(out, "FLFPN:%s%s%g", name, sep, v[i].d);
		return i + 1;
	case TMX_FC_STRING:
		escape_bytes(text, sizeof(text), v[i].str.ptr, v[i].str.len);
		leaves_add(out, "STR:%s:%s", name, text);
		return i + 1;
	case TMX_FC_STRUCT: {
		uint32_t m = v[i].n_members;
		i++;
		for (uint32_t k = 0; k < m && i < n; k++)
			i = walk(v, i, n, fc->members[k].name, out);
		return i;
	}
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (fc->is_text) {
			escape_bytes(text, sizeof(text), v[i].str.ptr, v[i].str.len);
			leaves_add(out, "STR:%s:%s", name, text);
			return i + 1;
		} else {
			uint64_t count = v[i].count;
			i++;
			for (uint64_t k = 0; k < count && i < n; k++)
				i = walk(v, i, n, NULL, out);
			return i;
		}
	case TMX_FC_VARIANT:
		return walk(v, i + 1, n, fc->members[v[i].option].name, out);
	}
	return n;
}

static void walk_all(const struct ctf_values *vals, struct leaves *out)
{
	size_t i = 0;

	while (i < vals->n)
		i = walk(vals->v, i, vals->n, NULL, out);
}

/* Decodes the whole stream; returns whether it ended in an error. */
static bool decode_stream(const struct tmx_trace_class *tc, const char *path,
			  struct leaves *out)
{
	struct tmx_mapfile map;
	struct tmx_error err = { 0 };
	struct ctf_decoder d;
	uint64_t off = 0;
	bool failed = false;

	assert_int_equal(tmx_mapfile_open(&map, path, &err), TMX_OK);
	assert_int_equal(ctf_decoder_init(&d, tc, path, map.data, map.size, &err), TMX_OK);
	while (!failed && off < map.size) {
		struct ctf_packet_info info;

		d.header.n = d.packet_context.n = 0;
		failed = ctf_decode_packet_start(&d, off, &info, &err) != TMX_OK;
		walk_all(&d.header, out);
		walk_all(&d.packet_context, out);
		while (!failed) {
			const struct tmx_event_class *ec = NULL;
			size_t scopes[TMX_N_SCOPES];
			bool more;

			d.event.n = 0;
			failed = ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err) != TMX_OK;
			if (!failed && !more)
				break;
			/* yactfr names the event record after its header. */
			if (failed) {
				walk_all(&d.event, out);
				break;
			}
			{
				size_t first = scopes[TMX_SCOPE_COMMON_CONTEXT];
				struct ctf_values head = d.event, rest = d.event;
				for (int s = TMX_SCOPE_SPECIFIC_CONTEXT; s < TMX_N_SCOPES && first == SIZE_MAX; s++)
					first = scopes[s];
				if (first == SIZE_MAX)
					first = d.event.n;
				head.n = first;
				walk_all(&head, out);
				leaves_add(out, "ER:%s", ec->name);
				rest.v = d.event.v + first;
				rest.n = d.event.n - first;
				walk_all(&rest, out);
			}
		}
		off += info.packet_bits / 8;
	}
	ctf_decoder_fini(&d);
	tmx_mapfile_close(&map);
	return failed;
}

/* ---- yactfr's side: leaves of the element dump ---- */

static bool read_expected(const char *path, struct leaves *out)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	char str[8192];
	char str_name[512];
	bool in_str = false, nts = false, failed = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		line[strcspn(line, "\n")] = '\0';
		while (*p == ' ')
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p != ' ') {
			failed = true;  /* the error message line */
			break;
		}
		while (*p == ' ')
			p++;
		if (in_str) {
			if (!strncmp(p, "RD:", 3)) {
				char *text = strchr(p + 3, ':');
				strncat(str, text + 1, sizeof(str) - strlen(str) - 1);
			} else if (*p == '}') {
				if (nts && strstr(str, "$00"))
					*strstr(str, "$00") = '\0';
				leaves_add(out, "STR:%s:%s", str_name, str);
				in_str = false;
			}
			continue;
		}
		if (!strncmp(p, "FLUI:", 5) || !strncmp(p, "FLSI:", 5) || !strncmp(p, "FLFPN:", 6)) {
			leaves_add(out, "%s", p);
		} else if (!strncmp(p, "NTS:", 4) || !strncmp(p, "SLS:", 4) || !strncmp(p, "DLS:", 4)) {
			nts = p[0] == 'N';
			snprintf(str_name, sizeof(str_name), "%.*s", (int)strcspn(p + 4, " {"), p + 4);
			str[0] = '\0';
			in_str = true;
		} else if (!strncmp(p, "ERI:", 4)) {
			leaves_add(out, "ER:%s", strchr(p, '#') + 1);
		}
	}
	fclose(f);
	return failed;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/*
 * yactfr's "ERI" line comes after the event record header; we print the
 * event name where yactfr does: after the header leaves.  Returns true when
 * both sides agree.
 */
static bool run_case(const char *name)
{
	char path[1024];
	struct tmx_arena arena;
	struct tmx_trace_class *tc = NULL;
	struct tmx_error err = { 0 };
	struct leaves ours = { 0 }, theirs = { 0 };
	bool ok = true, ours_failed, theirs_failed;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/%s/metadata", CASES_DIR, name);
	text = read_file(path, &len);
	tmx_arena_init(&arena);
	if (ctf_metadata_parse(text, len, path, NULL, &arena, &tc, &err) != TMX_OK) {
		char msg[2048];
		tmx_error_format(&err, msg, sizeof(msg));
		/* A fail case may be rejected by the metadata already. */
		ok = strncmp(name, "fail-", 5) == 0;
		if (!ok)
			print_message("%s: metadata rejected: %s\n", name, msg);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s/stream", CASES_DIR, name);
	ours_failed = decode_stream(tc, path, &ours);
	snprintf(path, sizeof(path), "%s/%s/expect.txt", CASES_DIR, name);
	theirs_failed = read_expected(path, &theirs);
	if (ours_failed != theirs_failed) {
		print_message("%s: decoding %s but yactfr %s\n", name,
			      ours_failed ? "failed" : "succeeded",
			      theirs_failed ? "fails" : "succeeds");
		ok = false;
	}
	for (size_t i = 0; i < ours.n || i < theirs.n; i++) {
		const char *a = i < ours.n ? ours.v[i] : "(end)";
		const char *b = i < theirs.n ? theirs.v[i] : "(end)";
		if (strcmp(a, b) != 0) {
			print_message("%s: leaf %zu: ours `%s`, yactfr `%s`\n", name, i, a, b);
			ok = false;
			break;
		}
	}
out:
	leaves_free(&ours);
	leaves_free(&theirs);
	tmx_arena_free(&arena);
	free(text);
	return ok;
}

/*
 * Cases where yactfr and babeltrace2 (whose behaviour we follow) differ,
 * with the reason.  None yet.
 */
static const char *const known_differences[] = {
	NULL,
};

static bool is_known_difference(const char *name)
{
	for (size_t i = 0; known_differences[i]; i++)
		if (!strcmp(known_differences[i], name))
			return true;
	return false;
}

static void test_all_cases(void **state)
{
	DIR *d = opendir(CASES_DIR);
	struct dirent *de;
	int cases = 0, failures = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;   /* the .streams moultipart sources */
		cases++;
		if (!run_case(de->d_name) && !is_known_difference(de->d_name))
			failures++;
	}
	closedir(d);
	print_message("%d cases, %d failures\n", cases, failures);
	assert_int_equal(cases, 70);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
