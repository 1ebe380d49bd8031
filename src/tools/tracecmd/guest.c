/*
 * KVM guests' symbols in the host's kvm events: see guest.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/tracecmd/guest.h"
#include "common/errors.h"

/* One GUEST option of the host, as trace_guest_load() keeps it. */
struct tcg_guest {
	uint64_t trace_id;
	uint32_t n_vcpus;
	int32_t *pid;        /* by vCPU number; vCPUs the option does not list: 0 */
};

/* One input file and its libtraceevent handle (its instances share both). */
struct tcg_file {
	const struct tdat_file *f;
	struct tep_handle *tep;
};

/* One vCPU: the host task running it, the guest file's symbols. */
struct tcg_entry {
	int32_t pid;
	size_t seq;          /* insertion order: equal pids stay in it (stable sort) */
	struct tep_handle *tep;
};

struct tcg_vcpus {
	struct tcg_file *files;
	size_t n_files, cap_files;
	struct tcg_guest *guests;   /* the host's readable GUEST options, in file order */
	size_t n_guests;
	struct tcg_entry *map;
	size_t n_map, cap_map;
};

/* The map of the report running on this thread (the kvm plugin's callback has no context). */
static _Thread_local const struct tcg_vcpus *active;

static int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

int tcg_add_file(struct tcg_vcpus **m, const struct tdat_file *f, struct tep_handle *tep,
		 struct tmx_error *err)
{
	if (!*m && !(*m = calloc(1, sizeof(**m))))
		return nomem(err);
	if (!tmx_grow_array((void **)&(*m)->files, &(*m)->cap_files, (*m)->n_files + 1,
			    sizeof(*(*m)->files), 4))
		return nomem(err);
	(*m)->files[(*m)->n_files++] = (struct tcg_file){ f, tep };
	return TMX_OK;
}

/*
 * One GUEST option: name (NUL-terminated), trace id (8 bytes), vCPU count
 * (4), then per vCPU its number and the host pid (4 + 4).  NULL when it
 * reads, else why trace-cmd drops it (or would read outside it: no NUL in
 * the name, a negative vCPU number), *at the byte where it fails.
 */
static const char *check_option(const struct tdat_file *f, const struct tdat_option *o,
				uint32_t *at)
{
	const uint8_t *p = o->data, *nul = memchr(p, '\0', o->size);
	uint32_t count;

	*at = 0;
	if (!nul)
		return "the guest name has no terminating NUL";
	*at = (uint32_t)(nul + 1 - p);
	if (o->size - *at < 12)
		return "no room for the trace id and vCPU count (12 bytes)";
	count = tdat_read32(f, p + *at + 8);
	*at += 12;
	if (count > INT32_MAX)
		return "negative vCPU count";
	if ((uint64_t)count * 8 > o->size - *at)
		return "fewer (vCPU, host pid) pairs than the vCPU count";
	for (uint32_t i = 0; i < count; i++, *at += 8)
		if (tdat_read32(f, p + *at) >= count)
			return "a vCPU number not below the vCPU count";
	return NULL;
}

/* A GUEST option that check_option() accepted, as trace_guest_load() keeps it. */
static bool read_guest(const struct tdat_file *f, const struct tdat_option *o, struct tcg_guest *g)
{
	const uint8_t *p = (const uint8_t *)memchr(o->data, '\0', o->size) + 1;

	g->trace_id = tdat_read64(f, p);
	g->n_vcpus = tdat_read32(f, p + 8);
	if (!(g->pid = calloc(g->n_vcpus ? g->n_vcpus : 1, sizeof(*g->pid))))
		return false;
	/* A vCPU listed twice: the last pair counts, as in trace-cmd. */
	for (uint32_t i = 0; i < g->n_vcpus; i++)
		g->pid[tdat_read32(f, p + 12 + 8 * i)] = (int32_t)tdat_read32(f, p + 16 + 8 * i);
	return true;
}

