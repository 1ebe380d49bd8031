/*
 * lttng-iousagetop's tables (cli/io.py's --usage), text and MI: the I/O
 * of each process by kind of file descriptor, of each file, the block I/O
 * of each process, each disk's sectors, requests and average latency,
 * each network interface's bytes; sorted as lttng-analyses sorts them
 * (stably, largest first) and cut at --limit as it cuts them.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/io_impl.h"

/* FileStats: a path's I/O and the first fd each process had it as */
struct io_file {
	uint32_t name;
	uint64_t read, write;
	struct an_table owners;   /* struct io_owner by pid */
};
struct io_owner {
	int64_t pid, fd;
};

enum { U_READ, U_WRITE, U_BLK_READ, U_BLK_WRITE, U_SECTORS, U_REQUESTS, U_RECV, U_SENT,
       U_FILE_READ, U_FILE_WRITE };

static uint64_t proc_value(const struct io_pstats *p, int what)
{
	switch (what) {
	case U_READ: return p->disk_r + p->net_r + p->unk_r;
	case U_WRITE: return p->disk_w + p->net_w + p->unk_w;
	case U_BLK_READ: return p->blk_r;
	default: return p->blk_w;
	}
}

/* indices of n records sorted by value, largest first, ties in order */
struct sort_item {
	uint64_t v;
	size_t i;
};
static int by_value(const void *x, const void *y)
{
	const struct sort_item *a = x, *b = y;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static struct sort_item *sorted(struct an_io *io, size_t n, uint64_t (*value)(const void *, size_t, int),
				const void *ctx, int what, bool sort)
{
	struct sort_item *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v) {
		io->a->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct sort_item){ value(ctx, i, what), i };
	if (sort)
		qsort(v, n, sizeof(*v), by_value);
	return v;
}

static uint64_t pval(const void *ctx, size_t i, int what)
{
	return proc_value(an_table_at(ctx, i), what);
}

static uint64_t dval(const void *ctx, size_t i, int what)
{
	const struct io_dstats *d = an_table_at(ctx, i);

	return what == U_SECTORS ? d->sectors : d->count;
}

static uint64_t ival(const void *ctx, size_t i, int what)
{
	const struct io_ifstats *f = an_table_at(ctx, i);

	return what == U_RECV ? f->recv_bytes : f->sent_bytes;
}

static uint64_t fval(const void *ctx, size_t i, int what)
{
	const struct io_file *f = (const struct io_file *)ctx + i;

	return what == U_FILE_READ ? f->read : f->write;
}

/* _fill_usage_result_table: rows kept, up to `limit` (at least one: the count is checked after) */
static bool enough(const struct an_io *io, size_t count)
{
	return count >= (size_t)(io->a->o->limit < 0 ? 0 : io->a->o->limit);
}

static FILE *table(struct an_io *io, const char *key, const char *title, const char *sub,
		   int64_t b, int64_t e)
{
	char cls[300];

	if (sub)
		snprintf(cls, sizeof(cls), "{\"inherit\": \"%s\", \"title\": \"%s [%s]\"}", key, title, sub);
	else
		snprintf(cls, sizeof(cls), "\"%s\"", key);
	return an_mi_table(&io->mi, key, cls, b, e);
}

static void mi_sep(FILE *f, size_t k)
{
	if (k)
		fputs(", ", f);
}

static void comm_label(char *buf, size_t n, const struct io_pstats *p, const char *fmt_pid)
{
	char pid[48];

	if (p->has_pid)
		snprintf(pid, sizeof(pid), "%lld", (long long)p->pid);
	else
		snprintf(pid, sizeof(pid), "unknown (tid=%lld)", (long long)p->tid);
	snprintf(buf, n, fmt_pid, (int)p->comm.len, p->comm.s, pid);
}

