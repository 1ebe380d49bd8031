/* Small helpers over the common model (include/tracemux/model.h). */
#include <string.h>

#include "tracemux/model.h"
#include "model/clock.h"
#include "model/field_class.h"

/*
 * babeltrace2 converts cycles with a double division unless the clock runs
 * at 1 GHz; we do the same so that every printed nanosecond matches.
 */
uint64_t tmx_clock_ns_from_cycles(uint64_t frequency, uint64_t cycles)
{
	double ns = 1e9 * (double)cycles / (double)frequency;

	if (ns >= (double)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)ns;
}

static uint64_t ns_from_cycles(uint64_t frequency, uint64_t cycles)
{
	return frequency == UINT64_C(1000000000) ? cycles : tmx_clock_ns_from_cycles(frequency, cycles);
}

void tmx_clock_add_offset(struct tmx_clock_class *cc, int64_t s, uint64_t cycles)
{
	__int128 total = (__int128)cc->offset_s + s;
	unsigned __int128 c = (unsigned __int128)cc->offset_cycles + cycles;

	total += (__int128)(c / cc->frequency);
	cc->offset_cycles = (uint64_t)(c % cc->frequency);
	cc->offset_s = total > INT64_MAX ? INT64_MAX : total < INT64_MIN ? INT64_MIN : (int64_t)total;
}

void tmx_clock_conv_init(struct tmx_clock_conv *cv, const struct tmx_clock_class *cc)
{
	/*
	 * Normalize the offset so that offset_cycles < frequency; in 128 bits,
	 * as the seconds may leave int64 (then the range check refuses them).
	 */
	__int128 offset_s = (__int128)cc->offset_s + cc->offset_cycles / cc->frequency;
	uint64_t offset_cycles = cc->offset_cycles % cc->frequency;

	cv->frequency = cc->frequency;
	cv->ghz = cc->frequency == UINT64_C(1000000000);
	cv->ok = !(offset_s <= INT64_MIN / 1000000000 - 1 || offset_s >= INT64_MAX / 1000000000 - 1);
	cv->base = cv->ok ? (int64_t)offset_s * 1000000000 +
			    (int64_t)ns_from_cycles(cc->frequency, offset_cycles) : 0;
	cv->max_ns = cv->base > 0 ? (uint64_t)(INT64_MAX - cv->base) : (uint64_t)INT64_MAX - 1;
}

bool tmx_clock_ns_from_origin(const struct tmx_clock_class *cc, uint64_t cycles,
			      int64_t *ns)
{
	struct tmx_clock_conv cv;

	tmx_clock_conv_init(&cv, cc);
	return tmx_clock_conv_ns(&cv, cycles, ns);
}

bool tmx_mapping_holds(const struct tmx_field_class *fc, const struct tmx_enum_mapping *m,
		       uint64_t u)
{
	if (fc->kind == TMX_FC_BIT_ARRAY)
		return (u & tmx_bit_map_flag_mask(m)) != 0;
	for (size_t r = 0; r < m->n_ranges; r++) {
		const struct tmx_enum_range *rg = &m->ranges[r];

		if (fc->is_signed ? (int64_t)rg->lower <= (int64_t)u && (int64_t)u <= (int64_t)rg->upper
				  : rg->lower <= u && u <= rg->upper)
			return true;
	}
	return false;
}

uint64_t tmx_bit_map_flag_mask(const struct tmx_enum_mapping *flag)
{
	uint64_t mask = 0;

	for (size_t r = 0; r < flag->n_ranges; r++) {
		uint64_t lo = flag->ranges[r].lower, hi = flag->ranges[r].upper;
		/* Indexes past the 64 bits a bit array can hold select nothing. */
		if (lo > hi || lo > 63)
			continue;
		if (hi > 63)
			hi = 63;
		mask |= (hi == 63 ? ~UINT64_C(0) : (UINT64_C(1) << (hi + 1)) - 1) &
			~((UINT64_C(1) << lo) - 1);
	}
	return mask;
}

const struct tmx_env_entry *tmx_trace_class_env(const struct tmx_trace_class *tc,
						const char *name)
{
	for (size_t i = 0; i < tc->n_env; i++)
		if (strcmp(tc->env[i].name, name) == 0)
			return &tc->env[i];
	return NULL;
}

const struct tmx_event_class *tmx_stream_class_event_class(const struct tmx_stream_class *sc,
							   uint64_t id)
{
	size_t lo = 0, hi = sc->n_event_classes;

	/* IDs are usually 0..n-1: then the ID is the index. */
	if (id < hi && sc->event_classes[id]->id == id)
		return sc->event_classes[id];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = sc->event_classes[mid]->id;
		if (mid_id == id)
			return sc->event_classes[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t tmx_value_skip(const struct tmx_value *values, size_t i)
{
	const struct tmx_value *v = &values[i++];

	switch (v->fc->kind) {
	case TMX_FC_STRUCT:
		for (uint32_t m = 0; m < v->n_members; m++)
			i = tmx_value_skip(values, i);
		return i;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (v->fc->is_text)
			return i;
		for (uint64_t e = 0; e < v->count; e++)
			i = tmx_value_skip(values, i);
		return i;
	case TMX_FC_VARIANT:
		return tmx_value_skip(values, i);
	case TMX_FC_OPTIONAL:
		return v->present ? tmx_value_skip(values, i) : i;
	default:
		return i;
	}
}

size_t tmx_value_text_len(const struct tmx_value *v)
{
	const char *nul = v->str.len ? memchr(v->str.ptr, '\0', v->str.len) : NULL;

	return nul ? (size_t)(nul - v->str.ptr) : (size_t)v->str.len;
}
