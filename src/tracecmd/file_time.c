/*
 * trace.dat timestamps as trace-cmd reports them: a guest's TIME_SHIFT
 * samples (trace-cmd's tsync correction, interpolated or not), TSC2NSEC's
 * multiplier and shift, then the DATE/OFFSET offsets.
 */
#include "tracecmd/file_impl.h"

/* trace-cmd's mul_u64_u32_shr (from the kernel). */
static uint64_t mul_u64_u32_shr(uint64_t a, uint64_t mul, unsigned shift)
{
	uint32_t ah = (uint32_t)(a >> 32), al = (uint32_t)a;
	uint64_t ret;

	shift &= 63;
	ret = (al * mul) >> shift;
	if (ah)
		ret += shift <= 32 ? (ah * mul) << (32 - shift) : (ah * mul) >> (shift - 32);
	return ret;
}

static uint64_t correction(const struct tdat_file_priv *fp, uint64_t ts,
			   const struct tdat_ts_sample *min, const struct tdat_ts_sample *max)
{
	int64_t tscor;

	if (fp->tsync_flags & 1) {   /* TRACECMD_TSYNC_FLAG_INTERPOLATE */
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t off = (int64_t)(((uint64_t)ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));
		int64_t num, q;
		/* trace-cmd's (offset + delta / 2) / delta, without its overflows. */
		if (__builtin_add_overflow(off, delta / 2, &num))
			num = off;
		if (!delta)
			q = 0;
		else if (delta == -1)
			q = (int64_t)(0 - (uint64_t)num);
		else
			q = num / delta;
		tscor = (int64_t)((uint64_t)min->offset + (uint64_t)q);
	} else {
		tscor = min->offset;
	}
	ts = (ts * min->scaling) >> min->fraction;
	return ts + (uint64_t)tscor;
}

static uint64_t host_sync(const struct tdat_file_priv *fp, uint64_t ts, uint32_t cpu)
{
	const struct tdat_ts_cpu *t;
	uint32_t n;

	if (cpu >= fp->tsync_cpus)
		return ts;
	t = &fp->tsync_cpu[cpu];
	n = t->count;
	if (n == 1)
		return ts + (uint64_t)t->samples[0].offset;
	if (n == 2 || (int64_t)ts <= t->samples[0].time)
		return correction(fp, ts, &t->samples[0], &t->samples[1]);
	if ((int64_t)ts >= t->samples[n - 1].time)
		return correction(fp, ts, &t->samples[n - 2], &t->samples[n - 1]);
	/* The sample pair around ts (trace-cmd's binary search). */
	int64_t lo = 0, hi = n - 1, mid = (lo + hi) / 2;
	while (lo <= hi) {
		if ((int64_t)ts < t->samples[mid].time)
			hi = mid - 1;
		else if ((int64_t)ts > t->samples[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	if (mid < 0)
		mid = 0;
	if ((uint32_t)mid + 1 >= n)
		mid = n - 2;
	return correction(fp, ts, &t->samples[mid], &t->samples[mid + 1]);
}

uint64_t tdat_convert_ts_cpu(const struct tdat_file *f, uint64_t raw, uint32_t cpu)
{
	const struct tdat_file_priv *fp = tdat_priv(f);
	uint64_t ts = raw;

	if (fp->tsync)
		ts = host_sync(fp, ts, cpu);
	if (f->has_tsc2nsec && f->tsc2nsec_mult)
		ts = mul_u64_u32_shr(ts, f->tsc2nsec_mult, f->tsc2nsec_shift);
	return ts + (uint64_t)f->ts_offset;
}