/* Python's '{:<w}' / '{:>w}' in code points */
static size_t pad(char *buf, size_t n, size_t at, const char *s, size_t w, bool right)
{
	size_t len = strlen(s), cp = an_utf8_len(s, len), fill = cp < w ? w - cp : 0;

	if (at + len + fill + 1 > n)
		return at;
	if (right) {
		memset(buf + at, ' ', fill);
		memcpy(buf + at + fill, s, len);
	} else {
		memcpy(buf + at, s, len);
		memset(buf + at + len, ' ', fill);
	}
	at += len + fill;
	buf[at] = 0;
	return at;
}

/*
 * One of iousagetop's tables: its records sorted by a value (largest first,
 * ties in order) and cut at --limit, as an MI table or a bar graph.  What
 * differs between the tables is here; usage_table() does the rest.
 */
struct usage_table {
	const char *key, *title, *sub;   /* MI: the table class (no title: the key alone) */
	const char *graph, *header, *unit;   /* text: an_bar_graph()'s */
	size_t n;                         /* records */
	const void *ctx;                  /* what value() and the row writers read */
	uint64_t (*value)(const void *ctx, size_t i, int what);
	int what;
	bool sort;                        /* false: in the records' order */
	bool skip_zero;                   /* records of value 0 are left out */
	/* one row: the MI cells between '[' and ']'; the bar's label (malloc'd) */
	void (*mi_row)(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v);
	char *(*bar_row)(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
			 struct an_bar *row);
	bool write;                       /* the table's direction, for the row writers */
};

static void usage_table(struct an_io *io, const struct usage_table *t, int64_t b, int64_t e, bool mi)
{
	struct sort_item *v = sorted(io, t->n, t->value, t->ctx, t->what, t->sort);
	struct an_bar *rows;
	size_t k = 0;
	FILE *f = NULL;

	if (!v || !(rows = calloc(t->n ? t->n : 1, sizeof(*rows)))) {
		free(v);
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->skip_zero && !v[i].v)
			continue;
		if (mi) {
			if (!f && !(f = table(io, t->key, t->title, t->sub, b, e)))
				break;
			mi_sep(f, k);
			fputc('[', f);
			t->mi_row(io, f, t, v[i].i, v[i].v);
			fputc(']', f);
		} else if (!(rows[k].label = t->bar_row(io, t, v[i].i, v[i].v, &rows[k]))) {
			io->a->oom = true;
			break;
		}
		if (enough(io, ++k))
			break;
	}
	if (mi && f)
		an_mi_table_end(f);
	else if (!mi && !io->a->oom)
		an_bar_graph(io->a->out, t->graph, t->header, t->unit, rows, k);
	for (size_t i = 0; i < k; i++)
		free(rows[i].label);
	free(rows);
	free(v);
}

static void size_bar(struct an_bar *row, uint64_t v)
{
	row->value = (double)v;
	io_fmt_size(row->value_str, sizeof(row->value_str), v);
}

static void proc_mi(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v)
{
	const struct io_pstats *p = an_table_at(&io->tids, i);

	an_mi_proc(f, &(struct an_proc){ .tid = p->tid, .pid = p->pid, .has_pid = p->has_pid,
					 .comm = p->comm },
		   true);
	fprintf(f, ", {\"class\": \"size\", \"value\": %llu}, {\"class\": \"size\", "
		   "\"value\": %llu}, {\"class\": \"size\", \"value\": %llu}, "
		   "{\"class\": \"size\", \"value\": %llu}",
		(unsigned long long)v, (unsigned long long)(t->write ? p->disk_w : p->disk_r),
		(unsigned long long)(t->write ? p->net_w : p->net_r),
		(unsigned long long)(t->write ? p->unk_w : p->unk_r));
}

static char *proc_bar(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
		      struct an_bar *row)
{
	const struct io_pstats *p = an_table_at(&io->tids, i);
	uint64_t col[3] = { t->write ? p->disk_w : p->disk_r, t->write ? p->net_w : p->net_r,
			    t->write ? p->unk_w : p->unk_r };
	char name[160], s[48], label[400];
	size_t at;

