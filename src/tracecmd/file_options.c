/*
 * trace.dat options: the v6 list after the CPU count, the v7 chain of
 * options sections (loops and overlong chains refused); what each option
 * sets in the file (DATE, OFFSET, CPUSTAT, BUFFER, TRACECLOCK, UNAME, HOOK,
 * CPUCOUNT, VERSION, PROCMAPS, TRACEID, TIME_SHIFT, TSC2NSEC, section
 * offsets), unknown ones kept raw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/file_impl.h"

/* The clock name inside a trace_clock text: "[local] global ..." -> "local". */
const char *tdat_clock_from_text(struct tdat_file_priv *fp, const char *p, size_t n)
{
	const char *o = memchr(p, '[', n), *c;
	if (!o)
		return NULL;
	c = memchr(o, ']', n - (size_t)(o - p));
	if (!c)
		return NULL;
	return tmx_arena_strndup(&fp->arena, o + 1, (size_t)(c - o - 1));
}

struct tdat_buffer *tdat_new_buffer(struct tdat_file_priv *fp, struct open_state *st,
				    struct tmx_error *err)
{
	if (st->n_bufs >= MAX_BUFFERS) {
		tmx_error_set(err, TMX_ERR_LIMIT, fp->pub.path, "more than %d buffers", MAX_BUFFERS);
		return NULL;
	}
	if (st->n_bufs == st->cap_bufs) {
		size_t nc = st->cap_bufs ? st->cap_bufs * 2 : 4;
		st->bufs = tmx_arena_grow(&fp->arena, st->bufs, st->cap_bufs, nc, sizeof(*st->bufs));
		if (!st->bufs) {
			nomem(fp, err);
			return NULL;
		}
		st->cap_bufs = nc;
	}
	memset(&st->bufs[st->n_bufs], 0, sizeof(st->bufs[0]));
	return &st->bufs[st->n_bufs++];
}

