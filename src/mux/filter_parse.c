/*
 * Filter expressions (include/tracemux/filter.h): a lexer and a
 * recursive-descent parser into the node array of struct tmx_filter.
 * Precedence, lowest first: ||, &&, !, then comparisons; parentheses
 * group.  Every error says where (line:column, 1-based) and what was
 * expected there.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "common/hexdigit.h"
#include "mux/filter.h"

enum tok_kind {
	T_END, T_LPAREN, T_RPAREN, T_AND, T_OR, T_NOT, T_CMP, T_INT, T_FLOAT, T_STRING,
	T_IDENT, T_SPECIAL,
};

struct token {
	enum tok_kind kind;
	const char *start;         /* in the expression */
	size_t len;
	uint32_t line, col;
	enum fop op;               /* T_CMP */
};

struct parser {
	const char *text, *p;
	uint32_t line;
	const char *line_start;
	struct token tok;          /* the current token */
	struct tmx_filter *f;
	struct tmx_error *err;
	unsigned depth;
};

/* Deep and long enough for any expression a person writes; bounds the recursions. */
#define MAX_DEPTH 200
#define MAX_NODES 4096

static int syntax_error(struct parser *ps, uint32_t line, uint32_t col, const char *fmt,
			const char *arg)
{
	char what[TMX_ERROR_MSG_MAX - 32];

	snprintf(what, sizeof(what), fmt, arg);
	return tmx_error_at_line(ps->err, TMX_ERR_USAGE, NULL, line, col, "%u:%u: %s",
				 (unsigned)line, (unsigned)col, what);
}

static int tok_error(struct parser *ps, const char *fmt, const char *arg)
{
	return syntax_error(ps, ps->tok.line, ps->tok.col, fmt, arg);
}

/* The current token as text for messages ("the end" at the end). */
static const char *tok_text(const struct token *t, char *buf, size_t size)
{
	if (t->kind == T_END)
		return "the end of the expression";
	snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
	return buf;
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A field path: identifiers joined by dots. */
static int lex_ident(struct parser *ps, struct token *t)
{
	const char *p = ps->p;

	for (;;) {
		while (ident_char(*p))
			p++;
		if (*p != '.')
			break;
		if (!ident_start(p[1]))
			return syntax_error(ps, t->line, t->col + (uint32_t)(p + 1 - t->start),
					    "expected a member name after '.'%s", "");
		p++;
	}
	t->kind = t->kind == T_SPECIAL ? T_SPECIAL : T_IDENT;
	ps->p = p;
	return TMX_OK;
}

/* A number: its extent here, its value in parse_number(). */
static void lex_number(struct parser *ps, struct token *t)
{
	const char *p = ps->p;

	if (*p == '-')
		p++;
	t->kind = T_INT;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		while (isalnum((unsigned char)*p))
			p++;
	} else {
		while (isalnum((unsigned char)*p) || *p == '.' ||
		       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E'))) {
			if (*p == '.' || *p == 'e' || *p == 'E')
				t->kind = T_FLOAT;
			p++;
		}
	}
	ps->p = p;
}

/* A double-quoted string: its extent (escapes are read in parse_string()). */
static int lex_string(struct parser *ps, struct token *t)
{
	const char *p = ps->p + 1;

	while (*p && *p != '"') {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '\n')
			break;
		p++;
	}
	if (*p != '"')
		return syntax_error(ps, t->line, t->col,
				    "unterminated string: expected '\"' before the end of the %s",
				    *p == '\n' ? "line" : "expression");
	t->kind = T_STRING;
	ps->p = p + 1;
	return TMX_OK;
}

