/*
 * tep_parse_kallsyms() of libtraceevent 1.7.1, the usual lines read
 * without sscanf() (kallsyms.c): the same functions registered in the
 * same order, the same warning and result on a line it cannot read.
 */
#ifndef TMX_TOOLS_TRACECMD_KALLSYMS_H
#define TMX_TOOLS_TRACECMD_KALLSYMS_H

#include <event-parse.h>

/* `kallsyms`: a /proc/kallsyms text, NUL-terminated.  Returns 0, or -1 where libtraceevent's does. */
int tcr_parse_kallsyms(struct tep_handle *tep, const char *kallsyms);

#endif
