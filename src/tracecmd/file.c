/*
 * Opening a trace.dat: the initial format, then either the v6 fixed layout
 * or the v7 sections and options, every size checked against the bytes
 * that remain before anything is read (trace-cmd.dat.v7(5); v6 is the
 * same metadata in a fixed order, see tdat_open_v6()).
 *
 * Everything but the ring-buffer data is read at open; the data is only
 * located (and, when compressed, its chunk headers scanned) so that a bad
 * offset fails at open and cursors can decompress one chunk at a time.
 *
 * This file: the layouts in order, the metadata, the events by id; the
 * other parts are listed in file_impl.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/file_impl.h"

/* ------------------------------------------------------------------ */
/* Metadata common to v6 and v7                                          */
/* ------------------------------------------------------------------ */

static int read_header_info(struct tdat_file_priv *fp, struct rd *r)
{
	const uint8_t *tag, *p;
	uint64_t n;
	int ret;

	if ((ret = rd_bytes(r, 12, &tag, "\"header_page\" tag")))
		return ret;
	if (memcmp(tag, "header_page", 12))
		return r->pos -= 12, rd_fail(r, "expected \"header_page\\0\"");
	if ((ret = rd_u64(r, &n, "header_page size")) || (ret = rd_bytes(r, n, &p, "header_page")))
		return ret;
	fp->pub.header_page = text_of(p, (size_t)n);
	if ((ret = rd_bytes(r, 13, &tag, "\"header_event\" tag")))
		return ret;
	if (memcmp(tag, "header_event", 13))
		return r->pos -= 13, rd_fail(r, "expected \"header_event\\0\"");
	if ((ret = rd_u64(r, &n, "header_event size")) || (ret = rd_bytes(r, n, &p, "header_event")))
		return ret;
	fp->pub.header_event = text_of(p, (size_t)n);
	if (!tdat_parse_header_page(fp->pub.header_page.ptr, fp->pub.header_page.len,
				    &fp->pub.kernel_long_size, &fp->pub.page_header_size)) {
		/* Not the usual layout: trust the initial format's long size. */
		fp->pub.kernel_long_size = fp->pub.long_size;
		fp->pub.page_header_size = 8 + fp->pub.long_size;
		tmx_warn(fp->opts.diag, "%s: header_page not understood; assuming a %u-byte commit",
			 fp->pub.path, fp->pub.long_size);
	}
	return TMX_OK;
}

static int add_format(struct tdat_file_priv *fp, struct tdat_format_file **arr, size_t *n,
		      size_t *cap, const char *system, const uint8_t *p, size_t len,
		      struct tmx_error *err)
{
	struct tdat_format_file *ff;
	const char *why = NULL;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		*arr = tmx_arena_grow(&fp->arena, *arr, *cap, nc, sizeof(**arr));
		if (!*arr)
			return nomem(fp, err);
		*cap = nc;
	}
	ff = &(*arr)[(*n)++];
	ff->system = system;
	ff->text = text_of(p, len);
	ff->event = NULL;
	if (tdat_parse_format(&fp->arena, system, (const char *)p, len,
			      fp->pub.kernel_long_size ? fp->pub.kernel_long_size : fp->pub.long_size,
			      &ff->event, &why)) {
		if (why && !strcmp(why, "out of memory"))
			return nomem(fp, err);
		tmx_warn(fp->opts.diag, "%s: a format file of system %s cannot be parsed (%s): its events "
			 "are skipped", fp->pub.path, system, why ? why : "?");
		ff->event = NULL;
	}
	return TMX_OK;
}

static int read_ftrace_formats(struct tdat_file_priv *fp, struct rd *r)
{
	uint32_t count;
	size_t cap = 0;
	int ret;

	if ((ret = rd_u32(r, &count, "ftrace format count")))
		return ret;
	if (count > MAX_FORMATS)
		return r->pos -= 4, rd_fail(r, "%u ftrace formats (limit %d)", count, MAX_FORMATS);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t n;
		const uint8_t *p;
		if ((ret = rd_u64(r, &n, "ftrace format size")) || (ret = rd_bytes(r, n, &p, "ftrace format")))
			return ret;
		if ((ret = add_format(fp, &fp->pub.ftrace_formats, &fp->pub.n_ftrace_formats, &cap,
				      "ftrace", p, (size_t)n, r->err)))
			return ret;
	}
	return TMX_OK;
}

