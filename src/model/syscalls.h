/* System call numbers by name and names by number (syscalls.c). */
#ifndef TMX_MODEL_SYSCALLS_H
#define TMX_MODEL_SYSCALLS_H

#include <stddef.h>

/* The x86_64 number of system call `name` ("openat"), or -1. */
int tmx_syscall_x86_64(const char *name);
/*
 * Fills names[nr] for every x86_64 number below `n` (the others are left
 * as they are); returns the highest number + 1.
 */
size_t tmx_syscall_x86_64_names(const char **names, size_t n);

#endif
