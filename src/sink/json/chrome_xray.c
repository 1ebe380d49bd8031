/*
 * LLVM XRay traces in the Chrome output, as `llvm-xray convert
 * --output-format=trace_event` writes them (llvm-xray 14,
 * tools/llvm-xray/xray-converter.cpp), so that both parse to the same JSON
 * events (tests/golden/test_xray_chrome.py):
 *
 *   {"name":"leaf","ph":"B","tid":"15518","pid":"15516","ts":"1795341358850357.7500","sf":"2"}
 *
 * - one call stack per thread id: a function entry is a "B" event; an exit
 *   pops the stack up to the function that exits, one "E" event per popped
 *   frame (all of them when the function is not on the stack), and is
 *   dropped when the stack is empty; custom and typed events and the
 *   reader's wall-time markers are not written (llvm-xray does not);
 * - name: the record's `function` field (the id, or the symbol with
 *   --symbolize); tid, pid, ts and sf are JSON strings as llvm-xray writes
 *   them; ts = double(1000000) / cycle_frequency * double(TSC) printed with
 *   four decimals ("%.4f"); for file versions below 3, three decimals and
 *   "pid":"1" whatever the record says, as llvm-xray 14 writes;
 * - sf: a stack-frame id per distinct call path (function ids from the
 *   outermost call), numbered in order of first use, shared by the threads
 *   (llvm-xray's sibling links between the threads' stack tries amount to
 *   exactly that); the top-level "stackFrames" object maps each id to
 *   {"name", "parent"}.
 *
 * On top of llvm-xray's events, each (pid, tid) gets "process_name" and
 * "thread_name" metadata ("ph":"M") events before its first event.
 *
 * Speed: per event one thread lookup (the last thread is cached), one
 * child lookup (a one-entry cache per frame, a hash map behind it) and
 * copies of text rendered once per frame ({"name":"leaf","ph":") and per
 * thread (","tid":"..","pid":"..","ts":").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/json/chrome_xray.h"
#include "sink/jsonval.h"
#include "common/intmap.h"
#include "model/xray_map.h"
#include "common/errors.h"

#define NO_FRAME UINT32_MAX
/* Longer names are cut (their JSON text must fit the scratch buffer). */
#define MAX_NAME (OUTBUF_SIZE / 8)

/* A call path: its innermost function and the path of its caller. */
struct frame {
	int32_t func;
	uint32_t parent;           /* NO_FRAME for an outermost call */
	uint32_t head, head_len;   /* `{"name":NAME,"ph":"` in the text pool */
	uint32_t tail, tail_len;   /* `","sf":"ID"}` in the text pool */
	int32_t last_func;         /* one-entry cache of the children */
	uint32_t last_child;       /* NO_FRAME: empty */
};

struct thread {
	uint32_t tid, pid;
	uint32_t cursor;           /* innermost open frame, NO_FRAME: empty stack */
	uint8_t ids_len;
	char ids[64];              /* `","tid":"T","pid":"P","ts":"` */
};

struct chrome_xray {
	/* The trace class of the last message, and what it says. */
	const struct tmx_trace_class *tc;
	bool is_xray;
	bool with_pid;             /* file version >= 3 */
	double us_per_cycle;
	bool seen;                 /* an XRay event was read: "stackFrames" follows */
	/* Call paths: (parent + 1) << 32 | func -> frame index (= its sf id). */
	struct imap path;
	struct frame *frames;
	size_t n_frames, cap_frames;
	int32_t root_last_func;    /* one-entry cache of the outermost calls */
	uint32_t root_last_child;
	/* Threads by id, the last one cached. */
	struct imap thread_of;
	struct thread *threads;
	size_t n_threads, cap_threads;
	uint32_t last_thread;
	/* Function id -> offset of its JSON name in the pool (+1; 0: not seen). */
	struct imap name_of;
	/* Processes (pid) and threads (pid << 32 | tid) already named. */
	struct imap named_procs, named_threads;
	char *pool;
	size_t pool_len, pool_cap;
	struct outbuf *scratch;    /* renders a name once */
	/* The integer part of the last timestamp but its last four digits, rendered. */
	uint64_t ts_hi;
	uint8_t ts_hi_len;
	char ts_hi_txt[24];
};

