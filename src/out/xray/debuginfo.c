/*
 * DWARF line tables (.debug_line, versions 2-5), read for a handful of
 * addresses in one pass: the rows of one sequence at a time are kept, and
 * each requested address inside the sequence gets its row the way LLVM's
 * DWARFDebugLine::LineTable::findRowInSeq picks it: the last row whose
 * address is <= the address (so among rows at the same address, the last:
 * XRay's entry sled sits at a line-0 row after the function's line row,
 * hence llvm-xray's "sample.c:0:0").  Every read is bounded by its
 * section; a damaged unit is abandoned, not trusted.
 */
#define _GNU_SOURCE   /* qsort_r */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/xray/debuginfo.h"

/* A bounded little-endian reader: past the end it reads zeros and sets `bad`. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_u(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (r->p < r->end) {
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	r->bad = true;
	return 0;
}

/* A NUL-terminated string inside the reader's bounds, or NULL. */
static const char *rd_cstr(struct rd *r)
{
	const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
	const char *s = (const char *)r->p;

	if (!nul) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	r->p = nul + 1;
	return s;
}

struct section {
	const uint8_t *data;
	size_t size;
};

/* A string at `off` in a string section, or NULL. */
static const char *str_at(const struct section *s, uint64_t off)
{
	if (!s->data || off >= s->size || !memchr(s->data + off, 0, s->size - off))
		return NULL;
	return (const char *)s->data + off;
}

struct sym {
	uint64_t addr, size;
	const char *file;   /* the STT_FILE before it, for a local symbol; else NULL */
};

struct ctx {
	struct section line, line_str, str;
	const uint64_t *addrs;
	const size_t *order;     /* addrs[order[0..n)] ascending */
	size_t n;
	char **out;
	/* The rows of the current sequence. */
	struct row {
		uint64_t addr;
		uint64_t file;
		uint32_t line, col;
	} *rows;
	size_t n_rows, cap_rows;
	/* File names of the current unit (NULL: unknown). */
	const char **files;
	size_t n_files, cap_files;
	bool oom;
};

static bool push(void **p, size_t *cap, size_t n, size_t elem)
{
	size_t cap2 = *cap ? *cap * 2 : 64;
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*p, cap2 * elem);
	if (!q)
		return false;
	*p = q;
	*cap = cap2;
	return true;
}

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

/* A finished sequence (its last row is the end_sequence one): resolve the addresses in it. */
static void end_sequence(struct ctx *c, unsigned version)
{
	uint64_t low, high;
	size_t lo = 0, hi = c->n;

	if (c->n_rows < 2)
		goto done;
	low = c->rows[0].addr;
	high = c->rows[c->n_rows - 1].addr;
	if (low >= high)
		goto done;
	/* The first requested address >= low. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->addrs[c->order[mid]] < low)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < c->n && c->addrs[c->order[k]] < high; k++) {
		size_t i = c->order[k], a = 0, b = c->n_rows - 1;
		uint64_t addr = c->addrs[i], fi;
		const struct row *r;
		const char *name;
		if (c->out[i])
			continue;
		/* The last row among rows[0 .. n_rows-1) with address <= addr. */
		while (a + 1 < b) {
			size_t m = a + (b - a) / 2;
			if (c->rows[m].addr <= addr)
				a = m;
			else
				b = m;
		}
		r = &c->rows[a];
		fi = version >= 5 ? r->file : r->file - 1;   /* 1-based before DWARF 5 */
		name = fi < c->n_files ? c->files[fi] : NULL;
		if (!name)
			continue;
		if (!(c->out[i] = format_pos(name, r->line, r->col)))
			c->oom = true;
	}
done:
	c->n_rows = 0;
}

static bool add_file(struct ctx *c, const char *name)
{
	if (!push((void **)&c->files, &c->cap_files, c->n_files, sizeof(*c->files))) {
		c->oom = true;
		return false;
	}
	c->files[c->n_files++] = name;
	return true;
}

