/*
 * `trace-cmd report --stat` (report_impl.h): the kernel buffer statistics
 * that trace-cmd stored (CPUSTAT options) and where each CPU's data lies,
 * as libtracecmd's tracecmd_print_stats() prints them.
 */
#include <string.h>

#include "tools/tracecmd/report_impl.h"

static size_t n_cpustat_options(const struct tdat_file *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_options; i++)
		n += f->options[i].id == TDAT_OPT_CPUSTAT;
	return n;
}

/* libtracecmd's tracecmd_print_stats() for the top buffer. */
void tcr_print_stats(struct tcr *r, struct tcr_file *tf)
{
	const struct tdat_file *f = tf->f;
	struct outbuf *b = r->out;
	uint64_t next_offset = f->page_size;   /* decompressed data: a temp file from page_size */
	const struct tdat_buffer *top;
	uint32_t n_ids = 0;

	outbuf_puts(b, "\nKernel buffer statistics:\n"
		    "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
		    "        recorded in the trace data. They should all be zero.\n\n");
	if (n_cpustat_options(f)) {
		/*
		 * libtracecmd concatenates the CPUSTAT options as stored, each
		 * one's last byte (its NUL) made a newline, and prints that as
		 * a C string with one more newline: a NUL inside an option ends
		 * everything.
		 */
		for (size_t i = 0; i < f->n_options; i++) {
			const struct tdat_option *op = &f->options[i];
			size_t n;
			if (op->id != TDAT_OPT_CPUSTAT || !op->size)
				continue;
			n = strnlen((const char *)op->data, op->size - 1);
			outbuf_write(b, (const char *)op->data, n);
			if (n < op->size - 1)
				break;
			outbuf_putc(b, '\n');
		}
		outbuf_putc(b, '\n');
	} else {
		outbuf_puts(b, " No stats in this file\n");
	}
	if (!f->n_buffers || f->buffers[0].latency)
		return;
	/*
	 * libtracecmd keeps one entry per CPU id up to the highest listed
	 * (a v7 BUFFER option may list only the CPUs with data): the missing
	 * ones print as offset 0, size 0.
	 */
	top = &f->buffers[0];
	for (uint32_t i = 0; i < top->n_cpus; i++)
		if (top->cpus[i].cpu + 1 > n_ids)
			n_ids = top->cpus[i].cpu + 1;
	for (uint32_t id = 0; id < n_ids && id < TMX_TCREPORT_MAX_CPUS; id++) {
		const struct tdat_cpu_data *cd = NULL;
		uint64_t off = 0, size = 0;

		for (uint32_t i = 0; i < top->n_cpus && !cd; i++)
			if (top->cpus[i].cpu == id)
				cd = &top->cpus[i];
		if (cd && cd->compressed) {
			off = next_offset;
			size = cd->uncompressed_size;
			next_offset += size;
		} else if (cd) {
			off = cd->offset;
			size = cd->size;
		}
		outbuf_write(b, "CPU", 3);
		outbuf_u64(b, id, 0);
		outbuf_puts(b, " data recorded at offset=0x");
		put_hex(b, off);
		outbuf_puts(b, "\n    ");
		outbuf_u64(b, size, 0);
		outbuf_puts(b, " bytes in size\n");
	}
}
