/*
 * Source positions of code addresses in an ELF binary, as llvm-xray's
 * FuncIdConversionHelper::FileLineAndColumn() prints them for `account`:
 * "FILE:LINE:COLUMN" from the DWARF line table of the compile unit whose
 * ranges hold the address (read with libdw), FILE being the base name of
 * the row's file; for an address no line table covers, the STT_FILE name
 * preceding a local symbol that covers it (llvm-symbolizer's fallback) or
 * "<invalid>", with line and column 0.
 */
#ifndef TMX_TOOLS_XRAY_DEBUGINFO_H
#define TMX_TOOLS_XRAY_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

/*
 * Looks up `n` addresses in the ELF file `path`: out[i] gets the text for
 * addrs[i] (malloc'ed, the caller frees it).  Fails on a file that is not
 * a readable ELF file; missing or damaged DWARF only leaves addresses
 * without a line (the symbol-table fallback, else "<invalid>:0:0").
 */
int tmx_debuginfo_lookup(const char *path, const uint64_t *addrs, size_t n, char **out,
			 struct tmx_error *err);

/*
 * The function address of each XRay function id in an ELF binary's
 * `xray_instr_map` section: *addrs[id - 1], *n ids, from the XRay
 * reader's own parse of the map (src/xray/instrmap.h: llvm-xray's ids,
 * PC-relative fields resolved, relocations applied to zero fields).
 * *is_elf is false (and nothing else is set, no error) for a file that is
 * not ELF, e.g. llvm-xray's YAML map.
 */
int tmx_debuginfo_xray_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				 struct tmx_error *err);

#endif