static int read_event_formats(struct tdat_file_priv *fp, struct rd *r)
{
	uint32_t systems;
	size_t cap = 0;
	int ret;

	if ((ret = rd_u32(r, &systems, "event system count")))
		return ret;
	if (systems > MAX_FORMATS)
		return r->pos -= 4, rd_fail(r, "%u event systems (limit %d)", systems, MAX_FORMATS);
	fp->pub.n_systems = systems;
	for (uint32_t s = 0; s < systems; s++) {
		const char *name;
		uint32_t count;
		if ((ret = rd_str(r, &name, "event system name")) ||
		    (ret = rd_u32(r, &count, "event format count")))
			return ret;
		if (count > MAX_FORMATS)
			return r->pos -= 4, rd_fail(r, "%u event formats (limit %d)", count, MAX_FORMATS);
		for (uint32_t i = 0; i < count; i++) {
			uint64_t n;
			const uint8_t *p;
			if ((ret = rd_u64(r, &n, "event format size")) ||
			    (ret = rd_bytes(r, n, &p, "event format")))
				return ret;
			if ((ret = add_format(fp, &fp->pub.event_formats, &fp->pub.n_event_formats, &cap,
					      name, p, (size_t)n, r->err)))
				return ret;
		}
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Opening                                                               */
/* ------------------------------------------------------------------ */

static int finish_buffers(struct tdat_file_priv *fp, struct open_state *st, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	size_t n = st->n_bufs + (st->have_top ? 0 : 1), k = 1;
	const char *top_clock = NULL;

	if (f->has_traceclock)
		top_clock = tdat_clock_from_text(fp, f->traceclock.ptr, f->traceclock.len);
	f->buffers = tmx_arena_calloc(&fp->arena, n, sizeof(*f->buffers));
	fp->cpu_priv = tmx_arena_calloc(&fp->arena, n, sizeof(*fp->cpu_priv));
	if (!f->buffers || !fp->cpu_priv)
		return nomem(fp, err);
	/* [0] is the top buffer, then instances in option order. */
	for (size_t i = 0; i < st->n_bufs; i++) {
		if (!*st->bufs[i].name && !f->buffers[0].name)
			f->buffers[0] = st->bufs[i];
		else
			f->buffers[k++] = st->bufs[i];
	}
	if (!f->buffers[0].name) {
		f->buffers[0].name = "";
		f->buffers[0].page_size = f->page_size;
	}
	f->n_buffers = k;
	for (size_t i = 0; i < f->n_buffers; i++) {
		if (!f->buffers[i].clock)
			f->buffers[i].clock = top_clock ? top_clock : "local";
	}
	return TMX_OK;
}

static int open_v7(struct tdat_file_priv *fp, struct rd *r, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct open_state st;
	const char *name, *ver;
	uint64_t first;
	int ret;

	memset(&st, 0, sizeof(st));
	if ((ret = rd_str(r, &name, "compression algorithm")) ||
	    (ret = rd_str(r, &ver, "compression version")) ||
	    (ret = rd_u64(r, &first, "first options section offset")))
		return ret;
	f->compression = name;
	f->compression_version = ver;
	if (!strcmp(name, "none"))
		fp->algo = TDAT_ALGO_NONE;
	else if (!strcmp(name, "zstd"))
		fp->algo = TDAT_ALGO_ZSTD;
	else if (!strcmp(name, "zlib"))
		fp->algo = TDAT_ALGO_ZLIB;
	else
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, f->path, (uint64_t)(name - (const char *)f->data),
				    "unknown compression algorithm \"%s\" (version \"%s\"): tracemux "
				    "reads \"none\", \"zstd\" and \"zlib\"", name, ver);
	if (!first)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r->pos - 8,
				    "no options section (offset 0)");
	if ((ret = tdat_read_options_v7(fp, &st, first, err)))
		return ret;
	/* A STRINGS section, when written, follows the last options section. */
	if (st.last_options_end + 16 <= f->size) {
		struct section s;
		struct rd sr;
		struct tmx_error e2;
		if (!tdat_section_header(fp, st.last_options_end, TDAT_SEC_STRINGS, &s, &e2) &&
		    !tdat_section_reader(fp, &s, &sr, &e2)) {
			f->strings = text_of(sr.p, sr.n - sr.pos);
			if (!sr.unpacked)
				f->strings = text_of(sr.p + sr.pos, (size_t)s.size);
			f->n_sections++;
		}
	}
	if (!st.sec_off[TDAT_OPT_HEADER_INFO])
		return tmx_error_at(err, TMX_ERR_DATA, f->path, first,
				    "no HEADER_INFO option: the page and event headers are unknown");
	static const int order[] = { TDAT_SEC_HEADER_INFO, TDAT_SEC_FTRACE_EVENTS,
				     TDAT_SEC_EVENT_FORMATS, TDAT_SEC_KALLSYMS, TDAT_SEC_PRINTK,
				     TDAT_SEC_CMDLINES };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int id = order[i];
		struct section s;
		struct rd sr;
		if (!st.sec_off[id])
			continue;
		if (fp->opts.skip_texts && (id == TDAT_SEC_KALLSYMS || id == TDAT_SEC_PRINTK)) {
			f->n_sections++;
			continue;
		}
		if (fp->opts.skip_texts && id == TDAT_SEC_CMDLINES) {
			/* the model's tasks only: a damaged section leaves them out, not the trace */
			struct tmx_error e2;
			f->n_sections++;
			if (!tdat_section_header(fp, st.sec_off[id], id, &s, &e2) &&
			    !tdat_section_reader(fp, &s, &sr, &e2) &&
			    tdat_read_sized_text(&sr, 8, &f->cmdlines, "saved cmdlines"))
				f->cmdlines = (struct tdat_text){ 0 };
			continue;
		}
		if ((ret = tdat_section_header(fp, st.sec_off[id], id, &s, err)) ||
		    (ret = tdat_section_reader(fp, &s, &sr, err)))
			return ret;
		f->n_sections++;
		switch (id) {
		case TDAT_SEC_HEADER_INFO: ret = read_header_info(fp, &sr); break;
		case TDAT_SEC_FTRACE_EVENTS: ret = read_ftrace_formats(fp, &sr); break;
		case TDAT_SEC_EVENT_FORMATS: ret = read_event_formats(fp, &sr); break;
		case TDAT_SEC_KALLSYMS:
			ret = tdat_read_sized_text(&sr, 4, &f->kallsyms, "kallsyms");
			break;
		case TDAT_SEC_PRINTK:
			ret = tdat_read_sized_text(&sr, 4, &f->printk, "printk formats");
			break;
		case TDAT_SEC_CMDLINES:
			ret = tdat_read_sized_text(&sr, 8, &f->cmdlines, "saved cmdlines");
			break;
		}
		if (ret)
			return ret;
	}
	if ((ret = finish_buffers(fp, &st, err)))
		return ret;
	if (!f->has_cpucount) {
		for (size_t i = 0; i < f->n_buffers; i++)
			for (uint32_t c = 0; c < f->buffers[i].n_cpus; c++)
				if (f->buffers[i].cpus[c].cpu + 1 > f->max_cpu)
					f->max_cpu = f->buffers[i].cpus[c].cpu + 1;
	}
	return tdat_read_buffer_sections(fp, err);
}

