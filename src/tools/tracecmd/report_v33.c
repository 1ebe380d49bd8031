/*
 * --report-version=3.3: what trace-cmd 3.3.x / 3.4 (with libtraceevent 1.8)
 * prints differently from trace-cmd 3.1.6 (with libtraceevent 1.7, the
 * library linked here), checked against the stored 3.3 references of
 * ../shared/corpus/tracecmd-3.4/:
 *
 *   - a flags column after "[CPU]" in the default report: a space and the
 *     characters that -l prints there (libtraceevent's TEP_PRINT_LATENCY:
 *     irqs-off, need-resched, hard/soft irq, preempt count..., "d.h1.");
 *     with -R, "-0x%x" of the common_flags byte glued to "[CPU]".  With -l
 *     the columns are -l's, as in 3.1 (there the flags were always printed).
 *   - sched_switch's prev_state letters: libtraceevent 1.8's sched_switch
 *     plugin takes them from the __print_flags() table of prev_state in the
 *     event's own print fmt (bit i of the state is the letter of the table
 *     entry whose value has its lowest set bit at i, up to the first bit
 *     without one), falling back to "SDTtXZPI"; 1.7's plugin has the fixed
 *     table "SDTtZXxW".  A state with none of those bits prints "R".
 *
 * The flags column comes from libtraceevent itself, remembered per file by
 * the two bytes it depends on (common_flags, common_preempt_count) when the
 * file's events have no common_lock_depth or common_migrate_disable field
 * (libtraceevent prints those too): no printf per record on that path.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "tools/tracecmd/report_impl.h"

/* One file's 3.3 state (tcr_file.v33). */
struct tcr_v33 {
	/* The flags column by (common_flags << 8 | common_preempt_count): length + 1, 0 unknown. */
	char (*lat)[8];
	uint32_t flags_off, pc_off;
	/* sched_switch: prev_state's letters by bit (a NUL ends them). */
	char states[33];
};

/* ---- The flags column ---- */

static bool common_byte(struct tep_event *ev, const char *name, uint32_t *off)
{
	struct tep_format_field *f = tep_find_common_field(ev, name);

	if (!f || f->size != 1 || f->offset < 0)
		return false;
	*off = (uint32_t)f->offset;
	return true;
}

/*
 * libtraceevent reads the common fields at the offsets of its first event
 * (get_common_info()); the cache is used when the latency text can depend
 * on nothing but the flags and preempt-count bytes.
 */
static void setup_lat_cache(struct tcr_file *tf, struct tcr_v33 *v)
{
	struct tep_event **evs = tep_list_events(tf->tep, TEP_EVENT_SORT_ID);
	struct tep_event *first = tep_get_event(tf->tep, 0);

	if (!first || !common_byte(first, "common_flags", &v->flags_off) ||
	    !common_byte(first, "common_preempt_count", &v->pc_off))
		return;
	for (size_t i = 0; evs && evs[i]; i++)
		if (tep_find_common_field(evs[i], "common_lock_depth") ||
		    tep_find_common_field(evs[i], "common_migrate_disable"))
			return;
	/* more: an entry's text is copied OUTBUF_PAD bytes at a time (outbuf_write_within) */
	v->lat = calloc(65536 + OUTBUF_PAD / sizeof(*v->lat), sizeof(*v->lat));
}

void tcr_v33_put_flags(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec)
{
	struct outbuf *b = r->out;
	struct tcr_v33 *v = tf->v33;
	struct tep_record tr;
	char *slot = NULL;
	unsigned len;

	to_tep_record(rec, &tr);
	if (r->o->raw) {   /* "-0x%x" of tep_data_flags() */
		outbuf_write(b, "-0x", 3);
		put_hex(b, (uint32_t)tep_data_flags(tf->tep, &tr));
		return;
	}
	outbuf_putc(b, ' ');
	if (v && v->lat && rec->size > v->flags_off && rec->size > v->pc_off) {
		slot = v->lat[(unsigned)rec->data[v->flags_off] << 8 | rec->data[v->pc_off]];
		if (slot[0]) {
			outbuf_write_within(b, slot + 1, (size_t)slot[0] - 1, OUTBUF_PAD);
			return;
		}
	}
	trace_seq_reset(&r->seq);
	tep_print_event(tf->tep, &r->seq, &tr, "%s", TEP_PRINT_LATENCY);
	len = r->seq.len;
	outbuf_write(b, r->seq.buffer, len);
	if (slot && len < 7) {
		memcpy(slot + 1, r->seq.buffer, len);
		slot[0] = (char)(len + 1);
	}
}

/* ---- sched_switch (libtraceevent 1.8's plugin_sched_switch.c) ---- */

/* The print arg of `field` in arg, or NULL (find_arg_field(): through operators). */
static struct tep_print_arg_field *arg_field(struct tep_format_field *field, struct tep_print_arg *arg,
					     int depth)
{
	struct tep_print_arg_field *f;

	if (!arg || depth > 64)
		return NULL;
	if (arg->type == TEP_PRINT_FIELD)
		return &arg->field;
	if (arg->type == TEP_PRINT_OP) {
		f = arg_field(field, arg->op.left, depth + 1);
		if (f && f->field == field)
			return f;
		f = arg_field(field, arg->op.right, depth + 1);
		if (f && f->field == field)
			return f;
	}
	return NULL;
}

