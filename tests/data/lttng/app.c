#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "tp.h"
static int n_events = 1000;
static const char *words[] = { "alpha", "beta\tgamma", "quote\"d", "x", "" };
static void *run(void *arg)
{
	int base = (int)(long)arg;
	for (int i = 0; i < n_events; i++) {
		lttng_ust_tracepoint(tmx, work, base + i, words[i % 5], i / 7.0);
		if (i % 10 == 0)
			lttng_ust_tracepoint(tmx, tick, i);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t[2];
	if (argc > 1)
		n_events = atoi(argv[1]);
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, run, (void *)(k * 100000));
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	return 0;
}