/* Two-character operators, then one-character ones. */
static bool lex_operator(struct parser *ps, struct token *t)
{
	static const struct {
		const char *text;
		enum tok_kind kind;
		enum fop op;
	} ops[] = {
		{ "&&", T_AND, 0 }, { "||", T_OR, 0 }, { "==", T_CMP, OP_EQ }, { "!=", T_CMP, OP_NE },
		{ "<=", T_CMP, OP_LE }, { ">=", T_CMP, OP_GE }, { "=~", T_CMP, OP_MATCH },
		{ "!~", T_CMP, OP_NOMATCH }, { "<", T_CMP, OP_LT }, { ">", T_CMP, OP_GT },
		{ "!", T_NOT, 0 }, { "(", T_LPAREN, 0 }, { ")", T_RPAREN, 0 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (!strncmp(ps->p, ops[i].text, n)) {
			t->kind = ops[i].kind;
			t->op = ops[i].op;
			ps->p += n;
			return true;
		}
	}
	return false;
}

static int next_token(struct parser *ps)
{
	struct token *t = &ps->tok;
	int ret = TMX_OK;

	for (; isspace((unsigned char)*ps->p); ps->p++)
		if (*ps->p == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		}
	*t = (struct token){ .start = ps->p, .line = ps->line,
			     .col = (uint32_t)(ps->p - ps->line_start) + 1 };
	if (!*ps->p)
		t->kind = T_END;
	else if (*ps->p == '$' && ident_start(ps->p[1])) {
		t->kind = T_SPECIAL;
		ps->p++;
		ret = lex_ident(ps, t);
	} else if (ident_start(*ps->p))
		ret = lex_ident(ps, t);
	else if (isdigit((unsigned char)*ps->p) ||
		 (*ps->p == '-' && isdigit((unsigned char)ps->p[1])) ||
		 (*ps->p == '.' && isdigit((unsigned char)ps->p[1])))
		lex_number(ps, t);
	else if (*ps->p == '"')
		ret = lex_string(ps, t);
	else if (!lex_operator(ps, t)) {
		char c[2] = { *ps->p, 0 };

		if (*ps->p == '=' || *ps->p == '&' || *ps->p == '|')
			return tok_error(ps, *ps->p == '=' ? "'=' is not an operator: expected '==' or '=~'"
				       : *ps->p == '&' ? "'&' is not an operator: expected '&&'%s"
						       : "'|' is not an operator: expected '||'%s", "");
		if (isprint((unsigned char)*ps->p))
			return tok_error(ps, "unexpected character '%s'", c);
		return tok_error(ps, "unexpected byte in the expression%s", "");
	}
	t->len = (size_t)(ps->p - t->start);
	return ret;
}

/* Integer literal: decimal, 0x hexadecimal, with an optional '-'. */
static int parse_int(struct parser *ps, struct fint *out)
{
	const char *p = ps->tok.start;
	char buf[80];
	unsigned base = 10;
	uint64_t v = 0;

	out->neg = *p == '-';
	p += out->neg;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (p == ps->tok.start + ps->tok.len)
			return tok_error(ps, "expected hexadecimal digits after '0x'%s", "");
	}
	for (; p < ps->tok.start + ps->tok.len; p++) {
		unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
			   : isxdigit((unsigned char)*p) ? (unsigned)(tolower((unsigned char)*p) - 'a' + 10)
							   : 99;

		if (d >= base)
			return tok_error(ps, "invalid number %s", tok_text(&ps->tok, buf, sizeof(buf)));
		if (v > (UINT64_MAX - d) / base)
			return tok_error(ps, "integer %s out of range (64 bits)",
					 tok_text(&ps->tok, buf, sizeof(buf)));
		v = v * base + d;
	}
	if (out->neg && v > (uint64_t)INT64_MAX + 1)
		return tok_error(ps, "integer %s out of range (64 bits)",
				 tok_text(&ps->tok, buf, sizeof(buf)));
	out->mag = v;
	out->neg = out->neg && v != 0;
	return TMX_OK;
}

