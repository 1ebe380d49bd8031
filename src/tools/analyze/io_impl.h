/*
 * What the I/O commands (iolatencystats, iolatencytop, iolatencyfreq,
 * iolog, iousagetop) share: lttng-analyses 0.6.1's I/O state (its
 * linuxautomaton io, block, net and statedump providers: file descriptors
 * per process, block requests pending per disk, the I/O request of each
 * task's current system call) in io_state.c, the analysis (core/io.py: per
 * period, the I/O of each task, file descriptor, disk and interface, and
 * the requests) in io_stats.c, and their output (cli/io.py) in io_out.c
 * and io_usage.c.
 */
#ifndef TMX_TOOLS_ANALYZE_IO_IMPL_H
#define TMX_TOOLS_ANALYZE_IO_IMPL_H

#include "common/strdict.h"
#include "tools/analyze/an_run.h"

/*
 * An ordered map (a Python dict with deletions): records in insertion
 * order, each starting with struct io_head; a deleted key's record stays
 * as a hole (its `live` false) and the key, added again, goes last.
 * Holes are squeezed out when they outnumber the live records.
 */
struct io_head {
	int64_t key;
	bool live;
};
struct io_omap {
	struct imap map;     /* key -> record index */
	char *rec;
	size_t n, cap, size, live;
};
void io_omap_init(struct io_omap *m, size_t size);
/* The live record of `key`, or a new zeroed one (NULL when out of memory); moves records. */
void *io_omap_get(struct io_omap *m, int64_t key, bool *added);
void *io_omap_find(const struct io_omap *m, int64_t key);
void io_omap_del(struct io_omap *m, int64_t key);
static inline struct io_head *io_omap_at(const struct io_omap *m, size_t i)
{
	return (struct io_head *)(m->rec + i * m->size);
}
void io_omap_free(struct io_omap *m);

/*
 * Strings kept once (file names, disk and interface names) in the one
 * string dictionary (common/strdict.h): numbers from 1, its entry + 1; 0 is
 * none (or out of memory).  The bytes of a string may move when another is
 * added: read them before.
 */
struct io_strs {
	struct tmx_strdict d;
};
static inline uint32_t io_str(struct io_strs *p, const char *s, size_t len)
{
	return (uint32_t)(tmx_strdict_entry(&p->d, s, len, SIZE_MAX, UINT32_MAX) + 1);
}
static inline const char *io_str_at(const struct io_strs *p, uint32_t id, size_t *len)
{
	return (const char *)tmx_strdict_at(&p->d, id - 1, len);
}
static inline size_t io_str_len(const struct io_strs *p, uint32_t id)
{
	size_t len;

	io_str_at(p, id, &len);
	return len;
}
static inline void io_strs_free(struct io_strs *p)
{
	tmx_strdict_free(&p->d);
}

/* sv.FDType */
enum { FD_UNKNOWN, FD_DISK, FD_NET, FD_MAYBE_NET };
/* sv.IORequest operations */
enum { OP_NONE, OP_OPEN, OP_READ, OP_WRITE, OP_CLOSE, OP_SYNC, OP_READ_WRITE };

/* An I/O request: a system call's (sv.SyscallIORequest and kinds) or a block one. */
struct io_req {
	int64_t begin, end, tid;
	int64_t size, returned_size, err;
	int64_t fd, fd_in, fd_out;
	uint8_t op;
	bool block, has_size, has_returned_size, has_err, has_fd, has_fd_in, has_fd_out;
	/* open requests: what the new file descriptor gets */
	uint8_t fd_type;
	bool cloexec;
	uint32_t filename;
	/* system calls: the name (the event class's, alive as long as the source) */
	uint8_t sys_len;
	const char *sys;
	/* block requests */
	int64_t dev, sector, nr_sector;
};

/*
 * A request as the tables need it, written to a temporary file when it is
 * recorded (memory stays bounded by the tasks, disks and files) and read
 * back by the output; its place in the file is its order of recording.
 */
struct io_rec {
	int64_t begin, end, tid, size, fd;
	uint64_t next;       /* the log: the next listed request of the task (IO_NONE: none) */
	const char *sys;     /* the event class's name, alive as long as the source */
	uint32_t tid_idx;    /* system calls: the task's place in the period; block: the disk's */
	uint8_t op, sys_len;
	bool has_size, has_fd;
};
#define IO_NONE UINT64_MAX

/* sv.FD */
struct io_fd {
	struct io_head h;    /* key: fd */
	uint32_t filename;
	uint8_t type;
	bool cloexec;
};

/* The I/O state of a task object (sv.Process: fds, current_syscall.io_rq). */
struct io_proc {
	struct io_head h;    /* key: the task object's number */
	struct io_omap fds;  /* struct io_fd */
	bool pending;
	struct io_req rq;
};

/* sv.Disk with its pending requests by sector */
struct io_pending {
	struct io_head h;    /* key: sector */
	struct io_req rq;
};
struct io_disk {
	struct io_head h;    /* key: dev */
	uint32_t name;       /* 0: none */
	struct io_omap pending;
};

