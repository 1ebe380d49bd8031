#include <string.h>

#include "ctf/quirks.h"

static int64_t env_int(const struct tmx_trace_class *tc, const char *name)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, name);
	return e && e->is_int ? e->int_value : -1;
}

/*
 * Compares the tracer's major.minor.patchlevel with a version; a missing
 * patch level counts as 0.  Without major and minor, *known is false.
 */
static int version_cmp(const struct tmx_trace_class *tc, int64_t major, int64_t minor,
		       int64_t patch, bool *known)
{
	/* barectf says `tracer_patch`, LTTng `tracer_patchlevel`. */
	int64_t patchlevel = env_int(tc, "tracer_patchlevel");
	int64_t v[3] = { env_int(tc, "tracer_major"), env_int(tc, "tracer_minor"),
			 patchlevel >= 0 ? patchlevel : env_int(tc, "tracer_patch") };
	int64_t w[3] = { major, minor, patch };

	*known = v[0] >= 0 && v[1] >= 0;
	if (v[2] < 0)
		v[2] = 0;
	for (int i = 0; i < 3; i++)
		if (v[i] != w[i])
			return v[i] < w[i] ? -1 : 1;
	return 0;
}

void ctf_quirks_detect(struct tmx_trace_class *tc, struct ctf_quirks *q)
{
	const struct tmx_env_entry *name = tmx_trace_class_env(tc, "tracer_name");
	const char *tracer = name && !name->is_int ? name->str_value : "";
	bool known = false;

	memset(q, 0, sizeof(*q));
	if (!strcmp(tracer, "lttng-ust") || !strcmp(tracer, "lttng-modules")) {
		q->zero_end_is_last_event = true;
		/*
		 * TSDL has no clock origin; CTF 2 states it (babeltrace 2.1 only
		 * forces it for TSDL).  CTF 2 clock classes may have no name.
		 */
		for (size_t i = 0; tc->major < 2 && i < tc->n_clocks; i++)
			if (tc->clocks[i]->name && !strcmp(tc->clocks[i]->name, "monotonic"))
				tc->clocks[i]->origin_is_unix_epoch = true;
	}
	if (!strcmp(tracer, "lttng-ust"))
		q->end_is_last_event = version_cmp(tc, 2, 11, 0, &known) < 0;
	else if (!strcmp(tracer, "lttng-modules"))
		q->end_is_last_event = version_cmp(tc, 2, 9, 13, &known) < 0 ||
				       (version_cmp(tc, 2, 10, 0, &known) >= 0 &&
					version_cmp(tc, 2, 10, 9, &known) <= 0);
	else if (!strcmp(tracer, "barectf"))
		q->begin_is_first_event = version_cmp(tc, 2, 3, 1, &known) < 0;
	if (!known) {
		q->end_is_last_event = false;
		q->begin_is_first_event = false;
	}
}