static int open_v6(struct tdat_file_priv *fp, struct rd *r, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct open_state st;
	uint32_t cpus;
	const uint8_t *tag;
	int ret;

	memset(&st, 0, sizeof(st));
	f->compression = "none";
	f->compression_version = "";
	r->what = "header info";
	if ((ret = read_header_info(fp, r)))
		return ret;
	r->what = "ftrace formats";
	if ((ret = read_ftrace_formats(fp, r)))
		return ret;
	r->what = "event formats";
	if ((ret = read_event_formats(fp, r)))
		return ret;
	r->what = "kallsyms";
	if ((ret = tdat_read_sized_text(r, 4, &f->kallsyms, "kallsyms size")))
		return ret;
	r->what = "printk formats";
	if ((ret = tdat_read_sized_text(r, 4, &f->printk, "printk size")))
		return ret;
	r->what = "saved cmdlines";
	if ((ret = tdat_read_sized_text(r, 8, &f->cmdlines, "cmdlines size")))
		return ret;
	r->what = "CPU count";
	if ((ret = rd_u32(r, &cpus, "CPU count")))
		return ret;
	f->cpucount = cpus;
	f->max_cpu = cpus;
	r->what = "options";
	if ((ret = rd_need(r, 10, "options or data tag")))
		return ret;
	tag = r->p + r->pos;
	if (!memcmp(tag, "options  ", 10)) {
		r->pos += 10;
		if ((ret = tdat_read_options_v6(fp, &st, r)))
			return ret;
	}
	/* The top buffer's data follows; instances are at their BUFFER offsets. */
	struct tdat_buffer *top = NULL;
	for (size_t i = 0; i < st.n_bufs; i++)
		if (!*st.bufs[i].name)
			top = &st.bufs[i];
	if (!top) {
		if (!(top = tdat_new_buffer(fp, &st, err)))
			return err->code;
		top->name = "";
		top->page_size = f->page_size;
		st.have_top = true;
	}
	/* new_buffer may have moved the array: find the top again by name. */
	r->what = "flyrecord data";
	for (size_t i = 0; i < st.n_bufs; i++) {
		struct tdat_buffer *b = &st.bufs[i];
		b->page_size = f->page_size;
		if (!*b->name) {
			if ((ret = tdat_read_v6_data(fp, b, r, f->cpucount)))
				return ret;
		} else {
			struct rd ir;
			rd_init_file(&ir, fp, b->section_offset, "buffer instance data", err);
			if ((ret = tdat_read_v6_data(fp, b, &ir, f->cpucount)))
				return ret;
		}
	}
	if ((ret = finish_buffers(fp, &st, err)))
		return ret;
	for (size_t bi = 0; bi < f->n_buffers; bi++)
		if ((ret = tdat_check_cpu_data(fp, &f->buffers[bi], bi, err)))
			return ret;
	return TMX_OK;
}