static int parse_float(struct parser *ps, double *out)
{
	char text[128], buf[80];
	char *end;

	if (ps->tok.len >= sizeof(text))
		return tok_error(ps, "invalid number %s", tok_text(&ps->tok, buf, sizeof(buf)));
	memcpy(text, ps->tok.start, ps->tok.len);
	text[ps->tok.len] = '\0';
	errno = 0;
	*out = strtod(text, &end);
	if (*end || end == text)
		return tok_error(ps, "invalid number %s", tok_text(&ps->tok, buf, sizeof(buf)));
	if (errno == ERANGE && (*out > 1 || *out < -1))
		return tok_error(ps, "number %s out of range (double)",
				 tok_text(&ps->tok, buf, sizeof(buf)));
	return TMX_OK;
}

/* The string's bytes, escapes replaced: \" \\ \n \t \r \0 \xHH. */
static int parse_string(struct parser *ps, struct foperand *o)
{
	const char *p = ps->tok.start + 1, *end = ps->tok.start + ps->tok.len - 1;
	char *s = malloc(ps->tok.len), *q = s;

	if (!s)
		return tmx_error_set(ps->err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (; p < end; p++) {
		uint32_t col = ps->tok.col + (uint32_t)(p - ps->tok.start);
		char c[2] = { p[1], 0 };

		if (*p != '\\') {
			*q++ = *p;
			continue;
		}
		switch (*++p) {
		case '"': case '\\': *q++ = *p; break;
		case 'n': *q++ = '\n'; break;
		case 't': *q++ = '\t'; break;
		case 'r': *q++ = '\r'; break;
		case '0': *q++ = '\0'; break;
		case 'x':
			if (p + 2 >= end || tmx_hex_digit(p[1]) < 0 || tmx_hex_digit(p[2]) < 0) {
				free(s);
				return syntax_error(ps, ps->tok.line, col,
						    "expected two hexadecimal digits after '\\x'%s", "");
			}
			*q++ = (char)(tmx_hex_digit(p[1]) * 16 + tmx_hex_digit(p[2]));
			p += 2;
			break;
		default:
			free(s);
			return syntax_error(ps, ps->tok.line, col,
					    "unknown escape '\\%s' (expected \\\" \\\\ \\n \\t \\r \\0 "
					    "or \\xHH)", c);
		}
	}
	*q = '\0';
	o->str.ptr = s;
	o->str.len = (size_t)(q - s);
	return TMX_OK;
}

static void operand_free(struct foperand *o)
{
	if (o->kind == OPD_STRING)
		free(o->str.ptr);
	o->kind = OPD_INT;
}

/* The reference of a field path or special, shared by every use of the name. */
static int add_ref(struct parser *ps, const char *path, size_t len, enum fspecial special,
		   size_t *ref)
{
	struct tmx_filter *f = ps->f;

	for (size_t i = 0; i < f->n_refs; i++)
		if (strlen(f->refs[i].path) == len && !strncmp(f->refs[i].path, path, len)) {
			*ref = i;
			return TMX_OK;
		}
	if (!tmx_grow_array((void **)&f->refs, &f->cap_refs, f->n_refs + 1, sizeof(*f->refs), 4) ||
	    !(f->refs[f->n_refs].path = strndup(path, len)))
		return tmx_error_set(ps->err, TMX_ERR_NOMEM, NULL, "out of memory");
	f->refs[f->n_refs].special = special;
	f->refs[f->n_refs].line = ps->tok.line;
	f->refs[f->n_refs].col = ps->tok.col;
	*ref = f->n_refs++;
	return TMX_OK;
}

static int parse_special(struct parser *ps, struct foperand *o)
{
	static const struct {
		const char *name;
		enum fopd_kind kind;
		enum fspecial special;
	} specials[] = {
		{ "$name", OPD_NAME, FS_NONE }, { "$ts", OPD_TS, FS_NONE },
		{ "$cpu", OPD_FIELD, FS_CPU }, { "$pid", OPD_FIELD, FS_PID },
		{ "$tid", OPD_FIELD, FS_TID },
	};
	char buf[80];

	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		if (strlen(specials[i].name) == ps->tok.len &&
		    !strncmp(specials[i].name, ps->tok.start, ps->tok.len)) {
			o->kind = specials[i].kind;
			if (o->kind != OPD_FIELD)
				return TMX_OK;
			return add_ref(ps, ps->tok.start, ps->tok.len, specials[i].special, &o->ref);
		}
	return tok_error(ps, "unknown name %s (expected $name, $ts, $cpu, $pid or $tid)",
			 tok_text(&ps->tok, buf, sizeof(buf)));
}

/* A value: literal, special or field.  `after` names what came before, for errors. */
static int parse_operand(struct parser *ps, struct foperand *o, const char *after)
{
	int ret;

	*o = (struct foperand){ .line = ps->tok.line, .col = ps->tok.col };
	switch (ps->tok.kind) {
	case T_INT:
		o->kind = OPD_INT;
		ret = parse_int(ps, &o->i);
		break;
	case T_FLOAT:
		o->kind = OPD_FLOAT;
		ret = parse_float(ps, &o->d);
		break;
	case T_STRING:
		o->kind = OPD_STRING;
		ret = parse_string(ps, o);
		break;
	case T_SPECIAL:
		ret = parse_special(ps, o);
		break;
	case T_IDENT:
		o->kind = OPD_FIELD;
		ret = add_ref(ps, ps->tok.start, ps->tok.len, FS_NONE, &o->ref);
		break;
	default:
		if (after)
			return tok_error(ps, "expected a value after '%s'", after);
		return tok_error(ps, "expected a comparison (a field, $name, $ts, $cpu, $pid, $tid "
				 "or a literal), '!' or '('%s", "");
	}
	if (!ret)
		ret = next_token(ps);
	if (ret)
		operand_free(o);   /* a string read before the error */
	return ret;
}

static int add_node(struct parser *ps, const struct fnode *n, size_t *at)
{
	struct tmx_filter *f = ps->f;

	if (f->n_nodes == MAX_NODES)
		return tok_error(ps, "expression too long (more than %s operators and comparisons)",
				 "4096");
	if (!tmx_grow_array((void **)&f->nodes, &f->cap_nodes, f->n_nodes + 1, sizeof(*f->nodes), 8))
		return tmx_error_set(ps->err, TMX_ERR_NOMEM, NULL, "out of memory");
	f->nodes[f->n_nodes] = *n;
	*at = f->n_nodes++;
	return TMX_OK;
}


static const char *op_text(enum fop op)
{
	static const char *const text[] = { "==", "!=", "<", "<=", ">", ">=", "=~", "!~" };

	return text[op];
}

/* Beyond this, regcomp's automaton (which copies repeated parts) is refused. */
#define REGEX_MAX_COST 65536

/* `{m}`, `{m,}`, `{m,n}` at p: how many copies of its atom it makes, 0 when it is no bound. */
static uint64_t bound_copies(const char **p)
{
	const char *q = *p + 1;
	uint64_t m = 0, n;

	if (!isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q) && m < REGEX_MAX_COST)
		m = m * 10 + (uint64_t)(*q++ - '0');
	while (isdigit((unsigned char)*q))
		q++;
	n = m;
	if (*q == ',') {
		n = m + 1;
		for (q++, n = isdigit((unsigned char)*q) ? 0 : n; isdigit((unsigned char)*q); q++)
			n = n < REGEX_MAX_COST ? n * 10 + (uint64_t)(*q - '0') : n;
	}
	if (*q != '}')
		return 0;
	*p = q;
	return (n > m ? n : m) + 1;
}

