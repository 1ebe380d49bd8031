/*
 * Writes tests/data/analyze/kernel-v6.dat: a small trace.dat (v6,
 * uncompressed, 2 CPUs, x86_64) with the ftrace events that `tracemux
 * analyze` maps to lttng-modules' (src/model/kmap.c) and that the corpus
 * has few of: sched_switch, sched_waking/wakeup, sched_process_fork,
 * sched_migrate_task, irq handlers and softirqs, raw_syscalls (read,
 * write, openat, close, sendto, nanosleep and an unknown number), kmem's
 * page allocations and frees, block requests with rwbs letters.  Formats
 * as Linux 6.x's tracefs writes them; records as its ring buffer does
 * (tests/unit/tdat_build.h).  tests/golden/test_analyze_tracedat.py runs
 * lttng-analyses on its conversion.
 *
 *   cc -Iinclude -Isrc tests/data/make-analyze-tracedat.c -lz -lzstd -o /tmp/mkan && /tmp/mkan tests/data/analyze
 */
#include "../unit/tdat_build.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define F(decl, off, size, sgn) "\tfield:" decl ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sgn ";\n"

enum { SWITCH = 300, WAKING, WAKEUP, FORK, MIGRATE, IRQ_ENTRY = 310, IRQ_EXIT, SOFT_ENTRY,
       SOFT_EXIT, SOFT_RAISE, SYS_ENTER = 320, SYS_EXIT, PAGE_ALLOC = 330, PAGE_FREE,
       RQ_ISSUE = 340, RQ_COMPLETE };

