/* TSDL lexer: see tsdl_lex.h. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "ctf/tsdl_lex.h"
#include "common/errors.h"
#include "common/hexdigit.h"

void tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len, const char *name)
{
	memset(lx, 0, sizeof(*lx));
	lx->text = lx->p = text;
	lx->end = text + len;
	lx->name = name;
	lx->line = 1;
	lx->line_start = text;
}

void tsdl_lex_fini(struct tsdl_lexer *lx)
{
	free(lx->buf);
	lx->buf = NULL;
}

static int error_here(struct tsdl_lexer *lx, struct tmx_error *err, const char *at,
		      const char *msg)
{
	return tmx_error_at_line(err, TMX_ERR_METADATA, lx->name, lx->line,
				 (uint32_t)(at - lx->line_start) + 1, "%s", msg);
}

static void newline(struct tsdl_lexer *lx, const char *after)
{
	lx->line++;
	lx->line_start = after;
}

/* The blanks: ' ', \t, \n, \v, \f, \r (all at or below ' '). */
static inline bool is_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Skips blanks and comments. */
static int skip_space(struct tsdl_lexer *lx, struct tmx_error *err)
{
	for (;;) {
		const char *q = lx->p, *end = lx->end;
		while (q < end && is_blank(*q)) {
			if (*q == '\n')
				newline(lx, q + 1);
			q++;
		}
		lx->p = q;
		if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
			const char *start = lx->p;
			lx->p += 2;
			while (lx->end - lx->p >= 2 && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					newline(lx, lx->p + 1);
				lx->p++;
			}
			if (lx->end - lx->p < 2)
				return error_here(lx, err, start, "unterminated comment");
			lx->p += 2;
		} else if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			return TMX_OK;
		}
	}
}

enum tsdl_keyword tsdl_keyword(const char *s)
{
	static const char *const c_type[] = {
		"const", "char", "double", "float", "int", "long", "short", "signed", "unsigned",
		"void", "_Bool", "_Complex", "_Imaginary",
	};
	static const char *const ctf[] = {
		"align", "callsite", "clock", "enum", "env", "event", "floating_point", "integer",
		"stream", "string", "struct", "trace", "typealias", "typedef", "variant",
	};

	for (size_t i = 0; i < sizeof(ctf) / sizeof(ctf[0]); i++)
		if (!strcmp(s, ctf[i]))
			return TSDL_KW_CTF;
	for (size_t i = 0; i < sizeof(c_type) / sizeof(c_type[0]); i++)
		if (!strcmp(s, c_type[i]))
			return TSDL_KW_C_TYPE;
	return TSDL_NOT_KEYWORD;
}

bool tsdl_lex_next_is_equal(const struct tsdl_lexer *lx)
{
	const char *q = lx->p;

	for (;;) {
		while (q < lx->end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n' ||
				       *q == '\f' || *q == '\v'))
			q++;
		if (lx->end - q >= 2 && q[0] == '/' && q[1] == '*') {
			for (q += 2; lx->end - q >= 2 && !(q[0] == '*' && q[1] == '/'); q++)
				;
			if (lx->end - q < 2)
				return false;
			q += 2;
		} else if (lx->end - q >= 2 && q[0] == '/' && q[1] == '/') {
			while (q < lx->end && *q != '\n')
				q++;
		} else {
			return q < lx->end && *q == '=';
		}
	}
}

static int buf_put(struct tsdl_lexer *lx, size_t *n, char c)
{
	if (*n + 1 >= lx->buf_cap) {
		void *b = lx->buf;
		if (!tmx_grow_array(&b, &lx->buf_cap, *n + 2, 1, 256))
			return -1;
		lx->buf = b;
	}
	lx->buf[(*n)++] = c;
	lx->buf[*n] = '\0';
	return 0;
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decodes one escape sequence after the backslash; returns the byte. */
static int lex_escape(struct tsdl_lexer *lx, struct tmx_error *err, unsigned *out)
{
	const char *at = lx->p;
	char c;

	if (lx->p >= lx->end)
		return error_here(lx, err, at, "unterminated escape sequence");
	c = *lx->p++;
	switch (c) {
	case 'n': *out = '\n'; return TMX_OK;
	case 't': *out = '\t'; return TMX_OK;
	case 'r': *out = '\r'; return TMX_OK;
	case 'a': *out = '\a'; return TMX_OK;
	case 'b': *out = '\b'; return TMX_OK;
	case 'f': *out = '\f'; return TMX_OK;
	case 'v': *out = '\v'; return TMX_OK;
	case '\\': case '\'': case '"': case '?': *out = (unsigned char)c; return TMX_OK;
	case 'x': {
		/*
		 * Up to three hexadecimal digits, the byte being the low 8 bits,
		 * and none a NUL byte that ends the string (as babeltrace2's
		 * lexer: "\x0231" is "#1", "\x414" is 0x14, "a\xzb" is "a").
		 */
		unsigned v = 0;
		int digits = 0;
		while (lx->p < lx->end && tmx_hex_digit(*lx->p) >= 0 && digits < 3) {
			v = v * 16 + (unsigned)tmx_hex_digit(*lx->p++);
			digits++;
		}
		*out = v & 0xff;
		return TMX_OK;
	}
	default:
		if (c >= '0' && c <= '7') {
			unsigned v = (unsigned)(c - '0');
			int digits = 1;
			while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '7' && digits < 3) {
				v = v * 8 + (unsigned)(*lx->p++ - '0');
				digits++;
			}
			*out = v & 0xff;
			return TMX_OK;
		}
		/* Not a C escape: keep the backslash and the character. */
		lx->p--;
		*out = '\\';
		return TMX_OK;
	}
}

