/*
 * Instrumentation maps and function names, as `llvm-xray convert` makes
 * them (llvm/lib/XRay/InstrumentationMap.cpp, tools/llvm-xray/func-id-helper.cpp).
 *
 * - ELF binary: the `xray_instr_map` section, 32-byte sled entries
 *   (address, function, kind, always_instrument, version).  Version 2+
 *   entries are PC-relative.  A zero address is taken from a relocation
 *   (R_X86_64_RELATIVE addend, R_X86_64_64 symbol + addend) at that place,
 *   as llvm does.  Function ids count from 1 in section order, a new id
 *   each time the function address changes (compiler-rt's scheme).
 * - YAML map (`llvm-xray extract`): `id` and `function` of each entry.
 * - Names (--symbolize): the ELF symbol (.symtab, else .dynsym; function
 *   and data symbols) containing the function's address, demangled when it
 *   starts with _Z (llvm-symbolizer prefers the symbol table over DWARF for
 *   ELF files; we do not read DWARF); "#id" when the id is not in the map;
 *   "@(hex address)" when no symbol covers it -- and always with a YAML
 *   map, since llvm-xray then hands the YAML file to its symbolizer, which
 *   fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/mapfile.h"
#include "xray/instrmap.h"
#include "xray/internal.h"

/* libstdc++'s demangler (the GNU one, as gcc's tools use). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SLED_SIZE 32
#define MAX_FUNCS (1u << 26)

struct xr_names {
	bool symbolize;
	uint32_t n_funcs;
	uint64_t *addr;          /* addr[id - 1] */
	bool *has;               /* has[id - 1]: the id is in the map */
	char **name;             /* name[id - 1]: llvm's text, made on first use */
	size_t *name_len;
	/* Symbols sorted by (address, size, index). */
	struct sym {
		uint64_t addr, size;
		uint32_t index;
		char *name;
	} *syms;
	size_t n_syms;
	bool from_yaml;
};

static int add_func(struct xr_names *n, uint32_t *cap, uint32_t id, uint64_t addr,
		    struct tmx_error *err)
{
	if (id == 0 || id > MAX_FUNCS)
		return tmx_error_set(err, TMX_ERR_DATA, NULL,
				     "instrumentation map: function id %" PRIu32 " out of range", id);
	if (id > *cap) {
		uint32_t c = *cap ? *cap : 64;
		uint64_t *a;
		bool *h;
		while (c < id)
			c *= 2;
		if (!(a = realloc(n->addr, (size_t)c * sizeof(*a))))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		n->addr = a;
		if (!(h = realloc(n->has, (size_t)c * sizeof(*h))))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		n->has = h;
		memset(a + *cap, 0, (size_t)(c - *cap) * sizeof(*a));
		memset(h + *cap, 0, (size_t)(c - *cap) * sizeof(*h));
		*cap = c;
	}
	n->addr[id - 1] = addr;
	n->has[id - 1] = true;
	if (id > n->n_funcs)
		n->n_funcs = id;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* ELF                                                                  */
/* ------------------------------------------------------------------ */

struct reloc {
	uint64_t off, value;
	size_t order;            /* llvm's DenseMap keeps the first one inserted */
};

static int reloc_cmp(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Relocations that llvm's resolver applies to a zero sled field: every
 * RELA section's entries keyed by their offset alone (whatever section
 * they apply to, as llvm does), valued as llvm's x86-64 resolver computes
 * them (S + A, S + A - P for PC-relative ones; the addend for RELATIVE).
 */
static int collect_relocs(Elf *elf, struct reloc **out, size_t *n_out, struct tmx_error *err)
{
	Elf_Scn *scn = NULL;
	struct reloc *rs = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *d, *symd = NULL;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0)
			continue;
		if (!(d = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_link) {
			Elf_Scn *ss = elf_getscn(elf, sh.sh_link);
			if (ss && gelf_getshdr(ss, &symsh))
				symd = elf_getdata(ss, NULL);
		}
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			uint64_t v;
			if (!gelf_getrela(d, (int)i, &rela))
				break;
			unsigned type = (unsigned)GELF_R_TYPE(rela.r_info);
			if (type == R_X86_64_RELATIVE) {
				v = (uint64_t)rela.r_addend;
			} else if (type == R_X86_64_64 || type == R_X86_64_32 || type == R_X86_64_32S ||
				   type == R_X86_64_DTPOFF32 || type == R_X86_64_DTPOFF64 ||
				   type == R_X86_64_PC32 || type == R_X86_64_PC64) {
				if (!symd || !gelf_getsym(symd, (int)GELF_R_SYM(rela.r_info), &sym))
					continue;
				v = sym.st_value + (uint64_t)rela.r_addend;
				if (type == R_X86_64_PC32 || type == R_X86_64_PC64)
					v -= rela.r_offset;
			} else {
				continue;
			}
			if (n == cap) {
				size_t c = cap ? cap * 2 : 256;
				void *p = realloc(rs, c * sizeof(*rs));
				if (!p) {
					free(rs);
					return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
				}
				rs = p;
				cap = c;
			}
			rs[n] = (struct reloc){ rela.r_offset, v, n };
			n++;
		}
	}
	if (n)   /* rs is NULL without relocations: qsort must not see it */
		qsort(rs, n, sizeof(*rs), reloc_cmp);
	*out = rs;
	*n_out = n;
	return TMX_OK;
}