	comm_label(name, sizeof(name), p, "%.*s (%s)");
	at = pad(label, sizeof(label), 0, name, 25, false);
	for (int c = 0; c < 3; c++) {
		at = pad(label, sizeof(label), at, " ", 0, false);
		io_fmt_size(s, sizeof(s), col[c]);
		at = pad(label, sizeof(label), at, s, 10, true);
	}
	size_bar(row, v);
	return strdup(label);
}

static void per_proc(struct an_io *io, int64_t b, int64_t e, bool mi, bool write)
{
	char header[120];

	snprintf(header, sizeof(header), "%-25s %-10s %-10s %-10s", "Process", "Disk", "Net", "Unknown");
	usage_table(io, &(struct usage_table){
		.key = "per-process-top", .title = "Per-process top I/O operations",
		.sub = write ? "written" : "read",
		.graph = write ? "Per-process I/O Write" : "Per-process I/O Read", .header = header,
		.n = io->tids.n, .ctx = &io->tids, .value = pval, .what = write ? U_WRITE : U_READ,
		.sort = true, .mi_row = proc_mi, .bar_row = proc_bar, .write = write }, b, e, mi);
}

static void block_mi(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v)
{
	const struct io_pstats *p = an_table_at(&io->tids, i);

	(void)t;
	/* mi.Process(None) when the name is empty */
	fputs("{\"class\": \"process\"", f);
	if (p->comm.len) {
		fputs(", \"name\": ", f);
		an_json_string(f, p->comm.s, p->comm.len);
	}
	if (p->has_pid)
		fprintf(f, ", \"pid\": %lld", (long long)p->pid);
	fprintf(f, ", \"tid\": %lld}, {\"class\": \"size\", \"value\": %llu}", (long long)p->tid,
		(unsigned long long)v);
}

static char *block_bar(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
		       struct an_bar *row)
{
	struct io_pstats q = *(const struct io_pstats *)an_table_at(&io->tids, i);
	char label[200];

	(void)t;
	if (!q.comm.len) {
		memcpy(q.comm.s, "unknown", 7);
		q.comm.len = 7;
	}
	comm_label(label, sizeof(label), &q, "%.*s (pid=%s)");
	size_bar(row, v);
	return strdup(label);
}

static void per_proc_block(struct an_io *io, int64_t b, int64_t e, bool mi, bool write)
{
	usage_table(io, &(struct usage_table){
		.key = "per-process-top-block", .title = "Per-process top block I/O operations",
		.sub = write ? "written" : "read", .graph = write ? "Block I/O Write" : "Block I/O Read",
		.header = "Process", .n = io->tids.n, .ctx = &io->tids, .value = pval,
		.what = write ? U_BLK_WRITE : U_BLK_READ, .sort = true, .skip_zero = true,
		.mi_row = block_mi, .bar_row = block_bar, .write = write }, b, e, mi);
}

static double disk_avg(const struct io_dstats *d)
{
	return (double)d->duration / (double)d->count;
}

/* per_disk's `what`: U_SECTORS, U_REQUESTS, or this for the average latency */
enum { U_LATENCY = -1 };

static void disk_mi(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v)
{
	const struct io_dstats *d = an_table_at(&io->dstats, i);
	char name[300];

	io_disk_name(io, d, name, sizeof(name));
	fputs("{\"class\": \"disk\", \"name\": ", f);
	an_json_string(f, name, strlen(name));
	fputs("}, ", f);
	if (t->sort)
		fprintf(f, "{\"class\": \"number\", \"value\": %llu}", (unsigned long long)v);
	else   /* the latency table, in the disks' order */
		an_mi_duration(f, disk_avg(d));
}

static char *disk_bar(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
		      struct an_bar *row)
{
	const struct io_dstats *d = an_table_at(&io->dstats, i);
	char name[300];

	io_disk_name(io, d, name, sizeof(name));
	row->value = t->sort ? (double)v : disk_avg(d) / 1000000;
	if (t->sort)
		snprintf(row->value_str, sizeof(row->value_str), "%llu", (unsigned long long)v);
	else
		snprintf(row->value_str, sizeof(row->value_str), "%0.02f", disk_avg(d) / 1000000);
	return strdup(name);
}

