/*
 * The options of a subcommand (xray-account, xray-stack) as table rows,
 * like the main command's (cli/options.h): one row per option, its names,
 * whether it takes a value, and a handler that applies it to the
 * command's own state.  getopt_long_only's tables are built from the rows,
 * so that llvm-xray's single-dash spellings (-sort=count) are accepted.
 */
#ifndef TMX_CLI_CMD_OPTIONS_H
#define TMX_CLI_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

struct cmd_option {
	const char *name;       /* long name */
	int short_name;         /* 0: none */
	int has_arg;            /* getopt's no_argument, required_argument */
	/*
	 * Applies the option (`arg` NULL without a value) to `state`: 0, or
	 * an exit status after a message (CMD_EXIT_OK: done, exit 0, as --help).
	 */
	int (*apply)(void *state, const struct cmd_option *o, const char *arg);
	size_t at;              /* cmd_flag, cmd_text: the member's offset in the state */
};

/* A bool member at o->at set. */
int cmd_flag(void *state, const struct cmd_option *o, const char *arg);
/* A `const char *` member at o->at set to the value. */
int cmd_text(void *state, const struct cmd_option *o, const char *arg);
/*
 * A value that is one of two words: *out false for `off`, true for `on`;
 * else the usage error "invalid OPTION value `ARG` (off, on)" of `command`.
 */
int cmd_choice(const char *command, const char *option, const char *arg, const char *off,
	       const char *on, bool *out);
/* A `const char *` member at o->at set to an output file's name, NULL for '-' (standard output). */
int cmd_output(void *state, const struct cmd_option *o, const char *arg);
/* Nothing: an option accepted for compatibility. */
int cmd_ignore(void *state, const struct cmd_option *o, const char *arg);
/* An int member at o->at set to 1 by --progress, -1 by --no-progress (cli_progress_setup's mode). */
int cmd_progress(void *state, const struct cmd_option *o, const char *arg);
/* A row of each: the member named in the state's type. */
#define CMD_FLAG(name, short_name, type, member) \
	{ name, short_name, no_argument, cmd_flag, offsetof(type, member) }
#define CMD_TEXT(name, short_name, type, member) \
	{ name, short_name, required_argument, cmd_text, offsetof(type, member) }
#define CMD_OUTPUT(name, short_name, type, member) \
	{ name, short_name, required_argument, cmd_output, offsetof(type, member) }
#define CMD_PROGRESS(name, type, member) \
	{ name, 0, no_argument, cmd_progress, offsetof(type, member) }

/* A handler's "done, exit 0" (--help printed). */
#define CMD_EXIT_OK (-1)

/*
 * Parses argv (argv[0] the command's name) with the rows of `command`:
 * 0 with *first the index of the first operand; else CMD_EXIT_OK (exit
 * 0: --help printed) or the exit status (2 after a usage error).
 */
int cli_cmd_parse(const char *command, const struct cmd_option *rows, size_t n, void *state,
		  int argc, char **argv, int *first);

#endif