static uint64_t relocate(const struct reloc *rs, size_t n, uint64_t where, uint64_t value)
{
	size_t lo = 0, hi = n;

	if (value)
		return value;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rs[mid].off < where)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* llvm's DenseMap keeps the first relocation inserted at an offset. */
	return lo < n && rs[lo].off == where ? rs[lo].value : value;
}

static int load_symbols(struct xr_names *n, Elf *elf, struct tmx_error *err)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return TMX_OK;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;
		int type;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT &&
		    type != STT_COMMON && type != STT_TLS)
			continue;
		if (s.st_shndx == SHN_UNDEF)
			continue;
		if (!(name = elf_strptr(elf, sh.sh_link, s.st_name)) || !*name)
			continue;
		if (n->n_syms == cap) {
			size_t c = cap ? cap * 2 : 256;
			void *p = realloc(n->syms, c * sizeof(*n->syms));
			if (!p)
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			n->syms = p;
			cap = c;
		}
		n->syms[n->n_syms] = (struct sym){ s.st_value, s.st_size, (uint32_t)i, strdup(name) };
		if (!n->syms[n->n_syms].name)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		n->n_syms++;
	}
	if (n->n_syms)
		qsort(n->syms, n->n_syms, sizeof(*n->syms), sym_cmp);
	return TMX_OK;
}

static int load_elf(struct xr_names *n, const char *path, int fd, struct tmx_error *err)
{
	Elf *elf;
	Elf_Scn *scn = NULL, *map = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t shstrndx;
	struct reloc *rs = NULL;
	size_t n_rs = 0;
	uint32_t cap = 0, id = 1;
	uint64_t cur_fn = 0;
	int ret = TMX_OK;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return tmx_error_set(err, TMX_ERR_IO, path, "libelf: %s", elf_errmsg(-1));
	if (!(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return tmx_error_set(err, TMX_ERR_DATA, path, "not a readable ELF file: %s",
				     elf_errmsg(-1));
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "bad ELF header: %s", elf_errmsg(-1));
		goto out;
	}
	if (gelf_getclass(elf) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		ret = tmx_error_set(err, TMX_ERR_UNSUPPORTED, path,
				    "instrumentation map: only 64-bit little-endian ELF files are "
				    "supported");
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, "xray_instr_map")) {
			map = scn;
			break;
		}
	}
	if (!map || !(d = elf_getdata(map, NULL))) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path,
				    "no xray_instr_map section: not built with -fxray-instrument?");
		goto out;
	}
	if (d->d_size % SLED_SIZE) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path,
				    "xray_instr_map: %zu bytes, not a multiple of the 32-byte "
				    "sled entry", d->d_size);
		goto out;
	}
	if ((ret = collect_relocs(elf, &rs, &n_rs, err)))
		goto out;
	for (size_t off = 0; off + SLED_SIZE <= d->d_size; off += SLED_SIZE) {
		const uint8_t *e = (const uint8_t *)d->d_buf + off;
		uint64_t where = sh.sh_addr + off;
		uint64_t address = relocate(rs, n_rs, where, xr_u64(e));
		uint64_t function = relocate(rs, n_rs, where + 8, xr_u64(e + 8));
		(void)address;
		if (e[16] > 5) {
			ret = tmx_error_set(err, TMX_ERR_DATA, path,
					    "xray_instr_map entry %zu: unknown sled kind %u",
					    off / SLED_SIZE, e[16]);
			goto out;
		}
		if (e[18] >= 2)
			function += off + 8 + sh.sh_addr;
		if (cur_fn == 0) {
			cur_fn = function;
			if ((ret = add_func(n, &cap, id, function, err)))
				goto out;
		}
		if (function != cur_fn) {
			id++;
			cur_fn = function;
			if ((ret = add_func(n, &cap, id, function, err)))
				goto out;
		}
	}
	if (n->symbolize)
		ret = load_symbols(n, elf, err);