static int lex_quoted(struct tsdl_lexer *lx, struct tmx_error *err, char quote)
{
	const char *start = lx->p++;
	size_t n = 0;

	if (buf_put(lx, &n, 'x'))   /* make sure buf exists */
		return tmx_error_set(err, TMX_ERR_NOMEM, lx->name, "out of memory");
	n = 0;
	lx->buf[0] = '\0';
	for (;;) {
		unsigned c = 0;
		if (lx->p >= lx->end || *lx->p == '\n')
			return error_here(lx, err, start, quote == '"' ? "unterminated string literal" :
					  "unterminated character literal");
		if (*lx->p == quote) {
			lx->p++;
			break;
		}
		if (*lx->p == '\0')
			return error_here(lx, err, lx->p, "NUL byte inside a literal");
		if (*lx->p == '\\') {
			lx->p++;
			if (lex_escape(lx, err, &c))
				return TMX_ERR_METADATA;
		} else {
			c = (unsigned char)*lx->p++;
		}
		if (buf_put(lx, &n, (char)c))
			return tmx_error_set(err, TMX_ERR_NOMEM, lx->name, "out of memory");
	}
	if (quote == '\'') {
		if (n != 1)
			return error_here(lx, err, start, "a character literal must hold one character");
		lx->tok.kind = TOK_CHAR;
		lx->tok.value = (unsigned char)lx->buf[0];
	} else {
		lx->tok.kind = TOK_STRING;
	}
	lx->tok.str = lx->buf;
	return TMX_OK;
}

/* Integer literal: decimal, octal (leading 0), hex (0x); suffixes u, l, ll. */
static int lex_number(struct tsdl_lexer *lx, struct tmx_error *err)
{
	const char *start = lx->p;
	unsigned base = 10;
	uint64_t v = 0;
	bool any = false;

	if (lx->p[0] == '0' && lx->end - lx->p > 1 && (lx->p[1] == 'x' || lx->p[1] == 'X')) {
		base = 16;
		lx->p += 2;
	} else if (lx->p[0] == '0' && lx->end - lx->p > 1 && (lx->p[1] == 'b' || lx->p[1] == 'B')) {
		base = 2;
		lx->p += 2;
	} else if (lx->p[0] == '0') {
		base = 8;
		any = true;
		lx->p++;
	}
	while (lx->p < lx->end) {
		int d = tmx_hex_digit(*lx->p);
		if (d < 0 || (unsigned)d >= base)
			break;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return error_here(lx, err, start, "integer literal does not fit in 64 bits");
		v = v * base + (unsigned)d;
		any = true;
		lx->p++;
	}
	if (!any)
		return error_here(lx, err, start, "invalid integer literal");
	while (lx->p < lx->end && (*lx->p == 'u' || *lx->p == 'U' || *lx->p == 'l' || *lx->p == 'L'))
		lx->p++;
	if (lx->p < lx->end && (is_ident_start(*lx->p) || is_digit(*lx->p)))
		return error_here(lx, err, start, "invalid integer literal");
	lx->tok.kind = TOK_INT;
	lx->tok.value = v;
	return TMX_OK;
}

static int lex_punct(struct tsdl_lexer *lx, struct tmx_error *err)
{
	static const char *const multi[] = { ":=", "...", "->" };
	static const char single[] = "{}[]();,:=.<>+-*";

	/* the multi-character ones start with ':', '.' or '-' */
	for (size_t i = 0; (*lx->p == ':' || *lx->p == '.' || *lx->p == '-') &&
			   i < sizeof(multi) / sizeof(multi[0]); i++) {
		size_t l = strlen(multi[i]);
		if ((size_t)(lx->end - lx->p) >= l && !memcmp(lx->p, multi[i], l)) {
			memcpy(lx->tok.punct, multi[i], l + 1);
			lx->p += l;
			lx->tok.kind = TOK_PUNCT;
			return TMX_OK;
		}
	}
	if (*lx->p && strchr(single, *lx->p)) {
		lx->tok.punct[0] = *lx->p++;
		lx->tok.punct[1] = '\0';
		lx->tok.kind = TOK_PUNCT;
		return TMX_OK;
	}
	return error_here(lx, err, lx->p, *lx->p ? "unexpected character" : "unexpected NUL byte");
}

int tsdl_lex_next(struct tsdl_lexer *lx, struct tmx_error *err)
{
	int ret = skip_space(lx, err);
	struct tsdl_token *t = &lx->tok;

	if (ret)
		return ret;
	memset(t, 0, sizeof(*t));
	t->start = lx->p;
	t->line = lx->line;
	t->col = (uint32_t)(lx->p - lx->line_start) + 1;
	if (lx->p >= lx->end) {
		t->kind = TOK_EOF;
		return TMX_OK;
	}
	if (is_ident_start(*lx->p)) {
		/* the name's extent first, then one copy */
		const char *q = lx->p + 1;
		size_t n;
		while (q < lx->end && (is_ident_start(*q) || is_digit(*q)))
			q++;
		n = (size_t)(q - lx->p);
		if (n + 1 > lx->buf_cap) {
			void *b = lx->buf;
			if (!tmx_grow_array(&b, &lx->buf_cap, n + 1, 1, 256))
				return tmx_error_set(err, TMX_ERR_NOMEM, lx->name, "out of memory");
			lx->buf = b;
		}
		memcpy(lx->buf, lx->p, n);
		lx->buf[n] = '\0';
		lx->p = q;
		t->kind = TOK_IDENT;
		t->str = lx->buf;
	} else if (is_digit(*lx->p)) {
		ret = lex_number(lx, err);
	} else if (*lx->p == '"' || *lx->p == '\'') {
		ret = lex_quoted(lx, err, *lx->p);
	} else {
		ret = lex_punct(lx, err);
	}
	t->len = (size_t)(lx->p - t->start);
	return ret;
}
