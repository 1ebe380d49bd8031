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
 * - YAML map (`llvm-xray extract`), read with libyaml as llvm's YAMLIO
 *   reads it (yaml_io.h): a sequence of sled entries, each a mapping of
 *   id, address, function, kind, always-instrument (required),
 *   function-name, version; the id and function address of each entry are
 *   kept.  Like llvm-xray, an empty document is an empty map and anything
 *   else (a mapping, entries that are not mappings, missing or unknown
 *   keys, values of the wrong type) is refused.  Unlike it, ids below 1
 *   (never in compiler-rt's maps) are refused, and typed-event sleds are
 *   accepted, as in an ELF map.
 * - An empty file is refused (llvm-xray too); a truncated ELF file is said
 *   to be, with where it ends and what lies beyond.
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
#include <sys/stat.h>
#include <unistd.h>

#include "io/mapfile.h"
#include "xray/instrmap.h"
#include "xray/internal.h"
#include "xray/yaml_io.h"
#include "common/errors.h"
#include "common/grow.h"

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
		/* Both arrays grow alike from *cap, which moves once both have. */
		size_t ca = *cap, ch = *cap;

		if (!tmx_grow_zeroed((void **)&n->addr, &ca, id, sizeof(*n->addr), 64) ||
		    !tmx_grow_zeroed((void **)&n->has, &ch, id, sizeof(*n->has), 64))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		*cap = (uint32_t)ca;
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
			if (!tmx_grow_array((void **)&rs, &cap, n + 1, sizeof(*rs), 256)) {
				free(rs);
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
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
		if (!tmx_grow_array((void **)&n->syms, &cap, n->n_syms + 1, sizeof(*n->syms), 256))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		n->syms[n->n_syms] = (struct sym){ s.st_value, s.st_size, (uint32_t)i, strdup(name) };
		if (!n->syms[n->n_syms].name)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		n->n_syms++;
	}
	if (n->n_syms)
		qsort(n->syms, n->n_syms, sizeof(*n->syms), sym_cmp);
	return TMX_OK;
}

/*
 * A file cut short: libelf then sees no sections at all (the section
 * header table is at the end), which would read as "no xray_instr_map".
 * Said as what it is, with where the file ends and what lies beyond.
 */
static int check_truncated(Elf *elf, const GElf_Ehdr *eh, uint64_t size, const char *path,
			   struct tmx_error *err)
{
	/* e_shnum 0 with a table: the count is in entry 0 (extended numbering). */
	uint64_t n = eh->e_shnum ? eh->e_shnum : 1, table = n * eh->e_shentsize;
	uint64_t end = eh->e_shoff > UINT64_MAX - table ? UINT64_MAX : eh->e_shoff + table;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!eh->e_shoff)
		return TMX_OK;
	if (eh->e_shoff > size || end > size)
		return tmx_error_at(err, TMX_ERR_DATA, path, size, "truncated ELF file: the file "
				    "ends here, before the end of its section header table (%" PRIu64
				    " entries of %u bytes, bytes %" PRIu64 " to %" PRIu64 ")", n,
				    (unsigned)eh->e_shentsize, (uint64_t)eh->e_shoff, end);
	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_offset <= size && sh.sh_size <= size - sh.sh_offset))
			continue;
		/* Its name may be lost too: the name table is often last. */
		name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		return tmx_error_at(err, TMX_ERR_DATA, path, size, "truncated ELF file: the file "
				    "ends here, before the end of section [%zu]%s%s (bytes %" PRIu64
				    " to %" PRIu64 ")", elf_ndxscn(scn), name ? " " : "",
				    name ? name : "", (uint64_t)sh.sh_offset,
				    (uint64_t)sh.sh_offset + sh.sh_size);
	}
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
	struct stat st;
	int ret = TMX_OK;

	if (fstat(fd, &st))
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot read: %s", strerror(errno));
	if ((uint64_t)st.st_size < sizeof(Elf64_Ehdr))
		return tmx_error_at(err, TMX_ERR_DATA, path, (uint64_t)st.st_size,
				    "truncated ELF file: the file ends here, inside the %zu-byte ELF "
				    "header", sizeof(Elf64_Ehdr));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tmx_error_set(err, TMX_ERR_IO, path, "libelf: %s", elf_errmsg(-1));
	if (!(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return tmx_error_set(err, TMX_ERR_DATA, path, "not a readable ELF file: %s",
				     elf_errmsg(-1));
	if (!gelf_getehdr(elf, &eh)) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "bad ELF header: %s", elf_errmsg(-1));
		goto out;
	}
	if (gelf_getclass(elf) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		ret = tmx_error_set(err, TMX_ERR_UNSUPPORTED, path,
				    "instrumentation map: only 64-bit little-endian ELF files are "
				    "supported");
		goto out;
	}
	if ((ret = check_truncated(elf, &eh, (uint64_t)st.st_size, path, err)))
		goto out;
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "bad ELF header: %s", elf_errmsg(-1));
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

