/*
 * The timestamp options of `trace-cmd report` (report_impl.h): --raw-ts,
 * --ts2secs, --nodate and --align-ts set up per file (time_of() applies
 * them to each record), and the time column as libtraceevent prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "sink/tracecmd/columns.h"
#include "tools/tracecmd/report_impl.h"

/*
 * libtraceevent's print_event_time() for a "%<prec>.<div>d" format:
 * time = (ts + div/2) / div, then "%5llu.%0<prec>llu", or "%12llu" when
 * the precision is 0 (libtraceevent 1.7.1; trace-cmd's "%12d" for counter
 * clocks overflows its int power of ten, which gives "%12llu" too).
 * Inlined in each use with constant arguments: divisions by constants.
 */
static inline __attribute__((always_inline)) void put_time(struct outbuf *b, uint64_t ts,
							   int prec, uint64_t div)
{
	char *p = outbuf_reserve(b, 64);

	if (div > 1)
		ts = (ts + div / 2) / div;
	outbuf_commit(b, tmx_tc_put_time(p, ts, prec));
}

/* libtraceevent's TIME_FMT_TS: "%6.1000d", "%9.1d" (-t) or "%12d" (no usecs). */
void tcr_put_ts(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf, uint64_t ts)
{
	if (!tf->usecs)
		put_time(b, ts, 0, 1);
	else if (r->o->nsec)
		put_time(b, ts, 9, 1);
	else
		put_time(b, ts, 6, 1000);
}

/* The DATE options' offset in ns, read as libtracecmd does (strtoll of the text, usecs). */
static uint64_t date_offset(const struct tdat_file *f)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < f->n_options; i++) {
		const struct tdat_option *o = &f->options[i];
		char tmp[64];
		size_t m;

		if (o->id != TDAT_OPT_DATE)
			continue;
		m = o->size < sizeof(tmp) - 1 ? o->size : sizeof(tmp) - 1;
		memcpy(tmp, o->data, m);
		tmp[m] = '\0';
		ns += (uint64_t)strtoll(tmp, NULL, 0) * 1000;
	}
	return ns;
}

/* --raw-ts, --ts2secs, --nodate (--align-ts is set once every file is open). */
int tcr_setup_times(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;

	tf->raw_ts = r->o->raw_ts;
	/* libtracecmd's use_trace_clock: a TRACECLOCK option, and no --ts2secs. */
	tf->use_trace_clock = f->has_traceclock && !r->o->ts2secs;
	/* tracecmd_set_ts2secs(): a double, 1e9 / HZ. */
	tf->ts2secs = r->o->ts2secs ? 1e9 / (double)r->o->ts2secs : 0;
	/*
	 * --ts2secs replaces TSC2NSEC on the time after TIME_SHIFT; the reader
	 * gives that time only without TSC2NSEC (rec->ts - the offsets) or
	 * without TIME_SHIFT (the raw time).
	 */
	if (tf->ts2secs && f->has_tsc2nsec && f->tsc2nsec_mult && f->has_time_shift)
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, f->path,
				     "--ts2secs on a file with both TSC2NSEC and TIME_SHIFT options "
				     "is not supported");
	if (r->o->no_date)
		tf->adjust -= date_offset(f);
	return TMX_OK;
}

/*
 * --align-ts: every time minus the earliest first event of the files' top
 * buffers (libtracecmd's tracecmd_get_first_ts(): 0 for a file without CPU
 * data, which then aligns nothing).
 */
int tcr_align_times(struct tcr *r, struct tmx_error *err)
{
	uint64_t first_ts = 0;

	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		const struct tdat_cpu_data **cpus;
		size_t n = tcr_cpus_by_id(tf, &cpus);
		uint64_t ts = 0;
		bool any = false;

		if (n == (size_t)-1)
			return tmx_error_set(err, TMX_ERR_NOMEM, tf->f->path, "out of memory");
		for (size_t k = 0; k < n; k++) {
			uint64_t a, b, t;
			if (!cpus[k]->size ||
			    !tdat_cpu_time_range(tf->f, 0, (size_t)(cpus[k] - tf->f->buffers[0].cpus),
						 &a, &b))
				continue;
			t = time_of(tf, a, tdat_convert_ts_cpu(tf->f, a, cpus[k]->cpu));
			if (!any || t < ts)
				ts = t;
			any = true;
		}
		free(cpus);
		if (!i || ts < first_ts)
			first_ts = ts;
	}
	for (size_t i = 0; i < r->n_files; i++)
		r->files[i].adjust -= first_ts;
	return TMX_OK;
}
