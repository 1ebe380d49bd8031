/* The tracemux program's parts (cli/). */
#ifndef TMX_CLI_H
#define TMX_CLI_H

#include "tracemux/tracemux.h"

/* Prints "tracemux: error: ..." and returns the exit status (2 for usage errors, else 1). */
int cli_report(const struct tmx_error *err);
/* `tracemux query ...` (argv[1] is "query"). */
int cli_query(int argc, char **argv, const struct tmx_diag *diag);
/* `tracemux info ...` (argv[1] is "info"). */
int cli_info(int argc, char **argv, const struct tmx_diag *diag);

#endif