static int cmp_event(const void *a, const void *b)
{
	const struct tdat_event *x = *(const struct tdat_event *const *)a;
	const struct tdat_event *y = *(const struct tdat_event *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int sort_events(struct tdat_file_priv *fp, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	size_t n = 0, total = f->n_ftrace_formats + f->n_event_formats;
	const struct tdat_event **evs = tmx_arena_calloc(&fp->arena, total ? total : 1, sizeof(*evs));
	uint32_t max_id = 0;

	if (!evs)
		return nomem(fp, err);
	for (size_t i = 0; i < f->n_ftrace_formats; i++)
		if (f->ftrace_formats[i].event)
			evs[n++] = f->ftrace_formats[i].event;
	for (size_t i = 0; i < f->n_event_formats; i++)
		if (f->event_formats[i].event)
			evs[n++] = f->event_formats[i].event;
	qsort(evs, n, sizeof(*evs), cmp_event);
	f->events = evs;
	f->n_events = n;
	for (size_t i = 0; i < n; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	fp->type_offset = 0;
	fp->type_size = 2;
	if (n && evs[0]->n_fields && !strcmp(evs[0]->fields[0].name, "common_type") &&
	    (evs[0]->fields[0].size == 1 || evs[0]->fields[0].size == 2 ||
	     evs[0]->fields[0].size == 4)) {
		fp->type_offset = evs[0]->fields[0].offset;
		fp->type_size = evs[0]->fields[0].size;
	}
	if (n && max_id < 65536) {
		fp->n_by_id = (size_t)max_id + 1;
		fp->by_id = tmx_arena_calloc(&fp->arena, fp->n_by_id, sizeof(*fp->by_id));
		if (!fp->by_id)
			return nomem(fp, err);
		/* Same id twice: the first one (ftrace formats come first), as libtraceevent. */
		for (size_t i = n; i-- > 0;)
			fp->by_id[evs[i]->id] = evs[i];
	}
	return TMX_OK;
}

const struct tdat_event *tdat_file_event(const struct tdat_file *f, uint32_t id)
{
	const struct tdat_file_priv *fp = tdat_priv(f);
	size_t lo = 0, hi = f->n_events;

	if (fp->by_id)
		return id < fp->n_by_id ? fp->by_id[id] : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->events[mid]->id < id)
			lo = mid + 1;
		else if (f->events[mid]->id > id)
			hi = mid;
		else
			return f->events[mid];
	}
	return NULL;
}

static int open_common(struct tdat_file_priv *fp, struct tmx_error *err)
{
	struct tdat_file *f = &fp->pub;
	struct rd r;
	const uint8_t *m;
	const char *ver;
	uint32_t ps;
	const uint8_t *hdr;
	int ret;

	rd_init_file(&r, fp, 0, "initial format", err);
	if ((ret = rd_bytes(&r, TDAT_MAGIC_LEN, &m, "magic")))
		return ret;
	if (memcmp(m, TDAT_MAGIC, TDAT_MAGIC_LEN))
		return tmx_error_at(err, TMX_ERR_DATA, f->path, 0,
				    "not a trace.dat file: expected the magic 17 08 44 \"tracing\"");
	if ((ret = rd_str(&r, &ver, "version string")))
		return ret;
	if (!strcmp(ver, "6"))
		f->version = 6;
	else if (!strcmp(ver, "7"))
		f->version = 7;
	else
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, f->path, 10,
				    "trace.dat version \"%.16s\": tracemux reads versions 6 and 7", ver);
	if ((ret = rd_bytes(&r, 2, &hdr, "endianness and long size")))
		return ret;
	if (hdr[0] > 1)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 2,
				    "endianness byte %u (0: little, 1: big expected)", hdr[0]);
	f->big_endian = hdr[0] == 1;
	if (hdr[1] != 4 && hdr[1] != 8)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 1,
				    "long size %u (4 or 8 expected)", hdr[1]);
	f->long_size = hdr[1];
	if ((ret = rd_u32(&r, &ps, "page size")))
		return ret;
	if (ps < 32 || ps > TDAT_MAX_PAGE_SIZE)
		return tmx_error_at(err, TMX_ERR_DATA, f->path, r.pos - 4,
				    "page size %u out of range (32..%u)", ps, TDAT_MAX_PAGE_SIZE);
	f->page_size = ps;
	ret = f->version == 7 ? open_v7(fp, &r, err) : open_v6(fp, &r, err);
	if (ret)
		return ret;
	if (!f->header_page.ptr)
		return tmx_error_set(err, TMX_ERR_DATA, f->path, "no header_page in the file");
	if ((ret = sort_events(fp, err)))
		return ret;
	/* trace-cmd prints usecs for these clocks or once TSC2NSEC converts. */
	const char *clock = f->buffers[0].clock;
	f->ts_in_ns = (f->has_tsc2nsec && f->tsc2nsec_mult) || !strcmp(clock, "local") ||
		      !strcmp(clock, "global") || !strcmp(clock, "uptime") || !strcmp(clock, "perf") ||
		      !strncmp(clock, "mono", 4) || !strcmp(clock, "tsc2nsec") ||
		      !strcmp(clock, "tai");
	return TMX_OK;
}

