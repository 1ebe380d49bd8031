#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define ARENA_MIN_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct tmx_arena_block {
	struct tmx_arena_block *next;
	size_t size;
	_Alignas(16) unsigned char data[];
};

void tmx_arena_init(struct tmx_arena *a)
{
	a->head = NULL;
	a->used = 0;
	a->total = 0;
}

void tmx_arena_free(struct tmx_arena *a)
{
	struct tmx_arena_block *b = a->head;
	while (b) {
		struct tmx_arena_block *next = b->next;
		free(b);
		b = next;
	}
	tmx_arena_init(a);
}

void *tmx_arena_alloc(struct tmx_arena *a, size_t size)
{
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (need < size)
		return NULL;
	if (!a->head || a->head->size - a->used < need) {
		size_t bsize = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
		struct tmx_arena_block *b = malloc(sizeof(*b) + bsize);
		if (!b)
			return NULL;
		b->next = a->head;
		b->size = bsize;
		a->head = b;
		a->used = 0;
		a->total += bsize;
	}
	p = a->head->data + a->used;
	a->used += need;
	memset(p, 0, size);
	return p;
}

void *tmx_arena_calloc(struct tmx_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return tmx_arena_alloc(a, n * size);
}

char *tmx_arena_strndup(struct tmx_arena *a, const char *s, size_t n)
{
	char *d = tmx_arena_alloc(a, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *tmx_arena_strdup(struct tmx_arena *a, const char *s)
{
	return tmx_arena_strndup(a, s, strlen(s));
}

void *tmx_arena_grow(struct tmx_arena *a, void *old, size_t old_n, size_t new_n,
		     size_t elem_size)
{
	void *p = tmx_arena_calloc(a, new_n, elem_size);
	if (p && old && old_n)
		memcpy(p, old, old_n * elem_size);
	return p;
}