/* The host's GUEST options; those trace-cmd drops are skipped with a warning. */
static int load_guests(struct tcg_vcpus *m, const struct tmx_diag *diag, struct tmx_error *err)
{
	const struct tdat_file *host = m->files[0].f;
	size_t n = 0;

	for (size_t i = 0; i < host->n_options; i++)
		n += host->options[i].id == TDAT_OPT_GUEST;
	if (!n)
		return TMX_OK;
	if (!(m->guests = calloc(n, sizeof(*m->guests))))
		return nomem(err);
	for (size_t i = 0; i < host->n_options; i++) {
		const struct tdat_option *o = &host->options[i];
		const char *why;
		uint32_t at;

		if (o->id != TDAT_OPT_GUEST)
			continue;
		if ((why = check_option(host, o, &at)))
			tmx_warn(diag, "%s: the GUEST option at offset %llu (%u bytes) cannot be read at "
				 "its byte %u: %s; trace-cmd ignores it, and so its guest's addresses "
				 "are not named", host->path, (unsigned long long)o->offset, o->size, at, why);
		else if (!read_guest(host, o, &m->guests[m->n_guests++]))
			return nomem(err);
	}
	return TMX_OK;
}

/* libtracecmd's tracecmd_get_guest_cpumap(): it lists guests last option first. */
static const struct tcg_guest *find_guest(const struct tcg_vcpus *m, uint64_t trace_id)
{
	for (size_t i = m->n_guests; i-- > 0;)
		if (m->guests[i].trace_id == trace_id)
			return &m->guests[i];
	return NULL;
}

