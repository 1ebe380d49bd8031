/* Chrome Trace Event / Perfetto JSON (object format): see chrome.c. */
#ifndef TMX_OUT_CHROME_H
#define TMX_OUT_CHROME_H

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_chrome;

struct tmx_chrome *tmx_chrome_new(int fd);
/*
 * Also draw scheduling as per-CPU slices: each sched_switch event (CTF or
 * ftrace, CPU from the packet context's cpu_id) ends the slice running on
 * its CPU and starts one named after next_comm, on a "CPUs" process of its
 * trace with a thread per CPU.  Call before the first message.
 */
void tmx_chrome_set_sched_slices(struct tmx_chrome *c, bool on);
int tmx_chrome_consume(struct tmx_chrome *c, const struct tmx_msg *msg, struct tmx_error *err);
/* Closes the JSON document and flushes. */
int tmx_chrome_finish(struct tmx_chrome *c, struct tmx_error *err);
void tmx_chrome_free(struct tmx_chrome *c);

#endif