struct chrome_xray *chrome_xray_new(void)
{
	struct chrome_xray *x = calloc(1, sizeof(*x));

	if (x) {
		x->root_last_child = NO_FRAME;
		x->last_thread = NO_FRAME;
	}
	return x;
}

void chrome_xray_free(struct chrome_xray *x)
{
	if (!x)
		return;
	imap_free(&x->path);
	imap_free(&x->thread_of);
	imap_free(&x->name_of);
	imap_free(&x->named_procs);
	imap_free(&x->named_threads);
	free(x->frames);
	free(x->threads);
	free(x->pool);
	free(x->scratch);
	free(x);
}

bool chrome_xray_is_xray(struct chrome_xray *x, const struct tmx_trace_class *tc)
{
	const struct tmx_env_entry *e;

	if (tc == x->tc)
		return x->is_xray;
	x->tc = tc;
	e = tmx_trace_class_env(tc, "tracer_name");
	x->is_xray = e && !e->is_int && !strcmp(e->str_value, "llvm-xray");
	if (x->is_xray) {
		const struct tmx_env_entry *v = tmx_trace_class_env(tc, "xray_version");
		const struct tmx_env_entry *f = tmx_trace_class_env(tc, "cycle_frequency");
		x->with_pid = v && v->is_int && v->int_value >= 3;
		/* llvm-xray: double(1000000) / CycleFreq (0 gives inf, as there). */
		x->us_per_cycle = 1000000.0 / (double)(f && f->is_int ? (uint64_t)f->int_value : 0);
	}
	return x->is_xray;
}

/* v < 10000 as exactly four digits. */
static char *put4(char *p, unsigned v)
{
	memcpy(p, tmx_digit_pairs + 2 * (v / 100), 2);
	memcpy(p + 2, tmx_digit_pairs + 2 * (v % 100), 2);
	return p + 4;
}

/*
 * "%.4f" (or "%.3f") of a double into p (room for 48 bytes), as printf
 * rounds it (exact binary value, ties to even); returns the end.  Fast
 * path when the fraction times 10^digits is exact in a double, i.e. when
 * the fraction has at most 39 significant bits after the point (it has for
 * the magnitudes of XRay timestamps); printf otherwise.  The digits of the
 * integer part above the last four change rarely from one event to the
 * next: they are rendered once and copied.
 */
static char *fixed(struct chrome_xray *x, char *p, double v, int digits)
{
	if (v >= 0 && v < 9007199254740992.0) {
		uint64_t i = (uint64_t)v, r;
		double frac = v - (double)i, s = frac * 549755813888.0; /* 2^39 */
		if (s == (double)(uint64_t)s) {
			const double scale = digits == 4 ? 10000.0 : 1000.0;
			double t = frac * scale, rem;   /* exact */
			r = (uint64_t)t;
			rem = t - (double)r;
			if (rem > 0.5 || (rem == 0.5 && (r & 1)))
				r++;
			if (r == (uint64_t)scale) {
				i++;
				r = 0;
			}
			if (i < 10000) {
				p += snprintf(p, 8, "%u", (unsigned)i);
			} else {
				if (i / 10000 != x->ts_hi || !x->ts_hi_len) {
					x->ts_hi = i / 10000;
					x->ts_hi_len = (uint8_t)snprintf(x->ts_hi_txt, sizeof(x->ts_hi_txt),
									 "%llu", (unsigned long long)x->ts_hi);
				}
				memcpy(p, x->ts_hi_txt, x->ts_hi_len);
				p = put4(p + x->ts_hi_len, (unsigned)(i % 10000));
			}
			*p++ = '.';
			if (digits == 4)
				return put4(p, (unsigned)r);
			*p++ = (char)('0' + r / 100);
			memcpy(p, tmx_digit_pairs + 2 * (r % 100), 2);
			return p + 2;
		}
	}
	if (isnan(v))   /* llvm::write_double's spellings */
		return p + snprintf(p, 48, "nan");
	if (isinf(v))
		return p + snprintf(p, 48, "%s", signbit(v) ? "-INF" : "INF");
	/* printf's %.4f of a finite double under 2^64 fits; larger ones are cut, never overrun. */
	{
		int n = snprintf(p, 48, digits == 4 ? "%.4f" : "%.3f", v);
		return p + (n < 48 ? n : 47);
	}
}

