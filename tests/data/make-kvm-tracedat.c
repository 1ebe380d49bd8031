/*
 * Writes the KVM host and guest trace.dat files of tests/data/kvm/
 * (make-kvm-tracedat.sh runs it, then trace-cmd 3.1.6 for the references).
 *
 * No KVM guest can be traced where these tests run, so the files are built
 * here (v6, uncompressed, which Debian's trace-cmd reads): ring-buffer
 * pages as the kernel writes them (tests/unit/tdat_build.h) with real
 * format files: kvm_entry and kvm_exit of the Linux 6.5 host in
 * ../shared/corpus/tracecmd-samples/external/, kvm_inj_exception of Linux
 * 6.18's tracefs (its `"#" "DE"` strings make libtraceevent 1.7.1 leak a
 * few bytes in tep_parse_event: tests/lsan.supp).
 *
 *   host*.dat   kvm_entry / kvm_exit of host tasks 1000, 1001 (guest A's
 *               vCPUs 0 and 1), 2000 (guest B's vCPU 0) and 3000 (no
 *               guest), TRACEID 0x1111, one GUEST option per guest; the
 *               variants differ in those options only (guests_*()).
 *   guest-a.dat TRACEID 0xaaaa, 2 CPUs, TIME_SHIFT to host 0x1111, kallsyms.
 *   guest-b.dat TRACEID 0xbbbb, 1 CPU, TIME_SHIFT to host 0x1111, other kallsyms.
 *   guest-a-nosyms.dat  guest A without kallsyms.
 *   inj-exception.dat   kvm_inj_exception records (the libtraceevent leak).
 *
 *   cc -Iinclude -Isrc tests/data/make-kvm-tracedat.c -lz -lzstd -o /tmp/mkkvm && /tmp/mkkvm DIR
 */
#include "../unit/tdat_build.h"

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* Linux 6.5 (the external host recording). */
#define ENTRY_ID 2152
static const char kvm_entry[] =
	"name: kvm_entry\nID: 2152\nformat:\n" COMMON_FIELDS "\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u, rip 0x%lx\", REC->vcpu_id, REC->rip\n";
#define EXIT_ID 2143
static const char kvm_exit[] =
	"name: kvm_exit\nID: 2143\nformat:\n" COMMON_FIELDS "\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u reason %s%s%s rip 0x%lx info1 0x%016llx info2 0x%016llx intr_info "
	"0x%08x error_code 0x%08x\", REC->vcpu_id, (REC->isa == 1) ? "
	"__print_symbolic(REC->exit_reason & 0xffff, { 0, \"EXCEPTION_NMI\" }, "
	"{ 1, \"EXTERNAL_INTERRUPT\" }, { 12, \"HLT\" }, { 30, \"IO_INSTRUCTION\" }, "
	"{ 48, \"EPT_VIOLATION\" }, { 49, \"EPT_MISCONFIG\" }, { 52, \"PREEMPTION_TIMER\" }, "
	"{ 56, \"APIC_WRITE\" }) : __print_symbolic(REC->exit_reason, { 0x060, \"interrupt\" }, "
	"{ 0x078, \"hlt\" }), (REC->isa == 1 && REC->exit_reason & ~0xffff) ? \" \" : \"\", "
	"(REC->isa == 1) ? __print_flags(REC->exit_reason & ~0xffff, \" \", "
	"{ 0x80000000, \"FAILED_VMENTRY\" }) : \"\", REC->guest_rip, REC->info1, REC->info2, "
	"REC->intr_info, REC->error_code\n";

