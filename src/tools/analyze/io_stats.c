/*
 * lttng-analyses 0.6.1's I/O analysis (core/io.py) over the notifications
 * of the I/O state (io_state.c): per period, each task's I/O by kind of
 * file descriptor and its block I/O (ProcessIOStats), each file
 * descriptor's life and I/O (FDStats), each disk's and network
 * interface's totals, and the requests (system calls and block requests)
 * that the latency commands list; the command's run (an_io_ops) and the
 * filters of cli/io.py.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/analyze/io_impl.h"

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

static size_t index_of(const struct an_table *t, const void *rec)
{
	return (size_t)((const char *)rec - t->rec) / t->size;
}

/* ProcessIOStats.new_from_process, once per tid */
static struct io_pstats *pstats_of(struct an_io *io, const struct an_proc *p)
{
	bool added;
	struct io_pstats *ps = an_table_get(&io->tids, p->tid, &added);

	if (!ps) {
		io->a->oom = true;
		return NULL;
	}
	if (added) {
		ps->tid = p->tid;
		ps->pid = p->pid;
		ps->has_pid = p->has_pid;
		ps->comm = p->comm;
		io_omap_init(&ps->fds, sizeof(struct io_fdlist));
	}
	return ps;
}

struct io_pstats *io_pstats_find(struct an_io *io, int64_t tid)
{
	return an_table_find(&io->tids, tid);
}

static const struct io_fdstats *current_fd(const struct io_pstats *ps, int64_t fd)
{
	const struct io_fdlist *l = io_omap_find(&ps->fds, fd);

	if (!l || !l->n || l->v[l->n - 1].closed)
		return NULL;
	return &l->v[l->n - 1];
}

