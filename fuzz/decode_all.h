/*
 * Shared by the decoding harnesses: the fixed metadata they decode streams
 * with, and every packet and event of a stream decoded four ways that
 * must agree.
 */
#ifndef TMX_FUZZ_DECODE_ALL_H
#define TMX_FUZZ_DECODE_ALL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"

/*
 * The trace class of the metadata file named by TMX_FUZZ_METADATA, else of
 * `default_path`; loaded once per process (it lives as long as the process).
 */
static inline const struct tmx_trace_class *fixed_metadata(const char *default_path,
							   const char *harness)
{
	static struct tmx_arena arena;
	static struct tmx_trace_class *tc;
	const char *path = getenv("TMX_FUZZ_METADATA");
	struct ctf_metadata_text text;
	struct tmx_error err;

	if (tc)
		return tc;
	if (!path)
		path = default_path;
	tmx_arena_init(&arena);
	if (ctf_metadata_read(path, &text, &err) ||
	    ctf_metadata_parse(text.text, text.len, path, NULL, &arena, &tc, &err)) {
		fprintf(stderr, "%s: %s: %s\n", harness, path, err.msg);
		abort();
	}
	ctf_metadata_text_fini(&text);
	return tc;
}

/* The ways a stream is decoded, which must agree (see decode_all). */
enum { BY_PLAN, BY_WALK, BY_STEPS, BY_FILTER, N_WAYS };
static const char *const way_names[N_WAYS] = { "the plan", "the tree walk",
						 "the steps (values unread)",
						 "the filter (odd IDs skipped)" };

/* BY_FILTER's filter: the events of classes with odd IDs are skipped. */
static inline bool even_id(const void *ctx, const struct tmx_event_class *ec)
{
	(void)ctx;
	return ec->id % 2 == 0;
}

/*
 * After each step, every way has the status, error and position of the
 * plan's; the walk also made as many values (the steps make none).
 */
static inline void same_as_plan(const char *step, const int ret[N_WAYS],
				const struct ctf_decoder d[N_WAYS],
				const struct tmx_error err[N_WAYS])
{
	for (int w = BY_WALK; w < N_WAYS; w++) {
		if (ret[w] == ret[BY_PLAN] &&
		    (ret[w] ? err[w].offset == err[BY_PLAN].offset &&
				      !strcmp(err[w].msg, err[BY_PLAN].msg)
			    : d[w].pos == d[BY_PLAN].pos) &&
		    (w != BY_WALK || d[w].event.n == d[BY_PLAN].event.n))
			continue;
		fprintf(stderr, "%s and %s differ after %s: %d `%s` / %d `%s`\n", way_names[BY_PLAN],
			way_names[w], step, ret[BY_PLAN], ret[BY_PLAN] ? err[BY_PLAN].msg : "",
			ret[w], ret[w] ? err[w].msg : "");
		abort();
	}
}

/*
 * Every packet and event of a stream, decoded four ways in lockstep: by
 * the compiled plans, by the tree walk, with values unread (the dummy's
 * event headers by their programs, bodies by their steps), and with a
 * filter that skips some classes (their bodies stepped over).  Besides
 * crashes, a difference in status, error or position aborts.
 */
static inline void decode_all(const struct tmx_trace_class *tc, const uint8_t *data, size_t size)
{
	struct ctf_decoder d[N_WAYS];
	struct tmx_error err[N_WAYS];
	int ret[N_WAYS];
	uint64_t off = 0;
	int n = 0;

	for (; n < N_WAYS; n++)
		if (ctf_decoder_init(&d[n], tc, "fuzz", data, size, &err[n]))
			goto out;
	d[BY_WALK].walk_only = true;
	d[BY_STEPS].values_unread = true;
	ctf_decoder_set_wanted(&d[BY_FILTER], even_id, NULL);
	/* After an event's error, the next packet (as the lenient reader goes on). */
	while (off < size) {
		struct ctf_packet_info info[N_WAYS];

		for (int w = 0; w < N_WAYS; w++)
			ret[w] = ctf_decode_packet_start(&d[w], off, &info[w], &err[w]);
		same_as_plan("a packet start", ret, d, err);
		if (ret[BY_PLAN])
			break;
		for (;;) {
			const struct tmx_event_class *ec[N_WAYS];
			size_t scopes[TMX_N_SCOPES];
			bool more[N_WAYS];

			for (int w = 0; w < N_WAYS; w++) {
				more[w] = false;
				ret[w] = ctf_decode_event(&d[w], &more[w], info[w].sc, &ec[w], scopes,
							  &err[w]);
			}
			same_as_plan("an event", ret, d, err);
			for (int w = BY_WALK; w < N_WAYS; w++) {
				if (!ret[w] && (more[w] != more[BY_PLAN] || (more[w] && ec[w] != ec[BY_PLAN]))) {
					fprintf(stderr, "%s and %s differ on an event's class\n",
						way_names[BY_PLAN], way_names[w]);
					abort();
				}
			}
			if (ret[BY_PLAN] || !more[BY_PLAN])
				break;
		}
		off += info[BY_PLAN].packet_bits / 8;
	}
out:
	while (n-- > 0)
		ctf_decoder_fini(&d[n]);
}

#endif