/* Appends to the text pool; returns the offset or UINT32_MAX when out of memory. */
static uint32_t pool_add(struct chrome_xray *x, const char *s, size_t n)
{
	size_t off = x->pool_len;

	if (x->pool_len + n > UINT32_MAX - 1 ||
	    !tmx_grow_array((void **)&x->pool, &x->pool_cap, x->pool_len + n, 1, 64))
		return UINT32_MAX;
	memcpy(x->pool + off, s, n);
	x->pool_len += n;
	return (uint32_t)off;
}

/* The name of a function as a JSON string in the pool: offset and length. */
static bool func_name(struct chrome_xray *x, int32_t func, const struct tmx_value *v,
		      uint32_t *off, uint32_t *len)
{
	bool added;
	uint32_t *slot = imap_get(&x->name_of, (uint32_t)func, 0, &added);
	uint32_t start;

	if (!slot)
		return false;
	if (*slot) {
		*off = *slot - 1;
		*len = (uint32_t)strlen(x->pool + *off);
		return true;
	}
	/* json_string() renders it (valid UTF-8 kept, anything else escaped). */
	if (!x->scratch && !(x->scratch = malloc(sizeof(*x->scratch))))
		return false;
	outbuf_init(x->scratch, -1);
	json_string(x->scratch, v->str.ptr, v->str.len < MAX_NAME ? v->str.len : MAX_NAME);
	start = pool_add(x, x->scratch->data, x->scratch->len);
	if (start == UINT32_MAX || pool_add(x, "", 1) == UINT32_MAX)   /* NUL: its end */
		return false;
	*slot = start + 1;
	*off = start;
	*len = (uint32_t)strlen(x->pool + start);
	return true;
}

/* The frame of `func` called from `parent`, made on first use. */
static bool child_of(struct chrome_xray *x, uint32_t parent, int32_t func,
		     const struct tmx_value *name, uint32_t *frame)
{
	int32_t *cf = parent == NO_FRAME ? &x->root_last_func : &x->frames[parent].last_func;
	uint32_t *cc = parent == NO_FRAME ? &x->root_last_child : &x->frames[parent].last_child;
	uint64_t key = ((uint64_t)parent + 1) << 32 | (uint32_t)func;
	uint32_t *slot, noff, nlen, head;
	char tail[40];
	bool added;

	if (*cc != NO_FRAME && *cf == func) {
		*frame = *cc;
		return true;
	}
	slot = imap_get(&x->path, key, (uint32_t)x->n_frames, &added);
	if (!slot)
		return false;
	if (added) {
		struct frame *f;
		if (!tmx_grow_array((void **)&x->frames, &x->cap_frames, x->n_frames + 1,
				    sizeof(*x->frames), 64) ||
		    !func_name(x, func, name, &noff, &nlen))
			return false;
		/* `{"name":NAME,"ph":"`, NAME copied from the pool itself: room first. */
		if (!tmx_grow_array((void **)&x->pool, &x->pool_cap, x->pool_len + 8 + nlen + 7, 1,
				    64))
			return false;
		head = pool_add(x, "{\"name\":", 8);
		if (head == UINT32_MAX || pool_add(x, x->pool + noff, nlen) == UINT32_MAX ||
		    pool_add(x, ",\"ph\":\"", 7) == UINT32_MAX)
			return false;
		f = &x->frames[x->n_frames];
		f->tail_len = (uint32_t)snprintf(tail, sizeof(tail), "\",\"sf\":\"%zu\"}", x->n_frames);
		if ((f->tail = pool_add(x, tail, f->tail_len)) == UINT32_MAX)
			return false;
		x->n_frames++;
		f->func = func;
		f->parent = parent;
		f->head = head;
		f->head_len = 8 + nlen + 7;
		f->last_child = NO_FRAME;
		f->last_func = 0;
		/* (frames may have moved: the cache pointers are taken again) */
		cf = parent == NO_FRAME ? &x->root_last_func : &x->frames[parent].last_func;
		cc = parent == NO_FRAME ? &x->root_last_child : &x->frames[parent].last_child;
	}
	*cf = func;
	*cc = *slot;
	*frame = *slot;
	return true;
}