out:
	free(rs);
	elf_end(elf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* YAML (llvm-xray extract)                                             */
/* ------------------------------------------------------------------ */

/* A decimal or 0x-hexadecimal integer at [p, end), bounded (no strtoull past the map). */
static bool parse_uint(const char *p, const char *end, uint64_t *v)
{
	unsigned base = 10;
	uint64_t x = 0;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; p < end; p++, digits++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*v = x;
	return digits > 0;
}

/* The value after `key:` in [start, end), as an integer (decimal or 0x hex). */
static bool yaml_int(const char *start, const char *end, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);

	for (const char *p = start; p + klen < end; p++) {
		const char *q;
		if (memcmp(p, key, klen) || p[klen] != ':')
			continue;
		/* A whole key: preceded by a separator. */
		if (p > start && p[-1] != ' ' && p[-1] != '{' && p[-1] != ',' && p[-1] != '\n' &&
		    p[-1] != '\t')
			continue;
		q = p + klen + 1;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		return parse_uint(q, end, v);
	}
	return false;
}

static int load_yaml(struct xr_names *n, const char *path, struct tmx_error *err)
{
	struct tmx_mapfile m;
	const char *s, *end, *entry;
	uint32_t cap = 0;
	int ret;

	if ((ret = tmx_mapfile_open(&m, path, err)))
		return ret;
	s = (const char *)m.data;
	end = s + m.size;
	n->from_yaml = true;
	/* Entries start with "- " at the start of a line. */
	for (entry = s; entry && entry < end;) {
		const char *next = entry + 1, *line;
		uint64_t id, fn;
		while ((line = memchr(next, '\n', (size_t)(end - next))) &&
		       !(line + 1 < end && line[1] == '-' && (line + 2 >= end || line[2] == ' ')))
			next = line + 1;
		next = line ? line + 1 : end;
		if (entry[0] == '-' && yaml_int(entry, next, "id", &id) &&
		    yaml_int(entry, next, "function", &fn)) {
			if (id == 0 || id > MAX_FUNCS) {
				ret = tmx_error_set(err, TMX_ERR_DATA, path,
						    "instrumentation map: function id %" PRIu64
						    " out of range", id);
				break;
			}
			if ((ret = add_func(n, &cap, (uint32_t)id, fn, err)))
				break;
		}
		entry = next;
	}
	tmx_mapfile_close(&m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

int xr_names_load(const char *path, bool symbolize, const struct tmx_diag *diag,
		  struct xr_names **out, struct tmx_error *err)
{
	struct xr_names *n = calloc(1, sizeof(*n));
	unsigned char magic[4] = { 0 };
	int fd, ret = TMX_OK;

	(void)diag;
	*out = NULL;
	if (!n)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	n->symbolize = symbolize;
	if (path) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			free(n);
			return tmx_error_set(err, TMX_ERR_IO, path, "cannot open: %s",
					     strerror(errno));
		}
		if (read(fd, magic, 4) == 4 && !memcmp(magic, "\x7f" "ELF", 4))
			ret = load_elf(n, path, fd, err);
		else
			ret = load_yaml(n, path, err);
		close(fd);
		if (ret)
			tmx_error_prefix(err, "instrumentation map");
	}
	if (!ret && n->n_funcs) {
		n->name = calloc(n->n_funcs, sizeof(*n->name));
		n->name_len = calloc(n->n_funcs, sizeof(*n->name_len));
		if (!n->name || !n->name_len)
			ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	if (ret) {
		xr_names_free(n);
		return ret;
	}
	*out = n;
	return TMX_OK;
}

void xr_names_free(struct xr_names *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; n->name && i < n->n_funcs; i++)
		free(n->name[i]);
	for (size_t i = 0; i < n->n_syms; i++)
		free(n->syms[i].name);
	free(n->syms);
	free(n->name);
	free(n->name_len);
	free(n->addr);
	free(n->has);
	free(n);
}

