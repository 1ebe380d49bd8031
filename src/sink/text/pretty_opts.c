/* The text output's options (-n/-f word lists) and terminal colors: see pretty_impl.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "sink/text/pretty_impl.h"

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

void tmx_pretty_opts_default(struct tmx_pretty_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->names_payload = true;
	o->names_context = true;
	o->field_trace_hostname = true;
	o->field_trace_procname = true;
	o->field_trace_vpid = true;
	o->color = TMX_COLOR_AUTO;
	o->out_fd = 1;
	o->err_fd = 2;
}

/* A word of a -n/-f list and the option flag it sets. */
struct list_word {
	const char *word;
	size_t flag;    /* offset of a bool in struct tmx_pretty_opts */
};

#define FLAG(member) offsetof(struct tmx_pretty_opts, member)

static const struct list_word name_words[] = {
	{ "payload", FLAG(names_payload) }, { "args", FLAG(names_payload) },
	{ "arg", FLAG(names_payload) }, { "context", FLAG(names_context) },
	{ "ctx", FLAG(names_context) }, { "scope", FLAG(names_scope) },
	{ "header", FLAG(names_header) },
};

static const struct list_word field_words[] = {
	{ "trace", FLAG(field_trace) }, { "trace:hostname", FLAG(field_trace_hostname) },
	{ "trace:domain", FLAG(field_trace_domain) },
	{ "trace:procname", FLAG(field_trace_procname) },
	{ "trace:vpid", FLAG(field_trace_vpid) }, { "loglevel", FLAG(field_loglevel) },
	{ "emf", FLAG(field_emf) }, { "callsite", FLAG(field_callsite) },
};

struct word_list {
	const char *option;    /* for messages: "--names" */
	const char *what;      /* "name" */
	const char *expected;
	const struct list_word *words;
	size_t n_words;
	bool has_none;         /* `none` is a word of this list */
};

static const struct word_list names_list = {
	"--names", "name", "payload, context, scope, header, all or none",
	name_words, sizeof(name_words) / sizeof(name_words[0]), true,
};

static const struct word_list fields_list = {
	"--fields", "field",
	"trace, trace:hostname, trace:domain, trace:procname, trace:vpid, loglevel, emf, "
	"callsite or all",
	field_words, sizeof(field_words) / sizeof(field_words[0]), false,
};

static bool *flag_of(struct tmx_pretty_opts *o, size_t offset)
{
	return (bool *)((char *)o + offset);
}

static bool word_is(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(w, name, len);
}

/* Words are separated by commas or white space, as babeltrace2's scanner reads them. */
static bool next_word(const char **list, const char **word, size_t *len)
{
	static const char separators[] = ", \t\n";
	const char *s = *list + strspn(*list, separators);

	*word = s;
	*len = strcspn(s, separators);
	*list = s + *len;
	return *len != 0;
}

/*
 * babeltrace2's rules: the listed flags replace the default set, `all`
 * sets every flag, `none` only clears the defaults, and an empty list
 * gives the defaults.
 */
static int parse_list(struct tmx_pretty_opts *o, const struct word_list *set, const char *list,
		      struct tmx_error *err)
{
	struct tmx_pretty_opts result = *o, defaults;
	bool all = false, none = false, any = false;
	const char *w;
	size_t len;

	tmx_pretty_opts_default(&defaults);
	for (size_t i = 0; i < set->n_words; i++)
		*flag_of(&result, set->words[i].flag) = false;
	while (next_word(&list, &w, &len)) {
		size_t i = 0;

		any = true;
		if (word_is(w, len, "all")) {
			all = true;
			continue;
		}
		if (set->has_none && word_is(w, len, "none")) {
			none = true;
			continue;
		}
		while (i < set->n_words && !word_is(w, len, set->words[i].word))
			i++;
		if (i == set->n_words)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "unknown %s `%.*s` in %s (expected %s)", set->what,
					     (int)len, w, set->option, set->expected);
		*flag_of(&result, set->words[i].flag) = true;
	}
	if (all && none)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "%s: `all` and `none` cannot be given together", set->option);
	for (size_t i = 0; i < set->n_words; i++) {
		bool *flag = flag_of(&result, set->words[i].flag);

		if (!any)
			*flag = *flag_of(&defaults, set->words[i].flag);
		else if (all)
			*flag = true;
	}
	*o = result;
	return TMX_OK;
}

int tmx_pretty_set_names(struct tmx_pretty_opts *o, const char *list, struct tmx_error *err)
{
	return parse_list(o, &names_list, list, err);
}

int tmx_pretty_set_fields(struct tmx_pretty_opts *o, const char *list, struct tmx_error *err)
{
	return parse_list(o, &fields_list, list, err);
}

/* ------------------------------------------------------------------ */
/* Terminal colors                                                      */
/* ------------------------------------------------------------------ */

/* A terminal, not a pipe or a file; babeltrace2 also rejects non-character devices. */
static bool is_real_tty(int fd)
{
	struct stat st;

	return isatty(fd) && (fstat(fd, &st) || S_ISCHR(st.st_mode));
}

bool tmx_pretty_terminal_colors(void)
{
	static const char *const terms[] = {
		"xterm", "rxvt", "konsole", "gnome", "screen", "tmux", "putty",
	};
	const char *force = getenv("BABELTRACE_TERM_COLOR");
	const char *term = getenv("TERM");

	if (force && !strcasecmp(force, "always"))
		return true;
	if ((force && !strcasecmp(force, "never")) || !term)
		return false;
	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (!strncmp(term, terms[i], strlen(terms[i])))
			return is_real_tty(STDOUT_FILENO) && is_real_tty(STDERR_FILENO);
	return false;
}

/* Bold, then a "bright" color: bold too unless BABELTRACE_TERM_COLOR_BRIGHT_MEANS_BOLD=0. */
static void bold_bright(char *code, char color_digit)
{
	const char *bold = getenv("BABELTRACE_TERM_COLOR_BRIGHT_MEANS_BOLD");

	if (bold && !strcmp(bold, "0"))
		snprintf(code, COLOR_CODE_MAX, COLOR_BOLD "\033[9%cm", color_digit);
	else
		snprintf(code, COLOR_CODE_MAX, COLOR_BOLD COLOR_BOLD "\033[3%cm", color_digit);
}

/*
 * babeltrace2 2.0.4 emits codes only when the terminal has colors, even
 * with --color=always, and colors its warnings even with --color=never.
 */
void pretty_init_colors(struct colors *c, enum tmx_color_mode mode)
{
	c->warnings = tmx_pretty_terminal_colors();
	c->events = c->warnings && mode != TMX_COLOR_NEVER;
	bold_bright(c->timestamp, '3');
	bold_bright(c->event_name, '5');
	bold_bright(c->unknown, '1');
}