static void put_str_u64(struct outbuf *b, const char *key, uint64_t v)
{
	outbuf_puts(b, key);
	outbuf_putc(b, '"');
	outbuf_u64(b, v, 0);
	outbuf_putc(b, '"');
}

static void begin_record(struct outbuf *b, bool *first)
{
	if (*first)
		outbuf_putc(b, '\n');
	else
		outbuf_write(b, ",\n", 2);
	*first = false;
}

/* `","tid":"T","pid":"P","ts":"` of a thread. */
static void render_ids(struct thread *t)
{
	int n = snprintf(t->ids, sizeof(t->ids), "\",\"tid\":\"%u\",\"pid\":\"%u\",\"ts\":\"", t->tid,
			 t->pid);

	t->ids_len = (uint8_t)n;
}

/* "process_name"/"thread_name" before the first event of a pid/tid. */
static bool name_thread(struct chrome_xray *x, struct outbuf *b, bool *first,
			const struct tmx_msg *msg, uint32_t pid, uint32_t tid)
{
	const char *trace = msg->stream->trace->name;
	uint64_t tkey = (uint64_t)pid << 32 | tid;
	bool added;

	/* (The map cannot hold UINT64_MAX: pid = tid = 2^32-1 shares a key.) */
	if (!imap_get(&x->named_threads, tkey == UINT64_MAX ? tkey - 1 : tkey, 0, &added))
		return false;
	if (!added)
		return true;
	if (!imap_get(&x->named_procs, pid, 0, &added))
		return false;
	if (added) {
		begin_record(b, first);
		outbuf_puts(b, "{\"name\":\"process_name\",\"ph\":\"M\"");
		put_str_u64(b, ",\"pid\":", pid);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, trace, strlen(trace));
		outbuf_puts(b, "}}");
	}
	begin_record(b, first);
	outbuf_puts(b, "{\"name\":\"thread_name\",\"ph\":\"M\"");
	put_str_u64(b, ",\"tid\":", tid);
	put_str_u64(b, ",\"pid\":", pid);
	outbuf_puts(b, ",\"args\":{\"name\":");
	json_string(b, msg->stream->name, strlen(msg->stream->name));
	outbuf_puts(b, "}}");
	return true;
}

/* The thread of `tid`, with its ids rendered for `pid` (metadata written when new). */
static struct thread *thread_of(struct chrome_xray *x, struct outbuf *b, bool *first,
				const struct tmx_msg *msg, uint32_t tid, uint32_t pid)
{
	struct thread *t;
	uint32_t *slot;
	bool added;

	if (x->last_thread != NO_FRAME && x->threads[x->last_thread].tid == tid) {
		t = &x->threads[x->last_thread];
	} else {
		if (!tmx_grow_array((void **)&x->threads, &x->cap_threads, x->n_threads + 1,
				    sizeof(*x->threads), 64))
			return NULL;
		slot = imap_get(&x->thread_of, tid, (uint32_t)x->n_threads, &added);
		if (!slot)
			return NULL;
		if (added) {
			t = &x->threads[x->n_threads++];
			t->tid = tid;
			t->pid = pid;
			t->cursor = NO_FRAME;
			render_ids(t);
			if (!name_thread(x, b, first, msg, pid, tid))
				return NULL;
		}
		x->last_thread = *slot;
		t = &x->threads[*slot];
	}
	if (t->pid != pid) {   /* the same thread id in another process: llvm keys by tid */
		t->pid = pid;
		render_ids(t);
		if (!name_thread(x, b, first, msg, pid, tid))
			return NULL;
	}
	return t;
}

/*
 * memcpy of a few dozen bytes in 8-byte moves (the last one overlapping):
 * GCC makes a variable-length memcpy into `rep movsq`, whose start-up cost
 * was 60% of put_record.
 */
