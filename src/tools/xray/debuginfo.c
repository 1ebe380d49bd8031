/*
 * Source positions for xray-account, the way llvm-xray 14 gets them
 * (FuncIdConversionHelper::FileLineAndColumn -> llvm-symbolizer's
 * symbolizeCode -> DWARFContext::getLineInfoForAddress), with elfutils'
 * libdw reading the DWARF:
 *
 * 1. The compile unit: llvm maps an address to a unit through the address
 *    ranges of the unit DIEs (DWARFDebugAranges::generate/construct; the
 *    binaries clang makes have no .debug_aranges), merged as cu_ranges.h
 *    says.  libdw's dwarf_addrdie would need .debug_aranges (elfutils
 *    0.188), so this map is built here from dwarf_ranges() of each unit.
 * 2. The row: in that unit's line table, the last row whose address is <=
 *    the address, unless it ends a sequence (LineTable::findRowInSeq): so
 *    among rows at one address, the last -- XRay's entry sled sits at a
 *    line-0 row after the function's line row, hence llvm-xray's
 *    "sample.c:0:0".  dwarf_getsrc_die() picks exactly that row: libdw
 *    sorts the rows by address, stably, an end_sequence row before the
 *    rows of the next sequence at the same address.
 * 3. The text: "FILE:LINE:COLUMN", FILE the base name of the row's file
 *    (before DWARF 5, file index 0 names no file).  No unit, no row, no
 *    file: the STT_FILE name before a local function symbol covering the
 *    address (llvm-symbolizer's fallback) with line and column 0, else
 *    "<invalid>:0:0".
 *
 * libdw reads the line tables (versions 2-5, compressed sections, split
 * DWARF skeletons) and bounds every read; a damaged unit gives no rows,
 * hence the fallback.  The Dwarf comes from libdwfl, which applies the
 * relocations of a relocatable object's debug sections (open_dwarf()).
 * A binary without DWARF gets it from a separate debug file, searched as
 * llvm's symbolizer searches (find_separate_debuginfo()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* asprintf */
#endif
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/grow.h"
#include "tools/xray/cu_ranges.h"
#include "tools/xray/debuginfo.h"
#include "xray/instrmap.h"
#include "common/errors.h"

static char *format_pos(const char *file, uint32_t line, uint32_t col)
{
	const char *base = strrchr(file, '/');
	size_t len;
	char *s;

	base = base ? base + 1 : file;
	len = strlen(base) + 24;
	s = malloc(len);
	if (s)
		snprintf(s, len, "%s:%u:%u", base, line, col);
	return s;
}

/* ------------------------------------------------------------------ */
/* Address -> compile unit (llvm's DWARFDebugAranges: cu_ranges.h)      */
/* ------------------------------------------------------------------ */

struct unit {
	Dwarf_Die die;
	Dwarf_Half version;
};

struct unit_map {
	struct unit *units;      /* in .debug_info order */
	size_t n_units, cap_units;
	struct tmx_cu_ranges ranges;
};

/*
 * The units of `dw` and the ranges of their DIEs.  A unit whose ranges
 * cannot be read covers nothing (llvm reports the error and skips it too).
 * False: out of memory.
 */
static bool unit_map_build(struct unit_map *m, Dwarf *dw)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie;

	while (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		uint32_t idx;
		cu = next;
		if (!cudie.addr || dwarf_tag(&cudie) <= 0 || m->n_units >= UINT32_MAX)
			continue;   /* no unit DIE (libdw clears it for an unknown unit type) */
		if (!tmx_grow_array((void **)&m->units, &m->cap_units, m->n_units + 1,
				    sizeof(*m->units), 64))
			return false;
		idx = (uint32_t)m->n_units;
		m->units[m->n_units++] = (struct unit){ cudie, version };
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			if (!tmx_cu_ranges_add(&m->ranges, idx, lo, hi))
				return false;
	}
	return tmx_cu_ranges_build(&m->ranges);
}