/* sv.BlockRemapRequest */
struct io_remap {
	int64_t dev, sector, old_dev, old_sector;
};

/* FDStats: a file descriptor's life in the period */
struct io_fdstats {
	int64_t fd, open_ts, close_ts;
	bool closed, cloexec;
	uint8_t type;
	uint32_t filename;
	uint64_t read, write;
};
/* ProcessIOStats.fds[fd]: the file descriptors numbered fd, in order */
struct io_fdlist {
	struct io_head h;
	struct io_fdstats *v;
	size_t n, cap;
};
/* ProcessIOStats */
struct io_pstats {
	int64_t tid, pid;
	bool has_pid;
	struct an_comm comm;
	uint64_t disk_r, disk_w, net_r, net_w, unk_r, unk_w, blk_r, blk_w;
	struct io_omap fds;  /* struct io_fdlist */
};
/* DiskStats */
struct io_dstats {
	int64_t dev;
	uint32_t name;       /* 0: "(major,minor)" */
	bool has_min;
	int64_t min, max;
	uint64_t sectors, count;
	__int128 duration;
};
/* IfaceStats */
struct io_ifstats {
	uint32_t name;
	uint64_t recv_bytes, recv_packets, sent_bytes, sent_packets;
};

struct an_io {
	struct an *a;
	/* the state */
	struct io_strs strs;
	struct io_omap procs;     /* struct io_proc by task object */
	struct an_table disks;    /* struct io_disk by dev: state.disks */
	struct io_remap *remaps;
	size_t n_remaps, cap_remaps;
	uint8_t *sys_kind;        /* by system call name number: what the call does (io_state.c) */
	size_t cap_sys_kind;
	uint32_t unknown_str;     /* "unknown" */
	/* task objects' records (their place in `procs`: no task object is ever removed) */
	struct {
		uint64_t obj;
		uint32_t idx;
	} pcache[64];
	/* the period (core/io.py's _PeriodData) */
	bool in_period;
	struct an_table tids;     /* struct io_pstats */
	struct an_table dstats;   /* struct io_dstats by dev */
	struct an_table ifaces;   /* struct io_ifstats by name number */
	FILE *reqs;               /* system call requests recorded (struct io_rec), in order */
	uint64_t n_reqs;
	FILE *breqs;              /* block requests completed, in order */
	uint64_t n_breqs;
	/* the options (ns, bytes) */
	bool has_begin, has_end;
	int64_t begin_ts, end_ts;
	struct an_mi mi;
	bool failed;              /* a temporary file could not be read back */
	/* the log's rows (io_out.c): the line being built, the text of the last second */
	char *line;
	size_t line_len, line_cap;
	bool ts_ok;
	int64_t ts_sec;
	char ts_txt[32];
	uint8_t ts_len;
};

/* What the state tells the analysis (io_stats.c), in its period only. */
void io_on_create_fd(struct an_io *io, const struct an_proc *parent, const struct io_fd *fd,
		     int64_t ts);
void io_on_close_fd(struct an_io *io, const struct an_proc *parent, int64_t fd, int64_t ts);
void io_on_update_fd(struct an_io *io, const struct an_proc *parent, const struct io_fd *fd,
		     int64_t ts);
void io_on_rq_exit(struct an_io *io, const struct an_proc *proc, const struct an_proc *parent,
		   const struct io_req *rq);
void io_on_block_complete(struct an_io *io, const struct io_req *rq, const struct an_proc *proc,
			  const struct io_disk *disk);
void io_on_parent(struct an_io *io, const struct an_proc *proc, const struct an_proc *parent);
void io_on_statedump_block(struct an_io *io, int64_t dev, uint32_t name);
void io_on_net(struct an_io *io, uint32_t name, uint64_t len, bool sent);

/* The state: a task object's I/O state (NULL when out of memory). */
struct io_proc *io_proc_of(struct an_io *io, const struct an_proc *p);
void io_state_free(struct an_io *io);

/* The analysis' records (io_stats.c) */
struct io_pstats *io_pstats_find(struct an_io *io, int64_t tid);
/* ProcessIOStats.get_fd(fd, timestamp): NULL when none */
const struct io_fdstats *io_get_fd(const struct io_pstats *ps, int64_t fd, bool has_ts, int64_t ts);
/* The request filters of cli/io.py */
bool io_filter_rq(const struct an_io *io, const struct io_rec *rq);
/* _is_io_rq_out_of_range: 1 true, 0 false, -1 None (as Python's and/or give it) */
int io_out_of_range(const struct an_io *io, const struct io_rec *rq);
/* format_utils.format_size */
void io_fmt_size(char *buf, size_t n, uint64_t size);
/* A disk's name: its statedump name, else "(major,minor)" of its device number */
void io_disk_name(const struct an_io *io, const struct io_dstats *d, char *buf, size_t n);

/* The outputs (io_out.c, io_usage.c) */
void io_print(struct an_io *io, int64_t begin, int64_t end);
void io_usage(struct an_io *io, int64_t begin, int64_t end, bool mi);

#endif
