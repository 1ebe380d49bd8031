/*
 * A bump allocator for class graphs (metadata, formats).  Everything a
 * trace class owns lives in one arena and is freed at once, so parsers do
 * not need to track ownership of shared sub-objects.
 */
#ifndef TMX_COMMON_ARENA_H
#define TMX_COMMON_ARENA_H

#include <stddef.h>

struct tmx_arena_block;

struct tmx_arena {
	struct tmx_arena_block *head;
	size_t used;    /* bytes used in head */
	size_t total;   /* bytes obtained from malloc, all blocks */
};

void tmx_arena_init(struct tmx_arena *a);
void tmx_arena_free(struct tmx_arena *a);
/* Zeroed memory, aligned for any type; NULL on allocation failure. */
void *tmx_arena_alloc(struct tmx_arena *a, size_t size);
void *tmx_arena_calloc(struct tmx_arena *a, size_t n, size_t size);
char *tmx_arena_strdup(struct tmx_arena *a, const char *s);
char *tmx_arena_strndup(struct tmx_arena *a, const char *s, size_t n);
/* Grows an arena array; the old block is simply abandoned in the arena. */
void *tmx_arena_grow(struct tmx_arena *a, void *old, size_t old_n, size_t new_n,
		     size_t elem_size);

#endif
