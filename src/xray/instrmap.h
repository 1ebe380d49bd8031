/*
 * The instrumentation map of an ELF binary, for code outside the XRay
 * reader that needs the function addresses (xray-account's debug-info
 * column).  One reader of the `xray_instr_map` section: instrmap.c.
 */
#ifndef TMX_XRAY_INSTRMAP_H
#define TMX_XRAY_INSTRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"

/*
 * The function address of each XRay function id in the ELF binary `path`,
 * exactly as the reader (and llvm-xray's InstrumentationMap) computes them:
 * ids numbered from 1, a new id each time the sled's function changes;
 * PC-relative fields (sled version 2+) resolved; a zero field taken from
 * the relocation at its place.  *addrs (malloc'ed, the caller frees it)
 * gets addrs[id - 1] for *n ids.  *is_elf is false (nothing else set, no
 * error) for a file that is not ELF, e.g. llvm-xray's YAML map.
 */
int tmx_xray_instrmap_functions(const char *path, uint64_t **addrs, uint32_t *n, bool *is_elf,
				struct tmx_error *err);

#endif