static int option_buffer(struct tdat_file_priv *fp, struct open_state *st, struct rd *r,
			 uint16_t id, uint64_t opt_off)
{
	struct tdat_buffer *b = tdat_new_buffer(fp, st, r->err);
	uint64_t off;
	const char *name, *clock;
	int ret;

	if (!b)
		return r->err->code;
	if ((ret = rd_u64(r, &off, "buffer offset")) || (ret = rd_str(r, &name, "buffer name")))
		return ret;
	b->name = name;
	b->section_offset = off;
	b->page_size = fp->pub.page_size;
	if (!*name)
		st->have_top = true;
	if (fp->pub.version < 7) {
		/* v6: only the offset and the name; the data at offset is read later. */
		b->clock = NULL;
		return TMX_OK;
	}
	if ((ret = rd_str(r, &clock, "buffer clock")))
		return ret;
	b->clock = clock;
	if (id == TDAT_OPT_BUFFER_TEXT) {
		b->latency = true;
		return TMX_OK;
	}
	uint32_t ps, n;
	if ((ret = rd_u32(r, &ps, "buffer page size")) || (ret = rd_u32(r, &n, "buffer CPU count")))
		return ret;
	if (ps < 32 || ps > TDAT_MAX_PAGE_SIZE)
		return tmx_error_at(r->err, TMX_ERR_DATA, fp->pub.path, opt_off,
				    "BUFFER option of \"%s\": page size %u out of range (32..%u)", name,
				    ps, TDAT_MAX_PAGE_SIZE);
	if (n > MAX_CPUS || (uint64_t)n * 20 > r->n - r->pos)
		return rd_fail(r, "BUFFER option of \"%s\": %u CPUs do not fit in the option", name, n);
	b->page_size = ps;
	b->n_cpus = n;
	b->cpus = tmx_arena_calloc(&fp->arena, n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return nomem(fp, r->err);
	for (uint32_t i = 0; i < n; i++) {
		struct tdat_cpu_data *c = &b->cpus[i];
		if ((ret = rd_u32(r, &c->cpu, "CPU id")) || (ret = rd_u64(r, &c->offset, "CPU data offset")) ||
		    (ret = rd_u64(r, &c->size, "CPU data size")))
			return ret;
		for (uint32_t j = 0; j < i; j++)
			if (b->cpus[j].cpu == c->cpu)
				return rd_fail(r, "BUFFER option of \"%s\": CPU %u listed twice", name,
					       c->cpu);
	}
	return TMX_OK;
}

static uint64_t parse_ll(const uint8_t *p, size_t n)
{
	char tmp[64];
	size_t m = n < sizeof(tmp) - 1 ? n : sizeof(tmp) - 1;
	memcpy(tmp, p, m);
	tmp[m] = '\0';
	return (uint64_t)strtoll(tmp, NULL, 0);
}

static int option_time_shift(struct tdat_file_priv *fp, struct rd *r, uint32_t size)
{
	struct rd o = *r;
	uint64_t peer;
	uint32_t flags, cpus;
	int ret;

	/* trace-cmd ignores the option when it is shorter than 16 bytes. */
	if (size < 16)
		return TMX_OK;
	o.n = o.pos + size;
	if ((ret = rd_u64(&o, &peer, "TIME_SHIFT peer id")) || (ret = rd_u32(&o, &flags, "TIME_SHIFT flags")) ||
	    (ret = rd_u32(&o, &cpus, "TIME_SHIFT CPU count")))
		return ret;
	fp->pub.has_time_shift = true;
	if (cpus > MAX_CPUS || (uint64_t)cpus * 4 > o.n - o.pos)
		return rd_fail(&o, "TIME_SHIFT: %u CPUs do not fit in the option", cpus);
	fp->tsync_flags = flags;
	fp->tsync_cpus = cpus;
	fp->tsync_cpu = tmx_arena_calloc(&fp->arena, cpus ? cpus : 1, sizeof(*fp->tsync_cpu));
	if (!fp->tsync_cpu)
		return nomem(fp, r->err);
	for (uint32_t c = 0; c < cpus; c++) {
		uint32_t count;
		struct tdat_ts_cpu *tc = &fp->tsync_cpu[c];
		if ((ret = rd_u32(&o, &count, "TIME_SHIFT sample count")))
			return ret;
		if ((uint64_t)count * 24 > o.n - o.pos)
			return rd_fail(&o, "TIME_SHIFT: %u samples of CPU %u do not fit", count, c);
		tc->count = count;
		tc->samples = tmx_arena_calloc(&fp->arena, count ? count : 1, sizeof(*tc->samples));
		if (!tc->samples)
			return nomem(fp, r->err);
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, (uint64_t *)&tc->samples[k].time, "time");
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, (uint64_t *)&tc->samples[k].offset, "offset");
		for (uint32_t k = 0; k < count; k++)
			rd_u64(&o, &tc->samples[k].scaling, "scaling");
	}
	/* Optional: per CPU, the scaling fraction bits. */
	for (uint32_t c = 0; c < cpus; c++) {
		struct tdat_ts_cpu *tc = &fp->tsync_cpu[c];
		if ((uint64_t)tc->count * 8 > o.n - o.pos)
			break;
		for (uint32_t k = 0; k < tc->count; k++) {
			uint64_t fr;
			rd_u64(&o, &fr, "fraction");
			tc->samples[k].fraction = fr > 63 ? 63 : (uint32_t)fr;
		}
	}
	/* trace-cmd's tracecmd_enable_tsync(): needs samples on every CPU listed. */
	fp->tsync = cpus > 0;
	for (uint32_t c = 0; c < cpus; c++)
		if (!fp->tsync_cpu[c].count)
			fp->tsync = false;
	return TMX_OK;
}

/* An option string: up to its first NUL. */
static struct tdat_text opt_string(const uint8_t *p, size_t n)
{
	const uint8_t *nul = memchr(p, '\0', n);
	return text_of(p, nul ? (size_t)(nul - p) : n);
}