/* sectors, requests (sorted), average latency (in the disks' order) */
static void per_disk(struct an_io *io, int64_t b, int64_t e, bool mi, int what)
{
	bool lat = what == U_LATENCY;

	usage_table(io, &(struct usage_table){
		.key = lat ? "per-disk-top-rps" : what == U_SECTORS ? "per-disk-top-sector"
								     : "per-disk-top-request",
		.graph = lat ? "Disk Request Average Latency"
		       : what == U_SECTORS ? "Disk Requests Sector Count" : "Disk Request Count",
		.header = "Disk", .unit = lat ? "ms" : what == U_SECTORS ? "sectors" : "requests",
		.n = io->dstats.n, .ctx = &io->dstats, .value = dval, .what = lat ? U_REQUESTS : what,
		.sort = !lat, .skip_zero = true, .mi_row = disk_mi, .bar_row = disk_bar }, b, e, mi);
}

static void netif_mi(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v)
{
	const struct io_ifstats *n = an_table_at(&io->ifaces, i);
	size_t len;
	const char *s = io_str_at(&io->strs, n->name, &len);

	(void)t;
	fputs("{\"class\": \"netif\", \"name\": ", f);
	an_json_string(f, s, len);
	fprintf(f, "}, {\"class\": \"size\", \"value\": %llu}", (unsigned long long)v);
}

static char *netif_bar(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
		       struct an_bar *row)
{
	const struct io_ifstats *n = an_table_at(&io->ifaces, i);
	size_t len;
	const char *s = io_str_at(&io->strs, n->name, &len);

	(void)t;
	size_bar(row, v);
	return strndup(s, len);
}

static void per_netif(struct an_io *io, int64_t b, int64_t e, bool mi, bool sent)
{
	usage_table(io, &(struct usage_table){
		.key = "per-netif-top", .title = "Per-network interface top I/O operations",
		.sub = sent ? "sent" : "received",
		.graph = sent ? "Network Sent Bytes" : "Network Received Bytes", .header = "Interface",
		.n = io->ifaces.n, .ctx = &io->ifaces, .value = ival, .what = sent ? U_SENT : U_RECV,
		.sort = true, .mi_row = netif_mi, .bar_row = netif_bar }, b, e, mi);
}

/* FileStats.GENERIC_NAMES */
static bool generic_name(const char *s, size_t len)
{
	static const char *const g[] = { "pipe", "socket", "anon_inode", "unknown" };

	for (size_t i = 0; i < 4; i++)
		if (len >= strlen(g[i]) && !memcmp(s, g[i], strlen(g[i])))
			return true;
	return false;
}

/* IoAnalysis.get_files_stats: files in the order the tasks' file descriptors list them */
static struct io_file *files_stats(struct an_io *io, size_t *n_out)
{
	struct an_table by_name = { .size = sizeof(size_t) };
	struct io_file *files = NULL;
	size_t n = 0, cap = 0;

	for (size_t t = 0; t < io->tids.n && !io->a->oom; t++) {
		const struct io_pstats *p = an_table_at(&io->tids, t);
		for (size_t i = 0; i < p->fds.n; i++) {
			const struct io_fdlist *l = (const struct io_fdlist *)io_omap_at(&p->fds, i);
			if (!l->h.live)
				continue;
			for (size_t k = 0; k < l->n; k++) {
				const struct io_fdstats *fs = &l->v[k];
				size_t len, *idx;
				const char *s = io_str_at(&io->strs, fs->filename, &len);
				uint32_t id = fs->filename;
				bool added;
				int64_t pid = p->has_pid ? p->pid : p->tid;
				struct io_owner *ow;
				if (generic_name(s, len)) {
					char buf[400];
					int m = snprintf(buf, sizeof(buf), "%.*s (%.*s)", (int)len, s,
							 (int)p->comm.len, p->comm.s);
					id = io_str(&io->strs, buf, m < (int)sizeof(buf) ? (size_t)m
											: sizeof(buf) - 1);
				}
				if (!id || !(idx = an_table_get(&by_name, id, &added))) {
					io->a->oom = true;
					break;
				}
				if (added) {
					struct io_file *nf;
					if (n == cap) {
						cap = cap ? cap * 2 : 16;
						if (!(nf = realloc(files, cap * sizeof(*files)))) {
							io->a->oom = true;
							break;
						}
						files = nf;
					}
					memset(&files[n], 0, sizeof(files[n]));
					files[n].name = id;
					files[n].owners.size = sizeof(struct io_owner);
					*idx = n++;
				}
				files[*idx].read += fs->read;
				files[*idx].write += fs->write;
				if ((ow = an_table_get(&files[*idx].owners, pid, &added)) && added) {
					ow->pid = pid;
					ow->fd = fs->fd;
				}
			}
		}
	}
	an_table_free(&by_name);
	*n_out = n;
	return files;
}

