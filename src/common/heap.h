/*
 * The binary min-heap of the muxer (src/mux/muxer.c), of the parallel
 * runner's merge (src/par/merge.c) and of the XRay reader's runs
 * (src/xray/reader_chunks.c): one copy of the sifting, generated
 * for each element type so that the comparison is inlined (it runs a few
 * times per message on the hot path).
 *
 *   TMX_HEAP_DEFINE(name, type, before)
 *
 * defines name_sift_up(type *heap, size_t i) and
 * name_sift_down(type *heap, size_t n, size_t i), where
 * before(const type *a, const type *b) says whether a comes first.
 */
#ifndef TMX_COMMON_HEAP_H
#define TMX_COMMON_HEAP_H

#include <stddef.h>

#define TMX_HEAP_DEFINE(name, type, before)                                          \
	static inline void name##_sift_up(type *heap, size_t i)                      \
	{                                                                            \
		type e = heap[i];                                                    \
                                                                                     \
		while (i > 0) {                                                      \
			size_t parent = (i - 1) / 2;                                 \
			if (!before(&e, &heap[parent]))                              \
				break;                                               \
			heap[i] = heap[parent];                                      \
			i = parent;                                                  \
		}                                                                    \
		heap[i] = e;                                                         \
	}                                                                            \
                                                                                     \
	static inline void name##_sift_down(type *heap, size_t n, size_t i)          \
	{                                                                            \
		type e = heap[i];                                                    \
                                                                                     \
		for (;;) {                                                           \
			size_t child = 2 * i + 1;                                    \
			if (child >= n)                                              \
				break;                                               \
			if (child + 1 < n && before(&heap[child + 1], &heap[child])) \
				child++;                                             \
			if (!before(&heap[child], &e))                               \
				break;                                               \
			heap[i] = heap[child];                                       \
			i = child;                                                   \
		}                                                                    \
		heap[i] = e;                                                         \
	}

#endif