static const char *const sched[] = {
	"name: sched_switch\nID: 300\nformat:\n" COMMON F("char prev_comm[16]", 8, 16, 0)
	F("pid_t prev_pid", 24, 4, 1) F("int prev_prio", 28, 4, 1) F("long prev_state", 32, 8, 1)
	F("char next_comm[16]", 40, 16, 0) F("pid_t next_pid", 56, 4, 1) F("int next_prio", 60, 4, 1)
	"\nprint fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%ld ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state, REC->next_comm, REC->next_pid, REC->next_prio\n",
	"name: sched_waking\nID: 301\nformat:\n" COMMON F("char comm[16]", 8, 16, 0)
	F("pid_t pid", 24, 4, 1) F("int prio", 28, 4, 1) F("int target_cpu", 32, 4, 1)
	"\nprint fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n",
	"name: sched_wakeup\nID: 302\nformat:\n" COMMON F("char comm[16]", 8, 16, 0)
	F("pid_t pid", 24, 4, 1) F("int prio", 28, 4, 1) F("int target_cpu", 32, 4, 1)
	"\nprint fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n",
	"name: sched_process_fork\nID: 303\nformat:\n" COMMON F("char parent_comm[16]", 8, 16, 0)
	F("pid_t parent_pid", 24, 4, 1) F("char child_comm[16]", 28, 16, 0) F("pid_t child_pid", 44, 4, 1)
	"\nprint fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid\n",
	"name: sched_migrate_task\nID: 304\nformat:\n" COMMON F("char comm[16]", 8, 16, 0)
	F("pid_t pid", 24, 4, 1) F("int prio", 28, 4, 1) F("int orig_cpu", 32, 4, 1)
	F("int dest_cpu", 36, 4, 1)
	"\nprint fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, REC->pid, "
	"REC->prio, REC->orig_cpu, REC->dest_cpu\n",
	NULL,
};
static const char *const irq[] = {
	"name: irq_handler_entry\nID: 310\nformat:\n" COMMON F("int irq", 8, 4, 1)
	F("__data_loc char[] name", 12, 4, 0)
	"\nprint fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n",
	"name: irq_handler_exit\nID: 311\nformat:\n" COMMON F("int irq", 8, 4, 1) F("int ret", 12, 4, 1)
	"\nprint fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n",
	"name: softirq_entry\nID: 312\nformat:\n" COMMON F("unsigned int vec", 8, 4, 0)
	"\nprint fmt: \"vec=%u\", REC->vec\n",
	"name: softirq_exit\nID: 313\nformat:\n" COMMON F("unsigned int vec", 8, 4, 0)
	"\nprint fmt: \"vec=%u\", REC->vec\n",
	"name: softirq_raise\nID: 314\nformat:\n" COMMON F("unsigned int vec", 8, 4, 0)
	"\nprint fmt: \"vec=%u\", REC->vec\n",
	NULL,
};
static const char *const raw_syscalls[] = {
	"name: sys_enter\nID: 320\nformat:\n" COMMON F("long id", 8, 8, 1)
	F("unsigned long args[6]", 16, 48, 0)
	"\nprint fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	"REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n",
	"name: sys_exit\nID: 321\nformat:\n" COMMON F("long id", 8, 8, 1) F("long ret", 16, 8, 1)
	"\nprint fmt: \"NR %ld = %ld\", REC->id, REC->ret\n",
	NULL,
};
static const char *const kmem[] = {
	"name: mm_page_alloc\nID: 330\nformat:\n" COMMON F("unsigned long pfn", 8, 8, 0)
	F("unsigned int order", 16, 4, 0) F("unsigned long gfp_flags", 24, 8, 0)
	F("int migratetype", 32, 4, 1)
	"\nprint fmt: \"pfn=0x%lx order=%d migratetype=%d\", REC->pfn, REC->order, "
	"REC->migratetype\n",
	"name: mm_page_free\nID: 331\nformat:\n" COMMON F("unsigned long pfn", 8, 8, 0)
	F("unsigned int order", 16, 4, 0)
	"\nprint fmt: \"pfn=0x%lx order=%d\", REC->pfn, REC->order\n",
	NULL,
};
static const char *const block[] = {
	"name: block_rq_issue\nID: 340\nformat:\n" COMMON F("dev_t dev", 8, 4, 0)
	F("sector_t sector", 16, 8, 0) F("unsigned int nr_sector", 24, 4, 0)
	F("unsigned int bytes", 28, 4, 0) F("char rwbs[8]", 32, 8, 0) F("char comm[16]", 40, 16, 0)
	F("__data_loc char[] cmd", 56, 4, 0)
	"\nprint fmt: \"%d,%d %s %u (%s) %llu + %u [%s]\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, REC->bytes, __get_str(cmd), "
	"(unsigned long long)REC->sector, REC->nr_sector, REC->comm\n",
	"name: block_rq_complete\nID: 341\nformat:\n" COMMON F("dev_t dev", 8, 4, 0)
	F("sector_t sector", 16, 8, 0) F("unsigned int nr_sector", 24, 4, 0) F("int error", 28, 4, 1)
	F("char rwbs[8]", 32, 8, 0) F("__data_loc char[] cmd", 40, 4, 0)
	"\nprint fmt: \"%d,%d %s (%s) %llu + %u [%d]\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, __get_str(cmd), "
	"(unsigned long long)REC->sector, REC->nr_sector, REC->error\n",
	NULL,
};

static const struct { const char *name; const char *const *formats; } systems[] = {
	{ "sched", sched }, { "irq", irq }, { "raw_syscalls", raw_syscalls }, { "kmem", kmem },
	{ "block", block },
};

struct cpu {
	struct bb pages;      /* finished pages */
	struct pagebuild pb;
	uint64_t last;
	bool open;
};
static struct cpu cpus[2];

/* Records are made in any order (a system call's exit with its entry), written sorted by time. */
struct rec {
	uint64_t ts;
	size_t seq;
	int cpu;
	struct bb r;
};
static struct rec recs[512];
static size_t n_recs;

static void put(int c, uint64_t ts, struct bb *rec)
{
	if (n_recs == sizeof(recs) / sizeof(recs[0]))
		abort();
	recs[n_recs] = (struct rec){ ts, n_recs, c, *rec };
	n_recs++;
	memset(rec, 0, sizeof(*rec));
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	return x->ts != y->ts ? (x->ts > y->ts) - (x->ts < y->ts) : (x->seq > y->seq) - (x->seq < y->seq);
}

