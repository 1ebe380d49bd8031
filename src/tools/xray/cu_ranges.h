/*
 * Address -> compile unit, as llvm's DWARFDebugAranges builds it
 * (generate() then construct(), llvm 14): every unit's address ranges as
 * [lo, hi) endpoints, swept in address order into disjoint segments.
 * Where ranges of several units overlap, the unit of the segment just
 * before keeps the address if it still covers it, else the covering unit
 * first in .debug_info (the smallest index).  Empty ranges (lo >= hi) are
 * dropped, as llvm's appendRange drops them.
 */
#ifndef TMX_TOOLS_XRAY_CU_RANGES_H
#define TMX_TOOLS_XRAY_CU_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tmx_cu_ranges {
	struct tmx_cu_range {
		uint64_t lo, hi;     /* a range of unit `unit` */
		uint32_t unit;       /* index in .debug_info order */
	} *ranges;               /* what tmx_cu_ranges_add() gathered */
	size_t n_ranges, cap_ranges;
	struct tmx_cu_range *segs;   /* after tmx_cu_ranges_build(): disjoint, ascending */
	size_t n_segs;
};

/* Adds [lo, hi) of unit `unit`; false when out of memory. */
bool tmx_cu_ranges_add(struct tmx_cu_ranges *r, uint32_t unit, uint64_t lo, uint64_t hi);

/* Merges the ranges added into segs; false when out of memory. */
bool tmx_cu_ranges_build(struct tmx_cu_ranges *r);

/* The unit whose segment holds `addr`; false when none does. */
bool tmx_cu_ranges_find(const struct tmx_cu_ranges *r, uint64_t addr, uint32_t *unit);

void tmx_cu_ranges_free(struct tmx_cu_ranges *r);

#endif