/* The input handle of this file (top buffer or an instance): map_vcpus()'s loop body. */
static int add_handle(struct tcg_vcpus *m, const struct tcg_file *in, struct tmx_error *err)
{
	/* libtracecmd's trace id: the TRACEID option, 0 without one. */
	const struct tcg_guest *g = find_guest(m, in->f->has_trace_id ? in->f->trace_id : 0);

	if (!g)
		return TMX_OK;
	if (!tmx_grow_array((void **)&m->map, &m->cap_map, m->n_map + g->n_vcpus, sizeof(*m->map), 8))
		return nomem(err);
	for (uint32_t k = 0; k < g->n_vcpus; k++, m->n_map++)
		m->map[m->n_map] = (struct tcg_entry){ g->pid[k], m->n_map, in->tep };
	return TMX_OK;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct tcg_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The peer (host) trace id of a guest file's TIME_SHIFT option, the last one read. */
static bool time_shift_peer(const struct tdat_file *f, uint64_t *peer)
{
	bool found = false;

	for (size_t i = 0; i < f->n_options; i++)
		if (f->options[i].id == TDAT_OPT_TIME_SHIFT && f->options[i].size >= 16) {
			*peer = tdat_read64(f, f->options[i].data);
			found = true;
		}
	return found;
}

/* What `cpus=` says of the file: the CPU count, or more if its top buffer has more. */
static uint32_t file_cpus(const struct tdat_file *f)
{
	uint32_t n = f->max_cpu;

	for (uint32_t i = 0; f->n_buffers && i < f->buffers[0].n_cpus; i++)
		if (f->buffers[0].cpus[i].cpu >= n)
			n = f->buffers[0].cpus[i].cpu + 1;
	return n;
}

/* The input whose TRACEID is `id`, other than `self`; n_files when none. */
static size_t file_with_id(const struct tcg_vcpus *m, uint64_t id, size_t self)
{
	for (size_t j = 0; j < m->n_files; j++)
		if (j != self && m->files[j].f->has_trace_id && m->files[j].f->trace_id == id)
			return j;
	return m->n_files;
}

/* Why a guest file (one with a TIME_SHIFT option) gets no vCPU mapping, if it does not. */
static void check_guest(const struct tcg_vcpus *m, size_t i, const struct tmx_diag *diag)
{
	const struct tdat_file *f = m->files[i].f, *host = m->files[0].f;
	const struct tcg_guest *g = i ? find_guest(m, f->has_trace_id ? f->trace_id : 0) : NULL;
	uint64_t peer;
	size_t j;

	if (g) {
		if (g->n_vcpus != file_cpus(f))
			tmx_warn(diag, "%s: its GUEST option gives %s %u vCPU(s), but that file has %u "
				 "CPU(s)", host->path, f->path, g->n_vcpus, file_cpus(f));
		return;
	}
	if (!time_shift_peer(f, &peer))
		return;   /* not a guest */
	j = file_with_id(m, peer, i);
	if (j == m->n_files) {
		if (i)
			tmx_warn(diag, "%s: recorded as a guest of trace 0x%llx, but the first input %s "
				 "is %s: the guest addresses in its kvm events are not named", f->path,
				 (unsigned long long)peer, host->path,
				 host->has_trace_id ? "another trace" : "a trace without a trace id");
	} else if (j) {
		tmx_warn(diag, "%s: recorded as a guest of %s, which is not the first input: like "
			 "trace-cmd, the guest addresses in the host's kvm events are named only when "
			 "the host comes first", f->path, m->files[j].f->path);
	} else {
		tmx_warn(diag, "%s: recorded as a guest of %s, but no GUEST option of that file lists "
			 "its trace id 0x%llx: the guest addresses in the host's kvm events are not "
			 "named", f->path, host->path,
			 (unsigned long long)(f->has_trace_id ? f->trace_id : 0));
	}
}

int tcg_start(struct tcg_vcpus *m, const struct tmx_diag *diag, struct tmx_error *err)
{
	int ret;

	if (!m || !m->n_files)
		return TMX_OK;
	if ((ret = load_guests(m, diag, err)))
		return ret;
	/* trace-cmd's handles after the host: the other files, then every file's instances. */
	for (size_t i = 1; i < m->n_files; i++)
		if ((ret = add_handle(m, &m->files[i], err)))
			return ret;
	for (size_t i = 0; i < m->n_files; i++)
		for (size_t k = 1; k < m->files[i].f->n_buffers; k++)
			if ((ret = add_handle(m, &m->files[i], err)))
				return ret;
	if (m->n_files > 1)
		for (size_t i = 0; i < m->n_files; i++)
			check_guest(m, i, diag);
	if (m->n_map)
		qsort(m->map, m->n_map, sizeof(*m->map), cmp_entry);
	active = m;
	return TMX_OK;
}

void tcg_free(struct tcg_vcpus *m)
{
	if (!m)
		return;
	if (active == m)
		active = NULL;
	for (size_t i = 0; i < m->n_guests; i++)
		free(m->guests[i].pid);
	free(m->guests);
	free(m->files);
	free(m->map);
	free(m);
}

/*
 * libtraceevent's kvm plugin: the guest function at *paddr, its start in
 * *paddr (trace-cmd's tep_plugin_kvm_get_func(): the entry of the event's
 * pid, found as glibc's inline bsearch() finds it, then the guest's
 * kallsyms).
 */
const char *tep_plugin_kvm_get_func(struct tep_event *event, struct tep_record *record,
				    unsigned long long *paddr)
{
	const struct tcg_vcpus *m = active;
	const char *func;
	size_t l = 0, u;
	int pid;

	if (!m || !m->n_map)
		return NULL;
	pid = tep_data_pid(event->tep, record);
	for (u = m->n_map; l < u;) {
		size_t i = (l + u) / 2;
		const struct tcg_entry *e = &m->map[i];
		if (pid < e->pid) {
			u = i;
		} else if (pid > e->pid) {
			l = i + 1;
		} else {
			if ((func = tep_find_function(e->tep, *paddr)))
				*paddr = tep_find_function_address(e->tep, *paddr);
			return func;
		}
	}
	return NULL;
}