/* Linux 6.18 (tracefs), unchanged. */
#define INJ_ID 101
static const char kvm_inj_exception[] =
	"name: kvm_inj_exception\nID: 101\nformat:\n" COMMON_FIELDS "\n"
	"\tfield:u8 exception;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_error;\toffset:9;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:bool reinjected;\toffset:16;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%s%s%s%s%s\", __print_symbolic(REC->exception, { 0, \"#\" \"DE\" }, "
	"{ 1, \"#\" \"DB\" }, { 3, \"#\" \"BP\" }, { 4, \"#\" \"OF\" }, { 5, \"#\" \"BR\" }, "
	"{ 6, \"#\" \"UD\" }, { 7, \"#\" \"NM\" }, { 8, \"#\" \"DF\" }, { 10, \"#\" \"TS\" }, "
	"{ 11, \"#\" \"NP\" }, { 12, \"#\" \"SS\" }, { 13, \"#\" \"GP\" }, { 14, \"#\" \"PF\" }, "
	"{ 16, \"#\" \"MF\" }, { 17, \"#\" \"AC\" }, { 18, \"#\" \"MC\" }, { 19, \"#\" \"XM\" }, "
	"{ 20, \"#\" \"VE\" }, { 21, \"#\" \"CP\" }, { 28, \"#\" \"HV\" }, { 29, \"#\" \"VC\" }, "
	"{ 30, \"#\" \"SX\" }), !REC->has_error ? \"\" : \" (\", !REC->has_error ? \"\" : "
	"__print_symbolic(REC->error_code, { }), !REC->has_error ? \"\" : \")\", "
	"REC->reinjected ? \" [reinjected]\" : \"\"\n";

/* The guests' own events: a plain one (tdat_build.h's test:ev). */
#define EV_ID 5