static void write_rec(int c, uint64_t ts, struct bb *rec)
{
	struct cpu *k = &cpus[c];

	bb_zero(rec, (4 - rec->n % 4) % 4);
	if (k->open && k->pb.b.n + rec->n + 4 > 4096) {
		page_end(&k->pb, false, false, 0);
		bb_put(&k->pages, k->pb.b.p, k->pb.b.n);
		free(k->pb.b.p);
		k->open = false;
	}
	if (!k->open) {
		page_begin(&k->pb, false, 8, 4096, ts);
		k->last = ts;
		k->open = true;
	}
	page_event(&k->pb, (uint32_t)(ts - k->last), rec->p, (uint32_t)rec->n);
	k->last = ts;
	free(rec->p);
	memset(rec, 0, sizeof(*rec));
}

static struct bb head(uint16_t type, int32_t pid)
{
	struct bb r = { 0 };
	bb_u16(&r, type);
	bb_put(&r, "\1\0", 2);
	bb_u32(&r, (uint32_t)pid);
	return r;
}

static void text(struct bb *r, const char *s, size_t n)
{
	size_t l = strlen(s);
	bb_put(r, s, l < n ? l : n);
	if (l < n)
		bb_zero(r, n - l);
}

/* a __data_loc string at the end of the record: its word at `at` */
static void data_loc(struct bb *r, size_t at, const char *s)
{
	size_t l = strlen(s) + 1;
	bb_set_num(r, at, (uint64_t)(l << 16 | r->n), 4);
	bb_put(r, s, l);
}

#define BASE 1000000000ull

static void sw(int c, uint64_t t, const char *pc, int pp, int pprio, long st, const char *nc,
	       int np, int nprio)
{
	struct bb r = head(SWITCH, pp);
	text(&r, pc, 16);
	bb_u32(&r, (uint32_t)pp);
	bb_u32(&r, (uint32_t)pprio);
	bb_u64(&r, (uint64_t)st);
	text(&r, nc, 16);
	bb_u32(&r, (uint32_t)np);
	bb_u32(&r, (uint32_t)nprio);
	put(c, BASE + t, &r);
}

static void wake(int c, uint64_t t, int cur, uint16_t type, const char *comm, int pid, int prio,
		 int target)
{
	struct bb r = head(type, cur);
	text(&r, comm, 16);
	bb_u32(&r, (uint32_t)pid);
	bb_u32(&r, (uint32_t)prio);
	bb_u32(&r, (uint32_t)target);
	put(c, BASE + t, &r);
}

static void sys(int c, uint64_t t, int pid, long nr, const uint64_t a[6], long ret, uint64_t dur)
{
	struct bb r = head(SYS_ENTER, pid);
	bb_u64(&r, (uint64_t)nr);
	for (int i = 0; i < 6; i++)
		bb_u64(&r, a ? a[i] : 0);
	put(c, BASE + t, &r);
	r = head(SYS_EXIT, pid);
	bb_u64(&r, (uint64_t)nr);
	bb_u64(&r, (uint64_t)ret);
	put(c, BASE + t + dur, &r);
}

static void irq_ev(int c, uint64_t t, int pid, int n, const char *name, uint64_t dur)
{
	struct bb r = head(IRQ_ENTRY, pid);
	bb_u32(&r, (uint32_t)n);
	bb_u32(&r, 0);
	data_loc(&r, 12, name);
	put(c, BASE + t, &r);
	r = head(IRQ_EXIT, pid);
	bb_u32(&r, (uint32_t)n);
	bb_u32(&r, 1);
	put(c, BASE + t + dur, &r);
}

static void soft(int c, uint64_t t, int pid, uint16_t type, unsigned vec)
{
	struct bb r = head(type, pid);
	bb_u32(&r, vec);
	put(c, BASE + t, &r);
}

static void page(int c, uint64_t t, int pid, bool alloc, uint64_t pfn)
{
	struct bb r = head(alloc ? PAGE_ALLOC : PAGE_FREE, pid);
	bb_u64(&r, pfn);
	bb_u32(&r, 0);
	if (alloc) {
		bb_u32(&r, 0);
		bb_u64(&r, 0xcc0);
		bb_u32(&r, 1);
	}
	put(c, BASE + t, &r);
}

