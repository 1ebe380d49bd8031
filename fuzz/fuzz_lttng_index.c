/* libFuzzer harness: the LTTng index reader on an arbitrary index file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf/lttng_index.h"
#include "ctf/metadata.h"

static const char metadata[] =
	"/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; "
	"packet.header := struct { integer { size = 32; } magic; integer { size = 32; } stream_id; "
	"integer { size = 64; } stream_instance_id; }; };"
	"stream { id = 0; packet.context := struct { integer { size = 64; } timestamp_begin; "
	"integer { size = 64; } timestamp_end; integer { size = 64; } packet_size; "
	"integer { size = 64; } content_size; integer { size = 64; } events_discarded; "
	"integer { size = 64; } packet_seq_num; }; };";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmx_arena arena;
	static struct tmx_trace_class *tc;
	char path[] = "/tmp/tmx-fuzz-idx-XXXXXX";
	struct ctf_packet_info *infos;
	struct tmx_error err;
	size_t n;
	int fd;

	if (!tc) {
		tmx_arena_init(&arena);
		if (ctf_metadata_parse(metadata, sizeof(metadata) - 1, "idx", NULL, &arena, &tc, &err))
			abort();
	}
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size)
		/*
		 * The size of the data file it describes comes from the input's last
		 * byte (4 KiB units): both agreeing and contradicting indexes occur.
		 */
		if (!ctf_lttng_index_read(path, tc, size ? data[size - 1] * 4096u : 0, &infos, &n,
					  &err))
			free(infos);
	close(fd);
	unlink(path);
	return 0;
}