static inline char *copy_short(char *dst, const char *src, size_t n)
{
	size_t i = 0;

	if (n < 8) {
		for (; i < n; i++)
			dst[i] = src[i];
		return dst + n;
	}
	for (; i + 8 < n; i += 8)
		memcpy(dst + i, src + i, 8);
	memcpy(dst + n - 8, src + n - 8, 8);
	return dst + n;
}

static void put_record(struct chrome_xray *x, struct outbuf *b, bool *first, char ph,
		       uint32_t frame, const struct thread *t, double ts)
{
	const struct frame *f = &x->frames[frame];
	size_t need = 2 + f->head_len + 1 + t->ids_len + 48 + f->tail_len;
	char *p;

	if (OUTBUF_SIZE - b->len < need) {
		outbuf_flush(b);
		if (OUTBUF_SIZE - b->len < need)
			return;   /* a 256 KiB record cannot happen: names are cut far below */
	}
	/* Straight into the buffer: the room is there. */
	p = b->data + b->len;
	if (*first) {
		*p++ = '\n';
		*first = false;
	} else {
		*p++ = ',';
		*p++ = '\n';
	}
	p = copy_short(p, x->pool + f->head, f->head_len);
	*p++ = ph;
	p = copy_short(p, t->ids, t->ids_len);
	p = fixed(x, p, ts, x->with_pid ? 4 : 3);
	p = copy_short(p, x->pool + f->tail, f->tail_len);
	b->len = (size_t)(p - b->data);
}

int chrome_xray_event(struct chrome_xray *x, struct outbuf *b, bool *first,
		      const struct tmx_msg *msg, struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *ctx = e->scopes[TMX_SCOPE_COMMON_CONTEXT];
	const struct tmx_value *pl = e->scopes[TMX_SCOPE_PAYLOAD];
	uint64_t cls = e->cls->id;
	struct thread *t;
	uint32_t frame;
	int32_t func;
	double ts;

	x->seen = true;
	if (cls > TMX_XRAY_EV_ENTER_ARG || !ctx || !pl)
		return TMX_OK;   /* custom/typed events, wall-time markers: not in llvm-xray's output */
	/* Before version 3 llvm-xray writes "pid":"1" whatever the record says. */
	t = thread_of(x, b, first, msg, (uint32_t)ctx[TMX_XRAY_CTX_TID].u,
		      x->with_pid ? (uint32_t)ctx[TMX_XRAY_CTX_PID].u : 1);
	if (!t)
		goto nomem;
	func = (int32_t)pl[TMX_XRAY_P_FUNC_ID].s;
	ts = x->us_per_cycle * (double)msg->cycles;
	if (cls == TMX_XRAY_EV_ENTER || cls == TMX_XRAY_EV_ENTER_ARG) {
		if (!child_of(x, t->cursor, func, &pl[TMX_XRAY_P_FUNCTION], &frame))
			goto nomem;
		t->cursor = frame;
		put_record(x, b, first, 'B', frame, t, ts);
		return TMX_OK;
	}
	/* An exit: pop up to the exiting function, or everything. */
	while (t->cursor != NO_FRAME) {
		frame = t->cursor;
		put_record(x, b, first, 'E', frame, t, ts);
		t->cursor = x->frames[frame].parent;
		if (x->frames[frame].func == func)
			break;
	}
	return TMX_OK;
nomem:
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory (Chrome output)");
}

void chrome_xray_finish(struct chrome_xray *x, struct outbuf *b)
{
	if (!x->seen)
		return;
	outbuf_puts(b, ",\"stackFrames\":{");
	for (size_t i = 0; i < x->n_frames; i++) {
		const struct frame *f = &x->frames[i];
		outbuf_puts(b, i ? ",\n\"" : "\n\"");
		outbuf_u64(b, i, 0);
		outbuf_puts(b, "\":{\"name\":");
		/* The head is `{"name":NAME,"ph":"`: NAME sits between. */
		outbuf_write(b, x->pool + f->head + 8, f->head_len - 8 - 7);
		if (f->parent != NO_FRAME)
			put_str_u64(b, ",\"parent\":", f->parent);
		outbuf_putc(b, '}');
	}
	outbuf_puts(b, "}");
}