static void rq(int c, uint64_t t, int pid, bool issue, uint64_t sector, const char *rwbs,
	       const char *comm)
{
	struct bb r = head(issue ? RQ_ISSUE : RQ_COMPLETE, pid);
	bb_u32(&r, 8u << 20);
	bb_u32(&r, 0);
	bb_u64(&r, sector);
	bb_u32(&r, 8);
	bb_u32(&r, issue ? 4096 : 0);
	text(&r, rwbs, 8);
	if (issue)
		text(&r, comm, 16);
	bb_u32(&r, 0);
	data_loc(&r, issue ? 56 : 40, "");
	put(c, BASE + t, &r);
}

static void events(void)
{
	const uint64_t rd[6] = { 3, 0x7ffd0000, 4096 }, wr[6] = { 1, 0x7ffd1000, 100 };
	const uint64_t op[6] = { (uint64_t)-100, 0x55550000, 0x80000 }, cl[6] = { 3 };
	const uint64_t st[6] = { 5, 0x7ffd2000, 200, 0x40 }, ns[6] = { 0x7ffd3000 };

	/* CPU 0: app (100) reads, writes, opens; an IRQ and a softirq; it forks 104 */
	sw(0, 0, "swapper/0", 0, 120, 0, "app", 100, 120);
	sys(0, 1000, 100, 0, rd, 4096, 4000);
	page(0, 1500, 100, true, 1000);
	page(0, 1600, 100, true, 1001);
	rq(0, 2000, 100, true, 2048, "R", "app");
	irq_ev(0, 6000, 100, 24, "eth0", 500);
	soft(0, 7000, 100, SOFT_RAISE, 3);
	soft(0, 7200, 100, SOFT_ENTRY, 3);
	soft(0, 8000, 100, SOFT_EXIT, 3);
	wake(0, 9000, 100, WAKING, "worker", 101, 120, 1);
	sys(0, 10000, 100, 1, wr, 100, 2000);
	sys(0, 13000, 100, 257, op, 4, 1000);
	page(0, 15000, 100, false, 1000);
	{
		struct bb r = head(FORK, 100);
		text(&r, "app", 16);
		bb_u32(&r, 100);
		text(&r, "app", 16);
		bb_u32(&r, 104);
		put(0, BASE + 15500, &r);
	}
	sys(0, 15800, 100, 999, NULL, -38, 100);   /* a number the x86_64 table has not */
	sw(0, 16000, "app", 100, 120, 1, "swapper/0", 0, 120);
	rq(0, 20000, 0, false, 2048, "R", NULL);
	irq_ev(0, 21000, 0, 24, "eth0", 700);
	wake(0, 30000, 0, WAKING, "app", 100, 120, 0);
	wake(0, 30500, 0, WAKEUP, "app", 100, 120, 0);
	sw(0, 31000, "swapper/0", 0, 120, 0, "app", 100, 120);
	sys(0, 32000, 100, 3, cl, 0, 800);
	page(0, 33000, 100, true, 1002);
	wake(0, 34000, 100, WAKING, "child", 104, 120, 0);
	sw(0, 35000, "app", 100, 120, 0, "child", 104, 120);
	sys(0, 36000, 104, 0, rd, -9, 300);
	page(0, 37000, 104, false, 1001);
	page(0, 37100, 104, false, 1002);
	sw(0, 38000, "child", 104, 120, 0, "app", 100, 120);
	sys(0, 39000, 100, 1, wr, 100, 1500);
	sw(0, 45000, "app", 100, 120, 1, "swapper/0", 0, 120);

	/* CPU 1: worker (101) sends, an RT task (103, prio 9) sleeps; a write request */
	irq_ev(1, 0, 0, 25, "ahci[0000:00:1f.2]", 400);   /* both CPUs from the start */
	wake(1, 9500, 0, WAKEUP, "worker", 101, 120, 1);
	sw(1, 10000, "swapper/1", 0, 120, 0, "worker", 101, 120);
	sys(1, 11000, 101, 44, st, 200, 900);
	page(1, 12000, 101, true, 2000);
	page(1, 13000, 101, false, 2000);
	irq_ev(1, 14000, 101, 25, "ahci[0000:00:1f.2]", 1200);
	rq(1, 18000, 101, true, 4096, "WS", "worker");
	rq(1, 25000, 101, false, 4096, "WS", NULL);
	wake(1, 25500, 101, WAKING, "rt", 103, 9, 1);
	sw(1, 26000, "worker", 101, 120, 0, "rt", 103, 9);
	sys(1, 27000, 103, 35, ns, 0, 13500);
	sw(1, 28000, "rt", 103, 9, 1, "worker", 101, 120);
	{
		struct bb r = head(MIGRATE, 101);
		text(&r, "rt", 16);
		bb_u32(&r, 103);
		bb_u32(&r, 9);
		bb_u32(&r, 1);
		bb_u32(&r, 1);
		put(1, BASE + 29000, &r);
	}
	wake(1, 39500, 101, WAKING, "rt", 103, 9, 1);
	sw(1, 40000, "worker", 101, 120, 0, "rt", 103, 9);
	sw(1, 44000, "rt", 103, 9, 1, "swapper/1", 0, 120);
	soft(1, 46000, 0, SOFT_RAISE, 1);   /* to the end */
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char cmdlines[] = "100 app\n101 worker\n103 rt\n104 child\n";
	struct bb f = { 0 }, hi = { 0 }, ev = { 0 };
	size_t at, ns = sizeof(systems) / sizeof(systems[0]);
	char path[4096];
	FILE *out;

	events();
	qsort(recs, n_recs, sizeof(recs[0]), by_time);
	for (size_t i = 0; i < n_recs; i++)
		write_rec(recs[i].cpu, recs[i].ts, &recs[i].r);
	tb_metadata(&hi, &ev, false, 8, NULL);   /* its header page and header event only */
	bb_put(&f, magic, 10);
	bb_str(&f, "6");
	bb_put(&f, "\0\x08", 2);
	bb_u32(&f, 4096);
	bb_put(&f, hi.p, hi.n);
	bb_u32(&f, 0);                           /* ftrace formats */
	bb_u32(&f, ns);
	for (size_t s = 0; s < ns; s++) {
		size_t n = 0;
		while (systems[s].formats[n])
			n++;
		bb_str(&f, systems[s].name);
		bb_u32(&f, n);
		for (size_t i = 0; i < n; i++) {
			bb_u64(&f, strlen(systems[s].formats[i]));
			bb_put(&f, systems[s].formats[i], strlen(systems[s].formats[i]));
		}
	}
	bb_u32(&f, 0);                           /* kallsyms */
	bb_u32(&f, 0);                           /* printk formats */
	bb_u64(&f, strlen(cmdlines));
	bb_put(&f, cmdlines, strlen(cmdlines));
	bb_u32(&f, 2);
	bb_put(&f, "options  ", 10);
	tb_opt(&f, 5, "Linux analyzehost 6.1.0-test x86_64", 36);   /* UNAME */
	bb_u16(&f, 0);
	bb_put(&f, "flyrecord", 10);
	at = f.n;
	bb_zero(&f, 32);
	bb_zero(&f, (f.n + 4095) / 4096 * 4096 - f.n);
	for (int c = 0; c < 2; c++) {
		struct cpu *k = &cpus[c];
		page_end(&k->pb, false, false, 0);
		bb_put(&k->pages, k->pb.b.p, k->pb.b.n);
		bb_set_num(&f, at + (size_t)c * 16, f.n, 8);
		bb_set_num(&f, at + (size_t)c * 16 + 8, k->pages.n, 8);
		bb_put(&f, k->pages.p, k->pages.n);
		free(k->pb.b.p);
		free(k->pages.p);
	}
	snprintf(path, sizeof(path), "%s/kernel-v6.dat", dir);
	if (!(out = fopen(path, "wb")) || fwrite(f.p, 1, f.n, out) != f.n || fclose(out)) {
		perror(path);
		return 1;
	}
	free(f.p);
	free(hi.p);
	free(ev.p);
	return 0;
}