/* "FILE:LINE:COLUMN" of `addr` from the line table, or NULL (*oom set when out of memory). */
static char *line_of(const struct unit_map *m, uint64_t addr, bool *oom)
{
	struct unit *u;
	uint32_t unit;
	Dwarf_Line *line;
	Dwarf_Files *files;
	const char *name;
	size_t file;
	int lineno, col;
	char *s;

	if (!tmx_cu_ranges_find(&m->ranges, addr, &unit))
		return NULL;
	u = &m->units[unit];
	if (!(line = dwarf_getsrc_die(&u->die, addr)))
		return NULL;
	/* File 0 is no file before DWARF 5 (the unit's version stands for its table's). */
	if (dwarf_line_file(line, &files, &file) || (u->version < 5 && file == 0) ||
	    !(name = dwarf_linesrc(line, NULL, NULL)) || dwarf_lineno(line, &lineno) ||
	    dwarf_linecol(line, &col))
		return NULL;
	/* llvm keeps both as uint32_t. */
	if (!(s = format_pos(name, (uint32_t)lineno, (uint32_t)col)))
		*oom = true;
	return s;
}

/* ------------------------------------------------------------------ */
/* The symbol table fallback                                            */
/* ------------------------------------------------------------------ */

struct sym {
	uint64_t addr, size;
	const char *file;   /* the STT_FILE before it, for a local symbol; else NULL */
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Local function symbols and the STT_FILE before them: llvm-symbolizer's file fallback. */
static void symtab_fallback(Elf *elf, const uint64_t *addrs, size_t n, char **out, bool *oom)
{
	Elf_Scn *scn = NULL, *symtab = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	struct sym *syms = NULL;
	size_t n_syms = 0, cap = 0, count;
	const char *file = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			symtab = scn;
	if (!symtab || !gelf_getshdr(symtab, &sh) || !(d = elf_getdata(symtab, NULL)) ||
	    !sh.sh_entsize)
		return;
	count = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh.sh_link, s.st_name);
			continue;
		}
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF)
			continue;
		if (!tmx_grow_array((void **)&syms, &cap, n_syms + 1, sizeof(*syms), 64)) {
			*oom = true;
			break;
		}
		syms[n_syms++] = (struct sym){ s.st_value, s.st_size,
					       GELF_ST_BIND(s.st_info) == STB_LOCAL ? file : NULL };
	}
	if (n_syms)
		qsort(syms, n_syms, sizeof(*syms), sym_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = n_syms;
		const struct sym *s;
		if (out[i])
			continue;
		/* The last symbol starting at or before the address. */
		while (lo < hi) {
			size_t m = lo + (hi - lo) / 2;
			if (syms[m].addr <= addrs[i])
				lo = m + 1;
			else
				hi = m;
		}
		if (lo == 0)
			continue;
		s = &syms[lo - 1];
		if (s->file && (s->size == 0 || addrs[i] < s->addr + s->size) &&
		    !(out[i] = format_pos(s->file, 0, 0)))
			*oom = true;
	}
	free(syms);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

/* Whether the whole file's CRC-32 (.gnu_debuglink's checksum) is `want`. */
static bool file_crc_is(int fd, uint32_t want)
{
	unsigned char buf[1 << 16];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return n == 0 && (uint32_t)crc == want && lseek(fd, 0, SEEK_SET) == 0;
}

/* Opens `path` as the separate debug file (*found: its name), or -1. */
static int open_candidate(const char *path, bool check_crc, uint32_t crc, char **found)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if ((check_crc && !file_crc_is(fd, crc)) || !(*found = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* /usr/lib/debug/.build-id/NN/NNNN....debug, not checked (as llvm). */
static int find_by_build_id(Dwfl_Module *mod, char **found)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &id, &vaddr);
	char path[sizeof("/usr/lib/debug/.build-id/") + 2 * 256 + sizeof("/.debug")];
	size_t at;

	if (len < 2 || len > 256)
		return -1;
	at = (size_t)sprintf(path, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < len; i++)
		at += (size_t)sprintf(path + at, "%02x", id[i]);
	strcpy(path + at, ".debug");
	return open_candidate(path, false, 0, found);
}

/*
 * The .gnu_debuglink name next to the binary, in its .debug directory,
 * then under /usr/lib/debug followed by the binary's absolute directory;
 * the first whose CRC matches (llvm's findDebugBinary).
 */