const struct io_fdstats *io_get_fd(const struct io_pstats *ps, int64_t fd, bool has_ts, int64_t ts)
{
	const struct io_fdlist *l = io_omap_find(&ps->fds, fd);
	size_t lo = 0, hi;

	if (!has_ts)
		return current_fd(ps, fd);
	if (!l)
		return NULL;
	/* _get_fd_by_timestamp: its bisection, as written (an open one ends it) */
	hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct io_fdstats *f = &l->v[mid];
		if (!f->closed)
			return ts >= f->open_ts ? f : NULL;
		if (f->open_ts <= ts && ts <= f->close_ts)
			return f;
		if (ts < f->open_ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static struct io_fdstats *current_fd_mut(struct io_pstats *ps, int64_t fd)
{
	return (struct io_fdstats *)current_fd(ps, fd);
}

/* ------------------------------------------------------------------ */
/* Notifications                                                        */
/* ------------------------------------------------------------------ */

static bool fdlist_add(struct an_io *io, struct io_pstats *ps, const struct io_fd *fd, int64_t ts)
{
	bool added;
	struct io_fdlist *l = io_omap_get(&ps->fds, fd->h.key, &added);

	if (!l || !tmx_grow_array((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 2)) {
		io->a->oom = true;
		return false;
	}
	l->v[l->n++] = (struct io_fdstats){ .fd = fd->h.key, .open_ts = ts, .cloexec = fd->cloexec,
					    .type = fd->type, .filename = fd->filename };
	return true;
}

void io_on_create_fd(struct an_io *io, const struct an_proc *parent, const struct io_fd *fd,
		     int64_t ts)
{
	struct io_pstats *ps = pstats_of(io, parent);

	if (ps)
		fdlist_add(io, ps, fd, ts);
}

void io_on_close_fd(struct an_io *io, const struct an_proc *parent, int64_t fd, int64_t ts)
{
	struct io_pstats *ps = an_table_find(&io->tids, parent->tid);
	struct io_fdstats *f = ps ? current_fd_mut(ps, fd) : NULL;

	if (f) {
		f->close_ts = ts;
		f->closed = true;
	}
}

void io_on_update_fd(struct an_io *io, const struct an_proc *parent, const struct io_fd *fd,
		     int64_t ts)
{
	struct io_pstats *ps = an_table_find(&io->tids, parent->tid);
	struct io_fdlist *l;

	/* lttng-analyses' KeyError when the task has no stats yet: ignored here */
	if (!ps)
		return;
	if (!io_omap_find(&ps->fds, fd->h.key) && !fdlist_add(io, ps, fd, ts))
		return;
	if ((l = io_omap_find(&ps->fds, fd->h.key)) && l->n)
		l->v[l->n - 1].filename = fd->filename;
}

/* A request written to its temporary file (made when the first comes). */
static bool record(struct an_io *io, FILE **f, uint64_t *n, const struct io_req *rq, size_t idx)
{
	struct io_rec r;

	memset(&r, 0, sizeof(r));   /* no uninitialized padding in the file */
	r.begin = rq->begin;
	r.end = rq->end;
	r.tid = rq->tid;
	r.size = rq->size;
	r.fd = rq->fd;
	r.next = IO_NONE;
	r.sys = rq->sys;
	r.tid_idx = (uint32_t)idx;
	r.op = rq->op;
	r.sys_len = rq->sys_len;
	r.has_size = rq->has_size;
	r.has_fd = rq->has_fd;
	if ((!*f && !(*f = tmpfile())) || fwrite(&r, sizeof(r), 1, *f) != 1) {
		snprintf(io->a->fatal, sizeof(io->a->fatal), "cannot write a temporary file");
		return false;
	}
	(*n)++;
	return true;
}

static void add_io(struct io_pstats *ps, bool write, uint8_t type, uint64_t size)
{
	uint64_t *k = type == FD_DISK ? (write ? &ps->disk_w : &ps->disk_r)
		      : type == FD_NET || type == FD_MAYBE_NET ? (write ? &ps->net_w : &ps->net_r)
							       : (write ? &ps->unk_w : &ps->unk_r);
	*k += size;
}

/* IoAnalysis._process_io_rq_exit */
void io_on_rq_exit(struct an_io *io, const struct an_proc *proc, const struct an_proc *parent,
		   const struct io_req *rq)
{
	struct io_pstats *ps, *pps;
	const struct io_fdstats *f, *fin = NULL, *fout = NULL;
	uint8_t t_fd = FD_UNKNOWN;
	size_t pi;
	uint64_t rs = (uint64_t)rq->returned_size;
	struct io_fdstats *g;

	if (!pstats_of(io, proc) || !pstats_of(io, parent))
		return;
	ps = an_table_find(&io->tids, proc->tid);
	pps = an_table_find(&io->tids, parent->tid);
	if (!rq->has_err) {
		if (rq->op == OP_READ || rq->op == OP_WRITE) {
			if (!(f = current_fd(pps, rq->fd)))
				return;
			t_fd = f->type;
		} else if (rq->op == OP_READ_WRITE) {
			if (!(fin = current_fd(pps, rq->fd_in)) || !(fout = current_fd(pps, rq->fd_out)))
				return;
		}
	}
	/* proc_stats.update_io_stats */
	pi = index_of(&io->tids, ps);
	if (!record(io, &io->reqs, &io->n_reqs, rq, pi))
		return;
	if (rq->has_size && !rq->has_err) {
		if (rq->op == OP_READ)
			add_io(ps, false, t_fd, rs);
		else if (rq->op == OP_WRITE)
			add_io(ps, true, t_fd, rs);
		else if (rq->op == OP_READ_WRITE) {
			add_io(ps, false, fin->type, rs);
			add_io(ps, true, fout->type, rs);
		}
	}
	/* parent_stats.update_fd_stats */
	if (!rq->has_err && rq->has_fd && (g = current_fd_mut(pps, rq->fd))) {
		if (rq->op == OP_READ)
			g->read += rs;
		else if (rq->op == OP_WRITE)
			g->write += rs;
	}
	ps->comm = proc->comm;
	pps->comm = parent->comm;
}

/* IoAnalysis._process_block_rq_complete */
void io_on_block_complete(struct an_io *io, const struct io_req *rq, const struct an_proc *proc,
			  const struct io_disk *disk)
{
	bool added;
	struct io_dstats *d = an_table_get(&io->dstats, disk->h.key, &added);
	int64_t dur = rq->end - rq->begin;
	struct io_pstats *ps;

	if (!d) {
		io->a->oom = true;
		return;
	}
	if (added) {
		d->dev = disk->h.key;
		d->name = disk->name;
	}
	if (!d->has_min || dur < d->min)
		d->min = dur;
	if (!d->has_min || dur > d->max)
		d->max = dur;
	d->has_min = true;
	d->sectors += (uint64_t)rq->nr_sector;
	d->duration += dur;
	d->count++;
	if (!record(io, &io->breqs, &io->n_breqs, rq, index_of(&io->dstats, d)))
		return;
	if (proc && (ps = pstats_of(io, proc))) {
		if (rq->op == OP_READ)
			ps->blk_r += (uint64_t)rq->size;
		else
			ps->blk_w += (uint64_t)rq->size;
	}
}

/* IoAnalysis._process_create_parent_proc and its _assign_fds_to_parent */
void io_on_parent(struct an_io *io, const struct an_proc *proc, const struct an_proc *parent)
{
	struct io_pstats *ps, *pps;

	if (!pstats_of(io, proc) || !pstats_of(io, parent))
		return;
	ps = an_table_find(&io->tids, proc->tid);
	pps = an_table_find(&io->tids, parent->tid);
	ps->pid = pps->tid;
	ps->has_pid = true;
	if (ps == pps)
		return;
	for (size_t i = 0; i < ps->fds.n; i++) {
		struct io_fdlist *l = (struct io_fdlist *)io_omap_at(&ps->fds, i);
		struct io_fdlist *m;
		bool added;
		if (!l->h.live)
			continue;
		if (!(m = io_omap_get(&pps->fds, l->h.key, &added))) {
			io->a->oom = true;
			return;
		}
		if (added) {
			/* the list moves to the parent */
			m->v = l->v;
			m->n = l->n;
			m->cap = l->cap;
			l->v = NULL;
		} else {
			struct io_fdstats *pf = current_fd_mut(pps, l->h.key);
			const struct io_fdstats *cf = current_fd(ps, l->h.key);
			if (pf && cf && (!pf->filename || !io_str_len(&io->strs, pf->filename)))
				pf->filename = cf->filename;
		}
	}
	for (size_t i = 0; i < ps->fds.n; i++)
		free(((struct io_fdlist *)io_omap_at(&ps->fds, i))->v);
	io_omap_free(&ps->fds);
	io_omap_init(&ps->fds, sizeof(struct io_fdlist));
}

void io_on_statedump_block(struct an_io *io, int64_t dev, uint32_t name)
{
	bool added;
	struct io_dstats *d = an_table_get(&io->dstats, dev, &added);

	if (!d) {
		io->a->oom = true;
		return;
	}
	d->dev = dev;
	d->name = name;
}

void io_on_net(struct an_io *io, uint32_t name, uint64_t len, bool sent)
{
	bool added;
	struct io_ifstats *f = an_table_get(&io->ifaces, name, &added);

	if (!f) {
		io->a->oom = true;
		return;
	}
	f->name = name;
	if (sent) {
		f->sent_packets++;
		f->sent_bytes += len;
	} else {
		f->recv_packets++;
		f->recv_bytes += len;
	}
}

/* ------------------------------------------------------------------ */
/* Filters (IoAnalysisCommand)                                          */
/* ------------------------------------------------------------------ */

bool io_filter_rq(const struct an_io *io, const struct io_rec *rq)
{
	const struct tmx_an_opts *o = io->a->o;
	int64_t dur = rq->end - rq->begin;

	/* _filter_size (None passes) */
	if (rq->has_size && ((o->has_maxsize && (double)rq->size > o->maxsize) ||
			     (o->has_minsize && (double)rq->size < o->minsize)))
		return false;
	/* _filter_latency: --min/--max made ns */
	if ((o->has_max && (double)dur > o->max_us * 1000) ||
	    (o->has_min && (double)dur < o->min_us * 1000))
		return false;
	/* _filter_time_range */
	return !(io->has_begin && io->begin_ts && io->has_end && io->end_ts && rq->end &&
		 rq->begin > io->end_ts);
}

int io_out_of_range(const struct an_io *io, const struct io_rec *rq)
{
	/* `begin_ts and rq.begin_ts < begin_ts or end_ts and rq.end_ts > end_ts`: None without --end */
	if (io->has_begin && io->begin_ts && rq->begin < io->begin_ts)
		return 1;
	if (!io->has_end || !io->end_ts)
		return -1;
	return rq->end > io->end_ts;
}

void io_disk_name(const struct an_io *io, const struct io_dstats *d, char *buf, size_t n)
{
	size_t len;

	if (d->name) {
		const char *s = io_str_at(&io->strs, d->name, &len);
		snprintf(buf, n, "%.*s", (int)len, s);
	} else {
		/* DiskStats._get_name_from_dev */
		snprintf(buf, n, "(%lld,%lld)", (long long)(d->dev >> 20),
			 (long long)(d->dev & ((1 << 20) - 1)));
	}
}

void io_fmt_size(char *buf, size_t n, uint64_t size)
{
	static const char *const units[] = { "  B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB" };
	int e = 0;

	/* int(math.log(size, 1024)): log(size) / log(1024) in doubles */
	if (size) {
		e = (int)(log((double)size) / log(1024.0));
		if (e > 8)
			e = 8;
	}
	if (!e && n >= 32) {   /* under 1024: the integer, without printf (a log row each) */
		size_t k = an_fmt_u64(buf, size);
		memcpy(buf + k, " ", 1);
		memcpy(buf + k + 1, units[0], 4);
	} else if (!e) {
		snprintf(buf, n, "%.0f %s", (double)size, units[0]);
	} else if (size < (1ull << 53) && e < 6 && n >= 32) {
		/*
		 * '%.2f' of size / 1024^e, an exact double here, without printf:
		 * size * 100 / 2^(10e) rounded to nearest, ties to even, as glibc
		 * rounds the exact value.
		 */
		uint64_t q = size * 100, d = 1ull << (10 * e), v = q >> (10 * e), r = q & (d - 1);
		size_t k;
		if (r > d / 2 || (r == d / 2 && (v & 1)))
			v++;
		k = an_fmt_u64(buf, v / 100);
		buf[k++] = '.';
		buf[k++] = (char)('0' + v / 10 % 10);
		buf[k++] = (char)('0' + v % 10);
		buf[k++] = ' ';
		memcpy(buf + k, units[e], 4);
	} else {
		snprintf(buf, n, "%.2f %s", (double)size / pow(1024.0, e), units[e]);
	}
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static void *create(struct an *a)
{
	/* the analysis run holds its begin and end (a is its first member) */
	const struct an_run *r = (const struct an_run *)a;
	struct an_io *io = calloc(1, sizeof(*io));

	if (!io)
		return NULL;
	io->a = a;
	io_omap_init(&io->procs, sizeof(struct io_proc));
	io->disks.size = sizeof(struct io_disk);
	io->tids.size = sizeof(struct io_pstats);
	io->dstats.size = sizeof(struct io_dstats);
	io->ifaces.size = sizeof(struct io_ifstats);
	io->has_begin = r->has_begin;
	io->begin_ts = r->begin_ts;
	io->has_end = r->has_end;
	io->end_ts = r->end_ts;
	if (!(io->unknown_str = io_str(&io->strs, "unknown", 7))) {
		free(io);
		return NULL;
	}
	a->io = io;
	/* IoAnalysis.__init__ */
	if (a->o->n_cpus)
		fputs("Warning: cpu filter not enabled on I/O analysis\n", a->out);
	return io;
}

static void destroy(void *self)
{
	struct an_io *io = self;

	if (!io)
		return;
	for (size_t i = 0; i < io->tids.n; i++) {
		struct io_pstats *ps = an_table_at(&io->tids, i);
		for (size_t k = 0; k < ps->fds.n; k++)
			free(((struct io_fdlist *)io_omap_at(&ps->fds, k))->v);
		io_omap_free(&ps->fds);
	}
	an_table_free(&io->tids);
	an_table_free(&io->dstats);
	an_table_free(&io->ifaces);
	if (io->reqs)
		fclose(io->reqs);
	if (io->breqs)
		fclose(io->breqs);
	an_mi_free(&io->mi);
	free(io->line);
	io_state_free(io);
	io->a->io = NULL;
	free(io);
}

static void begin(void *self, int64_t ts)
{
	(void)ts;
	((struct an_io *)self)->in_period = true;
}

static void end(void *self, int64_t begin_ns, int64_t end_ns)
{
	io_print(self, begin_ns, end_ns);
}

static void finish(void *self)
{
	struct an_io *io = self;

	if (io->a->o->mi)
		an_mi_print(&io->mi, io->a->out);
	if (io->failed)
		fputs("Error: Cannot run analysis: cannot read back a temporary file\n", stderr);
}

static bool failed(void *self)
{
	return ((struct an_io *)self)->failed;
}

const struct an_ops an_io_ops = {
	.create = create,
	.free = destroy,
	.begin = begin,
	.end = end,
	.finish = finish,
	.failed = failed,
};
