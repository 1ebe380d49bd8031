/*
 * libtraceevent's tep_parse_kallsyms() without sscanf() on every line.
 *
 * libtraceevent 1.7.1 reads each line of /proc/kallsyms with
 * sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n"), which is most of the time
 * `trace-cmd report` spends setting up a file (a kernel has some 150000
 * symbols).  A line of the usual shape -- 1 to 16 hexadecimal digits, one
 * space, a type character, one space, the name, and nothing else or a tab
 * and "[module]" -- is read here by hand, giving exactly what sscanf
 * gives; any other line goes to tep_parse_kallsyms() on its own, which
 * registers it, skips it or fails exactly as it would have in the whole
 * text.  Lines are registered in the same order, so libtraceevent's
 * function map is the same.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tracecmd/kallsyms.h"
#include "common/hexdigit.h"

/* isspace() of each byte in the current locale (what sscanf's %s stops at), as a table. */
struct spaces {
	bool is[256];
};

static void spaces_init(struct spaces *sp)
{
	for (int c = 0; c < 256; c++)
		sp->is[c] = isspace(c);
}

static bool space(const struct spaces *sp, char c)
{
	return sp->is[(unsigned char)c];
}

/*
 * A line of the usual shape registered (or skipped, as libtraceevent skips
 * '$' names and absolute symbols): true; false when it has another shape.
 * The line is modified (NULs after the name and the module).
 */
static bool usual_line(struct tep_handle *tep, const struct spaces *sp, char *line)
{
	unsigned long long addr = 0;
	char *p = line, *func, *mod = NULL, type;
	int n = 0, d;

	/* %16llx: at most 16 digits; a 17th would be read by %c */
	while (n < 16 && (d = tmx_hex_digit(*p)) >= 0) {
		addr = addr << 4 | (unsigned)d;
		p++;
		n++;
	}
	if (!n || *p != ' ' || !p[1] || space(sp, p[1]) || p[2] != ' ' || !p[3] || space(sp, p[3]))
		return false;
	type = p[1];
	func = p = p + 3;
	while (*p && !space(sp, *p))
		p++;
	if (*p == '\t' && p[1] == '[') {
		/* %*1[\t][%n%*s%n: the module is what follows '[' to the end, less its last byte */
		char *end = mod = p + 2;
		while (*end && !space(sp, *end))
			end++;
		if (end == mod || *end)
			return false;
		end[-1] = '\0';
	} else if (*p) {
		return false;
	}
	*p = '\0';
	if (func[0] != '$' && type != 'A' && type != 'a')
		tep_register_function(tep, func, addr, mod);
	return true;
}

int tcr_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	char *copy = strdup(kallsyms), *next = NULL;
	struct spaces sp;
	int ret = 0;

	if (!copy)
		return -1;
	spaces_init(&sp);
	/* libtraceevent's own split: strtok_r() skips empty lines */
	for (char *line = strtok_r(copy, "\n", &next); line && !ret;
	     line = strtok_r(NULL, "\n", &next))
		if (!usual_line(tep, &sp, line))
			ret = tep_parse_kallsyms(tep, line);
	free(copy);
	return ret;
}
