/*
 * Writes the function_graph trace.dat files of tests/data/tracedat/funcgraph/
 * (make-funcgraph.sh runs it, then trace-cmd 3.1.6 for the references).
 *
 * The function tracers cannot be enabled where these tests run, so the
 * files are built here: ring-buffer pages as the kernel writes them
 * (tests/unit/tdat_build.h), with the real format files of tracefs:
 *   - 8-byte longs: Linux 6.18's events/ftrace/funcgraph_entry, funcgraph_exit
 *     and events/irq/irq_handler_entry, irq_handler_exit;
 *   - 4-byte longs: the ftrace formats of an i686 Linux 4.13 recording
 *     (../shared/corpus/tracecmd-samples/external/kinmax_trace_22063697.dat),
 *     whose funcgraph_exit puts overrun before calltime and depth last.
 * A small simulated tracer (enter/leave per CPU) gives the entries and
 * exits their depths, calltimes and rettimes.
 *
 *   cc -Iinclude -Isrc tests/data/make-funcgraph.c -lz -lzstd -o /tmp/mkfg && /tmp/mkfg DIR
 */
#include "../unit/tdat_build.h"

/* ------------------------------------------------------------------ */
/* Format files                                                          */
/* ------------------------------------------------------------------ */

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Linux 6.18, x86-64 (tracefs). */
static const char entry8[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n";
static const char exit8[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";
static const char irq_entry8[] =
	"name: irq_handler_entry\nID: 225\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";
static const char irq_exit8[] =
	"name: irq_handler_exit\nID: 224\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";

/* Linux 4.13, i686 (the kinmax recording's formats). */
static const char entry4[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int depth;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %lx (%d)\", REC->func, REC->depth\n";
static const char exit4[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long overrun;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int depth;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"<-- %lx (%d) (start: %llx  end: %llx) over: %d\", REC->func, REC->depth, "
	"REC->calltime, REC->rettime, REC->depth\n";
static const char irq_entry4[] =
	"name: irq_handler_entry\nID: 70\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";
static const char irq_exit4[] =
	"name: irq_handler_exit\nID: 69\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";

/* Symbols (kallsyms text) at these addresses, per long size. */
enum fn {
	F_SYS_READ, F_VFS_READ, F_RW_VERIFY, F_FDGET, F_COPY_USER, F_DO_IRQ, F_HANDLE_IRQ,
	F_SCHEDULE, F_PICK_NEXT, F_MUTEX_LOCK, F_KMALLOC, F_KFREE, F_TICK, F_N
};
static const char *const fn_name[F_N] = {
	"ksys_read", "vfs_read", "rw_verify_area", "__fdget_pos", "_copy_to_user", "do_IRQ",
	"handle_irq_event", "schedule", "pick_next_task_fair", "mutex_lock", "__kmalloc",
	"kfree", "tick_sched_timer",
};

static uint64_t fn_addr(int klong, int f)
{
	return (klong == 8 ? 0xffffffff81100000ull : 0xc1100000ull) + (uint64_t)f * 0x1f0;
}

/* An address below every symbol: libtraceevent finds no name for it. */
static uint64_t unknown_addr(int klong)
{
	return klong == 8 ? 0xffffffff80001234ull : 0xc0001234ull;
}

static void kallsyms(struct bb *t, int klong)
{
	char line[128];
	for (int f = 0; f < F_N; f++) {
		int n = snprintf(line, sizeof(line), klong == 8 ? "%016llx T %s\n" : "%08llx T %s\n",
				 (unsigned long long)fn_addr(klong, f), fn_name[f]);
		bb_put(t, line, (size_t)n);
	}
	/* the end of the text: what follows the last function has no name */
	snprintf(line, sizeof(line), klong == 8 ? "%016llx T _etext\n" : "%08llx T _etext\n",
		 (unsigned long long)fn_addr(klong, F_N));
	bb_put(t, line, strlen(line));
}

static const char cmdlines[] = "1234 bash\n99 kworker/0:1\n2345 sleep\n777 fio\n";

/* ------------------------------------------------------------------ */
/* CPU streams: ring-buffer pages                                       */
/* ------------------------------------------------------------------ */

#define MAX_CPUS 4
#define MAX_DEPTH 64

struct cpu {
	struct bb pages;          /* finished pages */
	struct pagebuild pb;
	bool open;
	uint64_t last;            /* time of the last event written */
	bool missed_next;         /* the next page starts after lost events */
	uint64_t missed_count;
	bool page_missed;         /* the open page's flag and count */
	uint64_t page_count;
	/* the simulated tracer's call stack */
	int depth;
	int stack_fn[MAX_DEPTH];
	uint64_t stack_t[MAX_DEPTH];
	int pid;
	uint8_t flags;
};

struct gen {
	bool be;
	int klong;
	uint32_t psize;
	int ncpus;
	struct cpu cpu[MAX_CPUS];
	uint64_t now;
	uint16_t id_entry, id_exit, id_irq_entry, id_irq_exit;
	/* other ftrace formats than the real ones: NULL for the real one, "" for none */
	const char *fmt_entry, *fmt_exit;
};

static void gen_init(struct gen *g, bool be, int klong, int ncpus)
{
	memset(g, 0, sizeof(*g));
	g->be = be;
	g->klong = klong;
	g->psize = 4096;
	g->ncpus = ncpus;
	g->now = 5000000000ull;   /* 5 s after boot */
	g->id_entry = 11;
	g->id_exit = 10;
	g->id_irq_entry = klong == 8 ? 225 : 70;
	g->id_irq_exit = klong == 8 ? 224 : 69;
	for (int c = 0; c < ncpus; c++) {
		g->cpu[c].pages.be = be;
		g->cpu[c].pid = 1234;
	}
}

static void page_close(struct gen *g, int c)
{
	struct cpu *cp = &g->cpu[c];
	if (!cp->open)
		return;
	page_end(&cp->pb, cp->page_missed, cp->page_missed, cp->page_count);
	bb_put(&cp->pages, cp->pb.b.p, cp->pb.b.n);
	free(cp->pb.b.p);
	cp->open = false;
}

/* A record (a multiple of 4 bytes, up to 112) on CPU c at time ts; a new page when full. */
static void put_record(struct gen *g, int c, uint64_t ts, const struct bb *rec)
{
	struct cpu *cp = &g->cpu[c];
	uint64_t delta;
	/* room: the event word, a time extend, the data, the missed count at the end */
	if (cp->open && cp->pb.b.n + 4 + 8 + rec->n + 8 > g->psize)
		page_close(g, c);
	if (!cp->open) {
		page_begin(&cp->pb, g->be, g->klong, g->psize, ts);
		cp->page_missed = cp->missed_next;
		cp->page_count = cp->missed_count;
		cp->missed_next = false;
		cp->open = true;
		cp->last = ts;
	}
	delta = ts - cp->last;
	if (delta >= (1u << 27)) {
		page_time_extend(&cp->pb, delta);
		delta = 0;
	}
	page_event(&cp->pb, (uint32_t)delta, rec->p, (uint32_t)rec->n);
	cp->last = ts;
}

/* The next record of CPU c starts a new page, after `count` lost events (0: none). */
static void page_break(struct gen *g, int c, uint64_t count)
{
	page_close(g, c);
	g->cpu[c].missed_next = count != 0;
	g->cpu[c].missed_count = count;
}

static void common(struct gen *g, struct bb *r, uint16_t type, int c)
{
	uint8_t fp[2] = { g->cpu[c].flags, (uint8_t)(g->cpu[c].depth ? 1 : 0) };
	r->be = g->be;
	bb_u16(r, type);
	bb_put(r, fp, 2);
	bb_u32(r, (uint32_t)g->cpu[c].pid);
}

/* ------------------------------------------------------------------ */
/* The simulated tracer                                                 */
/* ------------------------------------------------------------------ */

static void put_entry(struct gen *g, int c, uint64_t func, uint32_t depth)
{
	struct bb r = { 0 };
	common(g, &r, g->id_entry, c);
	bb_num(&r, func, g->klong);
	bb_u32(&r, depth);
	if (g->klong == 8)
		bb_u32(&r, 0);   /* padding before args[] (offset 24) */
	put_record(g, c, g->now, &r);
	free(r.p);
}

/* `cut`: bytes left off the end of the record (a record shorter than its format). */
static void put_exit_cut(struct gen *g, int c, uint64_t func, uint32_t depth, uint64_t calltime,
			 uint64_t rettime, size_t cut)
{
	struct bb r = { 0 };
	common(g, &r, g->id_exit, c);
	if (g->klong == 8) {
		bb_u64(&r, func);
		bb_u32(&r, depth);
		bb_u32(&r, 0);       /* overrun */
		bb_u64(&r, calltime);
		bb_u64(&r, rettime);
	} else {
		bb_u32(&r, func);
		bb_u32(&r, 0);       /* overrun */
		bb_u64(&r, calltime);
		bb_u64(&r, rettime);
		bb_u32(&r, depth);
	}
	r.n -= cut;
	put_record(g, c, g->now, &r);
	free(r.p);
}

static void put_exit(struct gen *g, int c, uint64_t func, uint32_t depth, uint64_t calltime,
		     uint64_t rettime)
{
	put_exit_cut(g, c, func, depth, calltime, rettime, 0);
}

static void tick(struct gen *g, uint64_t ns)
{
	g->now += ns;
}

static void enter(struct gen *g, int c, int f)
{
	struct cpu *cp = &g->cpu[c];
	put_entry(g, c, fn_addr(g->klong, f), (uint32_t)cp->depth);
	cp->stack_fn[cp->depth] = f;
	cp->stack_t[cp->depth++] = g->now;
	tick(g, 90);
}

static void leave(struct gen *g, int c)
{
	struct cpu *cp = &g->cpu[c];
	int d = --cp->depth;
	put_exit(g, c, fn_addr(g->klong, cp->stack_fn[d]), (uint32_t)d, cp->stack_t[d], g->now);
	tick(g, 110);
}

/* A call that returns after `ns`: trace-cmd folds it into one line. */
static void leaf(struct gen *g, int c, int f, uint64_t ns)
{
	enter(g, c, f);
	tick(g, ns - 90);
	leave(g, c);
}

static void irq_entry(struct gen *g, int c, int n, const char *name)
{
	struct bb r = { 0 };
	size_t len = strlen(name) + 1;
	common(g, &r, g->id_irq_entry, c);
	bb_u32(&r, (uint32_t)n);
	bb_u32(&r, (uint32_t)(len << 16 | 16));
	bb_put(&r, name, len);
	bb_zero(&r, (4 - r.n % 4) % 4);
	put_record(g, c, g->now, &r);
	free(r.p);
	tick(g, 700);
}

static void irq_exit(struct gen *g, int c, int n)
{
	struct bb r = { 0 };
	common(g, &r, g->id_irq_exit, c);
	bb_u32(&r, (uint32_t)n);
	bb_u32(&r, 1);
	put_record(g, c, g->now, &r);
	free(r.p);
	tick(g, 300);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

static void metadata(const struct gen *g, struct bb *hi, struct bb *ft, struct bb *ev, struct bb *ks,
		     struct bb *cl)
{
	const char *hp = g->klong == 8 ? TB_HEADER_PAGE_8 : TB_HEADER_PAGE_4;
	const char *fmts[2] = { g->fmt_entry ? g->fmt_entry : g->klong == 8 ? entry8 : entry4,
				g->fmt_exit ? g->fmt_exit : g->klong == 8 ? exit8 : exit4 };
	const char *irqs[2] = { g->klong == 8 ? irq_entry8 : irq_entry4,
				g->klong == 8 ? irq_exit8 : irq_exit4 };
	hi->be = ft->be = ev->be = ks->be = cl->be = g->be;
	bb_str(hi, "header_page");
	bb_u64(hi, strlen(hp));
	bb_put(hi, hp, strlen(hp));
	bb_str(hi, "header_event");
	bb_u64(hi, strlen(TB_HEADER_EVENT));
	bb_put(hi, TB_HEADER_EVENT, strlen(TB_HEADER_EVENT));
	bb_u32(ft, (uint64_t)(!!fmts[0][0] + !!fmts[1][0]));
	for (int i = 0; i < 2; i++) {
		if (!fmts[i][0])
			continue;
		bb_u64(ft, strlen(fmts[i]));
		bb_put(ft, fmts[i], strlen(fmts[i]));
	}
	bb_u32(ev, 1);
	bb_str(ev, "irq");
	bb_u32(ev, 2);
	for (int i = 0; i < 2; i++) {
		bb_u64(ev, strlen(irqs[i]));
		bb_put(ev, irqs[i], strlen(irqs[i]));
	}
	struct bb k = { 0 };
	kallsyms(&k, g->klong);
	bb_u32(ks, k.n);
	bb_put(ks, k.p, k.n);
	free(k.p);
	bb_u64(cl, strlen(cmdlines));
	bb_put(cl, cmdlines, strlen(cmdlines));
}

static void finish_cpus(struct gen *g)
{
	for (int c = 0; c < g->ncpus; c++)
		page_close(g, c);
}

static void write_v6(struct gen *g, struct bb *f)
{
	struct bb hi = { 0 }, ft = { 0 }, ev = { 0 }, ks = { 0 }, cl = { 0 };
	metadata(g, &hi, &ft, &ev, &ks, &cl);
	bb_put(f, hi.p, hi.n);
	bb_put(f, ft.p, ft.n);
	bb_put(f, ev.p, ev.n);
	bb_put(f, ks.p, ks.n);
	bb_u32(f, 0);                 /* printk formats */
	bb_put(f, cl.p, cl.n);
	bb_u32(f, (uint64_t)g->ncpus);
	bb_put(f, "options  ", 10);
	tb_opt(f, 5, "Linux box 6.18.0 x86_64", 24);
	bb_u16(f, 0);
	bb_put(f, "flyrecord", 10);
	size_t at = f->n;
	bb_zero(f, 16 * (size_t)g->ncpus);
	for (int c = 0; c < g->ncpus; c++) {
		size_t off = (f->n + g->psize - 1) / g->psize * g->psize;
		bb_zero(f, off - f->n);
		bb_set_num(f, at + (size_t)c * 16, f->n, 8);
		bb_set_num(f, at + (size_t)c * 16 + 8, g->cpu[c].pages.n, 8);
		bb_put(f, g->cpu[c].pages.p, g->cpu[c].pages.n);
	}
	free(hi.p); free(ft.p); free(ev.p); free(ks.p); free(cl.p);
}

static void write_v7(struct gen *g, struct bb *f, enum tb_algo algo)
{
	struct bb hi = { 0 }, ft = { 0 }, ev = { 0 }, ks = { 0 }, cl = { 0 }, pk = { .be = g->be };
	size_t off[6], cpu_off[MAX_CPUS], cpu_size[MAX_CPUS];
	metadata(g, &hi, &ft, &ev, &ks, &cl);
	bb_u32(&pk, 0);
	bb_str(f, algo == TB_ZSTD ? "zstd" : "none");
	bb_str(f, algo == TB_ZSTD ? "1" : "");
	size_t first = f->n;
	bb_u64(f, 0);
	const struct bb *secs[6] = { &hi, &ft, &ev, &ks, &pk, &cl };
	for (int i = 0; i < 6; i++) {
		off[i] = f->n;
		tb_section(f, (uint16_t)(16 + i), algo, secs[i]);
	}
	/* Flyrecord section: CPU data page-aligned, compressed in one-page chunks. */
	size_t fly_off = f->n;
	bb_u16(f, 3);
	bb_u16(f, algo != TB_NONE);
	bb_u32(f, 0);
	size_t fly_size_at = f->n;
	bb_u64(f, 0);
	for (int c = 0; c < g->ncpus; c++) {
		const struct bb *d = &g->cpu[c].pages;
		size_t pad = (f->n + g->psize - 1) / g->psize * g->psize;
		bb_zero(f, pad - f->n);
		cpu_off[c] = f->n;
		if (algo == TB_NONE) {
			bb_put(f, d->p, d->n);
			cpu_size[c] = d->n;
			continue;
		}
		size_t nch = (d->n + g->psize - 1) / g->psize;
		bb_u32(f, nch);
		for (size_t k = 0; k < nch; k++)
			tb_compress(algo, d->p + k * g->psize, g->psize, f);
		cpu_size[c] = f->n - cpu_off[c] - 4;
	}
	bb_set_num(f, fly_size_at, f->n - fly_size_at - 8, 8);
	size_t opt_off = f->n;
	struct bb opt = { .be = g->be };
	for (int i = 0; i < 6; i++) {
		bb_u16(&opt, 16 + (uint64_t)i);
		bb_u32(&opt, 8);
		bb_u64(&opt, off[i]);
	}
	tb_opt(&opt, 5, "Linux box 6.18.0 x86_64", 24);
	bb_u16(&opt, 8);             /* CPUCOUNT */
	bb_u32(&opt, 4);
	bb_u32(&opt, (uint64_t)g->ncpus);
	bb_u16(&opt, 3);             /* BUFFER: the top instance */
	bb_u32(&opt, 8 + 1 + 6 + 4 + 4 + 20 * (uint64_t)g->ncpus);
	bb_u64(&opt, fly_off);
	bb_str(&opt, "");
	bb_str(&opt, "local");
	bb_u32(&opt, g->psize);
	bb_u32(&opt, (uint64_t)g->ncpus);
	for (int c = 0; c < g->ncpus; c++) {
		bb_u32(&opt, (uint64_t)c);
		bb_u64(&opt, cpu_off[c]);
		bb_u64(&opt, cpu_size[c]);
	}
	bb_u16(&opt, 0);
	bb_u32(&opt, 8);
	bb_u64(&opt, 0);
	tb_section(f, 0, TB_NONE, &opt);
	bb_set_num(f, first, opt_off, 8);
	free(opt.p); free(hi.p); free(ft.p); free(ev.p); free(ks.p); free(cl.p); free(pk.p);
}

static void save(struct gen *g, const char *dir, const char *name, int version, enum tb_algo algo)
{
	const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct bb f = { .be = g->be };
	char path[4096];
	uint8_t ls = (uint8_t)g->klong;
	FILE *fp;

	finish_cpus(g);
	bb_put(&f, magic, 10);
	bb_str(&f, version == 6 ? "6" : "7");
	bb_put(&f, g->be ? "\1" : "\0", 1);
	bb_put(&f, &ls, 1);
	bb_u32(&f, g->psize);
	if (version == 6)
		write_v6(g, &f);
	else
		write_v7(g, &f, algo);
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(f.p, 1, f.n, fp) != f.n) {
		perror(path);
		exit(1);
	}
	fclose(fp);
	free(f.p);
	for (int c = 0; c < g->ncpus; c++)
		free(g->cpu[c].pages.p);
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                            */
/* ------------------------------------------------------------------ */

/* Leaves at both sides of every duration mark (+ ! # $), nesting, an interrupt. */
static void marks(struct gen *g, int c)
{
	static const uint64_t durations[] = {
		150, 9999, 10000, 10001, 99999, 100000, 100001, 999999, 1000000, 1000001,
		50000000,           /* 50 ms: trace-cmd has no '*' mark */
		500000000,          /* 500 ms: nor '@' */
		999999999, 1000000000, 1000000001, 12345678912ull,
	};
	enter(g, c, F_SYS_READ);
	leaf(g, c, F_FDGET, 300);
	enter(g, c, F_VFS_READ);
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
		leaf(g, c, F_RW_VERIFY, durations[i]);
	/* an interrupt in the middle of a call: its events between entry and exit */
	enter(g, c, F_COPY_USER);
	g->cpu[c].flags = 0x09;   /* irqs off, hard interrupt */
	enter(g, c, F_DO_IRQ);
	irq_entry(g, c, 4, "ttyS0");
	leaf(g, c, F_HANDLE_IRQ, 2500);
	irq_exit(g, c, 4);
	tick(g, 3242027 - 90 - 700 - 2500 - 110 - 300);
	leave(g, c);               /* do_IRQ: "# 3242.027 us |  }" */
	g->cpu[c].flags = 0;
	leave(g, c);
	leave(g, c);
	leave(g, c);
}

/* What trace-cmd does not fold: other pid, other function, odd durations, odd depths. */
static void oddities(struct gen *g, int c)
{
	struct cpu *cp = &g->cpu[c];
	uint64_t t;
	/* an exit whose entry is not in the trace (it was before the recording) */
	put_exit(g, c, fn_addr(g->klong, F_SCHEDULE), 0, g->now - 5000, g->now);
	tick(g, 200);
	/* entry then the exit of another task with the same function */
	put_entry(g, c, fn_addr(g->klong, F_KMALLOC), 0);
	t = g->now;
	tick(g, 400);
	cp->pid = 99;
	put_exit(g, c, fn_addr(g->klong, F_KMALLOC), 0, t, g->now);
	cp->pid = 1234;
	tick(g, 300);
	/* entry then an exit of another function */
	put_entry(g, c, fn_addr(g->klong, F_KMALLOC), 1);
	t = g->now;
	tick(g, 400);
	put_exit(g, c, fn_addr(g->klong, F_KFREE), 1, t, g->now);
	tick(g, 300);
	/* rettime one before calltime: the duration is ~0, no mark */
	put_entry(g, c, fn_addr(g->klong, F_KFREE), 2);
	tick(g, 40);
	put_exit(g, c, fn_addr(g->klong, F_KFREE), 2, g->now, g->now - 1);
	tick(g, 300);
	/* rettime before calltime (a negative duration) */
	put_entry(g, c, fn_addr(g->klong, F_KFREE), 2);
	tick(g, 40);
	put_exit(g, c, fn_addr(g->klong, F_KFREE), 2, g->now, g->now - 1000);
	tick(g, 300);
	/* a function without a symbol, nested and leaf */
	put_entry(g, c, unknown_addr(g->klong), 3);
	tick(g, 40);
	put_entry(g, c, unknown_addr(g->klong) + 8, 4);
	tick(g, 40);
	put_exit(g, c, unknown_addr(g->klong) + 8, 4, g->now - 40, g->now);
	tick(g, 40);
	put_exit(g, c, unknown_addr(g->klong), 3, g->now - 120, g->now);
	tick(g, 300);
	/* past the last symbol */
	leaf(g, c, F_N, 700);
	/* deep and impossible depths: 40 levels of indent; -1 (no indent) */
	put_entry(g, c, fn_addr(g->klong, F_MUTEX_LOCK), 40);
	tick(g, 50);
	put_exit(g, c, fn_addr(g->klong, F_MUTEX_LOCK), 40, g->now - 50, g->now);
	tick(g, 50);
	put_entry(g, c, fn_addr(g->klong, F_MUTEX_LOCK), 0xffffffffu);
	tick(g, 50);
	put_entry(g, c, fn_addr(g->klong, F_KFREE), 0xffffffffu);
	tick(g, 50);
	put_exit(g, c, fn_addr(g->klong, F_MUTEX_LOCK), 0xffffffffu, g->now - 100, g->now);
	tick(g, 50);
	/* a task with a pid past 2^31 (trace-cmd compares it as an int) */
	cp->pid = -5;
	leaf(g, c, F_KMALLOC, 800);
	cp->pid = 1234;
}

/*
 * Two CPUs: what the look-ahead sees is the next record of any CPU.
 * CPU 0 runs `bash`, CPU 1 `fio`.
 */
static void two_cpus(struct gen *g)
{
	g->cpu[1].pid = 777;
	/* a leaf on CPU 1 while CPU 0 is quiet */
	leaf(g, 1, F_KMALLOC, 500);
	/* an entry on CPU 0, a record of CPU 1 before its exit: not a leaf */
	enter(g, 0, F_KFREE);
	leaf(g, 1, F_MUTEX_LOCK, 200);
	tick(g, 100);
	leave(g, 0);
	/* equal times: the entry on CPU 1, then CPU 0 and CPU 1 records at the same time */
	put_entry(g, 1, fn_addr(g->klong, F_KFREE), 0);
	tick(g, 190);
	put_entry(g, 0, fn_addr(g->klong, F_TICK), 0);
	put_exit(g, 1, fn_addr(g->klong, F_KFREE), 0, g->now - 190, g->now);
	tick(g, 300);
	put_exit(g, 0, fn_addr(g->klong, F_TICK), 0, g->now - 300, g->now);
	tick(g, 300);
	/* a leaf across a page boundary of CPU 0 */
	enter(g, 0, F_PICK_NEXT);
	page_break(g, 0, 0);
	leave(g, 0);
	/* a leaf whose exit starts a page after lost events (the drop line goes with it) */
	enter(g, 1, F_PICK_NEXT);
	page_break(g, 1, 3);
	leave(g, 1);
	/* a nested call whose exit starts a page after lost events */
	enter(g, 0, F_SYS_READ);
	leaf(g, 0, F_FDGET, 300);
	page_break(g, 0, 5);
	leave(g, 0);
}

/*
 * A task that moves: its entry on CPU `from`, its exit next on CPU `to`,
 * the last record of `to` (trace-cmd 3.1.6's order after taking a record
 * of another CPU depends on freed memory when that CPU goes on: see
 * file_migrate()).
 */
static void migrate_last(struct gen *g, int from, int to)
{
	int pf = g->cpu[from].pid, pt = g->cpu[to].pid;
	g->cpu[from].pid = g->cpu[to].pid = 2345;
	put_entry(g, from, fn_addr(g->klong, F_SCHEDULE), 0);
	tick(g, 5000);
	put_exit(g, to, fn_addr(g->klong, F_SCHEDULE), 0, g->now - 5000, g->now);
	tick(g, 300);
	g->cpu[from].pid = pf;
	g->cpu[to].pid = pt;
}

/* The end of the recording: CPU 0 stops in a call, CPU 1 (with `both`) right after an entry. */
static void cut_off(struct gen *g, bool both)
{
	enter(g, 0, F_SYS_READ);
	enter(g, 0, F_VFS_READ);
	if (both) {
		leaf(g, 1, F_KMALLOC, 400);
		enter(g, 1, F_KFREE);
	}
	leaf(g, 0, F_RW_VERIFY, 600);
	enter(g, 0, F_COPY_USER);
}

/* An exit shorter than its format as the last record of a page (its fields read past it). */
static void short_exit(struct gen *g, int c)
{
	struct cpu *cp = &g->cpu[c];
	put_entry(g, c, fn_addr(g->klong, F_KMALLOC), 0);
	tick(g, 777);
	put_exit_cut(g, c, fn_addr(g->klong, F_KMALLOC), 0, g->now - 777, g->now, 8);
	tick(g, 100);
	page_break(g, c, 0);
	cp->depth = 0;
}

static void file_le8(const char *dir)
{
	struct gen g;
	gen_init(&g, false, 8, 2);
	marks(&g, 0);
	oddities(&g, 0);
	two_cpus(&g);
	short_exit(&g, 0);
	cut_off(&g, true);
	save(&g, dir, "fg-le8-v7", 7, TB_NONE);
}

static void file_be8(const char *dir)
{
	struct gen g;
	gen_init(&g, true, 8, 2);
	two_cpus(&g);
	marks(&g, 1);
	migrate_last(&g, 0, 1);
	cut_off(&g, false);
	save(&g, dir, "fg-be8-v7-zstd", 7, TB_ZSTD);
}

static void file_le4(const char *dir)
{
	struct gen g;
	gen_init(&g, false, 4, 2);
	marks(&g, 0);
	oddities(&g, 0);
	two_cpus(&g);
	short_exit(&g, 1);
	cut_off(&g, true);
	save(&g, dir, "fg-le4-v6", 6, TB_NONE);
}

/*
 * An exit taken from another CPU that goes on: trace-cmd 3.1.6's iterator
 * keeps the taken (freed) record as that CPU's next one, so what it prints
 * next depends on freed memory (with these times, below 22 s: that CPU
 * waits until the others are done).  tracemux keeps the time order; the
 * test compares up to the taken record.
 */
static void file_migrate(const char *dir)
{
	struct gen g;
	gen_init(&g, false, 8, 2);
	g.cpu[1].pid = 777;
	leaf(&g, 0, F_KFREE, 500);
	leaf(&g, 1, F_KMALLOC, 500);
	migrate_last(&g, 0, 1);
	for (int i = 0; i < 3; i++) {
		leaf(&g, 1, F_KMALLOC, 500);
		leaf(&g, 0, F_KFREE, 500);
	}
	save(&g, dir, "fg-migrate", 7, TB_ZSTD);
}

/*
 * Two files read together (report -i A -i B), their calls interleaved: the
 * look-ahead of an entry reads its own file only (the next record of the
 * other file, in between, does not stop a leaf).
 */
static void files_pair(const char *dir)
{
	struct gen a, b;
	gen_init(&a, false, 8, 1);
	gen_init(&b, false, 8, 1);
	b.cpu[0].pid = 777;
	for (int i = 0; i < 6; i++) {
		b.now = a.now + 35;
		leaf(&a, 0, F_KMALLOC, 100 + (uint64_t)i * 1000);
		leaf(&b, 0, F_KMALLOC, 100 + (uint64_t)i * 1000);
		enter(&a, 0, F_SYS_READ);
		b.now = a.now + 1;
		enter(&b, 0, F_SYS_READ);
		leaf(&a, 0, F_FDGET, 200);
		leave(&a, 0);
		b.now = a.now + 20;
		leave(&b, 0);
		a.now = b.now + 500;
	}
	save(&a, dir, "fg-pair-a", 7, TB_ZSTD);
	save(&b, dir, "fg-pair-b", 7, TB_ZSTD);
}

/*
 * Formats trace-cmd's handlers do not expect: no funcgraph_exit format
 * (the entry handler gives up, the print fmt follows), and fields under
 * other names (libtraceevent's "<CANT FIND FIELD ...>" in the line).
 */
static void file_formats(const char *dir)
{
	static const char entry_nodepth[] =
		"name: funcgraph_entry\nID: 11\nformat:\n" COMMON_FIELDS
		"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int level;\toffset:16;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->level\n";
	static const char exit_nocalltime[] =
		"name: funcgraph_exit\nID: 10\nformat:\n" COMMON_FIELDS
		"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long long starttime;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"<-- %ps (%u) end: %llx\", (void *)REC->func, REC->depth, REC->rettime\n";
	struct gen g;

	gen_init(&g, false, 8, 1);
	g.fmt_exit = "";
	enter(&g, 0, F_SYS_READ);
	irq_entry(&g, 0, 9, "acpi");
	enter(&g, 0, F_KMALLOC);
	save(&g, dir, "fg-noexit", 7, TB_ZSTD);

	gen_init(&g, false, 8, 1);
	g.fmt_entry = entry_nodepth;
	g.fmt_exit = exit_nocalltime;
	put_exit(&g, 0, fn_addr(8, F_SCHEDULE), 0, g.now - 5000, g.now);
	tick(&g, 100);
	enter(&g, 0, F_SYS_READ);
	leaf(&g, 0, F_FDGET, 300);
	irq_entry(&g, 0, 9, "acpi");
	leave(&g, 0);
	save(&g, dir, "fg-badfields", 7, TB_ZSTD);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	file_le8(dir);
	file_be8(dir);
	file_le4(dir);
	file_migrate(dir);
	files_pair(dir);
	file_formats(dir);
	return 0;
}
