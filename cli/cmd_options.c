/* Subcommands' options as table rows: see cmd_options.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_options.h"

int cmd_flag(void *state, const struct cmd_option *o, const char *arg)
{
	(void)arg;
	*(bool *)((char *)state + o->at) = true;
	return 0;
}

int cmd_text(void *state, const struct cmd_option *o, const char *arg)
{
	*(const char **)((char *)state + o->at) = arg;
	return 0;
}

int cmd_output(void *state, const struct cmd_option *o, const char *arg)
{
	return cmd_text(state, o, strcmp(arg, "-") ? arg : NULL);
}

int cmd_choice(const char *command, const char *option, const char *arg, const char *off,
	       const char *on, bool *out)
{
	char fmt[128];

	if (strcmp(arg, off) && strcmp(arg, on)) {
		snprintf(fmt, sizeof(fmt), "invalid %s value `%%s` (%s, %s)", option, off, on);
		return cli_command_usage_error(command, fmt, arg);
	}
	*out = !strcmp(arg, on);
	return 0;
}

int cmd_progress(void *state, const struct cmd_option *o, const char *arg)
{
	(void)arg;
	*(int *)((char *)state + o->at) = cli_progress_option(o->name);
	return 0;
}

int cmd_ignore(void *state, const struct cmd_option *o, const char *arg)
{
	(void)state, (void)o, (void)arg;
	return 0;
}

/* getopt's value of row i's long name: past every character. */
#define ROW_VAL 256

int cli_cmd_parse(const char *command, const struct cmd_option *rows, size_t n, void *state,
		  int argc, char **argv, int *first)
{
	struct option *longs = calloc(n + 1, sizeof(*longs));
	char *shorts = malloc(2 * n + 1);
	size_t ns = 0;
	int status = 0, c;

	if (!longs || !shorts) {
		free(longs);
		free(shorts);
		fputs("tracemux: error: out of memory\n", stderr);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		longs[i] = (struct option){ rows[i].name, rows[i].has_arg, NULL, ROW_VAL + (int)i };
		/* A short name shared by aliases (instr-map, instr_map) is listed once. */
		if (rows[i].short_name && !memchr(shorts, rows[i].short_name, ns)) {
			shorts[ns++] = (char)rows[i].short_name;
			if (rows[i].has_arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	optind = 0;   /* glibc: a full reset of getopt's state */
	while (!status && (c = getopt_long_only(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cmd_option *o = NULL;

		if (c >= ROW_VAL)
			o = &rows[c - ROW_VAL];
		for (size_t i = 0; !o && c != '?' && i < n; i++)
			if (rows[i].short_name == c)
				o = &rows[i];
		status = o ? o->apply(state, o, optarg)
			   : cli_command_usage_error(command, "%s", "invalid option");
	}
	free(longs);
	free(shorts);
	*first = optind;
	return status;
}