/*
 * An estimate of the size of the automaton that glibc's regcomp builds:
 * every repetition copies what it repeats, so nested and stacked
 * repetitions ("(a|b)++++...", "((a{99}){99}){99}") grow exponentially and
 * would take gigabytes.  Atoms count 1, a repetition multiplies its atom.
 */
static uint64_t regex_cost(const char *p)
{
	uint64_t total[REGEX_MAX_COST / 256 + 1], last[REGEX_MAX_COST / 256 + 1];
	size_t depth = 0;

	total[0] = last[0] = 0;
	for (; *p; p++) {
		uint64_t copies = 0, atom = 1;

		switch (*p) {
		case '(':
			if (++depth >= sizeof(total) / sizeof(total[0]))
				return UINT64_MAX;
			total[depth] = last[depth] = 0;
			continue;
		case ')':
			if (!depth)
				break;
			atom = total[depth--] + 1;
			break;
		case '*': case '+': case '?':
			copies = 2;
			break;
		case '{':
			copies = bound_copies(&p);
			break;
		case '[':   /* a bracket expression is one atom: to its ']' (a first ']' is in it) */
			p += p[1] == '^';
			p += p[1] == ']';
			while (p[1] && p[1] != ']')
				p++;
			p += p[1] != 0;
			break;
		case '\\':
			p += p[1] != 0;
			break;
		default:
			break;
		}
		if (copies) {
			uint64_t extra = last[depth] * (copies - 1);

			total[depth] += extra;
			last[depth] *= copies;
		} else {
			total[depth] += atom;
			last[depth] = atom;
		}
		if (total[depth] > REGEX_MAX_COST || last[depth] > REGEX_MAX_COST)
			return UINT64_MAX;
	}
	while (depth)
		total[depth - 1] += total[depth], depth--;
	return total[0];
}

