/*
 * `-o tracecmd` on a KVM host's trace.dat and its guests' files:
 * `trace-cmd report -i host.dat -i guest.dat` names the guest kernel
 * function behind each guest address of the host's kvm_entry / kvm_exit
 * (and kvm_emulate_insn, kvm_nested_vmexit) events:
 * `rip 0xffffffffa13f2e30 default_idle+0x10`.
 *
 * How trace-cmd 3.1.6 does it, and so how this does it:
 *   - the first input is the host.  Its GUEST options (one per guest:
 *     name, the guest's trace id, and per vCPU the host task that runs
 *     it) are read as libtracecmd's trace_guest_load() reads them; one it
 *     cannot read is dropped (a warning here).  With two options for one
 *     trace id, the last one in the file counts.
 *   - every other input handle (the other files, then each file's buffer
 *     instances) whose TRACEID one of those options lists adds one entry
 *     per vCPU: host task pid -> that file's symbols.  Entries are sorted
 *     by pid (stable, as glibc's qsort) and looked up as glibc's inline
 *     bsearch() does, so that two guests claiming one pid give the same
 *     answer as trace-cmd's.
 *   - libtraceevent's kvm plugin asks the application for the name behind
 *     an address through tep_plugin_kvm_get_func(), a weak symbol that the
 *     program overrides (the tracemux executable exports this file's
 *     definition: see CMakeLists.txt); the answer is the guest's kallsyms
 *     function containing the address and its start, from which the plugin
 *     prints "+0x<offset>".  A host event whose pid no entry has keeps its
 *     bare address, as does every event with -N or -R.
 * Times need nothing here: a guest file's TIME_SHIFT option already puts
 * its records on the host's clock (src/tracecmd/file.c).
 *
 * Inputs that trace-cmd reads without a mapping get the same output and a
 * warning saying why (diag): a guest given before its host, a guest whose
 * host is another trace, a host without the guest's GUEST option, a GUEST
 * option that cannot be read, or whose vCPU count is not the guest file's
 * CPU count.
 *
 * The plugin's callback has no context argument, so the map of the running
 * report is a thread-local: one report at a time per thread.
 */
#ifndef TMX_TOOLS_TRACECMD_GUEST_H
#define TMX_TOOLS_TRACECMD_GUEST_H

#include <stddef.h>

#include <event-parse.h>

#include "tracecmd/tracedat.h"
#include "tracemux/error.h"

struct tcg_vcpus;

/* Adds an input file (in command-line order) and its libtraceevent handle. */
int tcg_add_file(struct tcg_vcpus **m, const struct tdat_file *f, struct tep_handle *tep,
		 struct tmx_error *err);
/*
 * Builds the map from the files added (trace-cmd's map_vcpus()), warns
 * about what keeps a guest unmapped, and makes the kvm plugin use it on
 * this thread until tcg_free().  No map (*m NULL): nothing to do.
 */
int tcg_start(struct tcg_vcpus *m, const struct tmx_diag *diag, struct tmx_error *err);
void tcg_free(struct tcg_vcpus *m);

#endif