/* The __print_flags() table of `field` in arg (search_op()). */
static struct tep_print_flag_sym *flag_table(struct tep_format_field *field, struct tep_print_arg *arg,
					     int depth)
{
	struct tep_print_flag_sym *sym;

	if (!arg || depth > 64)
		return NULL;
	if (arg->type == TEP_PRINT_OP) {
		if ((sym = flag_table(field, arg->op.left, depth + 1)))
			return sym;
		return flag_table(field, arg->op.right, depth + 1);
	}
	if (arg->type == TEP_PRINT_FLAGS && arg_field(field, arg->flags.field, 0))
		return arg->flags.flags;
	return NULL;
}

/*
 * The letters by bit (get_states(), convert_sym()).  libtraceevent 1.8 loops
 * forever on a table value of 0; such an entry is left out here.
 */
static void states_of(struct tep_event *ev, struct tep_format_field *field, char states[33])
{
	struct tep_print_flag_sym *sym = NULL;

	memset(states, 0, 33);
	for (struct tep_print_arg *arg = ev->print_fmt.args; arg && !sym; arg = arg->next)
		sym = flag_table(field, arg, 0);
	if (!sym) {
		strcpy(states, "SDTtXZPI");
		return;
	}
	for (; sym; sym = sym->next) {
		unsigned long bits = sym->value ? strtoul(sym->value, NULL, 0) : 0;
		int i = 0;

		if (!bits || !sym->str)
			continue;
		while (!(bits & 1)) {
			bits >>= 1;
			i++;
		}
		if (i < 32)
			states[i] = sym->str[0];
	}
}

/* write_and_save_comm(): the comm printed, and libtraceevent told of it. */
static void put_comm_of(struct trace_seq *s, struct tep_format_field *field,
			struct tep_record *record, int pid)
{
	unsigned len = s->len;

	trace_seq_printf(s, "%.*s", field->size, (char *)record->data + field->offset);
	trace_seq_terminate(s);
	tep_register_comm(field->event->tep, s->buffer + len, pid);
}

static void put_state(struct trace_seq *s, const char *states, unsigned long long val)
{
	bool found = false;

	for (size_t i = 0; states[i]; i++) {
		if (!(val & (1ULL << i)))
			continue;
		if (found)
			trace_seq_putc(s, '|');
		found = true;
		trace_seq_putc(s, states[i]);
	}
	if (!found)
		trace_seq_putc(s, 'R');
}

static int sched_switch_33(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
			   void *context)
{
	const struct tcr_v33 *v = context;
	struct tep_format_field *field;
	unsigned long long val;

	if (tep_get_field_val(s, event, "prev_pid", record, &val, 1))
		return trace_seq_putc(s, '!');
	if ((field = tep_find_any_field(event, "prev_comm"))) {
		put_comm_of(s, field, record, (int)val);
		trace_seq_putc(s, ':');
	}
	trace_seq_printf(s, "%lld ", val);
	if (tep_get_field_val(s, event, "prev_prio", record, &val, 1) == 0)
		trace_seq_printf(s, "[%d] ", (int)val);
	if ((field = tep_find_any_field(event, "prev_state")) &&
	    tep_read_number_field(field, record->data, &val) == 0)
		put_state(s, v->states, val);
	trace_seq_puts(s, " ==> ");
	if (tep_get_field_val(s, event, "next_pid", record, &val, 1))
		return trace_seq_putc(s, '!');
	if ((field = tep_find_any_field(event, "next_comm"))) {
		put_comm_of(s, field, record, (int)val);
		trace_seq_putc(s, ':');
	}
	trace_seq_printf(s, "%lld", val);
	if (tep_get_field_val(s, event, "next_prio", record, &val, 1) == 0)
		trace_seq_printf(s, " [%d]", (int)val);
	return 0;
}

int tcr_v33_setup(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	struct tcr_v33 *v;
	struct tep_event *ev;
	struct tep_format_field *state;

	if (r->o->report_version != TMX_TCREPORT_V33)
		return TMX_OK;
	if (!(v = tf->v33 = calloc(1, sizeof(*v))))
		return tmx_error_set(err, TMX_ERR_NOMEM, tf->f->path, "out of memory");
	if (!r->o->latency && !r->o->raw)
		setup_lat_cache(tf, v);
	/* only where libtraceevent's sched_switch plugin renders the event (not -N, -L) */
	ev = tep_find_event_by_name(tf->tep, "sched", "sched_switch");
	if (!ev || !ev->handler)
		return TMX_OK;
	if ((state = tep_find_any_field(ev, "prev_state")))
		states_of(ev, state, v->states);
	tep_register_event_handler(tf->tep, -1, "sched", "sched_switch", sched_switch_33, v);
	return TMX_OK;
}

void tcr_v33_free(struct tcr_file *tf)
{
	if (tf->v33)
		free(tf->v33->lat);
	free(tf->v33);
	tf->v33 = NULL;
}
