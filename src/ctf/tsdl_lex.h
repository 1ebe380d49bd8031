/*
 * TSDL lexer (CTF 1.8 spec, appendix C.1): identifiers, integer, string
 * and character literals, punctuators; both comment styles; CRLF.
 */
#ifndef TMX_TSDL_LEX_H
#define TMX_TSDL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

enum tsdl_tok {
	TOK_EOF,
	TOK_IDENT,
	TOK_INT,      /* integer literal (unsigned magnitude) */
	TOK_STRING,   /* "..." with escapes decoded */
	TOK_CHAR,     /* '...' */
	TOK_PUNCT,    /* one of { } [ ] ( ) ; , : = . < > + - * and := ... -> */
};

struct tsdl_token {
	enum tsdl_tok kind;
	const char *start;   /* in the source text */
	size_t len;
	uint32_t line, col;
	uint64_t value;      /* TOK_INT, TOK_CHAR */
	char *str;           /* TOK_STRING / TOK_IDENT: decoded, NUL-terminated (lexer-owned) */
	char punct[4];       /* TOK_PUNCT */
};

struct tsdl_lexer {
	const char *text, *p, *end;
	const char *name;    /* file name for errors */
	uint32_t line;
	const char *line_start;
	struct tsdl_token tok;     /* current token */
	char *buf;                 /* decoded string storage */
	size_t buf_cap;
};

void tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len, const char *name);
void tsdl_lex_fini(struct tsdl_lexer *lx);
/* Advances to the next token; TMX_OK or a TMX_ERR_METADATA error. */
int tsdl_lex_next(struct tsdl_lexer *lx, struct tmx_error *err);

/*
 * TSDL's reserved keywords (CTF 1.8 section C.1.2, plus `callsite`, which
 * babeltrace2's lexer reserves too).  The C type words (`int`, `unsigned`,
 * `const`...) may still make up a typealias name (`:= unsigned long`); the
 * others name nothing.
 */
enum tsdl_keyword { TSDL_NOT_KEYWORD, TSDL_KW_C_TYPE, TSDL_KW_CTF };
enum tsdl_keyword tsdl_keyword(const char *s);
/* Whether the next token after the current one is `=` (not `:=`). */
bool tsdl_lex_next_is_equal(const struct tsdl_lexer *lx);

static inline bool tsdl_is_punct(const struct tsdl_token *t, const char *p)
{
	return t->kind == TOK_PUNCT && t->punct[0] == p[0] && !__builtin_strcmp(t->punct, p);
}

static inline bool tsdl_is_ident(const struct tsdl_token *t, const char *s)
{
	return t->kind == TOK_IDENT && !__builtin_strcmp(t->str, s);
}

#endif
