/*
 * Source positions of code addresses in an ELF binary, as llvm-xray's
 * FuncIdConversionHelper::FileLineAndColumn() prints them for `account`:
 * "FILE:LINE:COLUMN" from the DWARF line table (.debug_line, versions 2 to
 * 5), FILE being the base name of the row's file; for an address no line
 * table covers, the STT_FILE name preceding a local symbol that covers it
 * (llvm-symbolizer's fallback) or "<invalid>", with line and column 0.
 */
#ifndef TMX_OUT_XRAY_DEBUGINFO_H
#define TMX_OUT_XRAY_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

/*
 * Looks up `n` addresses in the ELF file `path` in one pass over its line
 * tables: out[i] gets the text for addrs[i] (malloc'ed, the caller frees
 * it).  Fails on a file that is not a readable ELF file; damaged line
 * tables only leave their addresses without a line ("<invalid>:0:0").
 */
int tmx_debuginfo_lookup(const char *path, const uint64_t *addrs, size_t n, char **out,
			 struct tmx_error *err);

/*
 * The function address of each XRay function id in an ELF binary's
 * `xray_instr_map` section, numbered as compiler-rt and llvm-xray number
 * them (from 1, a new id each time the sled's function changes):
 * *addrs[id - 1], *n ids.  Sled entries of version 2 and later (clang 7
 * on) hold PC-relative addresses; older ones absolute ones.  A zero field
 * (one a relocation fills in, in old position-independent binaries) gives
 * address 0: llvm-xray applies the relocation, we do not, so its functions
 * get no line.  *is_elf is false (and nothing else is set, no error) for a
 * file that is not ELF, e.g. llvm-xray's YAML map.
 */
int tmx_debuginfo_xray_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				 struct tmx_error *err);

#endif
