/*
 * lttng-analyses 0.6.1's I/O state (linuxautomaton/io.py, block.py,
 * net.py and the file descriptor and block device parts of statedump.py),
 * run beside the kernel state of an_state.c when an I/O command runs:
 * the file descriptors of each task object, the I/O request of each
 * task's current system call (made at its entry, completed at its exit),
 * block requests pending per disk by sector and the remaps of
 * block_bio_remap.  What it notifies goes to the analysis (io_stats.c)
 * while the period runs.  Also the ordered maps and the string pool the
 * I/O files share.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tracemux/event.h"
#include "tools/analyze/io_impl.h"

#define IO_O_CLOEXEC 02000000   /* os.O_CLOEXEC on Linux */
#define IO_DEAD UINT32_MAX

/* ------------------------------------------------------------------ */
/* Ordered maps and strings                                             */
/* ------------------------------------------------------------------ */

static inline uint64_t okey(int64_t key)
{
	return (uint64_t)key ^ (1ull << 63);   /* imap keeps UINT64_MAX free: -1 is a key too */
}

void io_omap_init(struct io_omap *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size;
}

/* The holes squeezed out; false (nothing changed) when out of memory. */
static bool omap_squeeze(struct io_omap *m)
{
	struct imap nm = { 0 };
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++) {
		bool added;
		uint32_t *v;
		if (!io_omap_at(m, i)->live)
			continue;
		if (!(v = imap_get(&nm, okey(io_omap_at(m, i)->key), (uint32_t)k, &added))) {
			imap_free(&nm);
			return false;
		}
		*v = (uint32_t)k++;
	}
	k = 0;
	for (size_t i = 0; i < m->n; i++)
		if (io_omap_at(m, i)->live) {
			if (k != i)
				memcpy(io_omap_at(m, k), io_omap_at(m, i), m->size);
			k++;
		}
	imap_free(&m->map);
	m->map = nm;
	m->n = k;
	return true;
}

void *io_omap_get(struct io_omap *m, int64_t key, bool *added)
{
	uint32_t *slot = imap_find(&m->map, okey(key));
	struct io_head *h;

	*added = false;
	if (slot && *slot != IO_DEAD)
		return io_omap_at(m, *slot);
	if (m->n > 64 && m->n - m->live > m->live && omap_squeeze(m))
		slot = imap_find(&m->map, okey(key));
	if (m->n >= IO_DEAD - 1 || !tmx_grow_array((void **)&m->rec, &m->cap, m->n + 1, m->size, 8))
		return NULL;
	if (!slot) {
		bool a;
		if (!(slot = imap_get(&m->map, okey(key), (uint32_t)m->n, &a)))
			return NULL;
	}
	*slot = (uint32_t)m->n;
	h = io_omap_at(m, m->n++);
	memset(h, 0, m->size);
	h->key = key;
	h->live = true;
	m->live++;
	*added = true;
	return h;
}

void *io_omap_find(const struct io_omap *m, int64_t key)
{
	const uint32_t *slot = imap_find(&m->map, okey(key));

	return slot && *slot != IO_DEAD ? io_omap_at(m, *slot) : NULL;
}

void io_omap_del(struct io_omap *m, int64_t key)
{
	uint32_t *slot = imap_find(&m->map, okey(key));

	if (!slot || *slot == IO_DEAD)
		return;
	io_omap_at(m, *slot)->live = false;
	*slot = IO_DEAD;
	m->live--;
}

