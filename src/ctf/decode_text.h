/*
 * CTF 2 string text: UTF-16/32 code units transcoded to UTF-8 (decoded
 * string values are always UTF-8), and the storage that the transcoded
 * text lives in while the values that point to it are in use.
 */
#ifndef TMX_CTF_DECODE_TEXT_H
#define TMX_CTF_DECODE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

/*
 * Storage for the transcoded strings of one value array (ctf_values).
 * Values point into it, so nothing in it may move while they are in use,
 * and nothing should be allocated per event.  Reserving one buffer before
 * each scope from the remaining content (UTF-8 takes at most 1.5 times
 * the UTF-16/32 bytes) would do that, but a packet header or context is
 * bounded only by the file's end, which can be far away.  So the storage
 * is a list of chunks of doubling sizes (CTF_TEXT_MIN << k), each
 * allocated when first needed and kept until the decoder ends: a string
 * takes the room it may need in the current chunk or else in the next
 * chunk large enough, and clearing the values starts again at chunk 0.
 * Chunks never move; once they exist nothing is allocated; a string's
 * room is bounded by the packet content (checked before), and the chunks
 * in use add up to a few times the largest strings of a scope.
 */
#define CTF_TEXT_MIN 4096
#define CTF_TEXT_CHUNKS 48

struct ctf_text {
	/*
	 * Where the next string goes, as an offset in the chunks laid end to
	 * end (chunk k starts at CTF_TEXT_MIN * (2^k - 1)): clearing is one store.
	 */
	uint64_t at;
	char *chunk[CTF_TEXT_CHUNKS];
};

/* Forgets every string (their values are gone); keeps the chunks. */
static inline void ctf_text_clear(struct ctf_text *t)
{
	t->at = 0;
}

void ctf_text_fini(struct ctf_text *t);

/*
 * Room for `need` bytes (need >= 1) that stays where it is until the next
 * ctf_text_clear; ctf_text_commit then keeps the `len` bytes (<= need) written.
 */
int ctf_text_room(struct ctf_text *t, size_t need, char **out, struct tmx_error *err);

static inline void ctf_text_commit(struct ctf_text *t, size_t len)
{
	t->at += len;
}

/* Bytes per code unit: 1 (UTF-8), 2 (UTF-16) or 4 (UTF-32). */
static inline unsigned ctf_str_unit(uint8_t encoding)
{
	return encoding == TMX_STR_UTF8 ? 1 : encoding <= TMX_STR_UTF16LE ? 2 : 4;
}

/* The most UTF-8 bytes that `n` code units of `encoding` can make. */
static inline uint64_t ctf_utf8_room(uint8_t encoding, uint64_t n)
{
	/* A UTF-16 unit makes at most 3 bytes (a surrogate pair 4), a UTF-32 one 4. */
	return n * (ctf_str_unit(encoding) == 2 ? 3 : 4);
}

/* Why a code unit cannot be transcoded. */
struct ctf_utf_fault {
	size_t index;      /* the code unit (from 0) */
	uint32_t value;    /* its value */
	const char *what;  /* "a lone UTF-16 surrogate", ... */
};

/*
 * Transcodes `n` code units of `encoding` (UTF-16/32, either byte order)
 * at `src` into `dst` (room for ctf_utf8_room(encoding, n) bytes).
 * Returns the UTF-8 length, or SIZE_MAX with *fault set at the first unit
 * that is not part of a Unicode scalar value (lone surrogates, values
 * above 0x10FFFF, UTF-32 surrogates).
 */
size_t ctf_utf_to_utf8(const uint8_t *src, size_t n, uint8_t encoding, char *dst,
		       struct ctf_utf_fault *fault);

#endif