enum {
	DW_FORM_block = 0x09, DW_FORM_block1 = 0x0a, DW_FORM_data1 = 0x0b, DW_FORM_data2 = 0x05,
	DW_FORM_data4 = 0x06, DW_FORM_data8 = 0x07, DW_FORM_data16 = 0x1e, DW_FORM_string = 0x08,
	DW_FORM_strp = 0x0e, DW_FORM_udata = 0x0f, DW_FORM_sdata = 0x0d, DW_FORM_sec_offset = 0x17,
	DW_FORM_line_strp = 0x1f, DW_FORM_strx = 0x1a, DW_FORM_strx1 = 0x25, DW_FORM_strx2 = 0x26,
	DW_FORM_strx3 = 0x27, DW_FORM_strx4 = 0x28,
	DW_LNCT_path = 1,
};

/* Reads (or skips) one attribute value of a v5 entry; *str gets a string value. */
static bool read_form(struct ctx *c, struct rd *r, uint64_t form, unsigned offsize,
		      const char **str)
{
	*str = NULL;
	switch (form) {
	case DW_FORM_string: *str = rd_cstr(r); break;
	case DW_FORM_line_strp: *str = str_at(&c->line_str, rd_u(r, offsize)); break;
	case DW_FORM_strp: *str = str_at(&c->str, rd_u(r, offsize)); break;
	case DW_FORM_sec_offset: rd_u(r, offsize); break;
	case DW_FORM_udata: case DW_FORM_strx: rd_uleb(r); break;
	case DW_FORM_sdata: rd_sleb(r); break;
	case DW_FORM_data1: case DW_FORM_strx1: rd_u(r, 1); break;
	case DW_FORM_data2: case DW_FORM_strx2: rd_u(r, 2); break;
	case DW_FORM_strx3: rd_u(r, 3); break;
	case DW_FORM_data4: case DW_FORM_strx4: rd_u(r, 4); break;
	case DW_FORM_data8: rd_u(r, 8); break;
	case DW_FORM_data16: rd_u(r, 8); rd_u(r, 8); break;
	case DW_FORM_block1: {
		uint64_t n = rd_u(r, 1);
		if ((uint64_t)(r->end - r->p) < n)
			return false;
		r->p += n;
		break;
	}
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);
		if ((uint64_t)(r->end - r->p) < n)
			return false;
		r->p += n;
		break;
	}
	default:
		return false;   /* a form a line table header does not use: give up on the unit */
	}
	return !r->bad;
}

/* DWARF 5 directory or file entry list; file paths go to c->files. */
static bool v5_entries(struct ctx *c, struct rd *r, unsigned offsize, bool files)
{
	uint64_t types[16], forms[16], count;
	unsigned n_fmt = (unsigned)rd_u(r, 1);

	if (n_fmt > 16)
		return false;
	for (unsigned i = 0; i < n_fmt; i++) {
		types[i] = rd_uleb(r);
		forms[i] = rd_uleb(r);
	}
	count = rd_uleb(r);
	if (r->bad || count > (uint64_t)(r->end - r->p))
		return false;
	for (uint64_t e = 0; e < count; e++) {
		const char *path = NULL, *s;
		for (unsigned i = 0; i < n_fmt; i++) {
			if (!read_form(c, r, forms[i], offsize, &s))
				return false;
			if (types[i] == DW_LNCT_path)
				path = s;
		}
		if (files && !add_file(c, path))
			return false;
	}
	return !r->bad;
}