/* _get_file_stats_fd_owners_str: "fd 3 in cat (1234) " for each owner */
static void owners_json(struct an_io *io, FILE *f, const struct io_file *file)
{
	char *own = NULL;
	size_t olen = 0;
	FILE *o = open_memstream(&own, &olen);

	if (!o) {
		io->a->oom = true;
		return;
	}
	for (size_t w = 0; w < file->owners.n; w++) {
		const struct io_owner *ow = an_table_at(&file->owners, w);
		const struct io_pstats *pp = io_pstats_find(io, ow->pid);
		fprintf(o, "fd %lld in %.*s (%lld) ", (long long)ow->fd, pp ? (int)pp->comm.len : 0,
			pp ? pp->comm.s : "", (long long)ow->pid);
	}
	fclose(o);
	an_json_string(f, own, olen);
	free(own);
}

static void file_mi(struct an_io *io, FILE *f, const struct usage_table *t, size_t i, uint64_t v)
{
	const struct io_file *file = (const struct io_file *)t->ctx + i;
	size_t len;
	const char *s = io_str_at(&io->strs, file->name, &len);

	fputs("{\"class\": \"path\", \"path\": ", f);
	an_json_string(f, s, len);
	fprintf(f, "}, {\"class\": \"size\", \"value\": %llu}, {\"class\": \"string\", "
		   "\"value\": ", (unsigned long long)v);
	owners_json(io, f, file);
	fputc('}', f);
}

static char *file_bar(struct an_io *io, const struct usage_table *t, size_t i, uint64_t v,
		      struct an_bar *row)
{
	const struct io_file *file = (const struct io_file *)t->ctx + i;
	size_t len;
	const char *s = io_str_at(&io->strs, file->name, &len);

	size_bar(row, v);
	return strndup(s, len);
}

static void per_file(struct an_io *io, int64_t b, int64_t e, bool mi, const struct io_file *files,
		     size_t n, bool write)
{
	usage_table(io, &(struct usage_table){
		.key = "per-file-top", .title = "Per-file top I/O operations",
		.sub = write ? "written" : "read", .graph = write ? "Per-file I/O Write" : "Per-file I/O Read",
		.header = "Path", .n = n, .ctx = files, .value = fval,
		.what = write ? U_FILE_WRITE : U_FILE_READ, .sort = true, .skip_zero = true,
		.mi_row = file_mi, .bar_row = file_bar, .write = write }, b, e, mi);
}

void io_usage(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	size_t n_files = 0;
	struct io_file *files = files_stats(io, &n_files);

	per_proc(io, b, e, mi, false);
	per_proc(io, b, e, mi, true);
	per_file(io, b, e, mi, files, n_files, false);
	per_file(io, b, e, mi, files, n_files, true);
	per_proc_block(io, b, e, mi, false);
	per_proc_block(io, b, e, mi, true);
	per_disk(io, b, e, mi, U_SECTORS);
	per_disk(io, b, e, mi, U_REQUESTS);
	per_disk(io, b, e, mi, U_LATENCY);
	per_netif(io, b, e, mi, false);
	per_netif(io, b, e, mi, true);
	for (size_t i = 0; i < n_files; i++)
		an_table_free(&files[i].owners);
	free(files);
}