/* One option; r is positioned on its data (size bytes). */
static int handle_option(struct tdat_file_priv *fp, struct open_state *st, uint16_t id,
			 uint32_t size, struct rd *r, uint64_t data_off)
{
	struct tdat_file *f = &fp->pub;
	const uint8_t *p = r->p + r->pos;
	struct tdat_option *o;
	int ret = TMX_OK;

	if (f->n_options >= MAX_OPTIONS)
		return rd_fail(r, "more than %d options", MAX_OPTIONS);
	if (f->n_options == st->cap_options) {
		size_t nc = st->cap_options ? st->cap_options * 2 : 32;
		f->options = tmx_arena_grow(&fp->arena, f->options, st->cap_options, nc, sizeof(*f->options));
		if (!f->options)
			return nomem(fp, r->err);
		st->cap_options = nc;
	}
	o = &f->options[f->n_options++];
	*o = (struct tdat_option){ id, size, p, data_off };

	switch (id) {
	case TDAT_OPT_DATE:
		f->date = opt_string(p, size);
		/* trace-cmd: the value is in microseconds, added in ns. */
		/* Unsigned arithmetic: a file's values cannot overflow into UB. */
		f->ts_offset = (int64_t)((uint64_t)f->ts_offset + parse_ll(p, size) * 1000);
		break;
	case TDAT_OPT_OFFSET:
		f->offset_text = opt_string(p, size);
		f->ts_offset = (int64_t)((uint64_t)f->ts_offset + parse_ll(p, size));
		break;
	case TDAT_OPT_CPUSTAT:
		if (f->n_cpustats == st->cap_cpustats) {
			size_t nc = st->cap_cpustats ? st->cap_cpustats * 2 : 8;
			f->cpustats = tmx_arena_grow(&fp->arena, f->cpustats, st->cap_cpustats, nc,
						     sizeof(*f->cpustats));
			if (!f->cpustats)
				return nomem(fp, r->err);
			st->cap_cpustats = nc;
		}
		f->cpustats[f->n_cpustats++] = opt_string(p, size);
		break;
	case TDAT_OPT_BUFFER:
	case TDAT_OPT_BUFFER_TEXT: {
		struct rd o = *r;
		o.n = o.pos + size;
		ret = option_buffer(fp, st, &o, id, data_off);
		break;
	}
	case TDAT_OPT_TRACECLOCK:
		f->has_traceclock = true;
		f->traceclock = opt_string(p, size);
		break;
	case TDAT_OPT_UNAME:
		f->uname = opt_string(p, size);
		break;
	case TDAT_OPT_HOOK:
		f->hook = opt_string(p, size);
		break;
	case TDAT_OPT_CPUCOUNT:
		if (size >= 4) {
			f->has_cpucount = true;
			f->cpucount = tdat_read32(f, p);
			if (f->cpucount > f->max_cpu)
				f->max_cpu = f->cpucount;
		}
		break;
	case TDAT_OPT_VERSION:
		f->version_text = opt_string(p, size);
		break;
	case TDAT_OPT_PROCMAPS:
		f->procmaps = opt_string(p, size);
		break;
	case TDAT_OPT_TRACEID:
		if (size >= 8) {
			f->has_trace_id = true;
			f->trace_id = tdat_read64(f, p);
		}
		break;
	case TDAT_OPT_TIME_SHIFT:
		ret = option_time_shift(fp, r, size);
		break;
	case TDAT_OPT_TSC2NSEC:
		if (size >= 16) {
			f->has_tsc2nsec = true;
			f->tsc2nsec_mult = tdat_read32(f, p);
			f->tsc2nsec_shift = tdat_read32(f, p + 4);
			f->tsc2nsec_offset = tdat_read64(f, p + 8);
		}
		break;
	case TDAT_OPT_STRINGS:
		/* Names of sections may also come as an option: keep the last. */
		f->strings = text_of(p, size);
		break;
	case TDAT_OPT_HEADER_INFO:
	case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS:
	case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK:
	case TDAT_OPT_CMDLINES:
		if (size >= 8)
			st->sec_off[id] = tdat_read64(f, p);
		break;
	case TDAT_OPT_GUEST:
	default:
		/* GUEST matters only with the host's file; unknown options are kept raw. */
		break;
	}
	return ret;
}

/* v7: the chain of options sections from `off`. */
int tdat_read_options_v7(struct tdat_file_priv *fp, struct open_state *st, uint64_t off,
			 struct tmx_error *err)
{
	uint64_t seen[MAX_OPTIONS_SECTIONS];
	size_t n_seen = 0;
	int ret;

