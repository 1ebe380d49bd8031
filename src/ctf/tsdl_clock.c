/*
 * Repeated TSDL clock blocks: which property two declarations of one clock
 * disagree on, and both values as text for the error message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/uuid.h"
#include "ctf/tsdl.h"

static const char *const prop_names[TSDL_CLOCK_N_PROPS] = {
	[TSDL_CLOCK_DESCRIPTION] = "description",
	[TSDL_CLOCK_UUID] = "uuid",
	[TSDL_CLOCK_FREQ] = "freq",
	[TSDL_CLOCK_PRECISION] = "precision",
	[TSDL_CLOCK_OFFSET_S] = "offset_s",
	[TSDL_CLOCK_OFFSET] = "offset",
	[TSDL_CLOCK_ABSOLUTE] = "absolute",
};

const char *tsdl_clock_prop_name(enum tsdl_clock_prop prop)
{
	return prop < TSDL_CLOCK_N_PROPS ? prop_names[prop] : "?";
}

static bool same_description(const struct tmx_clock_class *a, const struct tmx_clock_class *b)
{
	if (!a->description || !b->description)
		return a->description == b->description;
	return !strcmp(a->description, b->description);
}

static bool same_uuid(const struct tmx_clock_class *a, const struct tmx_clock_class *b)
{
	return a->has_uuid == b->has_uuid && (!a->has_uuid || !memcmp(a->uuid, b->uuid, 16));
}

static void describe(const struct tmx_clock_class *cc, enum tsdl_clock_prop prop, char *buf,
		     size_t size)
{
	switch (prop) {
	case TSDL_CLOCK_DESCRIPTION:
		/* The text may be long: the message shows its beginning. */
		if (cc->description)
			snprintf(buf, size, "\"%.64s%s\"", cc->description,
				 strlen(cc->description) > 64 ? "..." : "");
		else
			snprintf(buf, size, "none");
		break;
	case TSDL_CLOCK_UUID:
		if (cc->has_uuid) {
			char text[TMX_UUID_TEXT_LEN + 1];

			tmx_uuid_text(text, cc->uuid);
			snprintf(buf, size, "%s", text);
		} else
			snprintf(buf, size, "none");
		break;
	case TSDL_CLOCK_FREQ:
		snprintf(buf, size, "%" PRIu64, cc->frequency);
		break;
	case TSDL_CLOCK_PRECISION:
		snprintf(buf, size, "%" PRIu64, cc->precision);
		break;
	case TSDL_CLOCK_OFFSET_S:
	case TSDL_CLOCK_OFFSET:
		/* Both parts: the offsets are compared once whole seconds moved to offset_s. */
		snprintf(buf, size, "offset_s = %" PRId64 ", offset = %" PRIu64, cc->offset_s,
			 cc->offset_cycles);
		break;
	case TSDL_CLOCK_ABSOLUTE:
		snprintf(buf, size, "%s", cc->absolute ? "true" : "false");
		break;
	case TSDL_CLOCK_N_PROPS:
		snprintf(buf, size, "?");
		break;
	}
}

enum tsdl_clock_prop tsdl_clock_diff(const struct tmx_clock_class *a,
				     const struct tmx_clock_class *b, char *a_text,
				     char *b_text, size_t size)
{
	enum tsdl_clock_prop prop = TSDL_CLOCK_N_PROPS;

	if (!same_description(a, b))
		prop = TSDL_CLOCK_DESCRIPTION;
	else if (!same_uuid(a, b))
		prop = TSDL_CLOCK_UUID;
	else if (a->frequency != b->frequency)
		prop = TSDL_CLOCK_FREQ;
	else if (a->precision != b->precision)
		prop = TSDL_CLOCK_PRECISION;
	else if (a->offset_s != b->offset_s)
		prop = TSDL_CLOCK_OFFSET_S;
	else if (a->offset_cycles != b->offset_cycles)
		prop = TSDL_CLOCK_OFFSET;
	else if (a->absolute != b->absolute)
		prop = TSDL_CLOCK_ABSOLUTE;
	if (prop != TSDL_CLOCK_N_PROPS) {
		describe(a, prop, a_text, size);
		describe(b, prop, b_text, size);
	}
	return prop;
}
