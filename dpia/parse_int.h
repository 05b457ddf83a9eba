/* parse_int.h: the parser's state and the helpers its files share
 * (parse.c: tokens, errors, sizes, types and expressions; parse_decl.c:
 * declarations).  Internal to the parser: nothing outside dpia/parse*.c
 * includes it. */
#ifndef DPIA_PARSE_INT_H
#define DPIA_PARSE_INT_H

#include "ast.h"
#include "tree_depth.h"

typedef struct Parser {
  Arena *arena;
  Interner *interner;
  Diag *diag;
  const Source *src;
  Lexer lexer;
  Token tok;              /* current token; TOK_EOF once the declaration failed */
  bool tok_after_lex_error; /* the lexer reported errors while finding tok */
  Span prev;              /* the last consumed token: nodes end at prev.end */
  int depth;              /* recursion levels, at most max_depth */
  int max_depth;          /* DPIA_MAX_NESTING (scaled), or more for generated text (parse_program_deep) */
  bool failed;            /* a syntax error abandoned the current declaration */
  bool error_reported;    /* ... and it was reported (notes may follow) */
  Token resume;           /* the real token where the declaration failed */
  Sym error_name;         /* name of the placeholder nodes built after an error */
  DepthWalk depth_walk;   /* the finished trees' depth check (tree_depth.c), reused */
  uint64_t nodes;          /* Ast, TypeAst and SizeAst nodes made (parse_program_deep) */
} Parser;

/* tokens: inline (the parser asks about and consumes every token of a
 * program; translation throughput) */
static inline void parser_advance(Parser *p) {
  if (p->failed) return; /* stay on the end-of-file that stops the parse */
  p->prev = p->tok.span;
  p->tok_after_lex_error = lexer_scan(&p->lexer, &p->tok);
}
static inline bool parser_at(const Parser *p, TokKind kind) { return p->tok.kind == kind; }
/* the current token's name (interned now if it is a primitive's: Token,
 * lexer_ident); NULL for a token of another kind */
static inline Sym parser_ident(Parser *p) { return p->tok.ident ? p->tok.ident : lexer_ident(&p->lexer, &p->tok); }
/* the span from begin to the end of the last consumed token */
Span parser_span_from(const Parser *p, uint32_t begin);
const char *parser_text_of(const Parser *p, Span s);
int parser_length_of(Span s);
/* the value of the current INT token (consumed), reporting one too large */
uint64_t parser_int_literal(Parser *p);
/* whether the interned name is the word: its length, kept by the
 * interner, then its letters, compared inline (the type words are asked
 * about at every type written: translation throughput, issue 35) */
static inline bool parser_name_is(Sym name, const char *word) {
  size_t n = strlen(word);
  return sym_info(name)->len == n && memcmp(name, word, n) == 0;
}

/* errors: a syntax error abandons the declaration (parse.c, the comment
 * at the top); parser_report does not */
void parser_fail_at(Parser *p, DiagCode code, Span at_span, const char *message);
void parser_fail(Parser *p, DiagCode code, const char *message);
void parser_expected(Parser *p, const char *fmt, ...) DPIA_PRINTF(2, 3);
void parser_syntax_error(Parser *p, DiagCode code, const char *fmt, ...) DPIA_PRINTF(3, 4);
/* parser_expect(p, kind, after_fmt, ...): consume a token of the given
 * kind, or report "expected 'k' after <after>"; parser_expect_closer(p,
 * closer, opener, after_fmt, ...): the closing bracket of opener, or the
 * report with a note at both.  The token that is there is consumed
 * inline, without the variadic call (its registers saved for the
 * message's arguments: translation throughput); p is evaluated again. */
bool parser_expect_report(Parser *p, TokKind kind, const char *after_fmt, ...) DPIA_PRINTF(3, 4);
bool parser_expect_closer_report(Parser *p, TokKind closer, Span opener, const char *after_fmt, ...) DPIA_PRINTF(4, 5);
#define parser_expect(p, kind, ...)                                                                                    \
  (parser_at((p), (kind)) ? (parser_advance(p), true) : parser_expect_report((p), (kind), __VA_ARGS__))
#define parser_expect_closer(p, closer, opener, ...)                                                                   \
  (parser_at((p), (closer)) ? (parser_advance(p), true)                                                                \
                            : parser_expect_closer_report((p), (closer), (opener), __VA_ARGS__))
void parser_report(Parser *p, DiagCode code, Span at_span, const char *fmt, ...) DPIA_PRINTF(4, 5);

/* names: primitives are reserved (prims.h): the current token, a name
 * about to be bound, is none */
void parser_check_binder(Parser *p);

/* the grammar's rules the declarations use (parse.c) */
SizeAst *parse_size(Parser *p);
TypeAst *parse_ptype(Parser *p);
Ast *parse_expr(Parser *p);

/* decl ::= 'def' ... | 'kernel' ... | 'pipeline' ... (parse_decl.c) */
Decl *parse_decl(Parser *p);

#endif