/* One line-table unit at [r->p, ...): returns false when the rest of the section is unusable. */
static bool line_unit(struct ctx *c, struct rd *sec)
{
	struct rd r, hdr;
	uint64_t len, header_len, addr = 0, file = 1;
	unsigned offsize = 4, version, addr_size = 8, min_inst, line_range, opcode_base;
	int line_base;
	int64_t line = 1;
	uint32_t col = 0;
	uint8_t std_len[256];

	len = rd_u(sec, 4);
	if (len == 0xffffffff) {
		offsize = 8;
		len = rd_u(sec, 8);
	}
	if (sec->bad || len > (uint64_t)(sec->end - sec->p))
		return false;
	r.p = sec->p;
	r.end = sec->p + len;
	r.bad = false;
	sec->p = r.end;   /* the next unit, whatever happens in this one */
	version = (unsigned)rd_u(&r, 2);
	if (version < 2 || version > 5)
		return true;
	if (version >= 5) {
		addr_size = (unsigned)rd_u(&r, 1);
		rd_u(&r, 1);   /* segment selector size */
	}
	header_len = rd_u(&r, offsize);
	if (r.bad || header_len > (uint64_t)(r.end - r.p))
		return true;
	hdr.p = r.p;
	hdr.end = r.p + header_len;
	hdr.bad = false;
	r.p = hdr.end;   /* the program */
	min_inst = (unsigned)rd_u(&hdr, 1);
	if (version >= 4)
		rd_u(&hdr, 1);   /* maximum operations per instruction (VLIW only) */
	rd_u(&hdr, 1);       /* default_is_stmt */
	line_base = (int8_t)rd_u(&hdr, 1);
	line_range = (unsigned)rd_u(&hdr, 1);
	opcode_base = (unsigned)rd_u(&hdr, 1);
	if (hdr.bad || line_range == 0 || opcode_base == 0)
		return true;
	for (unsigned i = 1; i < opcode_base; i++)
		std_len[i] = (uint8_t)rd_u(&hdr, 1);
	c->n_files = 0;
	if (version >= 5) {
		if (!v5_entries(c, &hdr, offsize, false) || !v5_entries(c, &hdr, offsize, true))
			return !c->oom;
	} else {
		const char *s;
		while ((s = rd_cstr(&hdr)) && *s)
			;   /* include directories: the base name is all we print */
		while ((s = rd_cstr(&hdr)) && *s) {
			rd_uleb(&hdr);
			rd_uleb(&hdr);
			rd_uleb(&hdr);
			if (!add_file(c, s))
				return false;
		}
		if (hdr.bad)
			return true;
	}
	c->n_rows = 0;
	while (r.p < r.end && !r.bad) {
		unsigned op = (unsigned)rd_u(&r, 1);
		bool emit = false;
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			addr += (uint64_t)(adj / line_range) * min_inst;
			line += line_base + (int)(adj % line_range);
			emit = true;
		} else if (op == 0) {
			uint64_t n = rd_uleb(&r);
			const uint8_t *next;
			unsigned sub;
			if (r.bad || n == 0 || n > (uint64_t)(r.end - r.p))
				break;
			next = r.p + n;
			sub = (unsigned)rd_u(&r, 1);
			if (sub == 1) {   /* DW_LNE_end_sequence */
				if (!push((void **)&c->rows, &c->cap_rows, c->n_rows, sizeof(*c->rows)))
					return c->oom = true, false;
				c->rows[c->n_rows++] = (struct row){ addr, file, (uint32_t)line, col };
				end_sequence(c, version);
				addr = 0, file = 1, line = 1, col = 0;
			} else if (sub == 2) {   /* DW_LNE_set_address */
				addr = rd_u(&r, n - 1 <= 8 ? (unsigned)(n - 1) : addr_size);
			} else if (sub == 3 && version < 5) {   /* DW_LNE_define_file */
				const char *s = rd_cstr(&r);
				if (!add_file(c, s))
					return false;
			}
			r.p = next;
		} else {
			switch (op) {
			case 1: emit = true; break;                                   /* copy */
			case 2: addr += rd_uleb(&r) * min_inst; break;                /* advance_pc */
			case 3: line += rd_sleb(&r); break;                           /* advance_line */
			case 4: file = rd_uleb(&r); break;                            /* set_file */
			case 5: col = (uint32_t)rd_uleb(&r); break;                   /* set_column */
			case 8: addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst; break;
			case 9: addr += rd_u(&r, 2); break;                           /* fixed_advance_pc */
			case 6: case 7: case 10: case 11: break;                      /* flags */
			default:   /* set_isa and unknown standard opcodes: skip their operands */
				for (unsigned i = 0; i < std_len[op]; i++)
					rd_uleb(&r);
			}
		}
		if (emit) {
			if (!push((void **)&c->rows, &c->cap_rows, c->n_rows, sizeof(*c->rows)))
				return c->oom = true, false;
			c->rows[c->n_rows++] = (struct row){ addr, file, (uint32_t)line, col };
		}
	}
	return true;
}