static int open_priv(struct tdat_file_priv *fp, const struct tdat_open_opts *opts,
		     struct tdat_file **out, struct tmx_error *err)
{
	int ret;

	pthread_mutex_init(&fp->unpack_lock, NULL);
	if (opts)
		fp->opts = *opts;
	fp->max_section = TDAT_MAX_SECTION_UNCOMPRESSED;
	if (fp->opts.max_section && fp->opts.max_section < fp->max_section)
		fp->max_section = fp->opts.max_section;
	ret = open_common(fp, err);
	if (ret) {
		tdat_file_close(&fp->pub);
		return ret;
	}
	*out = &fp->pub;
	return TMX_OK;
}

int tdat_file_open(const char *path, const struct tdat_open_opts *opts, struct tdat_file **out,
		   struct tmx_error *err)
{
	struct tdat_file_priv *fp = calloc(1, sizeof(*fp));
	int ret;

	*out = NULL;
	if (!fp)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	tmx_arena_init(&fp->arena);
	if ((ret = tmx_mapfile_open(&fp->map, path, err))) {
		free(fp);
		return ret;
	}
	fp->mapped = true;
	fp->pub.path = fp->map.path;
	fp->pub.data = fp->map.data;
	fp->pub.size = fp->map.size;
	return open_priv(fp, opts, out, err);
}

int tdat_file_open_mem(const uint8_t *data, size_t size, const char *name,
		       const struct tdat_open_opts *opts, struct tdat_file **out,
		       struct tmx_error *err)
{
	struct tdat_file_priv *fp = calloc(1, sizeof(*fp));

	*out = NULL;
	if (!fp)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	tmx_arena_init(&fp->arena);
	fp->pub.path = tmx_arena_strdup(&fp->arena, name ? name : "(memory)");
	if (!fp->pub.path) {
		free(fp);
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	}
	fp->pub.data = size ? data : NULL;
	fp->pub.size = size;
	return open_priv(fp, opts, out, err);
}

void tdat_file_close(struct tdat_file *f)
{
	struct tdat_file_priv *fp;

	if (!f)
		return;
	fp = tdat_priv(f);
	for (size_t i = 0; i < fp->n_owned; i++)
		free(fp->owned[i]);
	free(fp->owned);
	tdat_unpackers_free(fp);
	pthread_mutex_destroy(&fp->unpack_lock);
	tmx_arena_free(&fp->arena);
	if (fp->mapped)
		tmx_mapfile_close(&fp->map);
	free(fp);
}