/* Guest kernel symbols (nm order does not matter: libtraceevent sorts them). */
static const char syms_a[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff810db910 T native_apic_mem_write\n"
	"ffffffff810db930 T native_apic_mem_read\n"
	"ffffffff81632f40 T iowrite16\n"
	"ffffffff81632f60 t iowrite32\n"
	"ffffffff823f2e20 T default_idle\n"
	"ffffffff823f2e40 T default_idle_call\n"
	"ffffffffc0010000 t virtnet_poll\t[virtio_net]\n"
	"ffffffffc0010400 t virtnet_open\t[virtio_net]\n";
static const char syms_b[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81200000 T b_only_func\n"
	"ffffffff823f2e20 T b_idle\n";

/* One CPU's records, in time order: its page is written when the file is. */
struct cpu_recs {
	struct bb page;
	struct pagebuild pb;
	uint64_t last;
	bool open;
};

struct file {
	const char *sys_formats[3];   /* the "kvm" or "test" system's formats */
	const char *sys;
	int n_cpus;
	struct cpu_recs cpu[2];
	const char *kallsyms, *cmdlines;
	struct bb opts;               /* raw options before DONE */
};

static void put_record(struct file *fl, int c, uint64_t ts, const struct bb *rec)
{
	struct cpu_recs *cr = &fl->cpu[c];
	if (!cr->open) {
		page_begin(&cr->pb, false, 8, 4096, ts);
		cr->last = ts;
		cr->open = true;
	}
	page_event(&cr->pb, (uint32_t)(ts - cr->last), rec->p, (uint32_t)rec->n);
	cr->last = ts;
}

static void common(struct bb *r, uint16_t type, int32_t pid)
{
	bb_u16(r, type);
	bb_put(r, "\1\0", 2);   /* flags: irqs off; preempt count 0 */
	bb_u32(r, (uint32_t)pid);
}

static void entry(struct file *fl, int c, uint64_t ts, int32_t pid, uint32_t vcpu, uint64_t rip)
{
	struct bb r = { 0 };
	common(&r, ENTRY_ID, pid);
	bb_u32(&r, vcpu);
	bb_u32(&r, 0);
	bb_u64(&r, rip);
	put_record(fl, c, ts, &r);
	free(r.p);
}

static void exit_ev(struct file *fl, int c, uint64_t ts, int32_t pid, uint32_t vcpu, uint32_t reason,
		    uint64_t rip)
{
	struct bb r = { 0 };
	common(&r, EXIT_ID, pid);
	bb_u32(&r, reason);
	bb_u32(&r, 0);
	bb_u64(&r, rip);
	bb_u32(&r, 1);          /* isa: VMX */
	bb_u32(&r, 0);
	bb_u64(&r, reason == 56 ? 0x380 : 0);
	bb_u64(&r, 0);
	bb_u32(&r, 0);
	bb_u32(&r, 0);
	bb_u32(&r, vcpu);
	put_record(fl, c, ts, &r);
	free(r.p);
}

static void test_ev(struct file *fl, int c, uint64_t ts, int32_t value)
{
	uint8_t rec[20];
	struct bb r = { 0 };
	tb_record(false, value, 1, rec);
	bb_put(&r, rec, sizeof(rec));
	put_record(fl, c, ts, &r);
	free(r.p);
}

static void inj(struct file *fl, int c, uint64_t ts, uint8_t vec, bool has_error, uint32_t code,
		bool reinjected)
{
	struct bb r = { 0 };
	common(&r, INJ_ID, 1000);
	bb_put(&r, &vec, 1);
	bb_put(&r, has_error ? "\1" : "\0", 1);
	bb_u16(&r, 0);
	bb_u32(&r, code);
	bb_put(&r, reinjected ? "\1\0\0\0" : "\0\0\0\0", 4);
	put_record(fl, c, ts, &r);
	free(r.p);
}

static void write_file(const char *dir, const char *name, struct file *fl)
{
	struct bb f = { 0 }, hi = { 0 }, ev = { 0 };
	const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	size_t at, n_formats = 0;
	char path[4096];
	FILE *out;

	tb_metadata(&hi, &ev, false, 8, NULL);   /* only its header page and event texts */
	bb_put(&f, magic, 10);
	bb_str(&f, "6");
	bb_put(&f, "\0\x08", 2);
	bb_u32(&f, 4096);
	bb_put(&f, hi.p, hi.n);
	bb_u32(&f, 0);                                  /* ftrace formats */
	while (n_formats < 3 && fl->sys_formats[n_formats])
		n_formats++;
	bb_u32(&f, 1);
	bb_str(&f, fl->sys);
	bb_u32(&f, n_formats);
	for (size_t i = 0; i < n_formats; i++) {
		bb_u64(&f, strlen(fl->sys_formats[i]));
		bb_put(&f, fl->sys_formats[i], strlen(fl->sys_formats[i]));
	}
	bb_u32(&f, fl->kallsyms ? strlen(fl->kallsyms) : 0);
	if (fl->kallsyms)
		bb_put(&f, fl->kallsyms, strlen(fl->kallsyms));
	bb_u32(&f, 0);                                  /* printk formats */
	bb_u64(&f, fl->cmdlines ? strlen(fl->cmdlines) : 0);
	if (fl->cmdlines)
		bb_put(&f, fl->cmdlines, strlen(fl->cmdlines));
	bb_u32(&f, (uint64_t)fl->n_cpus);
	bb_put(&f, "options  ", 10);
	tb_opt(&f, 5, "Linux kvmtest 6.5.0 x86_64", 27);   /* UNAME */
	bb_put(&f, fl->opts.p, fl->opts.n);
	bb_u16(&f, 0);
	bb_put(&f, "flyrecord", 10);
	at = f.n;
	bb_zero(&f, 16 * (size_t)fl->n_cpus);
	bb_zero(&f, (f.n + 4095) / 4096 * 4096 - f.n);
	for (int c = 0; c < fl->n_cpus; c++) {
		struct cpu_recs *cr = &fl->cpu[c];
		size_t size = 0;
		if (cr->open) {
			page_end(&cr->pb, false, false, 0);
			size = cr->pb.b.n;
		}
		bb_set_num(&f, at + (size_t)c * 16, f.n, 8);
		bb_set_num(&f, at + (size_t)c * 16 + 8, size, 8);
		if (size)
			bb_put(&f, cr->pb.b.p, size);
		free(cr->pb.b.p);
	}
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	if (!(out = fopen(path, "wb")) || fwrite(f.p, 1, f.n, out) != f.n || fclose(out)) {
		perror(path);
		exit(1);
	}
	free(f.p);
	free(hi.p);
	free(ev.p);
	free(fl->opts.p);
}

static void opt_u64(struct bb *o, uint16_t id, uint64_t v)
{
	struct bb t = { 0 };
	bb_u64(&t, v);
	tb_opt(o, id, t.p, (uint32_t)t.n);
	free(t.p);
}

/* A GUEST option: name, trace id, vCPU count, then (vCPU, host pid) pairs; n_pairs may lie. */
static void opt_guest(struct bb *o, const char *name, uint64_t id, uint32_t count,
		      const uint32_t (*pairs)[2], size_t n_pairs)
{
	struct bb t = { 0 };
	bb_str(&t, name);
	bb_u64(&t, id);
	bb_u32(&t, count);
	for (size_t i = 0; i < n_pairs; i++) {
		bb_u32(&t, pairs[i][0]);
		bb_u32(&t, pairs[i][1]);
	}
	tb_opt(o, 13, t.p, (uint32_t)t.n);
	free(t.p);
}

/* TIME_SHIFT to the host: one sample per CPU (a fixed offset), no interpolation. */
static void opt_time_shift(struct bb *o, uint64_t peer, int cpus, int64_t offset)
{
	struct bb t = { 0 };
	bb_u64(&t, peer);
	bb_u32(&t, 0);
	bb_u32(&t, (uint64_t)cpus);
	for (int c = 0; c < cpus; c++) {
		bb_u32(&t, 1);
		bb_u64(&t, 0);                   /* time */
		bb_u64(&t, (uint64_t)offset);    /* offset */
		bb_u64(&t, 1);                   /* scaling */
	}
	tb_opt(o, 12, t.p, (uint32_t)t.n);
	free(t.p);
}

static const uint32_t pairs_a[2][2] = { { 0, 1000 }, { 1, 1001 } };
static const uint32_t pairs_b[1][2] = { { 0, 2000 } };

/* The host's events: the same in every host variant. */
static void host_events(struct file *fl)
{
	fl->sys = "kvm";
	fl->sys_formats[0] = kvm_entry;
	fl->sys_formats[1] = kvm_exit;
	fl->n_cpus = 2;
	fl->cmdlines = "1000 qemu-system-x86\n1001 qemu-system-x86\n2000 CPU 0/KVM\n"
		       "3000 qemu-other\n";
	/* Guest A, vCPU 0 (task 1000) on CPU 0: inside, at the start of, past and before symbols. */
	exit_ev(fl, 0, 1000000, 1000, 0, 12, 0xffffffff823f2e2f);   /* default_idle+0xf */
	entry(fl, 0, 1000400, 1000, 0, 0xffffffff823f2e30);
	exit_ev(fl, 0, 1001000, 1000, 0, 56, 0xffffffff810db918);   /* native_apic_mem_write+0x8 */
	entry(fl, 0, 1001100, 1000, 0, 0xffffffff810db910);         /* at its start */
	exit_ev(fl, 0, 1002000, 1000, 0, 49, 0xffffffff81632f49);   /* iowrite16+0x9 */
	entry(fl, 0, 1002050, 1000, 0, 0xffffffffc0010004);         /* a module's function */
	exit_ev(fl, 0, 1003000, 1000, 0, 1, 0xffffffffd0000000);    /* past the last symbol */
	entry(fl, 0, 1003010, 1000, 0, 0xffffffff80000000);         /* before the first */
	/* Guest A, vCPU 1 (task 1001) and guest B's vCPU (task 2000) on CPU 1; task 3000: no guest. */
	exit_ev(fl, 1, 1000500, 1001, 1, 52, 0xffffffff81632f60);
	entry(fl, 1, 1000600, 1001, 1, 0xffffffff81632f62);
	exit_ev(fl, 1, 1001500, 2000, 0, 12, 0xffffffff823f2e25);   /* b_idle+0x5 in guest B */
	entry(fl, 1, 1001600, 2000, 0, 0xffffffff81200010);
	exit_ev(fl, 1, 1002500, 3000, 0, 30, 0xffffffff823f2e2f);
	entry(fl, 1, 1002600, 3000, 0, 0xffffffff823f2e30);
	exit_ev(fl, 1, 1003500, 0, 0, 12, 0xffffffff823f2e2f);      /* pid 0: unlisted vCPUs map to it */
}

static void host(const char *dir, const char *name, uint64_t id, void (*guests)(struct bb *))
{
	struct file fl = { 0 };
	host_events(&fl);
	opt_u64(&fl.opts, 11, id);
	guests(&fl.opts);
	write_file(dir, name, &fl);
}

static void guests_ok(struct bb *o)
{
	opt_guest(o, "guest-a", 0xaaaa, 2, pairs_a, 2);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
}

/* Guest B also claims task 1000 (trace-cmd's sort and binary search decide). */
static void guests_dup_pid(struct bb *o)
{
	static const uint32_t pb[2][2] = { { 0, 2000 }, { 1, 1000 } };
	opt_guest(o, "guest-a", 0xaaaa, 2, pairs_a, 2);
	opt_guest(o, "guest-b", 0xbbbb, 2, pb, 2);
}

/* Guest A's option lists vCPU 5 of 2: trace-cmd drops it. */
static void guests_bad_vcpu(struct bb *o)
{
	static const uint32_t pa[2][2] = { { 0, 1000 }, { 5, 1001 } };
	opt_guest(o, "guest-a", 0xaaaa, 2, pa, 2);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
}

/* Guest A's option says 2 vCPUs but holds one pair: dropped. */
static void guests_short(struct bb *o)
{
	opt_guest(o, "guest-a", 0xaaaa, 2, pairs_a, 1);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
}

/* 3 vCPUs for guest A, whose file has 2 CPUs: trace-cmd maps them all. */
static void guests_mismatch(struct bb *o)
{
	static const uint32_t pa[3][2] = { { 0, 1000 }, { 1, 1001 }, { 2, 1002 } };
	opt_guest(o, "guest-a", 0xaaaa, 3, pa, 3);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
}

/*
 * Two options for guest A: the last counts.  In it vCPU 0 is listed twice
 * (the last pair counts) and vCPU 2 not at all (host pid 0).
 */
static void guests_twice(struct bb *o)
{
	static const uint32_t old[2][2] = { { 0, 2000 }, { 1, 3000 } };
	static const uint32_t now[3][2] = { { 0, 3000 }, { 1, 1001 }, { 0, 1000 } };
	opt_guest(o, "guest-a", 0xaaaa, 2, old, 2);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
	opt_guest(o, "guest-a", 0xaaaa, 3, now, 3);
}

/* Guest A's option is only its name, without the NUL: trace-cmd reads past it. */
static void guests_no_nul(struct bb *o)
{
	tb_opt(o, 13, "guest-a", 7);
	opt_guest(o, "guest-b", 0xbbbb, 1, pairs_b, 1);
}

/* Another session's host: its guest is trace 0xcccc. */
static void guests_other(struct bb *o)
{
	opt_guest(o, "", 0xcccc, 2, pairs_a, 2);
}

static void guest(const char *dir, const char *name, uint64_t id, int cpus, const char *syms,
		  int64_t shift)
{
	struct file fl = { .sys = "test", .sys_formats = { TB_FORMAT }, .n_cpus = cpus,
			   .kallsyms = syms };
	opt_u64(&fl.opts, 11, id);
	opt_time_shift(&fl.opts, 0x1111, cpus, shift);
	/* Guest times (before TIME_SHIFT) between the host's records. */
	for (int c = 0; c < cpus; c++)
		for (int i = 0; i < 3; i++)
			test_ev(&fl, c, 400250 + (uint64_t)c * 500 + (uint64_t)i * 1000, c * 10 + i);
	write_file(dir, name, &fl);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct file inj_file = { .sys = "kvm", .sys_formats = { kvm_inj_exception }, .n_cpus = 1 };

	host(dir, "host", 0x1111, guests_ok);
	host(dir, "host-dup-pid", 0x1111, guests_dup_pid);
	host(dir, "host-bad-vcpu", 0x1111, guests_bad_vcpu);
	host(dir, "host-short", 0x1111, guests_short);
	host(dir, "host-mismatch", 0x1111, guests_mismatch);
	host(dir, "host-twice", 0x1111, guests_twice);
	host(dir, "host-nonul", 0x1111, guests_no_nul);
	host(dir, "host-other", 0x9999, guests_other);
	guest(dir, "guest-a", 0xaaaa, 2, syms_a, 600000);
	guest(dir, "guest-b", 0xbbbb, 1, syms_b, 600100);
	guest(dir, "guest-a-nosyms", 0xaaaa, 2, NULL, 600000);

	opt_u64(&inj_file.opts, 11, 0x2222);
	inj(&inj_file, 0, 1000000, 14, true, 2, false);
	inj(&inj_file, 0, 1000100, 13, false, 0, true);
	inj(&inj_file, 0, 1000200, 2, false, 0, false);
	write_file(dir, "inj-exception", &inj_file);
	return 0;
}
