/*
 * Runs a libFuzzer harness over the files given on the command line,
 * without libFuzzer: how CI replays the regression inputs and seeds under
 * the sanitizers with the normal compiler.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long size;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc(size ? (size_t)size : 1);
		if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)size);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