/* The right side of =~ / !~: a string literal, compiled as a POSIX extended regex. */
static int compile_regex(struct parser *ps, struct fnode *n)
{
	char msg[256];
	int rc;

	if (n->r.kind != OPD_STRING)
		return syntax_error(ps, n->r.line, n->r.col,
				    "expected a string (a POSIX extended regular expression) after "
				    "'%s'", op_text(n->op));
	if (strlen(n->r.str.ptr) != n->r.str.len)
		return syntax_error(ps, n->r.line, n->r.col, "a regular expression cannot hold a NUL "
				    "byte%s", "");
	if (regex_cost(n->r.str.ptr) > REGEX_MAX_COST)
		return syntax_error(ps, n->r.line, n->r.col, "regular expression too complex (its "
				    "repetitions of repetitions would make a huge automaton)%s", "");
	if (!(n->re = malloc(sizeof(*n->re))))
		return tmx_error_set(ps->err, TMX_ERR_NOMEM, NULL, "out of memory");
	rc = regcomp(n->re, n->r.str.ptr, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, n->re, msg, sizeof(msg));
		free(n->re);
		n->re = NULL;
		return syntax_error(ps, n->r.line, n->r.col, "invalid regular expression: %s", msg);
	}
	return TMX_OK;
}

static int parse_comparison(struct parser *ps, size_t *at)
{
	struct fnode n = { .kind = FN_CMP };
	char buf[80];
	int ret;

	if ((ret = parse_operand(ps, &n.l, NULL)))
		return ret;
	if (ps->tok.kind != T_CMP) {
		operand_free(&n.l);
		return tok_error(ps, "expected a comparison operator (==, !=, <, <=, >, >=, =~, !~) "
				 "before %s", tok_text(&ps->tok, buf, sizeof(buf)));
	}
	n.op = ps->tok.op;
	if ((ret = next_token(ps)) || (ret = parse_operand(ps, &n.r, op_text(n.op)))) {
		operand_free(&n.l);
		return ret;
	}
	if (n.op == OP_MATCH || n.op == OP_NOMATCH) {
		if (n.l.kind != OPD_FIELD && n.l.kind != OPD_NAME)
			ret = syntax_error(ps, n.l.line, n.l.col, "expected a field or $name before "
					   "'%s' (it matches text)", op_text(n.op));
		else
			ret = compile_regex(ps, &n);
	}
	if (!ret)
		ret = add_node(ps, &n, at);
	if (ret) {
		if (n.re) {
			regfree(n.re);
			free(n.re);
		}
		operand_free(&n.l);
		operand_free(&n.r);
	}
	return ret;
}

static int parse_or(struct parser *ps, size_t *at);