enum { SK_ID, SK_ADDRESS, SK_FUNCTION, SK_KIND, SK_ALWAYS, SK_NAME, SK_VERSION, N_SK };
static const char *const sled_keys[N_SK] = {
	"id", "address", "function", "kind", "always-instrument", "function-name", "version",
};
#define SLED_REQUIRED ((1u << SK_NAME) - 1)

/* llvm's SledEntry::FunctionKinds spellings (typed-event: as the ELF reader, accepted). */
static int sled_kind(const struct xy_parser *y, struct tmx_error *err)
{
	static const char *const kinds[] = { "function-enter", "function-exit", "tail-exit",
					     "log-args-enter", "custom-event", "typed-event" };
	const char *s;
	char buf[64];
	size_t len;
	int ret;

	if ((ret = xy_string(y, "kind", &s, &len, err)))
		return ret;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i]) == len && !memcmp(kinds[i], s, len))
			return TMX_OK;
	return xy_error(y, err, "unknown sled kind %s (expected function-enter, "
			"function-exit, tail-exit, log-args-enter, custom-event or typed-event)",
			xy_what(y, buf, sizeof(buf)));
}

/* One value of a sled entry; only the id and the function address are kept. */
static int sled_value(const struct xy_parser *y, size_t k, int64_t *id, uint64_t *fn,
		      struct tmx_error *err)
{
	const char *s;
	uint64_t u;
	size_t len;
	bool b;

	switch (k) {
	case SK_ID:
		return xy_int(y, "id", 1, MAX_FUNCS, id, err);
	case SK_ADDRESS:
		return xy_uint(y, "address", UINT64_MAX, &u, err);
	case SK_FUNCTION:
		return xy_uint(y, "function", UINT64_MAX, fn, err);
	case SK_KIND:
		return sled_kind(y, err);
	case SK_ALWAYS:
		return xy_bool(y, "always-instrument", &b, err);
	case SK_NAME:
		return xy_string(y, "function-name", &s, &len, err);
	default:
		return xy_uint(y, "version", UINT8_MAX, &u, err);
	}
}

/* One entry of the map (the current node): a mapping of llvm's YAMLXRaySledEntry keys. */
static int load_sled(struct xr_names *n, uint32_t *cap, struct xy_parser *y,
		     struct tmx_error *err)
{
	yaml_mark_t start = y->ev.start_mark;
	uint32_t seen = 0;
	int64_t id = 0;
	uint64_t fn = 0;
	size_t k = 0;
	int ret;

	if ((ret = xy_expect_mapping(y, "a sled entry", err)))
		return ret;
	for (;;) {
		if ((ret = xy_next(y, err)))
			return ret;
		if (y->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if ((ret = xy_key(y, sled_keys, N_SK, "a sled entry", &seen, &k, &start, err)) ||
		    (ret = xy_next(y, err)) || (ret = sled_value(y, k, &id, &fn, err)))
			return ret;
	}
	if ((ret = xy_missing_key(y, &start, sled_keys, N_SK, SLED_REQUIRED, seen, "a sled entry",
				  err)))
		return ret;
	/* llvm: FunctionAddresses[id] = function, the last entry of an id wins. */
	return add_func(n, cap, (uint32_t)id, fn, err);
}

/*
 * llvm-xray's YAML map (`llvm-xray extract`): one document, a sequence of
 * sled entries (or nothing at all: an empty map, as llvm takes it).
 * Anything else is refused where llvm refuses it, with the position.
 */
static int load_yaml(struct xr_names *n, const char *path, struct tmx_error *err)
{
	struct tmx_mapfile m;
	struct xy_parser y;
	uint32_t cap = 0;
	bool is_seq = false;
	int ret;

	if ((ret = tmx_mapfile_open(&m, path, err)))
		return ret;
	n->from_yaml = true;
	xy_init(&y, path, m.data, m.size, false);
	if (!(ret = xy_next(&y, err)) && !(ret = xy_next(&y, err)) &&
	    y.ev.type == YAML_DOCUMENT_START_EVENT && !(ret = xy_next(&y, err)))
		ret = xy_begin_sequence(&y, "a sequence of sled entries (llvm-xray extract's "
					"YAML)", &is_seq, err);
	while (!ret && is_seq && !(ret = xy_next(&y, err)) &&
	       y.ev.type != YAML_SEQUENCE_END_EVENT)
		ret = load_sled(n, &cap, &y, err);
	xy_fini(&y);
	tmx_mapfile_close(&m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

/*
 * The first bytes of a map (an ELF binary starts with 7f "ELF"; anything
 * else is taken as YAML, as llvm-xray does).  An empty file is neither:
 * llvm-xray refuses it too.
 */
static int map_kind(const char *path, int fd, unsigned char magic[4], struct tmx_error *err)
{
	ssize_t got = read(fd, magic, 4);

	if (got < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot read: %s", strerror(errno));
	if (got == 0)
		return tmx_error_set(err, TMX_ERR_DATA, path, "empty file: expected an instrumented "
				     "ELF binary or llvm-xray extract's YAML map");
	return TMX_OK;
}

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
		ret = map_kind(path, fd, magic, err);
		if (!ret && !memcmp(magic, "\x7f" "ELF", 4))
			ret = load_elf(n, path, fd, err);
		else if (!ret)
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
