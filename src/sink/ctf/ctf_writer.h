/*
 * CTF writer: messages of the common model in, one CTF 1.8 or CTF 2
 * trace directory per input trace out (see ctf_writer.c).
 */
#ifndef TMX_SINK_CTF_CTF_WRITER_H
#define TMX_SINK_CTF_CTF_WRITER_H

#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

/*
 * The largest packet content written by default: a bigger input packet (or
 * a format that puts a whole CPU in one packet) is split, so that the
 * packet buffer, the writer's only memory per stream, stays bounded.
 */
#define TMX_CTF_DEFAULT_PACKET_SIZE (4 * 1024 * 1024)

enum { TMX_CTF_VERSION_1_8 = 1, TMX_CTF_VERSION_2 = 2 };

struct tmx_ctf_writer_opts {
	const char *dir;          /* output directory, created if needed */
	/*
	 * An output packet is closed once its content reaches this many bytes
	 * (an input packet may become several).  0: TMX_CTF_DEFAULT_PACKET_SIZE,
	 * which keeps one output packet per input packet of ordinary size, as
	 * babeltrace2's sink.ctf.fs.
	 */
	uint64_t packet_size;
	/*
	 * TMX_CTF_VERSION_2: CTF 2 (JSON metadata, every field class kept);
	 * TMX_CTF_VERSION_1_8 or 0: CTF 1.8, the CTF 2 field classes
	 * translated, or refused with the field named where 1.8 cannot say them.
	 */
	int ctf_version;
	const struct tmx_diag *diag;  /* warnings; may be NULL */
};

struct tmx_ctf_writer;

int tmx_ctf_writer_new(const struct tmx_ctf_writer_opts *opts, struct tmx_ctf_writer **out,
		       struct tmx_error *err);
/*
 * Creates the output directory and metadata of a trace before any of its
 * messages (so that a trace without any stream, or whose messages are all
 * trimmed away, still has its output).  Optional: traces are also created
 * at their first message.
 */
int tmx_ctf_writer_add_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
			     struct tmx_error *err);
int tmx_ctf_writer_consume(struct tmx_ctf_writer *w, const struct tmx_msg *msg,
			   struct tmx_error *err);
/* Closes every open packet and stream file. */
int tmx_ctf_writer_finish(struct tmx_ctf_writer *w, struct tmx_error *err);
void tmx_ctf_writer_free(struct tmx_ctf_writer *w);

/*
 * `lttng-kernel`: the traces of `src` (trace.dat) are written as LTTng
 * kernel traces, their messages mapped by src/model/kmap.c (lttng_kernel.c).
 * Before any trace is added.  Such a writer runs sequentially.
 */
struct tmx_source;
int tmx_ctf_writer_lttng_kernel(struct tmx_ctf_writer *w, struct tmx_source *src,
				struct tmx_error *err);

/* The split for the parallel runner (src/sink/split.h, ctf_split.c). */
struct sink_split;
extern const struct sink_split tmx_ctf_writer_split;

#endif
