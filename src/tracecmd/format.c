/*
 * The tracefs `format` files a trace.dat carries (one per event) and the
 * header_page description.  A format file reads:
 *
 *   name: sched_switch
 *   ID: 316
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...                          (common fields, then one empty line)
 *   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *   	field:__data_loc char[] name;	offset:24;	size:4;	signed:0;
 *
 *   print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 *
 * Only the layout is parsed here; the print fmt is kept verbatim.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/internal.h"

#define MAX_FIELDS 4096

struct line {
	const char *p;
	size_t n;
};

static bool next_line(const char **pos, const char *end, struct line *l)
{
	const char *s = *pos, *nl;

	if (s >= end)
		return false;
	nl = memchr(s, '\n', (size_t)(end - s));
	l->p = s;
	l->n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*pos = nl ? nl + 1 : end;
	return true;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l->n >= n && !memcmp(l->p, prefix, n);
}

static void trim(const char **p, size_t *n)
{
	while (*n && isspace((unsigned char)**p))
		(*p)++, (*n)--;
	while (*n && isspace((unsigned char)(*p)[*n - 1]))
		(*n)--;
}

/* Reads a decimal number after `key` in l (e.g. "offset:"); false if absent. */
static bool key_number(const struct line *l, const char *key, uint64_t *v)
{
	size_t kn = strlen(key);
	for (size_t i = 0; i + kn <= l->n; i++) {
		if (memcmp(l->p + i, key, kn))
			continue;
		size_t j = i + kn;
		uint64_t x = 0;
		bool any = false;
		while (j < l->n && (l->p[j] == ' ' || l->p[j] == '\t'))
			j++;
		while (j < l->n && l->p[j] >= '0' && l->p[j] <= '9') {
			if (x > (UINT64_MAX - 9) / 10)
				return false;
			x = x * 10 + (uint64_t)(l->p[j++] - '0');
			any = true;
		}
		*v = x;
		return any;
	}
	return false;
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Size of one element of a base C type as the kernel writes it (0: unknown). */
static uint32_t base_type_size(const char *t, uint32_t kernel_long)
{
	static const struct { const char *name; uint32_t size; } known[] = {
		{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "u8", 1 },
		{ "s8", 1 }, { "__u8", 1 }, { "__s8", 1 }, { "bool", 1 }, { "_Bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "__u16", 2 }, { "__s16", 2 }, { "int", 4 }, { "unsigned int", 4 },
		{ "unsigned", 4 }, { "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 },
		{ "pid_t", 4 }, { "long long", 8 }, { "unsigned long long", 8 }, { "u64", 8 },
		{ "s64", 8 }, { "__u64", 8 }, { "__s64", 8 },
	};
	if (strchr(t, '*'))
		return kernel_long;
	if (!strcmp(t, "long") || !strcmp(t, "unsigned long") || !strcmp(t, "long int") ||
	    !strcmp(t, "unsigned long int") || !strcmp(t, "size_t") || !strcmp(t, "ssize_t"))
		return kernel_long;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(t, known[i].name))
			return known[i].size;
	return 0;
}

static bool type_is_char(const char *t)
{
	/* libtraceevent: char arrays are strings; "unsigned char" arrays too. */
	const char *c = strstr(t, "char");
	return c && (c == t || !is_ident(c[-1])) && !is_ident(c[4]);
}

/*
 * Splits a declaration "TYPE NAME", "TYPE NAME[N]", "__data_loc TYPE[] NAME"
 * into its parts.
 */
static int parse_decl(struct tmx_arena *a, const char *d, size_t n, struct tdat_field *fld,
		      uint32_t kernel_long, const char **why)
{
	const char *name_end, *name_start, *br = NULL;
	size_t tn;
	char *type;

	trim(&d, &n);
	if (!n)
		return *why = "empty field declaration", -1;
	name_end = d + n;
	/* NAME[N]: the array part follows the name. */
	if (d[n - 1] == ']') {
		const char *o = d + n - 1;
		while (o > d && *o != '[')
			o--;
		if (*o != '[')
			return *why = "unbalanced [ in a field declaration", -1;
		br = o;
		name_end = o;
	}
	name_start = name_end;
	while (name_start > d && is_ident(name_start[-1]))
		name_start--;
	if (name_start == name_end || (*name_start >= '0' && *name_start <= '9'))
		return *why = "field declaration without a name", -1;
	tn = (size_t)(name_start - d);
	while (tn && isspace((unsigned char)d[tn - 1]))
		tn--;
	if (!tn)
		return *why = "field declaration without a type", -1;
	fld->name = tmx_arena_strndup(a, name_start, (size_t)(name_end - name_start));
	type = tmx_arena_strndup(a, d, tn);
	if (!fld->name || !type)
		return *why = "out of memory", -1;
	fld->type = type;
	if (br) {
		uint64_t cnt = 0;
		const char *q = br + 1;
		bool numeric = q < d + n - 1;
		for (; q < d + n - 1; q++) {
			if (*q < '0' || *q > '9') {
				numeric = false;
				break;
			}
			cnt = cnt * 10 + (uint64_t)(*q - '0');
			if (cnt > UINT32_MAX)
				return *why = "array length too large", -1;
		}
		fld->flags |= TDAT_FIELD_ARRAY;
		fld->count = numeric ? (uint32_t)cnt : 0;
	}
	if (!strncmp(type, "__data_loc", 10) && (type[10] == ' ' || type[10] == '\0'))
		fld->flags |= TDAT_FIELD_DYNAMIC;
	else if (!strncmp(type, "__rel_loc", 9) && (type[9] == ' ' || type[9] == '\0'))
		fld->flags |= TDAT_FIELD_DYNAMIC | TDAT_FIELD_RELATIVE;
	if (fld->flags & TDAT_FIELD_DYNAMIC) {
		/* "__data_loc char[]": element type between the keyword and "[]". */
		const char *et = type + ((fld->flags & TDAT_FIELD_RELATIVE) ? 9 : 10);
		size_t en = strlen(et);
		char tmp[128];
		while (en && (et[en - 1] == ']' || et[en - 1] == '[' || et[en - 1] == ' '))
			en--;
		while (en && *et == ' ')
			et++, en--;
		if (en >= sizeof(tmp))
			en = sizeof(tmp) - 1;
		memcpy(tmp, et, en);
		tmp[en] = '\0';
		fld->elem_size = base_type_size(tmp, kernel_long);
		if (!fld->elem_size)
			fld->elem_size = 1;
		if (type_is_char(tmp))
			fld->flags |= TDAT_FIELD_STRING;
		fld->flags &= ~(uint32_t)TDAT_FIELD_ARRAY;
		fld->count = 0;
	} else if (fld->flags & TDAT_FIELD_ARRAY) {
		if (type_is_char(type))
			fld->flags |= TDAT_FIELD_STRING;
	}
	if (strchr(type, '*'))
		fld->flags |= TDAT_FIELD_POINTER;
	if (!strcmp(type, "long") || !strcmp(type, "unsigned long"))
		fld->flags |= TDAT_FIELD_LONG;
	return 0;
}

int tdat_parse_format(struct tmx_arena *a, const char *system, const char *text, size_t len,
		      uint32_t kernel_long, const struct tdat_event **out, const char **why)
{
	const char *pos = text, *end = text + len;
	struct tdat_event *ev = tmx_arena_calloc(a, 1, sizeof(*ev));
	struct tdat_field *fields = NULL;
	size_t n = 0, cap = 0;
	bool have_id = false, have_name = false, in_format = false, seen_blank = false;
	struct line l;

	*out = NULL;
	if (!ev)
		return *why = "out of memory", -1;
	ev->system = tmx_arena_strdup(a, system);
	ev->format.ptr = text;
	ev->format.len = len;
	while (next_line(&pos, end, &l)) {
		struct line t = l;
		trim(&t.p, &t.n);
		if (starts(&l, "name:")) {
			const char *p = l.p + 5;
			size_t m = l.n - 5;
			trim(&p, &m);
			ev->name = tmx_arena_strndup(a, p, m);
			have_name = true;
		} else if (starts(&l, "ID:")) {
			uint64_t id;
			if (!key_number(&l, "ID:", &id) || id > UINT32_MAX)
				return *why = "bad ID line", -1;
			ev->id = (uint32_t)id;
			have_id = true;
		} else if (starts(&l, "format:")) {
			in_format = true;
		} else if (starts(&l, "print fmt:")) {
			const char *p = l.p + 10;
			/* The print fmt runs to the end of the file. */
			size_t m = (size_t)(end - p);
			while (m && (*p == ' '))
				p++, m--;
			while (m && (p[m - 1] == '\n' || p[m - 1] == '\0'))
				m--;
			ev->print_fmt.ptr = p;
			ev->print_fmt.len = m;
			break;
		} else if (in_format && t.n == 0) {
			if (n)
				seen_blank = true;
		} else if (in_format && t.n >= 6 && !memcmp(t.p, "field:", 6)) {
			const char *semi = memchr(t.p, ';', t.n);
			uint64_t off, size, sgn = 0;
			struct tdat_field fld = { 0 };
			if (!semi)
				return *why = "field line without ';'", -1;
			if (!key_number(&t, "offset:", &off) || !key_number(&t, "size:", &size))
				return *why = "field line without offset or size", -1;
			key_number(&t, "signed:", &sgn);
			if (off > UINT32_MAX || size > UINT32_MAX || off + size > UINT32_MAX)
				return *why = "field offset or size too large", -1;
			if (parse_decl(a, t.p + 6, (size_t)(semi - (t.p + 6)), &fld, kernel_long, why))
				return -1;
			fld.offset = (uint32_t)off;
			fld.size = (uint32_t)size;
			if (sgn)
				fld.flags |= TDAT_FIELD_SIGNED;
			if (!seen_blank)
				fld.flags |= TDAT_FIELD_COMMON;
			if (fld.flags & TDAT_FIELD_DYNAMIC) {
				/* The 32-bit location word (offset, length). */
				if (!fld.size)
					fld.size = 4;
			} else if (fld.flags & TDAT_FIELD_ARRAY) {
				if (fld.count && fld.size % fld.count == 0)
					fld.elem_size = fld.size / fld.count;
				else {
					/* Length not a plain number: bytes. */
					fld.elem_size = 1;
					fld.count = fld.size;
				}
			} else {
				fld.elem_size = fld.size;
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 16;
				if (nc > MAX_FIELDS)
					return *why = "too many fields", -1;
				fields = tmx_arena_grow(a, fields, cap, nc, sizeof(*fields));
				if (!fields)
					return *why = "out of memory", -1;
				cap = nc;
			}
			fields[n++] = fld;
		}
	}
	if (!have_name || !ev->name)
		return *why = "no 'name:' line", -1;
	if (!have_id)
		return *why = "no 'ID:' line", -1;
	ev->fields = fields;
	ev->n_fields = n;
	for (size_t i = 0; i < n && (fields[i].flags & TDAT_FIELD_COMMON); i++)
		ev->n_common = i + 1;
	/* A file without the blank separator: common_* by name. */
	if (!seen_blank) {
		ev->n_common = 0;
		for (size_t i = 0; i < n; i++) {
			if (!strncmp(fields[i].name, "common_", 7) && ev->n_common == i)
				ev->n_common = i + 1;
			else
				fields[i].flags &= ~(uint32_t)TDAT_FIELD_COMMON;
		}
	}
	*out = ev;
	return 0;
}

bool tdat_parse_header_page(const char *text, size_t len, uint32_t *long_size,
			    uint32_t *data_offset)
{
	const char *pos = text, *end = text + len;
	struct line l;
	bool have_commit = false, have_data = false;

	while (next_line(&pos, end, &l)) {
		uint64_t off, size;
		struct line t = l;
		trim(&t.p, &t.n);
		if (!key_number(&t, "offset:", &off) || !key_number(&t, "size:", &size))
			continue;
		/* "field: local_t commit;" / "field: char data;" */
		const char *semi = memchr(t.p, ';', t.n);
		if (!semi)
			continue;
		const char *q = semi;
		while (q > t.p && is_ident(q[-1]))
			q--;
		size_t nn = (size_t)(semi - q);
		if (nn == 6 && !memcmp(q, "commit", 6)) {
			if (size != 4 && size != 8)
				return false;
			*long_size = (uint32_t)size;
			have_commit = true;
		} else if (nn == 4 && !memcmp(q, "data", 4)) {
			if (off > 64)
				return false;
			*data_offset = (uint32_t)off;
			have_data = true;
		}
	}
	return have_commit && have_data;
}