static int by_addr(const void *a, const void *b, void *addrs_)
{
	const uint64_t *addrs = addrs_;
	uint64_t x = addrs[*(const size_t *)a], y = addrs[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct section section_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct section s = { NULL, 0 };
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return s;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return s;
	d = elf_getdata(scn, NULL);
	if (d && d->d_buf) {
		s.data = d->d_buf;
		s.size = d->d_size;
	}
	return s;
}

/* Local function symbols and the STT_FILE before them: llvm-symbolizer's file fallback. */
static void symtab_fallback(Elf *elf, Elf_Scn *symtab, const uint64_t *addrs, size_t n,
			    char **out, bool *oom)
{
	GElf_Shdr sh;
	Elf_Data *d;
	struct sym *syms = NULL;
	size_t n_syms = 0, cap = 0, count;
	const char *file = NULL;

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
		if (!push((void **)&syms, &cap, n_syms, sizeof(*syms))) {
			*oom = true;
			break;
		}
		syms[n_syms++] = (struct sym){ s.st_value, s.st_size,
					       GELF_ST_BIND(s.st_info) == STB_LOCAL ? file : NULL };
	}
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

int tmx_debuginfo_lookup(const char *path, const uint64_t *addrs, size_t n, char **out,
			 struct tmx_error *err)
{
	struct ctx c = { 0 };
	Elf *elf = NULL;
	Elf_Scn *scn = NULL, *symtab = NULL;
	size_t shstrndx, *order = NULL;
	int fd, ret = TMX_OK;

	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tmx_error_set(err, TMX_ERR_IO, path, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "not a readable ELF file");
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_line"))
			c.line = section_data(scn, &sh);
		else if (!strcmp(name, ".debug_line_str"))
			c.line_str = section_data(scn, &sh);
		else if (!strcmp(name, ".debug_str"))
			c.str = section_data(scn, &sh);
		else if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
	}
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	c.addrs = addrs;
	c.order = order;
	c.n = n;
	c.out = out;
	qsort_r(order, n, sizeof(*order), by_addr, (void *)addrs);
	if (c.line.data) {
		struct rd sec = { c.line.data, c.line.data + c.line.size, false };
		while (sec.p < sec.end && line_unit(&c, &sec))
			;
	}
	symtab_fallback(elf, symtab, addrs, n, out, &c.oom);
	for (size_t i = 0; i < n && !c.oom; i++)
		if (!out[i] && !(out[i] = strdup("<invalid>:0:0")))
			c.oom = true;
	if (c.oom)
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
out:
	if (ret)
		for (size_t i = 0; i < n; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	free(order);
	free(c.rows);
	free(c.files);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int tmx_debuginfo_xray_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				 struct tmx_error *err)
{
	unsigned char magic[4];
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *d = NULL;
	GElf_Shdr sh;
	size_t shstrndx, cap = 0;
	uint64_t *a = NULL, cur = 0;
	uint32_t count = 0;
	int fd, ret = TMX_OK;

	*addrs = NULL;
	*n = 0;
	*is_elf = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot open");
	if (read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
		close(fd);
		return TMX_OK;
	}
	*is_elf = true;
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) ||
	    elf_getshdrstrndx(elf, &shstrndx) || gelf_getclass(elf) != ELFCLASS64) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "not a readable 64-bit ELF file");
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, "xray_instr_map")) {
			d = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_buf || d->d_size % 32) {
		ret = tmx_error_set(err, TMX_ERR_DATA, path, "no usable xray_instr_map section");
		goto out;
	}
	for (size_t off = 0; off + 32 <= d->d_size; off += 32) {
		struct rd r = { (const uint8_t *)d->d_buf + off, (const uint8_t *)d->d_buf + off + 32,
				false };
		uint64_t function;
		rd_u(&r, 8);                /* the sled's address */
		function = rd_u(&r, 8);
		rd_u(&r, 2);                /* kind, always_instrument */
		if (rd_u(&r, 1) >= 2 && function)   /* version: PC-relative from 2 on */
			function += sh.sh_addr + off + 8;
		if (count && function == cur)
			continue;
		cur = function;
		if (!push((void **)&a, &cap, count, sizeof(*a))) {
			ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			goto out;
		}
		a[count++] = function;
	}
	*addrs = a;
	*n = count;
	a = NULL;
out:
	free(a);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
