/* TEMPORARY: a sequential stand-in for tmx_sink_custom + tmx_run until the library has them. */
#include <stdlib.h>
#include <string.h>
#include <tracemux/run.h>
#include <tracemux/sink.h>
#include "ext.h"

struct tmx_record { unsigned char *p; size_t n, cap; bool oom; };
void tmx_record_write(struct tmx_record *rec, const void *data, size_t n)
{
	void *w = tmx_record_reserve(rec, n);
	if (w) { memcpy(w, data, n); tmx_record_commit(rec, n); }
}
void *tmx_record_reserve(struct tmx_record *rec, size_t n)
{
	if (rec->n + n > rec->cap) {
		size_t c = rec->cap ? rec->cap : 256;
		while (c < rec->n + n) c *= 2;
		unsigned char *p = realloc(rec->p, c);
		if (!p) { rec->oom = true; return NULL; }
		rec->p = p; rec->cap = c;
	}
	return rec->p + rec->n;
}
void tmx_record_commit(struct tmx_record *rec, size_t n) { rec->n += n; }

struct shim_sink { struct tmx_custom_sink def; };
int shim_sink_custom(const struct tmx_custom_sink *def, struct shim_sink **out, struct tmx_error *err)
{
	(void)err;
	*out = malloc(sizeof(**out));
	(*out)->def = *def;
	return 0;
}
void shim_sink_free(struct shim_sink *s) { free(s); }
int shim_run(struct tmx_source *src, struct shim_sink *s, const struct tmx_run_opts *opts, struct tmx_error *err)
{
	void *w = s->def.worker_new ? s->def.worker_new(s->def.user) : s->def.user;
	struct tmx_record rec = { 0 };
	int ret = 0;
	for (;;) {
		const struct tmx_msg *m;
		bool stop = false;
		if ((ret = tmx_source_next(src, &m, err)) || !m)
			break;
		if (opts->keep && !opts->keep(opts->keep_user, m, &stop)) {
			if (stop) break;
			continue;
		}
		rec.n = 0;
		s->def.format(w, m, &rec);
		struct tmx_msg copy = *m;
		copy.event = NULL; copy.packet = NULL;
		if ((ret = s->def.emit(s->def.user, &copy, rec.p, rec.n, err)))
			break;
	}
	if (s->def.worker_free) s->def.worker_free(w);
	free(rec.p);
	return ret;
}