	while (off) {
		struct section s;
		struct rd r;
		for (size_t i = 0; i < n_seen; i++)
			if (seen[i] == off)
				return tmx_error_at(err, TMX_ERR_DATA, fp->pub.path, off,
						    "options sections chain loops back to offset %llu",
						    (unsigned long long)off);
		if (n_seen == MAX_OPTIONS_SECTIONS)
			return tmx_error_at(err, TMX_ERR_LIMIT, fp->pub.path, off,
					    "more than %d options sections", MAX_OPTIONS_SECTIONS);
		seen[n_seen++] = off;
		if ((ret = tdat_section_header(fp, off, TDAT_SEC_OPTIONS, &s, err)) ||
		    (ret = tdat_section_reader(fp, &s, &r, err)))
			return ret;
		fp->pub.n_sections++;
		st->last_options_end = s.data_off + s.size;
		off = 0;
		for (;;) {
			uint16_t id;
			uint32_t size;
			uint64_t data_off;
			if ((ret = rd_u16(&r, &id, "option id")) || (ret = rd_u32(&r, &size, "option size")))
				return ret;
			data_off = r.unpacked ? r.base : r.base + r.pos;
			if ((ret = rd_need(&r, size, "option data")))
				return ret;
			if (id == TDAT_OPT_DONE) {
				if (size < 8)
					return rd_fail(&r, "DONE option of %u bytes, 8 expected", size);
				off = tdat_read64(&fp->pub, r.p + r.pos);
				if ((ret = handle_option(fp, st, id, size, &r, data_off)))
					return ret;
				break;
			}
			if ((ret = handle_option(fp, st, id, size, &r, data_off)))
				return ret;
			r.pos += size;
		}
	}
	return TMX_OK;
}

/* v6: options until an id of 0 (DONE has no size in v6). */
int tdat_read_options_v6(struct tdat_file_priv *fp, struct open_state *st, struct rd *r)
{
	int ret;

	for (;;) {
		uint16_t id;
		uint32_t size;
		uint64_t data_off;
		if ((ret = rd_u16(r, &id, "option id")))
			return ret;
		if (id == TDAT_OPT_DONE)
			return TMX_OK;
		if ((ret = rd_u32(r, &size, "option size")))
			return ret;
		data_off = r->base + r->pos;
		if ((ret = rd_need(r, size, "option data")) ||
		    (ret = handle_option(fp, st, id, size, r, data_off)))
			return ret;
		r->pos += size;
	}
}

/* The trace-cmd 3.4 options (and their v7 sections) that the reader has no use for. */
static const char *skipped_name(uint16_t id)
{
	switch (id) {
	case 23: return "BTF";             /* the kernel's BTF (trace-cmd 3.4, with func-args) */
	case 24: return "LAST_BOOT_INFO";  /* persistent ring buffers: the previous boot */
	case 25: return "MODULES_FILE";    /* persistent ring buffers: the modules then */
	default: return NULL;
	}
}

size_t tdat_skipped_text(const struct tdat_file *f, char *out, size_t cap)
{
	size_t n = 0;

	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < f->n_options && n + 1 < cap; i++) {
		const struct tdat_option *o = &f->options[i];
		const char *name = skipped_name(o->id);
		int w;

		if (o->id <= TDAT_OPT_BUFFER_TEXT)
			continue;
		if (name && f->version >= 7 && o->size >= 8) {
			/* v7: the option holds the offset of its section (16-byte header, then data) */
			uint64_t off = tdat_read64(f, o->data);
			if (off <= f->size && f->size - off >= 16)
				w = snprintf(out + n, cap - n, "%s%s (option %u: section %u at offset %llu, "
					     "%llu bytes)", n ? ", " : "", name, o->id,
					     tdat_read16(f, f->data + off), (unsigned long long)off,
					     (unsigned long long)tdat_read64(f, f->data + off + 8));
			else
				w = snprintf(out + n, cap - n, "%s%s (option %u: section offset %llu "
					     "outside the file)", n ? ", " : "", name, o->id,
					     (unsigned long long)off);
		} else if (name) {
			w = snprintf(out + n, cap - n, "%s%s (option %u, %u bytes)", n ? ", " : "", name,
				     o->id, o->size);
		} else {
			w = snprintf(out + n, cap - n, "%soption %u (unknown id, %u bytes at offset %llu)",
				     n ? ", " : "", o->id, o->size, (unsigned long long)o->offset);
		}
		if (w < 0)
			break;
		n = (size_t)w >= cap - n ? cap - 1 : n + (size_t)w;
	}
	return n;
}