int tmx_xray_instrmap_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				struct tmx_error *err)
{
	struct xr_names *names;
	unsigned char magic[4];
	int fd, ret;

	*addrs = NULL;
	*n = 0;
	*is_elf = false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open: %s", strerror(errno));
	if (read(fd, magic, 4) != 4 || memcmp(magic, "\x7f" "ELF", 4)) {
		close(fd);
		return TMX_OK;
	}
	*is_elf = true;
	if (!(names = calloc(1, sizeof(*names)))) {
		close(fd);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	ret = load_elf(names, path, fd, err);   /* symbolize off: addresses only */
	close(fd);
	if (ret) {
		tmx_error_prefix(err, "instrumentation map");
	} else {
		*addrs = names->addr;   /* ids are dense from 1 in an ELF map */
		*n = names->n_funcs;
		names->addr = NULL;
	}
	xr_names_free(names);
	return ret;
}

/* Decimal text of v (the hot path of every record without --symbolize). */
static size_t fmt_i32(char *buf, int32_t v)
{
	char tmp[12];
	uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

/* The symbol whose range holds `addr` (llvm's getNameFromSymbolTable). */
static const struct sym *find_sym(const struct xr_names *n, uint64_t addr)
{
	size_t lo = 0, hi = n->n_syms;
	const struct sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (n->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &n->syms[lo - 1];
	/* Same address and size: llvm keeps one; take the first in the table. */
	while (s > n->syms && s[-1].addr == s->addr && s[-1].size == s->size)
		s--;
	if (s->size != 0 && s->addr + s->size <= addr)
		return NULL;
	return s;
}

static char *make_name(const struct xr_names *n, uint64_t addr)
{
	const struct sym *s = n->from_yaml ? NULL : find_sym(n, addr);
	char *r;

	if (!s) {
		char buf[32];
		snprintf(buf, sizeof(buf), "@(%" PRIx64 ")", addr);
		return strdup(buf);
	}
	if (!strncmp(s->name, "_Z", 2)) {
		int status = 0;
		if ((r = __cxa_demangle(s->name, NULL, NULL, &status)) && status == 0)
			return r;
		free(r);
	}
	return strdup(s->name);
}

const char *xr_names_get(const struct xr_names *n, int32_t func_id, char buf[32], size_t *len)
{
	uint32_t i;

	if (!n || !n->symbolize) {
		*len = fmt_i32(buf, func_id);
		return buf;
	}
	if (func_id <= 0 || (uint32_t)func_id > n->n_funcs || !n->has[func_id - 1]) {
		buf[0] = '#';
		*len = 1 + fmt_i32(buf + 1, func_id);
		return buf;
	}
	i = (uint32_t)func_id - 1;
	if (!n->name[i]) {
		/* Names are made once per function; the cache is logically const. */
		struct xr_names *w = (struct xr_names *)n;
		if (!(w->name[i] = make_name(n, n->addr[i]))) {
			*len = fmt_i32(buf, func_id);
			return buf;
		}
		w->name_len[i] = strlen(w->name[i]);
	}
	*len = n->name_len[i];
	return n->name[i];
}
