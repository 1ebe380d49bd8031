/*
 * The function_graph tracer's events in `-o tracecmd`, as trace-cmd 3.1.6
 * prints them (libtracecmd's trace-ftrace.c, which registers them as
 * libtraceevent handlers when plugins are loaded: not with -N or -L):
 *
 *   funcgraph_entry  "  " + "           |  " + 2*depth spaces + "func() {"
 *                    or, when the handle's next record (by time, over all
 *                    its CPUs, read or not) is the exit of the same pid and
 *                    function, that exit is taken (never printed) and the
 *                    call is one line: mark, duration, indent, "func();"
 *   funcgraph_exit   mark, duration, indent, "}"
 *
 * With -O fgraph:tailprint, an exit ends with a C comment naming its
 * function (nothing more when it has no symbol); with -O fgraph:depth, every line ends
 * with " (depth)".  As in trace-cmd, a bare `-O depth` toggles the option
 * once per input file, `=1`/`=true` and `=0`/`=false` set it.
 *
 * The mark is "$ " past 1 s, "# " past 1 ms, "! " past 100 us, "+ " past
 * 10 us, else "  " (also for a duration of ~0); the duration is
 * "USECS.NNN us " (without ".NNN" from 7 digits) padded to 7 + " us ",
 * then "|  ".  Names come from kallsyms (tep_find_function), else the
 * address in hex.  -R, -r and -n bypass the handlers (libtraceevent's
 * flags).
 *
 * The look-ahead reads the CPUs of the handle being printed, which
 * report.c reads in trace-cmd's order; records of CPUs that --cpu leaves
 * out are passed over up to the printed record's time first, as trace-cmd
 * reads every CPU and drops them after.  Where trace-cmd 3.1.6 differs on
 * purpose: after taking an exit from another CPU than the entry's, its
 * iterator keeps a pointer to the freed record and its next choices depend
 * on freed memory; here records stay in time order.  An indent past
 * TFG_MAX_INDENT columns (depth > 32767, trace-cmd prints up to 2^31
 * spaces) is cut there.
 */
#ifndef TMX_TOOLS_TRACECMD_FUNCGRAPH_H
#define TMX_TOOLS_TRACECMD_FUNCGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracecmd/tracedat.h"
#include "tracemux/error.h"

#define TFG_MAX_INDENT 65536

struct tep_handle;
struct tfg;

struct tfg *tfg_new(void);
void tfg_free(struct tfg *g);

/* The -O options (trace-cmd's strings), read at every tfg_attach(); kept, not copied. */
void tfg_set_options(struct tfg *g, const char *const *opts, size_t n);

/* Registers the funcgraph_entry / funcgraph_exit handlers on a file's libtraceevent handle. */
int tfg_attach(struct tfg *g, struct tep_handle *tep, const char *path, struct tmx_error *err);

/* One trace-cmd handle (a buffer of a file) as the look-ahead reads it. */
struct tfg_handle {
	size_t n_cur;                      /* the buffer's CPUs, in file order */
	const bool *listed;                /* --cpu: per CPU, printed or not; NULL: all are */
	/*
	 * CPU i's next record, left there (peek) or taken (next), as
	 * tdat_cursor_peek() / tdat_cursor_next() (the report reads its
	 * cursors itself or through its workers).
	 */
	int (*peek)(const struct tfg_handle *h, size_t i, const struct tdat_record **rec,
		    struct tmx_error *err);
	int (*next)(const struct tfg_handle *h, size_t i, const struct tdat_record **rec,
		    struct tmx_error *err);
	/* The report's time of a record (trace-cmd's record->ts under the timestamp options). */
	uint64_t (*time)(const void *arg, const struct tdat_record *rec);
	const void *time_arg;
};

/*
 * The bytes of a record that the look-ahead copies at most (from its page,
 * see tfg_before_print()), on a file: what a copy of the record must hold
 * for it to read the same.
 */
size_t tfg_look_span(struct tep_handle *tep, const struct tdat_file *f);

/*
 * Before `rec`, taken from cursor `at` of `h`, is printed.  Returns the
 * record to print: for a funcgraph entry a copy that the look-ahead's
 * cursor reads leave intact, else `rec` itself.  The handlers read `h`
 * until tfg_after_print().
 */
const struct tdat_record *tfg_before_print(struct tfg *g, const struct tfg_handle *h, size_t at,
					   const struct tdat_record *rec);

/* After the print: TMX_OK, or what a cursor read (or memory) of the look-ahead failed on. */
int tfg_after_print(struct tfg *g, struct tmx_error *err);

#endif