static int parse_unary(struct parser *ps, size_t *at)
{
	struct fnode n = { .kind = FN_NOT };
	uint32_t line = ps->tok.line, col = ps->tok.col;
	int ret;

	if (++ps->depth > MAX_DEPTH)
		return tok_error(ps, "expression nested too deeply (more than %s levels)", "200");
	if (ps->tok.kind == T_NOT) {
		if ((ret = next_token(ps)) || (ret = parse_unary(ps, &n.a)))
			return ret;
		ret = add_node(ps, &n, at);
	} else if (ps->tok.kind == T_LPAREN) {
		char where[128];

		if ((ret = next_token(ps)) || (ret = parse_or(ps, at)))
			return ret;
		if (ps->tok.kind != T_RPAREN) {
			char buf[80];

			snprintf(where, sizeof(where), "%u:%u, before ", (unsigned)line, (unsigned)col);
			strncat(where, tok_text(&ps->tok, buf, sizeof(buf)), sizeof(where) - strlen(where) - 1);
			return tok_error(ps, "expected ')' to close the '(' at %s", where);
		}
		ret = next_token(ps);
	} else {
		ret = parse_comparison(ps, at);
	}
	ps->depth--;
	return ret;
}

/* `sub (OP sub)*`, left-associative, for && (over unary) and || (over &&). */
static int parse_chain(struct parser *ps, size_t *at, enum tok_kind op_tok, enum fnode_kind kind,
		       int (*sub)(struct parser *, size_t *))
{
	int ret = sub(ps, at);

	while (!ret && ps->tok.kind == op_tok) {
		struct fnode n = { .kind = kind, .a = *at };

		if ((ret = next_token(ps)) || (ret = sub(ps, &n.b)))
			break;
		ret = add_node(ps, &n, at);
	}
	return ret;
}

static int parse_and(struct parser *ps, size_t *at)
{
	return parse_chain(ps, at, T_AND, FN_AND, parse_unary);
}

static int parse_or(struct parser *ps, size_t *at)
{
	return parse_chain(ps, at, T_OR, FN_OR, parse_and);
}

static int parse_expr(struct tmx_filter *f, const char *text, struct tmx_error *err)
{
	struct parser ps = { .text = text, .p = text, .line = 1, .line_start = text, .f = f,
			     .err = err };
	char buf[80];
	size_t root;
	int ret;

	if ((ret = next_token(&ps)) || (ret = parse_or(&ps, &root)))
		return ret;
	if (ps.tok.kind != T_END)
		return tok_error(&ps, "expected '&&', '||' or the end of the expression before %s",
				 tok_text(&ps.tok, buf, sizeof(buf)));
	f->root = root;
	f->has_expr = true;
	return TMX_OK;
}

static int copy_globs(struct tmx_filter *f, const char *const *globs, size_t n,
		      struct tmx_error *err)
{
	if (!n)
		return TMX_OK;
	if (!(f->globs = calloc(n, sizeof(*f->globs))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (!globs[i] || !*globs[i])
			return tmx_error_set(err, TMX_ERR_USAGE, NULL, "empty event class pattern");
		if (!(f->globs[i] = strdup(globs[i])))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		f->n_globs++;
	}
	return TMX_OK;
}

int tmx_filter_new(const char *const *globs, size_t n_globs, const char *expr,
		   struct tmx_filter **out, struct tmx_error *err)
{
	struct tmx_filter *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	ret = copy_globs(f, globs, n_globs, err);
	if (!ret && expr)
		ret = parse_expr(f, expr, err);
	if (ret) {
		tmx_filter_free(f);
		return ret;
	}
	*out = f;
	return TMX_OK;
}

void tmx_filter_free(struct tmx_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_globs; i++)
		free(f->globs[i]);
	free(f->globs);
	for (size_t i = 0; i < f->n_nodes; i++) {
		operand_free(&f->nodes[i].l);
		operand_free(&f->nodes[i].r);
		if (f->nodes[i].re) {
			regfree(f->nodes[i].re);
			free(f->nodes[i].re);
		}
	}
	free(f->nodes);
	for (size_t i = 0; i < f->n_refs; i++)
		free(f->refs[i].path);
	free(f->refs);
	free(f);
}
