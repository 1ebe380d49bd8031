/* The library's own version, as compiled: a program compares it with the
 * headers it was built against (TRACEMUX_VERSION_*). */
#include "tracemux/tracemux.h"

const char *tmx_libversion(void)
{
	return TRACEMUX_VERSION_STRING;
}

int tmx_libversion_number(void)
{
	return TRACEMUX_VERSION_NUMBER;
}