static int find_by_debuglink(const char *file, const char *link, uint32_t crc, char **found)
{
	const char *slash = strrchr(file, '/');
	int dir_len = slash ? (int)(slash - file + 1) : 0;   /* with its '/' */
	char cwd[PATH_MAX] = "";
	char *path = NULL;
	int fd = -1;

	if (file[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	if (asprintf(&path, "%.*s%s", dir_len, file, link) >= 0) {
		fd = open_candidate(path, true, crc, found);
		free(path);
	}
	if (fd < 0 && asprintf(&path, "%.*s.debug/%s", dir_len, file, link) >= 0) {
		fd = open_candidate(path, true, crc, found);
		free(path);
	}
	if (fd < 0 && asprintf(&path, "/usr/lib/debug%s%s%.*s%s", cwd, cwd[0] ? "/" : "",
			       dir_len, file, link) >= 0) {
		fd = open_candidate(path, true, crc, found);
		free(path);
	}
	return fd;
}

/*
 * Called by libdwfl when the binary has no DWARF of its own: the separate
 * debug file that llvm's symbolizer would use (by build ID first, then by
 * .gnu_debuglink).  Unlike llvm, a debug file is not looked for when the
 * binary has DWARF itself.
 */
static int find_separate_debuginfo(Dwfl_Module *mod, void **user, const char *name,
				   Dwarf_Addr base, const char *file, const char *debuglink,
				   GElf_Word crc, char **found)
{
	int fd;

	(void)user, (void)name, (void)base;
	fd = find_by_build_id(mod, found);
	if (fd < 0 && file && debuglink && *debuglink)
		fd = find_by_debuglink(file, debuglink, crc, found);
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,   /* not called: the file is given */
	.find_debuginfo = find_separate_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * The DWARF of `path` through libdwfl rather than dwarf_begin_elf(): in a
 * relocatable object (a .o given as the map) libdwfl applies the
 * relocations of the debug sections, with the sections laid out from
 * address 0 -- as llvm resolves them, section-relative, for an object
 * with one code section.  Executables and shared objects are read as they
 * are (base 0: the addresses are the file's, as in the map).
 */
static Dwarf *open_dwarf(const char *path, Dwfl **dwflp)
{
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	Dwarf *dw;

	if (!(*dwflp = dwfl_begin(&dwfl_callbacks)))
		return NULL;
	mod = dwfl_report_elf(*dwflp, "map", path, -1, 0, false);
	if (!mod || dwfl_report_end(*dwflp, NULL, NULL) ||
	    !(dw = dwfl_module_getdwarf(mod, &bias)))
		return NULL;
	return dw;
}

int tmx_debuginfo_lookup(const char *path, const uint64_t *addrs, size_t n, char **out,
			 struct tmx_error *err)
{
	struct unit_map map = { 0 };
	Elf *elf = NULL;
	Dwfl *dwfl = NULL;
	Dwarf *dw;
	bool oom = false;
	int fd, ret = TMX_OK;

	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tmx_error_set(err, TMX_ERR_IO, path, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "not a readable ELF file");
		goto out;
	}
	/* No DWARF at all (stripped, or built without -g): the symbol table only. */
	if ((dw = open_dwarf(path, &dwfl))) {
		if (!unit_map_build(&map, dw))
			oom = true;
		for (size_t i = 0; i < n && !oom; i++)
			out[i] = line_of(&map, addrs[i], &oom);
	}
	if (!oom)
		symtab_fallback(elf, addrs, n, out, &oom);
	for (size_t i = 0; i < n && !oom; i++)
		if (!out[i] && !(out[i] = strdup("<invalid>:0:0")))
			oom = true;
	if (oom)
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
out:
	if (ret)
		for (size_t i = 0; i < n; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	free(map.units);
	tmx_cu_ranges_free(&map.ranges);
	if (dwfl)
		dwfl_end(dwfl);   /* and its Dwarf */
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int tmx_debuginfo_xray_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				 struct tmx_error *err)
{
	/* The reader's own parse of the map: the same ids, the same relocated addresses. */
	return tmx_xray_instrmap_functions(path, addrs, n, is_elf, err);
}
