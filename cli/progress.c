/*
 * --progress / --no-progress: tmx_run's progress calls (tracemux/run.h)
 * drawn on standard error, one line redrawn in place on a terminal:
 *
 *   12.3 MiB / 45.0 MiB  27%  1234567 events  52.1 MiB/s  0:03 left
 *
 * By default only when standard error is a terminal and the output does
 * not go to that terminal too (standard output another file, or -w);
 * forced on, to a file standard error gets one line per update.  Four
 * updates a second (TRACEMUX_PROGRESS_MS: another interval in ms); on a
 * terminal the last line stays, with the whole run's figures, when a
 * line was drawn (a run that ends before the first update draws nothing).
 * The output itself is never touched.  The commands that read a trace
 * themselves (info, analyze, xray-account, xray-stack) draw the same
 * line through a tmx_progress_meter (cli_progress_meter), -o tracecmd of
 * trace.dat files through the report's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tracemux/run.h"

static struct cli_progress {
	bool tty;        /* redraw one line; else a line per update */
	bool drawn;      /* a line is on the terminal now */
	bool shown;      /* a line was drawn: the last one stays */
	bool on;
} st;

/* BYTES as "12.3 MiB" (1024-based units, one decimal). */
static void human(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]))
		bytes /= 1024, u++;
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

static void draw(void *user, const struct tmx_progress *p)
{
	char line[256], done[32], total[32], rate[32], left[32] = "";
	double secs = (double)p->elapsed_ns / 1e9;
	double bps = secs > 0 ? (double)p->bytes_read / secs : 0;
	int n;

	if (p->done && st.tty && !st.shown)
		return;
	human(done, sizeof(done), (double)p->bytes_read);
	human(total, sizeof(total), (double)p->bytes_total);
	human(rate, sizeof(rate), bps);
	if (!p->done && bps > 0 && p->bytes_total > p->bytes_read) {
		unsigned long s = (unsigned long)((double)(p->bytes_total - p->bytes_read) / bps + 0.5);
		snprintf(left, sizeof(left), "  %lu:%02lu left", s / 60, s % 60);
	}
	n = snprintf(line, sizeof(line), "%s%s / %s  %3u%%  %llu events  %s/s%s%s", st.tty ? "\r" : "",
		     done, total,
		     p->bytes_total ? (unsigned)(100.0 * (double)p->bytes_read / (double)p->bytes_total) : 0,
		     (unsigned long long)p->events, rate, left,
		     st.tty && !p->done ? "\033[K" : st.tty ? "\033[K\n" : "\n");
	(void)user;
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) > 0)
		st.drawn = st.shown = !p->done;
}

void cli_progress_clear(void)
{
	if (st.on && st.tty && st.drawn && write(2, "\r\033[K", 4) == 4)
		st.drawn = false;
}

void cli_progress_setup(int mode, bool output_to_stdout, struct tmx_run_opts *opts)
{
	const char *ms = getenv("TRACEMUX_PROGRESS_MS");
	bool tty = isatty(2);

	if (mode < 0 || (mode == 0 && (!tty || (output_to_stdout && isatty(1)))))
		return;
	st = (struct cli_progress){ .tty = tty, .on = true };
	if (ms && *ms >= '0' && *ms <= '9')
		opts->progress_ms = (unsigned)strtoul(ms, NULL, 10);
	opts->progress = draw;
	opts->progress_user = &st;
}

struct tmx_progress_meter *cli_progress_meter(int mode, bool output_to_stdout,
					      const struct tmx_source *src)
{
	struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;

	cli_progress_setup(mode, output_to_stdout, &opts);
	return tmx_progress_meter_new(src, &opts);
}

int cli_progress_option(const char *name)
{
	return strcmp(name, "progress") ? -1 : 1;
}