void io_omap_free(struct io_omap *m)
{
	imap_free(&m->map);
	free(m->rec);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------ */
/* Field reads                                                          */
/* ------------------------------------------------------------------ */

/* event[name] of a system call: false (lttng-analyses' KeyError) when absent */
static bool need_int(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
		     const char *name, int64_t *x)
{
	if (an_val_int(an_ev_named(ev, c, name), x))
		return true;
	snprintf(r->missing_field, sizeof(r->missing_field), "%s", name);
	return false;
}

static uint32_t text_str(struct an_io *io, const struct an_val *v)
{
	size_t len;
	const char *s = an_val_text(v, &len);
	uint32_t id;

	if (!(id = io_str(&io->strs, s ? s : "", len)))
		io->a->oom = true;
	return id;
}

static int64_t kfield(const struct an_ev *ev, int f)
{
	int64_t x = 0;

	an_val_int(an_ev_field(ev, f), &x);
	return x;
}

/* ------------------------------------------------------------------ */
/* Tasks and file descriptors                                           */
/* ------------------------------------------------------------------ */

struct io_proc *io_proc_of(struct an_io *io, const struct an_proc *p)
{
	size_t h = (size_t)(p->obj * 0x9E3779B97F4A7C15ull >> 58);
	bool added;
	struct io_proc *ip;

	if (io->pcache[h].idx && io->pcache[h].obj == p->obj)
		return (struct io_proc *)io_omap_at(&io->procs, io->pcache[h].idx - 1);
	if (!(ip = io_omap_get(&io->procs, (int64_t)p->obj, &added))) {
		io->a->oom = true;
		return NULL;
	}
	if (added)
		io_omap_init(&ip->fds, sizeof(struct io_fd));
	io->pcache[h].obj = p->obj;
	io->pcache[h].idx = (uint32_t)((size_t)((char *)ip - io->procs.rec) / io->procs.size + 1);
	return ip;
}

/* IoStateProvider._get_parent_proc */
static const struct an_proc *parent_of(struct an_run *r, const struct an_proc *p)
{
	const struct an_proc *parent;

	if (p->has_pid && p->tid != p->pid && (parent = an_table_find(&r->a.procs, p->pid)))
		return parent;
	return p;
}

static struct io_fd *fd_add(struct an_io *io, const struct an_proc *owner, int64_t fd)
{
	struct io_proc *ip = io_proc_of(io, owner);
	bool added;
	struct io_fd *f = ip ? io_omap_get(&ip->fds, fd, &added) : NULL;

	if (ip && !f)
		io->a->oom = true;
	return f;
}

/* IoStateProvider._close_fd */
static void close_fd(struct an_run *r, const struct an_proc *proc, int64_t fd, int64_t ts)
{
	const struct an_proc *parent = parent_of(r, proc);
	struct io_proc *ip;

	if (r->in_period)
		io_on_close_fd(r->a.io, parent, fd, ts);
	if ((ip = io_proc_of(r->a.io, parent)))
		io_omap_del(&ip->fds, fd);
}

static bool is_rw(const struct io_req *rq)
{
	return rq->op == OP_READ || rq->op == OP_WRITE || rq->op == OP_READ_WRITE;
}

/* IoStateProvider._create_fd: the file descriptor a successful request made */
static void create_fd(struct an_run *r, const struct an_proc *proc, const struct io_req *rq,
		      int64_t ts)
{
	struct an_io *io = r->a.io;
	const struct an_proc *parent = parent_of(r, proc);
	struct io_proc *ip = io_proc_of(io, parent);
	struct io_fd *f;

	if (!ip)
		return;
	if (rq->has_fd && !io_omap_find(&ip->fds, rq->fd)) {
		if (!(f = fd_add(io, parent, rq->fd)))
			return;
		if (rq->op == OP_OPEN) {
			f->filename = rq->filename;
			f->type = rq->fd_type;
			f->cloexec = rq->cloexec;
		} else {
			f->filename = io->unknown_str;
		}
		if (r->in_period)
			io_on_create_fd(io, parent, f, ts);
	} else if (is_rw(rq)) {
		for (int k = 0; k < 2; k++) {
			bool has = k ? rq->has_fd_out : rq->has_fd_in;
			int64_t fd = k ? rq->fd_out : rq->fd_in;
			if (!has || ((ip = io_proc_of(io, parent)) && io_omap_find(&ip->fds, fd)))
				continue;
			if (!(f = fd_add(io, parent, fd)))
				return;
			f->filename = io->unknown_str;
			if (r->in_period)
				io_on_create_fd(io, parent, f, ts);
		}
	}
}

/* ------------------------------------------------------------------ */
/* System calls (sv.SyscallConsts)                                      */
/* ------------------------------------------------------------------ */

enum {
	SK_OTHER = 1, SK_OPEN, SK_SOCKET, SK_DUP, SK_DUP2, SK_DUP3, SK_FCNTL, SK_CLOSE, SK_RW,
	SK_SPLICE, SK_SENDFILE, SK_SYNC, SK_FSYNC, SK_SYNC_RANGE,
};

static const struct {
	const char *name;
	uint8_t kind, op;
	const char *size_key;   /* the request's size at entry (read/write calls) */
} io_calls[] = {
	{ "open", SK_OPEN, OP_OPEN, NULL },
	{ "openat", SK_OPEN, OP_OPEN, NULL },
	{ "socket", SK_SOCKET, OP_OPEN, NULL },
	{ "fcntl", SK_FCNTL, OP_OPEN, NULL },
	{ "dup", SK_DUP, OP_OPEN, NULL },
	{ "dup2", SK_DUP2, OP_OPEN, NULL },
	{ "dup3", SK_DUP3, OP_OPEN, NULL },
	{ "close", SK_CLOSE, OP_CLOSE, NULL },
	{ "read", SK_RW, OP_READ, "count" },
	{ "recvmsg", SK_RW, OP_READ, NULL },
	{ "recvfrom", SK_RW, OP_READ, "size" },
	{ "readv", SK_RW, OP_READ, "vlen" },
	{ "pread", SK_RW, OP_READ, "count" },
	{ "pread64", SK_RW, OP_READ, "count" },
	{ "preadv", SK_RW, OP_READ, "vlen" },
	{ "write", SK_RW, OP_WRITE, "count" },
	{ "sendmsg", SK_RW, OP_WRITE, NULL },
	{ "sendto", SK_RW, OP_WRITE, "len" },
	{ "writev", SK_RW, OP_WRITE, "vlen" },
	{ "pwrite", SK_RW, OP_WRITE, "count" },
	{ "pwrite64", SK_RW, OP_WRITE, "count" },
	{ "pwritev", SK_RW, OP_WRITE, "vlen" },
	{ "sync", SK_SYNC, OP_SYNC, NULL },
	{ "sync_file_range", SK_SYNC_RANGE, OP_SYNC, NULL },
	{ "fsync", SK_FSYNC, OP_SYNC, NULL },
	{ "fdatasync", SK_FSYNC, OP_SYNC, NULL },
	{ "splice", SK_SPLICE, OP_READ_WRITE, NULL },
	{ "sendfile64", SK_SENDFILE, OP_READ_WRITE, NULL },
};
#define N_IO_CALLS (sizeof(io_calls) / sizeof(io_calls[0]))

/*
 * The fields the entry handler of an I/O system call (or connect) reads,
 * in its order (an_bind_class: its records carry them; need_int finds
 * them by name).
 */
size_t an_io_entry_fields(const struct an_class *c, const char *names[AN_MAX_FIELDS - 1])
{
	static const char *const by_kind[][3] = {
		[SK_OPEN] = { "filename", "flags" },
		[SK_FCNTL] = { "cmd", "fd" },
		[SK_DUP] = { "fildes" },
		[SK_DUP2] = { "oldfd", "newfd" },
		[SK_DUP3] = { "oldfd", "newfd", "flags" },
		[SK_CLOSE] = { "fd" },
		[SK_RW] = { "fd" },
		[SK_SYNC_RANGE] = { "nbytes", "fd" },
		[SK_FSYNC] = { "fd" },
	};
	static const char *const connect[] = { "family", "fd", "v4addr", "dport" };
	size_t n = 0, i;

	if (c->is_connect) {
		memcpy(names, connect, sizeof(connect));
		return 4;
	}
	for (i = 0; c->is_io && i < N_IO_CALLS; i++)
		if (strlen(io_calls[i].name) == c->sys_len &&
		    !memcmp(io_calls[i].name, c->sys_name, c->sys_len))
			break;
	if (!c->is_io || i == N_IO_CALLS)
		return 0;
	if (io_calls[i].size_key)   /* read before the fd */
		names[n++] = io_calls[i].size_key;
	for (size_t k = 0; k < 3 && by_kind[io_calls[i].kind][k]; k++)
		names[n++] = by_kind[io_calls[i].kind][k];
	return n;
}

/* io_calls[] index + 1 of a system call name number (0: not an I/O call), found once per name */
static unsigned call_of(struct an_io *io, uint32_t sys_id, const char *name, size_t len)
{
	if (!tmx_grow_zeroed((void **)&io->sys_kind, &io->cap_sys_kind, (size_t)sys_id + 1, 1, 64)) {
		io->a->oom = true;
		return 0;
	}
	if (!io->sys_kind[sys_id]) {
		io->sys_kind[sys_id] = 0xff;
		for (size_t i = 0; i < N_IO_CALLS; i++)
			if (strlen(io_calls[i].name) == len && !memcmp(io_calls[i].name, name, len))
				io->sys_kind[sys_id] = (uint8_t)(i + 1);
	}
	return io->sys_kind[sys_id] == 0xff ? 0 : io->sys_kind[sys_id];
}

/* _track_dup: false when there is no request (fcntl other than F_DUPFD) or a field is missing */
static bool track_dup(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
		      unsigned kind, const struct an_proc *p, struct io_req *rq)
{
	struct an_io *io = r->a.io;
	const struct an_proc *parent = parent_of(r, p);
	struct io_proc *ip;
	const struct io_fd *old;
	int64_t oldfd, newfd, cmd, flags;

	if (kind == SK_DUP) {
		if (!need_int(r, ev, c, "fildes", &oldfd))
			return false;
	} else if (kind == SK_FCNTL) {
		if (!need_int(r, ev, c, "cmd", &cmd) || cmd != 0 || !need_int(r, ev, c, "fd", &oldfd))
			return false;
	} else {
		if (!need_int(r, ev, c, "oldfd", &oldfd) || !need_int(r, ev, c, "newfd", &newfd))
			return false;
		if ((ip = io_proc_of(io, parent)) && io_omap_find(&ip->fds, newfd))
			close_fd(r, parent, newfd, ev->ts);
	}
	ip = io_proc_of(io, parent);
	old = ip ? io_omap_find(&ip->fds, oldfd) : NULL;
	rq->filename = old ? old->filename : io->unknown_str;
	rq->fd_type = old ? old->type : FD_UNKNOWN;
	if (kind == SK_DUP3) {
		if (!need_int(r, ev, c, "flags", &flags))
			return false;
		rq->cloexec = (flags & IO_O_CLOEXEC) == IO_O_CLOEXEC;
	}
	return true;
}

/*
 * IoStateProvider._process_connect: an AF_INET socket's file is named
 * after its peer (format_utils.format_ipv4), then update_fd is sent for
 * the task itself (not its process, as lttng-analyses does).
 */
static void on_connect(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
		       const struct an_proc *p)
{
	struct an_io *io = r->a.io;
	const struct an_proc *parent = parent_of(r, p);
	const struct an_val *ip = an_ev_named(ev, c, "v4addr");
	int64_t family, fd, port, b[4] = { 0 };
	struct io_proc *pp;
	struct io_fd *f;
	char name[64];

	if (!an_val_int(an_ev_named(ev, c, "family"), &family) || family != 2 /* AF_INET */ ||
	    !need_int(r, ev, c, "fd", &fd))
		return;
	if ((pp = io_proc_of(io, parent)) && (f = io_omap_find(&pp->fds, fd))) {
		if (ip->tag == AN_ABSENT || !need_int(r, ev, c, "dport", &port)) {
			if (ip->tag == AN_ABSENT)
				snprintf(r->missing_field, sizeof(r->missing_field), "v4addr");
			return;
		}
		if (ip->tag == AN_ADDR) {
			an_val_addr(ip, b);
		} else {
			/* an integer before lttng-modules 2.6: network order */
			int64_t x = 0;
			an_val_int(ip, &x);
			for (int i = 0; i < 4; i++)
				b[i] = (x >> (24 - 8 * i)) & 0xff;
		}
		snprintf(name, sizeof(name), "%lld.%lld.%lld.%lld:%lld", (long long)b[0], (long long)b[1],
			 (long long)b[2], (long long)b[3], (long long)port);
		if (!(f->filename = io_str(&io->strs, name, strlen(name))))
			io->a->oom = true;
	}
	if (r->in_period && (pp = io_proc_of(io, p)) && (f = io_omap_find(&pp->fds, fd)))
		io_on_update_fd(io, p, f, ev->ts);
}

/* IoStateProvider._process_syscall_entry: the request of an I/O call */
void an_io_syscall_entry(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
			 struct an_proc *p)
{
	struct an_io *io = r->a.io;
	struct io_proc *ip = io_proc_of(io, p);
	struct io_req rq = { 0 };
	unsigned call;
	int64_t x;

	if (!ip)
		return;
	ip->pending = false;   /* a new current system call: no request */
	if (c->is_connect) {
		on_connect(r, ev, c, p);
		return;
	}
	if (!c->is_io || !(call = call_of(io, c->sys_id, c->sys_name, c->sys_len)))
		return;
	rq.begin = ev->ts;
	rq.tid = p->tid;
	rq.sys = c->sys_name;
	rq.sys_len = c->sys_len;
	rq.op = io_calls[call - 1].op;
	switch (io_calls[call - 1].kind) {
	case SK_OPEN:
		if (an_ev_named(ev, c, "filename")->tag == AN_ABSENT) {
			snprintf(r->missing_field, sizeof(r->missing_field), "filename");
			return;
		}
		rq.filename = text_str(io, an_ev_named(ev, c, "filename"));
		rq.fd_type = FD_DISK;
		if (!need_int(r, ev, c, "flags", &x))
			return;
		rq.cloexec = (x & IO_O_CLOEXEC) == IO_O_CLOEXEC;
		break;
	case SK_SOCKET:
		rq.filename = io_str(&io->strs, "socket", 6);
		rq.fd_type = FD_NET;
		break;
	case SK_DUP: case SK_DUP2: case SK_DUP3: case SK_FCNTL:
		if (!track_dup(r, ev, c, io_calls[call - 1].kind, p, &rq))
			return;
		break;
	case SK_CLOSE:
		if (!need_int(r, ev, c, "fd", &rq.fd))
			return;
		rq.has_fd = true;
		break;
	case SK_RW:
		/*
		 * The size at entry is read (a missing one is a KeyError) but
		 * SyscallIORequest drops it: the size is the returned one.
		 */
		if (io_calls[call - 1].size_key && !need_int(r, ev, c, io_calls[call - 1].size_key,
								    &x))
			return;
		if (!need_int(r, ev, c, "fd", &rq.fd))
			return;
		rq.has_fd = true;
		break;
	case SK_SPLICE:
	case SK_SENDFILE:
		/*
		 * lttng-analyses' entry handler sends only READ_SYSCALLS and
		 * WRITE_SYSCALLS to _track_read_write: splice and sendfile64
		 * never get a request (its code for them is never reached).
		 */
		return;
	case SK_SYNC_RANGE:
		if (!need_int(r, ev, c, "nbytes", &x))   /* dropped too: no size */
			return;
		/* fall through */
	case SK_FSYNC:
		if (!need_int(r, ev, c, "fd", &rq.fd))
			return;
		rq.has_fd = true;
		break;
	default:
		break;
	}
	/* the task's state may have moved (a parent made, fds closed) */
	if ((p = an_table_find(&r->a.procs, rq.tid)) && (ip = io_proc_of(io, p))) {
		ip->rq = rq;
		ip->pending = true;
	}
}

/* IoStateProvider._track_io_rq_exit */
void an_io_syscall_exit(struct an_run *r, const struct an_proc *p, int64_t ts, int64_t cpu_id,
			bool has_ret, int64_t ret)
{
	struct an_io *io = r->a.io;
	struct io_proc *ip = io_proc_of(io, p);
	struct io_req rq;

	(void)cpu_id;
	if (!ip || !ip->pending)
		return;
	ip->pending = false;
	if (!has_ret) {
		snprintf(r->missing_field, sizeof(r->missing_field), "ret");
		return;
	}
	rq = ip->rq;
	rq.end = ts;
	if (ret < 0) {
		rq.has_err = true;
		rq.err = -ret;
	}
	if (rq.op == OP_OPEN && ret >= 0) {
		rq.fd = ret;
		rq.has_fd = true;
	}
	if (is_rw(&rq) && ret >= 0) {
		rq.returned_size = ret;
		rq.has_returned_size = true;
		if (!rq.has_size) {
			rq.size = ret;
			rq.has_size = true;
		}
	}
	if (ret >= 0)
		create_fd(r, p, &rq, ts);
	if (r->in_period)
		io_on_rq_exit(io, p, parent_of(r, p), &rq);
	if (rq.op == OP_CLOSE && ret == 0)
		close_fd(r, p, rq.fd, ts);
}

/* ------------------------------------------------------------------ */
/* State dump                                                           */
/* ------------------------------------------------------------------ */

/* StatedumpStateProvider._assign_fds_to_parent, then create_parent_proc */
void an_io_statedump_thread(struct an_run *r, int64_t tid, int64_t pid)
{
	struct an_io *io = r->a.io;
	const struct an_proc *proc = an_table_find(&r->a.procs, tid);
	const struct an_proc *parent = an_table_find(&r->a.procs, pid);
	struct io_proc *ip, *pp;

	if (!proc || !parent || !io_proc_of(io, proc) || !io_proc_of(io, parent))
		return;
	ip = io_proc_of(io, proc);
	pp = io_proc_of(io, parent);
	for (size_t i = 0; i < ip->fds.n; i++) {
		const struct io_fd *f = (const struct io_fd *)io_omap_at(&ip->fds, i);
		bool added;
		struct io_fd *g;
		if (!f->h.live)
			continue;
		if (!(g = io_omap_get(&pp->fds, f->h.key, &added))) {
			io->a->oom = true;
			return;
		}
		if (added) {
			*g = *f;
		} else if (!g->filename || !io_str_len(&io->strs, g->filename)) {
			g->filename = f->filename;
		}
	}
	io_omap_free(&ip->fds);
	io_omap_init(&ip->fds, sizeof(struct io_fd));
	if (r->in_period)
		io_on_parent(io, proc, parent);
}

/* SchedStateProvider._process_sched_process_fork: the parent's fds copied to the child */
void an_io_fork(struct an_run *r, int64_t parent_pid, int64_t child_tid, int64_t ts)
{
	struct an_io *io = r->a.io;
	const struct an_proc *parent = an_table_find(&r->a.procs, parent_pid);
	const struct an_proc *child = an_table_find(&r->a.procs, child_tid);
	struct io_proc *pp, *cp;

	if (!parent || !child || parent == child || !io_proc_of(io, parent) || !io_proc_of(io, child))
		return;
	pp = io_proc_of(io, parent);
	cp = io_proc_of(io, child);
	for (size_t i = 0; i < pp->fds.n; i++) {
		const struct io_fd *f = (const struct io_fd *)io_omap_at(&pp->fds, i);
		struct io_fd *g;
		bool added;
		if (!f->h.live)
			continue;
		if (!(g = io_omap_get(&cp->fds, f->h.key, &added))) {
			io->a->oom = true;
			return;
		}
		*g = *f;
		if (r->in_period)
			io_on_create_fd(io, child, g, ts);
	}
}

/* SchedStateProvider._process_sched_process_exec: close-on-exec fds closed */
void an_io_exec(struct an_run *r, int64_t tid, int64_t ts)
{
	struct an_io *io = r->a.io;
	const struct an_proc *p = an_table_find(&r->a.procs, tid);
	struct io_proc *ip = p ? io_proc_of(io, p) : NULL;

	if (!ip)
		return;
	for (size_t i = 0; i < ip->fds.n; i++) {
		struct io_fd *f = (struct io_fd *)io_omap_at(&ip->fds, i);
		if (!f->h.live || !f->cloexec)
			continue;
		if (r->in_period)
			io_on_close_fd(io, p, f->h.key, ts);
		io_omap_del(&ip->fds, f->h.key);
	}
}

static void on_statedump_fd(struct an_run *r, const struct an_ev *ev)
{
	struct an_io *io = r->a.io;
	int64_t pid = kfield(ev, 0), fd = kfield(ev, 1), flags = kfield(ev, 3), ts = ev->ts;
	uint32_t name = text_str(io, an_ev_field(ev, 2));
	struct an_proc *p = an_table_find(&r->a.procs, pid);
	struct io_proc *ip;
	struct io_fd *f;
	bool added;

	if (!p) {
		if (!(p = an_proc_create(r, pid)))
			return;
		p->pid = pid;
		p->has_pid = true;
	}
	if (!(ip = io_proc_of(io, p)) || !(f = io_omap_get(&ip->fds, fd, &added))) {
		io->a->oom = true;
		return;
	}
	if (added) {
		f->filename = name;
		f->type = FD_UNKNOWN;
		f->cloexec = (flags & IO_O_CLOEXEC) == IO_O_CLOEXEC;
		if (r->in_period)
			io_on_create_fd(io, p, f, ts);
	} else {
		f->filename = name;
		if (r->in_period)
			io_on_update_fd(io, p, f, ts);
	}
}

/* ------------------------------------------------------------------ */
/* Block requests (BlockStateProvider)                                  */
/* ------------------------------------------------------------------ */

static struct io_disk *disk_of(struct an_io *io, int64_t dev)
{
	bool added;
	struct io_disk *d = an_table_get(&io->disks, dev, &added);

	if (!d) {
		io->a->oom = true;
		return NULL;
	}
	if (added) {
		d->h.key = dev;
		d->h.live = true;
		io_omap_init(&d->pending, sizeof(struct io_pending));
	}
	return d;
}

static void on_block(struct an_run *r, const struct an_ev *ev, const struct an_class *c)
{
	struct an_io *io = r->a.io;
	int64_t dev = kfield(ev, 0), sector = kfield(ev, 1), nr, ts = ev->ts;
	struct io_disk *d;
	struct io_pending *pr;
	bool added;

	switch ((enum an_kind)c->kind) {
	case K_IO_BIO_REMAP: {
		int64_t old_dev = kfield(ev, 2), old_sector = kfield(ev, 3);
		for (size_t i = 0; i < io->n_remaps; i++)
			if (io->remaps[i].dev == old_dev && io->remaps[i].sector == old_sector) {
				io->remaps[i].dev = dev;
				io->remaps[i].sector = sector;
				return;
			}
		if (!tmx_grow_array((void **)&io->remaps, &io->cap_remaps, io->n_remaps + 1,
				    sizeof(*io->remaps), 8)) {
			io->a->oom = true;
			return;
		}
		io->remaps[io->n_remaps++] = (struct io_remap){ dev, sector, old_dev, old_sector };
		return;
	}
	case K_IO_BIO_BACKMERGE:
		/* removed while iterating the list: the one after a removed one is passed over */
		for (size_t i = 0; i < io->n_remaps; i++)
			if (io->remaps[i].dev == dev && io->remaps[i].sector == sector) {
				memmove(io->remaps + i, io->remaps + i + 1,
					(io->n_remaps - i - 1) * sizeof(*io->remaps));
				io->n_remaps--;
			}
		return;
	case K_IO_RQ_ISSUE: {
		struct io_req rq = { 0 };
		int64_t rwbs = kfield(ev, 4);
		if (!(nr = kfield(ev, 2)))
			return;
		rq.block = true;
		rq.begin = ts;
		rq.tid = kfield(ev, 3);
		rq.op = (rwbs % 2 == 0) ? OP_READ : OP_WRITE;
		rq.dev = dev;
		rq.sector = sector;
		rq.nr_sector = nr;
		rq.size = nr * 512;
		rq.has_size = true;
		for (size_t i = 0; i < io->n_remaps; i++)
			if (io->remaps[i].dev == dev && io->remaps[i].sector == sector) {
				dev = io->remaps[i].old_dev;
				break;
			}
		if (!(d = disk_of(io, dev)) || !(pr = io_omap_get(&d->pending, sector, &added))) {
			io->a->oom = true;
			return;
		}
		pr->rq = rq;
		return;
	}
	case K_IO_RQ_COMPLETE:
		if (!(nr = kfield(ev, 2)))
			return;
		for (size_t i = 0; i < io->n_remaps; i++)
			if (io->remaps[i].dev == dev && io->remaps[i].sector == sector) {
				dev = io->remaps[i].old_dev;
				memmove(io->remaps + i, io->remaps + i + 1,
					(io->n_remaps - i - 1) * sizeof(*io->remaps));
				io->n_remaps--;
				break;
			}
		if (!(d = disk_of(io, dev)) || !(pr = io_omap_find(&d->pending, sector)) ||
		    pr->rq.nr_sector != nr)
			return;
		pr->rq.end = ts;
		if (r->in_period)
			io_on_block_complete(io, &pr->rq, an_table_find(&r->a.procs, pr->rq.tid), d);
		io_omap_del(&d->pending, sector);
		return;
	case K_IO_STATEDUMP_BLOCK: {
		uint32_t name = text_str(io, an_ev_field(ev, 1));
		if (!(d = disk_of(io, dev)))
			return;
		if (!d->name)
			d->name = name;
		if (r->in_period)
			io_on_statedump_block(io, dev, name);
		return;
	}
	default:
		return;
	}
}

/* NetStateProvider */
static void on_net(struct an_run *r, const struct an_ev *ev, const struct an_class *c)
{
	struct an_io *io = r->a.io;
	const struct an_cpu *cpu;
	const struct an_proc *p, *owner;
	struct io_proc *ip;
	struct io_fd *f;
	unsigned call;
	int64_t fd;

	if (r->in_period)
		io_on_net(io, text_str(io, an_ev_field(ev, 0)), (uint64_t)kfield(ev, 1),
			  c->kind == K_IO_NET_XMIT);
	if (c->kind != K_IO_NET_XMIT)
		return;
	/* a write system call running: its file descriptor, of an unknown kind, may be a socket */
	if (!(cpu = an_table_find(&r->a.cpus, ev->cpu)) || !cpu->has_tid ||
	    !(p = an_table_find(&r->a.procs, cpu->current_tid)) || !p->in_syscall)
		return;
	call = call_of(io, p->sys_id, p->sys_name, p->sys_len);
	if (!call || io_calls[call - 1].kind != SK_RW || io_calls[call - 1].op != OP_WRITE ||
	    !(ip = io_proc_of(io, p)) || !ip->pending || !ip->rq.has_fd)
		return;
	fd = ip->rq.fd;
	owner = p->has_pid && p->pid != p->tid ? an_table_find(&r->a.procs, p->pid) : p;
	if (owner && (ip = io_proc_of(io, owner)) && (f = io_omap_find(&ip->fds, fd)) &&
	    f->type == FD_UNKNOWN)
		f->type = FD_MAYBE_NET;
}

void an_io_event(struct an_run *r, const struct an_ev *ev, const struct an_class *c)
{
	switch ((enum an_kind)c->kind) {
	case K_IO_STATEDUMP_FD:
		on_statedump_fd(r, ev);
		break;
	case K_IO_NET_XMIT:
	case K_IO_NET_RECV:
		on_net(r, ev, c);
		break;
	default:
		on_block(r, ev, c);
		break;
	}
}

void io_state_free(struct an_io *io)
{
	for (size_t i = 0; i < io->procs.n; i++)
		io_omap_free(&((struct io_proc *)io_omap_at(&io->procs, i))->fds);
	io_omap_free(&io->procs);
	for (size_t i = 0; i < io->disks.n; i++)
		io_omap_free(&((struct io_disk *)an_table_at(&io->disks, i))->pending);
	an_table_free(&io->disks);
	free(io->remaps);
	free(io->sys_kind);
	io_strs_free(&io->strs);
}
