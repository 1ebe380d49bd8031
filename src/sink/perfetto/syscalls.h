/* System call numbers by name (syscalls.c). */
#ifndef TMX_SINK_PERFETTO_SYSCALLS_H
#define TMX_SINK_PERFETTO_SYSCALLS_H

/* The x86_64 number of system call `name` ("openat"), or -1. */
int pf_syscall_x86_64(const char *name);

#endif
