#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tmx
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp.h"
#if !defined(_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define _TP_H
#include <lttng/tracepoint.h>
LTTNG_UST_TRACEPOINT_ENUM(tmx, color,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("RED", 0)
		lttng_ust_field_enum_range("GREEN..BLUE", 1, 2)
		lttng_ust_field_enum_auto("AUTO")
	)
)
LTTNG_UST_TRACEPOINT_EVENT(tmx, work,
	LTTNG_UST_TP_ARGS(int, i, const char *, s, double, d),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, i, i)
		lttng_ust_field_integer_hex(unsigned long, ih, (unsigned long)i * 2654435761u)
		lttng_ust_field_string(s, s)
		lttng_ust_field_float(double, d, d)
		lttng_ust_field_sequence(uint8_t, seq, s, size_t, (size_t)(i % 6))
		lttng_ust_field_array_text(char, arr, s, 4)
		lttng_ust_field_enum(tmx, color, int, col, i % 4)
		lttng_ust_field_integer_network(int, net, i)
	)
)
LTTNG_UST_TRACEPOINT_EVENT(tmx, tick,
	LTTNG_UST_TP_ARGS(int, n),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(short, n, n))
)
#endif
#include <lttng/tracepoint-event.h>
