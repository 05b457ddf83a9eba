/* parse.c: recursive descent parser for .dpia files (spec section 2).
 *
 * One function per grammar rule, the rule in a comment above it.  Binary
 * operators are parsed by precedence climbing over one table (binary_ops),
 * loosest first as spec section 2 lists them:
 *   lambda and let bodies extend as far right as possible;
 *   ';' (right associative); ':=' (non-associative: `a := b := c` is an
 *   error); '|>' (left); '>>' (left); '||'; '&&'; comparisons
 *   (non-associative: `a < b < c` is an error, not a silent (a < b) < c);
 *   '+ -'; '* / %'; unary '-' and '!'; application (left); '.1 .2' postfix.
 * A lambda or let may also stand where an operand or the last argument of an
 * application is expected (`f \x -> x + 1` is f (\x -> (x + 1))): its body
 * then takes the rest of the expression, as the rule above says.
 *
 * Errors.  A syntax error is reported at the offending token ("expected ')'
 * after ..., found 'x'", or at the end of the file), then the declaration is
 * abandoned: the current token is replaced by end-of-file, so every parse
 * function unwinds without reporting anything more, and parsing resumes at
 * the next top-level `def` or `kernel` (no expression contains those
 * keywords).  A primitive's name used as a binder is handled the same way
 * (check_binder).  So independent errors in different declarations are all
 * reported and one error never cascades.  A syntax error at a token that
 * directly follows a lexical error is not reported: the skipped character
 * is the likely cause and has its own message.
 *
 * Limits (ast.h, DPIA_MAX_NESTING).  Every construct that makes the parser
 * recurse (parentheses, brackets, braces, lambda and let bodies, unary
 * operators, the right operand of ';', the result of '->') counts one level;
 * the deepest allowed is DPIA_MAX_NESTING, so no input can exhaust the
 * stack.  Left-associative chains (a + b + c, f x y z, x |> f |> g) are
 * parsed by loops but still build trees as deep as they are long, so every
 * declaration's tree is measured afterwards (tree_depth.c, without
 * recursion) and rejected if any node has more than DPIA_MAX_NESTING
 * ancestors: later passes, which recurse over the tree, can rely on that. */
#include "parse_int.h"

#include <string.h>

enum Prec {
  PREC_SEQ = 1,
  PREC_ASSIGN,
  PREC_PIPE,
  PREC_COMPOSE,
  PREC_OR,
  PREC_AND,
  PREC_CMP,
  PREC_ADD,
  PREC_MUL,
};

typedef enum Assoc { ASSOC_LEFT, ASSOC_NONE } Assoc;

typedef struct BinaryOp {
  TokKind tok;
  int prec;
  Assoc assoc;
  AstKind kind; /* AST_BINOP, AST_ASSIGN, AST_COMPOSE, or AST_APP for |> */
  BinOp op;     /* AST_BINOP */
} BinaryOp;

/* ';' is not here: it is right associative and parsed by parse_expr.
 * X(token, precedence, associativity, node kind, BinOp) */
#define DPIA_BINARY_OPS(X)                                                                                             \
  X(ASSIGN, PREC_ASSIGN, ASSOC_NONE, AST_ASSIGN, BIN_COUNT)                                                            \
  X(PIPE, PREC_PIPE, ASSOC_LEFT, AST_APP, BIN_COUNT)                                                                   \
  X(COMPOSE, PREC_COMPOSE, ASSOC_LEFT, AST_COMPOSE, BIN_COUNT)                                                         \
  X(OROR, PREC_OR, ASSOC_LEFT, AST_BINOP, BIN_OR)                                                                      \
  X(ANDAND, PREC_AND, ASSOC_LEFT, AST_BINOP, BIN_AND)                                                                  \
  X(LT, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_LT)                                                                       \
  X(LE, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_LE)                                                                       \
  X(GT, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_GT)                                                                       \
  X(GE, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_GE)                                                                       \
  X(EQEQ, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_EQ)                                                                     \
  X(NE, PREC_CMP, ASSOC_NONE, AST_BINOP, BIN_NE)                                                                       \
  X(PLUS, PREC_ADD, ASSOC_LEFT, AST_BINOP, BIN_ADD)                                                                    \
  X(MINUS, PREC_ADD, ASSOC_LEFT, AST_BINOP, BIN_SUB)                                                                   \
  X(STAR, PREC_MUL, ASSOC_LEFT, AST_BINOP, BIN_MUL)                                                                    \
  X(SLASH, PREC_MUL, ASSOC_LEFT, AST_BINOP, BIN_DIV)                                                                   \
  X(PERCENT, PREC_MUL, ASSOC_LEFT, AST_BINOP, BIN_MOD)

enum BinaryOpRow {
#define X(tok, prec, assoc, kind, op) BINARY_ROW_##tok,
  DPIA_BINARY_OPS(X)
#undef X
};

static const BinaryOp binary_ops[] = {
#define X(tok, prec, assoc, kind, op) [BINARY_ROW_##tok] = {TOK_##tok, prec, assoc, kind, op},
    DPIA_BINARY_OPS(X)
#undef X
};

/* binary_ops' row of each token, 1-based (0: no binary operator), made
 * from the same list, so that the operator loop, which asks at every
 * operand's end, reads one entry instead of scanning the rows
 * (translation throughput) */
static const unsigned char binary_op_row[TOK_COUNT] = {
#define X(tok, prec, assoc, kind, op) [TOK_##tok] = BINARY_ROW_##tok + 1,
    DPIA_BINARY_OPS(X)
#undef X
};

/* parse_expr starts the climb at any binary operator: none is looser
 * than PREC_ASSIGN */
#define X(tok, prec, assoc, kind, op) _Static_assert((prec) >= PREC_ASSIGN, "binary operator looser than PREC_ASSIGN");
DPIA_BINARY_OPS(X)
#undef X

static const BinaryOp *binary_op_of(TokKind kind) {
  unsigned row = binary_op_row[kind];
  return row ? &binary_ops[row - 1] : NULL;
}

/* ---- tokens ---- */

Span parser_span_from(const Parser *p, uint32_t begin) {
  Span s = {p->src, begin, p->prev.end};
  /* a node made before its last token is read (its span is set again once
   * it is), or a placeholder after a failure */
  if (s.end < begin) s.end = begin;
  return s;
}

const char *parser_text_of(const Parser *p, Span s) { return p->src->text + s.begin; }
int parser_length_of(Span s) { return (int)(s.end - s.begin); }

/* The current token as an error message quotes it (a very long
 * identifier or number cut short). */
static void describe_token(const Parser *p, Buf *b, const Token *t) {
  enum { MAX_QUOTED = 40 };
  int len = parser_length_of(t->span);
  if (t->kind == TOK_EOF) buf_puts(b, "end of file");
  else if (len > MAX_QUOTED) emit(b, "'%.*s...'", MAX_QUOTED, parser_text_of(p, t->span));
  else emit(b, "'%.*s'", len, parser_text_of(p, t->span));
}

/* ---- errors ---- */

/* Report a syntax error (at the current token, or for the nesting limit at
 * the token that opened one level too many) and abandon the declaration
 * (see the comment at the top).  The report is skipped when the token
 * directly follows a lexical error. */
static void abandon(Parser *p) {
  p->failed = true;
  p->resume = p->tok;
  p->tok.kind = TOK_EOF;
}

void parser_fail_at(Parser *p, DiagCode code, Span at_span, const char *message) {
  if (p->failed) return;
  if (!p->tok_after_lex_error) {
    diag_error(p->diag, code, at_span, "%s", message);
    p->error_reported = true;
  }
  abandon(p);
}

/* At the end of the file the error points just after the last token, on a
 * line that shows what is unfinished, rather than past trailing blank lines
 * and comments. */
void parser_fail(Parser *p, DiagCode code, const char *message) {
  Span at_span = p->tok.span;
  if (p->tok.kind == TOK_EOF && p->prev.end > 0) at_span.begin = at_span.end = p->prev.end;
  parser_fail_at(p, code, at_span, message);
}

/* "expected <head><what>, found <current token>".  Messages are only
 * formatted here, on failure: the parse of a correct program formats none. */
static void vexpected(Parser *p, const char *head, const char *fmt, va_list ap) {
  if (p->failed) return;
  Buf msg;
  buf_init(&msg, p->arena);
  buf_puts(&msg, "expected ");
  buf_puts(&msg, head);
  vemit(&msg, fmt, ap);
  buf_puts(&msg, ", found ");
  describe_token(p, &msg, &p->tok);
  parser_fail(p, ERR_UNEXPECTED_TOKEN, msg.data);
}

void parser_expected(Parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vexpected(p, "", fmt, ap);
  va_end(ap);
}

/* A syntax error whose message is complete as given. */
void parser_syntax_error(Parser *p, DiagCode code, const char *fmt, ...) {
  if (p->failed) return;
  Buf msg;
  buf_init(&msg, p->arena);
  va_list ap;
  va_start(ap, fmt);
  vemit(&msg, fmt, ap);
  va_end(ap);
  parser_fail(p, code, msg.data);
}

/* A note on the error just reported, pointing at the bracket it leaves
 * open.  Only for an error this very check reported: a failure deeper down
 * has unwound to here and says nothing about this bracket. */
static void note_opener(Parser *p, bool failed_before, Span opener) {
  if (!failed_before && p->failed && p->error_reported)
    diag_note(p->diag, opener, "to match this '%.*s'", parser_length_of(opener), parser_text_of(p, opener));
}

/* Consume a token of the given kind, or report "expected 'k' after <after>". */
static bool vexpect(Parser *p, TokKind kind, const char *after_fmt, va_list ap) {
  if (parser_at(p, kind)) {
    parser_advance(p);
    return true;
  }
  Buf head;
  buf_init(&head, p->arena);
  emit(&head, "'%s' after ", tok_spelling[kind]);
  vexpected(p, head.data, after_fmt, ap);
  return false;
}

bool parser_expect_report(Parser *p, TokKind kind, const char *after_fmt, ...) {
  va_list ap;
  va_start(ap, after_fmt);
  bool ok = vexpect(p, kind, after_fmt, ap);
  va_end(ap);
  return ok;
}

/* Consume the closing bracket of `opener`, or report and point at both. */
bool parser_expect_closer_report(Parser *p, TokKind closer, Span opener, const char *after_fmt, ...) {
  bool failed_before = p->failed;
  va_list ap;
  va_start(ap, after_fmt);
  bool ok = vexpect(p, closer, after_fmt, ap);
  va_end(ap);
  if (!ok) note_opener(p, failed_before, opener);
  return ok;
}

/* Enter one level of nesting, opened by the token just consumed; false
 * (after the one error, which points at that token) past the limit. */
static bool enter(Parser *p) {
  if (p->depth >= p->max_depth) {
    Buf msg;
    buf_init(&msg, p->arena);
    emit(&msg, "nesting too deep (more than %d levels)", p->max_depth);
    p->diag->limit_hit = true;
    parser_fail_at(p, ERR_TOO_DEEP, p->prev, msg.data);
    return false;
  }
  p->depth++;
  return true;
}

static void leave(Parser *p) {
  ASSERT(p->depth > 0);
  p->depth--;
}

/* A user error that does not disturb the parse (the tree stays usable to
 * find further errors, but diag->nerrors marks the program unusable). */
void parser_report(Parser *p, DiagCode code, Span at_span, const char *fmt, ...) {
  if (p->failed) return;
  Buf msg;
  buf_init(&msg, p->arena);
  va_list ap;
  va_start(ap, fmt);
  vemit(&msg, fmt, ap);
  va_end(ap);
  diag_error(p->diag, code, at_span, "%s", msg.data);
}

/* prims.h: primitive names are reserved and cannot be rebound.  The error
 * abandons the declaration, as a syntax error does: the binder's uses would
 * still parse as the primitive (`vec * x` as `vec` missing its size
 * argument) and each would cascade into an error about text that is right
 * once the name is changed. */
void parser_check_binder(Parser *p) {
  if (p->tok.kind != TOK_IDENT || p->tok.prim == PRIM_COUNT || p->failed) return;
  parser_report(p, ERR_PRIMITIVE_REBOUND, p->tok.span, "'%s' is a primitive and cannot be rebound", parser_ident(p));
  p->error_reported = true;
  abandon(p);
}

/* ---- nodes ---- */

static DPIA_ALWAYS_INLINE Ast *new_ast(Parser *p, AstKind kind, uint32_t begin) {
  Ast *e = NEW(p->arena, Ast);
  p->nodes++;
  e->kind = kind;
  e->span = parser_span_from(p, begin);
  return e;
}

/* Stands for a phrase that failed to parse; never leaves the parser, since
 * a failed declaration is dropped. */
static Ast *placeholder(Parser *p) {
  Ast *e = new_ast(p, AST_VAR, p->tok.span.begin);
  e->name = p->error_name;
  return e;
}

static DPIA_ALWAYS_INLINE TypeAst *new_type(Parser *p, TypeAstKind kind, uint32_t begin) {
  TypeAst *t = NEW(p->arena, TypeAst);
  p->nodes++;
  t->kind = kind;
  t->span = parser_span_from(p, begin);
  t->vec_width = 1;
  return t;
}

static DPIA_ALWAYS_INLINE SizeAst *new_size(Parser *p, SizeAstKind kind, uint32_t begin) {
  SizeAst *s = NEW(p->arena, SizeAst);
  p->nodes++;
  s->kind = kind;
  s->span = parser_span_from(p, begin);
  return s;
}

/* The value of the current INT token, reporting one that does not fit. */
uint64_t parser_int_literal(Parser *p) {
  if (p->tok.int_overflow) parser_report(p, ERR_BAD_LITERAL, p->tok.span, "integer literal too large");
  uint64_t v = p->tok.int_overflow ? 0 : p->tok.int_value;
  parser_advance(p);
  return v;
}

/* ---- sizes (spec section 2, `nat`) ---- */

/* ceil '(' nat '/' nat ')' | floor '(' nat '/' nat ')', after the name:
 * the argument must be a division, whose quotient is rounded. */
static SizeAst *parse_size_rounding(Parser *p, uint32_t begin, Sym name, bool is_ceil) {
  Span open = p->tok.span;
  parser_advance(p);
  if (!enter(p)) return new_size(p, SZA_NUM, begin);
  SizeAst *inner = parse_size(p);
  parser_expect_closer(p, TOK_RPAREN, open, "the size expression");
  leave(p);
  if (inner->kind != SZA_DIV) {
    parser_report(p, ERR_UNEXPECTED_TOKEN, inner->span, "%s of a size takes a division: %s(N / k)", name, name);
    return inner;
  }
  SizeAst *s = new_size(p, is_ceil ? SZA_CEIL : SZA_FLOOR, begin);
  s->lhs = inner->lhs;
  s->rhs = inner->rhs;
  return s;
}

/* nat_atom ::= INT | IDENT | '(' nat ')'
 * `prim` is the primitive whose static argument `arg` this is, or NULL
 * inside a size expression; it only shapes the error message. */
static SizeAst *parse_size_atom(Parser *p, const PrimInfo *prim, int arg) {
  uint32_t begin = p->tok.span.begin;
  if (parser_at(p, TOK_INT)) {
    uint64_t v = parser_int_literal(p);
    SizeAst *s = new_size(p, SZA_NUM, begin);
    s->num = v;
    return s;
  }
  if (parser_at(p, TOK_IDENT)) {
    Sym name = parser_ident(p);
    parser_advance(p);
    /* ceil(a / b) and floor(a / b) inside a size (as a primitive's size
     * argument they go in parentheses: `split ceil (xs)` would read an
     * argument as the call) */
    bool is_ceil = strcmp(name, prim_info[PRIM_CEIL].name) == 0,
         is_floor = strcmp(name, prim_info[PRIM_FLOOR].name) == 0;
    if (!prim && (is_ceil || is_floor) && parser_at(p, TOK_LPAREN)) return parse_size_rounding(p, begin, name, is_ceil);
    SizeAst *s = new_size(p, SZA_VAR, begin);
    s->name = name;
    return s;
  }
  if (parser_at(p, TOK_LPAREN)) {
    Span open = p->tok.span;
    parser_advance(p);
    if (!enter(p)) return new_size(p, SZA_NUM, begin);
    SizeAst *inner = parse_size(p);
    parser_expect_closer(p, TOK_RPAREN, open, "the size expression");
    leave(p);
    return inner;
  }
  static const char *const what =
      "(an integer, a nat parameter or a parenthesised size expression)";
  if (!prim) parser_expected(p, "a size %s", what);
  else if (prim->nsizes == 1) parser_expected(p, "a size argument after '%s' %s", prim->name, what);
  else parser_expected(p, "size argument %d of '%s' %s", arg + 1, prim->name, what);
  return new_size(p, SZA_NUM, begin);
}

/* nat_term ::= nat_atom (('*' | '/' | '%') nat_atom)*     -- left associative */
static SizeAst *parse_size_term(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  SizeAst *lhs = parse_size_atom(p, NULL, 0);
  while (parser_at(p, TOK_STAR) || parser_at(p, TOK_SLASH) || parser_at(p, TOK_PERCENT)) {
    SizeAstKind kind = parser_at(p, TOK_STAR) ? SZA_MUL : parser_at(p, TOK_SLASH) ? SZA_DIV : SZA_MOD;
    parser_advance(p);
    SizeAst *rhs = parse_size_atom(p, NULL, 0);
    SizeAst *s = new_size(p, kind, begin);
    s->lhs = lhs;
    s->rhs = rhs;
    lhs = s;
  }
  return lhs;
}

/* nat ::= nat_term (('+' | '-') nat_term)*          -- left associative */
SizeAst *parse_size(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  SizeAst *lhs = parse_size_term(p);
  while (parser_at(p, TOK_PLUS) || parser_at(p, TOK_MINUS)) {
    SizeAstKind kind = parser_at(p, TOK_PLUS) ? SZA_ADD : SZA_SUB;
    parser_advance(p);
    SizeAst *rhs = parse_size_term(p);
    SizeAst *s = new_size(p, kind, begin);
    s->lhs = lhs;
    s->rhs = rhs;
    lhs = s;
  }
  return lhs;
}

/* ---- types (spec section 2, `type` and `ptype`; section 3) ---- */

static bool is_data_type(const TypeAst *t) {
  return t->kind == TYA_SCALAR || t->kind == TYA_ARRAY || t->kind == TYA_DEPARRAY || t->kind == TYA_PAIR ||
         t->kind == TYA_IDX || t->kind == TYA_NAMED;
}

static bool is_phrase_type_word(Sym name) {
  return parser_name_is(name, "exp") || parser_name_is(name, "acc") || parser_name_is(name, "var") ||
         parser_name_is(name, "comm");
}

/* scalar VEC: int float double bool, then nothing or a width 2 3 4 8 16.
 * Returns false if the name is not a scalar or vector type name at all. */
static bool parse_scalar_name(Parser *p, Sym name, Span at_span, TypeAst *t) {
  static const struct {
    const char *word;
    ScalarKind kind;
  } scalars[] = {{"int", SC_INT}, {"float", SC_FLOAT}, {"double", SC_DOUBLE}, {"bool", SC_BOOL}};
  for (size_t i = 0; i < DPIA_COUNTOF(scalars); i++) {
    if (name[0] != scalars[i].word[0]) continue; /* (no two begin alike) */
    size_t n = strlen(scalars[i].word);
    if (strncmp(name, scalars[i].word, n) != 0) continue;
    const char *width = name + n;
    if (*width == '\0') {
      t->scalar = scalars[i].kind;
      t->vec_width = 1;
      return true;
    }
    for (const char *c = width; *c; c++)
      if (*c < '0' || *c > '9') return false; /* `integer`, `float4x`: a data parameter */
    t->scalar = scalars[i].kind;
    t->vec_width = 1;
    if (scalars[i].kind == SC_BOOL) {
      parser_report(p, ERR_BAD_TYPE_SYNTAX, at_span, "there are no bool vectors ('%s'); vectors are int, float or double",
             name);
      return true;
    }
    if (strcmp(width, "2") == 0 || strcmp(width, "3") == 0 || strcmp(width, "4") == 0 ||
        strcmp(width, "8") == 0 || strcmp(width, "16") == 0) {
      t->vec_width = width[0] == '1' ? 16 : width[0] - '0';
      return true;
    }
    parser_report(p, ERR_BAD_TYPE_SYNTAX, at_span, "'%s' is not a vector type: vector widths are 2, 3, 4, 8 and 16", name);
    return true;
  }
  return false;
}

/* type ::= scalar | scalar VEC | '[' nat ']' type | '(' type ',' type ')'
 *        | 'idx' '[' nat ']' | IDENT
 * (also '(' type ')', harmlessly).  The error message says what was
 * expected: "a data type after '<after>'" when `after` is given (new, exp[),
 * else `context`. */
static TypeAst *parse_paren_type(Parser *p, SizeAst *size, uint32_t begin);
static TypeAst *parse_named_type(Parser *p, uint32_t begin);

static TypeAst *parse_data_type(Parser *p, const char *context, const char *after) {
  uint32_t begin = p->tok.span.begin;
  if (parser_at(p, TOK_LBRACKET)) {
    Span open = p->tok.span;
    parser_advance(p);
    if (!enter(p)) return new_type(p, TYA_COMM, begin);
    SizeAst *size = parse_size(p);
    parser_expect_closer(p, TOK_RBRACKET, open, "the array size");
    /* [n](\i -> elem): the parenthesised element may be a function of the
     * index (a dependent array) */
    if (parser_at(p, TOK_LPAREN)) {
      TypeAst *t = parse_paren_type(p, size, begin);
      leave(p);
      if (t->kind == TYA_DEPARRAY) return t;
      TypeAst *arr = new_type(p, TYA_ARRAY, begin);
      arr->size = size;
      arr->elem = t;
      return arr;
    }
    TypeAst *elem = parse_data_type(p, "the element type of the array", NULL);
    leave(p);
    TypeAst *t = new_type(p, TYA_ARRAY, begin);
    t->size = size;
    t->elem = elem;
    return t;
  }
  if (parser_at(p, TOK_LPAREN)) return parse_paren_type(p, NULL, begin);
  if (!parser_at(p, TOK_IDENT)) {
    if (after) parser_expected(p, "a data type after '%s'", after);
    else parser_expected(p, "%s", context);
    return new_type(p, TYA_COMM, begin);
  }
  return parse_named_type(p, begin);
}

/* The rest of a parenthesised type after its first type, first: ', b)'
 * makes the pair of the two (begun at begin), ')' gives first back; the
 * parenthesis entered at open is left either way. */
static TypeAst *paren_type_rest(Parser *p, TypeAst *first, Span open, uint32_t begin) {
  if (parser_at(p, TOK_COMMA)) {
    parser_advance(p);
    TypeAst *snd = parse_data_type(p, "the second type of the pair", NULL);
    parser_expect_closer(p, TOK_RPAREN, open, "the second type of the pair");
    leave(p);
    TypeAst *t = new_type(p, TYA_PAIR, begin);
    t->fst = first;
    t->snd = snd;
    return t;
  }
  parser_expect_closer(p, TOK_RPAREN, open, "the type");
  leave(p);
  return first;
}

/* '(' type ',' type ')' | '(' type ')', and after the size of an array
 * (size not NULL) also '(' '\' IDENT '->' type ')': the element type as a
 * function of the index, [n](\i -> [n - i]float) (docs/language.md
 * section 30).  begin is where the whole type began. */
static TypeAst *parse_paren_type(Parser *p, SizeAst *size, uint32_t begin) {
  uint32_t paren_begin = p->tok.span.begin;
  Span open = p->tok.span;
  parser_advance(p);
  if (!enter(p)) return new_type(p, TYA_COMM, begin);
  if (parser_at(p, TOK_LAMBDA)) {
    if (!size)
      parser_syntax_error(p, ERR_BAD_TYPE_SYNTAX,
                   "an element type that depends on an index, (\\i -> ...), is written right after an array's "
                   "size: [n](\\i -> [n - i]float)");
    parser_advance(p);
    TypeAst *t = new_type(p, TYA_DEPARRAY, begin);
    t->size = size;
    t->name = parser_ident(p);
    t->name_span = p->tok.span;
    parser_check_binder(p);
    parser_expect(p, TOK_IDENT, "'\\' in a dependent array's element type");
    parser_expect(p, TOK_ARROW, "the index of a dependent array");
    t->elem = parse_data_type(p, NULL, "->");
    parser_expect_closer(p, TOK_RPAREN, open, "the element type of the dependent array");
    leave(p);
    t->span.end = p->prev.end;
    return t;
  }
  return paren_type_rest(p, parse_data_type(p, NULL, "("), open, paren_begin);
}

/* the types that start with a name: idx[n], scalars and vectors, data
 * parameters (and the kinds and phrase type words, refused here) */
static TypeAst *parse_named_type(Parser *p, uint32_t begin) {
  Sym name = parser_ident(p);
  Span name_span = p->tok.span;
  if (parser_name_is(name, "idx")) {
    parser_advance(p);
    Span open = p->tok.span;
    parser_expect(p, TOK_LBRACKET, "'idx'");
    SizeAst *size = parse_size(p);
    parser_expect_closer(p, TOK_RBRACKET, open, "the size of the index type");
    TypeAst *t = new_type(p, TYA_IDX, begin);
    t->size = size;
    return t;
  }
  if (parser_name_is(name, "nat") || parser_name_is(name, "data")) {
    parser_syntax_error(p, ERR_BAD_TYPE_SYNTAX, "'%s' is a kind, not a type; it can only follow the ':' of a parameter", name);
    return new_type(p, TYA_COMM, begin);
  }
  if (is_phrase_type_word(name)) {
    parser_syntax_error(p, ERR_PHRASE_TYPE_AS_DATA, "'%s' is a phrase type, but a data type is expected here", name);
    return new_type(p, TYA_COMM, begin);
  }
  parser_advance(p);
  TypeAst *t = new_type(p, TYA_SCALAR, begin);
  if (!parse_scalar_name(p, name, name_span, t)) {
    t->kind = TYA_NAMED;
    t->name = name;
  }
  return t;
}

/* ptype_atom ::= 'exp' '[' type ']' | 'acc' '[' type ']' | 'var' '[' type ']'
 *              | 'comm' | '(' ptype ')' | '(' type ',' type ')' | type */
static TypeAst *parse_ptype_atom(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  if (parser_at(p, TOK_IDENT) && is_phrase_type_word(parser_ident(p))) {
    Sym word = parser_ident(p);
    parser_advance(p);
    if (parser_name_is(word, "comm")) return new_type(p, TYA_COMM, begin);
    TypeAstKind kind = parser_name_is(word, "exp") ? TYA_EXP : parser_name_is(word, "acc") ? TYA_ACC : TYA_VAR;
    Span open = p->tok.span;
    if (!parser_expect(p, TOK_LBRACKET, "'%s'", word)) return new_type(p, kind, begin);
    const char *opened = kind == TYA_EXP ? "exp[" : kind == TYA_ACC ? "acc[" : "var[";
    TypeAst *elem = parse_data_type(p, NULL, opened);
    parser_expect_closer(p, TOK_RBRACKET, open, "the data type of '%s'", word);
    TypeAst *t = new_type(p, kind, begin);
    t->elem = elem;
    return t;
  }
  if (parser_at(p, TOK_LPAREN)) {
    Span open = p->tok.span;
    parser_advance(p);
    if (!enter(p)) return new_type(p, TYA_COMM, begin);
    TypeAst *inner = parse_ptype(p);
    if (parser_at(p, TOK_COMMA) && !is_data_type(inner))
      parser_report(p, ERR_PHRASE_TYPE_AS_DATA, inner->span,
             "a pair '(a, b)' holds data types, but this is a phrase type; a pair of phrases "
             "is written 'a & b'");
    return paren_type_rest(p, inner, open, begin);
  }
  return parse_data_type(p, "a type", NULL);
}

/* with_type ::= ptype_atom ('&' ptype_atom)*        -- left associative,
 * binding tighter than the arrows */
static TypeAst *parse_with_type(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  TypeAst *lhs = parse_ptype_atom(p);
  while (parser_at(p, TOK_AMP)) {
    parser_advance(p);
    TypeAst *rhs = parse_ptype_atom(p);
    TypeAst *t = new_type(p, TYA_WITH, begin);
    t->fst = lhs;
    t->snd = rhs;
    lhs = t;
  }
  return lhs;
}

/* ptype ::= with_type [('->' | '->p') ptype]        -- right associative */
TypeAst *parse_ptype(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  TypeAst *lhs = parse_with_type(p);
  if (!parser_at(p, TOK_ARROW) && !parser_at(p, TOK_ARROW_P)) return lhs;
  TypeAstKind kind = parser_at(p, TOK_ARROW) ? TYA_FN : TYA_FN_P;
  parser_advance(p);
  if (!enter(p)) return lhs;
  TypeAst *rhs = parse_ptype(p);
  leave(p);
  TypeAst *t = new_type(p, kind, begin);
  t->fst = lhs;
  t->snd = rhs;
  return t;
}

/* ---- expressions ---- */

static bool starts_atom(TokKind kind) {
  switch (kind) {
  case TOK_IDENT:
  case TOK_INT:
  case TOK_FLOAT:
  case TOK_KW_TRUE:
  case TOK_KW_FALSE:
  case TOK_LPAREN:
  case TOK_LBRACE:
  case TOK_LBRACKET:
  case TOK_LAMBDA:
  case TOK_KW_LET:
  case TOK_KW_ITERATE: return true;
  default:
    return false;
  }
}

/* prim ::= PRIMNAME size_atom^nsizes ['volatile'] [type]
 * The static arguments the spec says are written (split k, slide s t,
 * for n, vec k, new T) follow the name directly (prims.h).  `newLocal
 * volatile T` is the newLocal toLocalVolatile makes, as the dumps of the
 * translation print it (docs/language.md section 32), so that they check
 * again with its buffer volatile. */
static Ast *parse_prim(Parser *p, Prim prim, int dim) {
  uint32_t begin = p->tok.span.begin;
  const PrimInfo *info = &prim_info[prim];
  bool dim_written = p->tok.dim_written;
  parser_advance(p);
  Ast *e = new_ast(p, AST_PRIM, begin);
  e->prim = prim;
  e->dim = dim;
  e->dim_written = dim_written;
  for (int i = 0; i < info->nsizes; i++) e->sizes[i] = parse_size_atom(p, info, i);
  if (prim == PRIM_NEW_LOCAL && parser_at(p, TOK_IDENT) && parser_name_is(parser_ident(p), "volatile")) {
    e->volatile_new = true;
    parser_advance(p);
  }
  if (info->takes_type) e->type_arg = parse_data_type(p, NULL, info->name);
  e->span = parser_span_from(p, begin);
  return e;
}

/* lambda ::= ('\' | 'λ') IDENT+ '->' expr
 * \a b -> e is two nested single-parameter LAMBDA nodes; the inner one's
 * text (and span) starts at its parameter. */
static Ast *parse_lambda(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  parser_advance(p);
  Ast *outer = NULL, *innermost = NULL;
  while (parser_at(p, TOK_IDENT)) {
    Ast *lam = new_ast(p, AST_LAMBDA, outer ? p->tok.span.begin : begin);
    lam->bound = parser_ident(p);
    lam->bound_span = p->tok.span;
    parser_check_binder(p);
    if (innermost) innermost->body = lam;
    else outer = lam;
    innermost = lam;
    parser_advance(p);
  }
  if (!outer) {
    if (parser_at(p, TOK_LPAREN))
      parser_syntax_error(p, ERR_BAD_PARAMETERS,
                   "lambda parameters are written without types: their types come from "
                   "the primitive the lambda is passed to");
    else
      parser_expected(p, "a parameter name after '\\'");
    return placeholder(p);
  }
  if (parser_at(p, TOK_ARROW_P)) {
    /* `\x->p` is `\x -> p`: a lambda has no passive arrow, so read the
     * lexer's `->p` as `->` followed by the variable p */
    Span arrow = p->tok.span;
    p->prev = arrow;
    p->prev.end = arrow.end - 1;
    p->tok.kind = TOK_IDENT;
    p->tok.span.begin = arrow.end - 1;
    p->tok.ident = intern(p->interner, "p", 1);
    p->tok.prim = PRIM_COUNT;
    p->tok_after_lex_error = false;
  } else if (!parser_expect(p, TOK_ARROW, "the parameters of the lambda")) {
    return placeholder(p);
  }
  if (!enter(p)) return placeholder(p);
  innermost->body = parse_expr(p);
  leave(p);
  for (Ast *lam = outer;; lam = lam->body) {
    lam->span.end = p->prev.end;
    if (lam == innermost) break;
  }
  return outer;
}

/* let ::= 'let' IDENT '=' expr 'in' expr */
static Ast *parse_let(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Span let_span = p->tok.span;
  parser_advance(p);
  if (!parser_at(p, TOK_IDENT)) {
    parser_expected(p, "a name after 'let'");
    return placeholder(p);
  }
  Sym name = parser_ident(p);
  Span name_span = p->tok.span;
  parser_check_binder(p);
  parser_advance(p);
  if (!parser_expect(p, TOK_EQ, "'let %s'", name)) return placeholder(p);
  if (!enter(p)) return placeholder(p);
  Ast *value = parse_expr(p);
  bool failed_before = p->failed;
  if (!parser_expect(p, TOK_KW_IN, "the value of '%s'", name)) {
    if (!failed_before && p->error_reported)
      diag_note(p->diag, let_span, "'%s' is bound by this 'let'", name);
    leave(p);
    return placeholder(p);
  }
  Ast *body = parse_expr(p);
  leave(p);
  Ast *e = new_ast(p, AST_LET, begin);
  e->bound = name;
  e->bound_span = name_span;
  e->value = value;
  e->body = body;
  return e;
}

/* paren ::= '(' expr ')' | '(' expr ',' expr ')' | '(' expr ':' ptype ')' */
static Ast *parse_paren(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Span open = p->tok.span;
  parser_advance(p);
  if (!enter(p)) return placeholder(p);
  Ast *first = parse_expr(p);
  Ast *e = first;
  if (parser_at(p, TOK_COMMA)) {
    parser_advance(p);
    Ast *second = parse_expr(p);
    if (parser_at(p, TOK_COMMA)) {
      parser_syntax_error(p, ERR_PAIR_ARITY, "a pair has exactly two components; nest pairs as (a, (b, c))");
      note_opener(p, false, open);
    } else {
      parser_expect_closer(p, TOK_RPAREN, open, "the second component of the pair");
    }
    e = new_ast(p, AST_TUPLE, begin);
    e->lhs = first;
    e->rhs = second;
  } else if (parser_at(p, TOK_COLON)) {
    parser_advance(p);
    TypeAst *type = parse_ptype(p);
    parser_expect_closer(p, TOK_RPAREN, open, "the type of the ascription");
    e = new_ast(p, AST_ASCRIBE, begin);
    e->lhs = first;
    e->type = type;
  } else {
    parser_expect_closer(p, TOK_RPAREN, open, "the parenthesised expression");
  }
  leave(p);
  return e;
}

/* ppair ::= '{' expr ',' expr '}' */
static Ast *parse_phrase_pair(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Span open = p->tok.span;
  parser_advance(p);
  if (!enter(p)) return placeholder(p);
  Ast *first = parse_expr(p);
  bool failed_before = p->failed;
  if (!parser_expect(p, TOK_COMMA, "the first component of the phrase pair '{a, b}'")) {
    note_opener(p, failed_before, open);
    leave(p);
    return placeholder(p);
  }
  Ast *second = parse_expr(p);
  parser_expect_closer(p, TOK_RBRACE, open, "the second component of the phrase pair");
  leave(p);
  Ast *e = new_ast(p, AST_PPAIR, begin);
  e->lhs = first;
  e->rhs = second;
  return e;
}

/* array ::= '[' expr (',' expr)* ']'   (docs/language.md section 13) */
static Ast *parse_array(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Span open = p->tok.span;
  parser_advance(p);
  if (!enter(p)) return placeholder(p);
  if (parser_at(p, TOK_RBRACKET)) {
    Span empty = {p->src, begin, p->tok.span.end};
    parser_fail_at(p, ERR_EMPTY_ARRAY_LITERAL, empty,
            "an array literal needs at least one element (its element type and size come from them)");
    leave(p);
    return placeholder(p);
  }
  Vec elems = {0};
  for (;;) {
    vec_push(p->arena, &elems, parse_expr(p));
    if (!parser_at(p, TOK_COMMA)) break;
    parser_advance(p);
  }
  parser_expect_closer(p, TOK_RBRACKET, open, "the elements of the array literal");
  leave(p);
  Ast *e = new_ast(p, AST_ARRAY, begin);
  e->nelems = elems.len;
  e->elems = NEWARRAY(p->arena, Ast *, elems.len);
  for (int i = 0; i < elems.len; i++) e->elems[i] = elems.items[i];
  return e;
}

static Ast *parse_postfix(Parser *p);

/* iterate ::= 'iterate' size_atom postfix   -- the count, then the function */
static Ast *parse_iterate(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  parser_advance(p);
  Ast *e = new_ast(p, AST_ITERATE, begin);
  e->count = parse_size_atom(p, NULL, 0);
  if (!enter(p)) return placeholder(p);
  if (starts_atom(p->tok.kind))
    e->iter_fn = parse_postfix(p);
  else
    parser_expected(p, "the function to iterate after 'iterate %.*s'", parser_length_of(p->prev), parser_text_of(p, p->prev));
  leave(p);
  if (!e->iter_fn) return placeholder(p);
  e->span = parser_span_from(p, begin);
  return e;
}

/* atom ::= IDENT | prim | INT | FLOAT | 'true' | 'false'
 *        | paren | ppair | array | lambda | let | iterate */
static Ast *parse_atom(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  switch (p->tok.kind) {
  case TOK_IDENT: {
    if (p->tok.prim != PRIM_COUNT) return parse_prim(p, (Prim)p->tok.prim, p->tok.dim);
    Sym name = p->tok.ident; /* no primitive's: interned */
    parser_advance(p);
    Ast *e = new_ast(p, AST_VAR, begin);
    e->name = name;
    return e;
  }
  case TOK_INT: {
    uint64_t v = parser_int_literal(p);
    Ast *e = new_ast(p, AST_INT, begin);
    e->int_value = v;
    return e;
  }
  case TOK_FLOAT: {
    double v = p->tok.float_value;
    bool suffix_f = p->tok.float_suffix_f;
    parser_advance(p);
    Ast *e = new_ast(p, AST_FLOAT, begin);
    e->float_value = v;
    e->float_suffix_f = suffix_f;
    return e;
  }
  case TOK_KW_TRUE:
  case TOK_KW_FALSE: {
    bool v = parser_at(p, TOK_KW_TRUE);
    parser_advance(p);
    Ast *e = new_ast(p, AST_BOOL, begin);
    e->bool_value = v;
    return e;
  }
  case TOK_LPAREN: return parse_paren(p);
  case TOK_LBRACE: return parse_phrase_pair(p);
  case TOK_LBRACKET: return parse_array(p);
  case TOK_LAMBDA: return parse_lambda(p);
  case TOK_KW_LET: return parse_let(p);
  case TOK_KW_ITERATE: return parse_iterate(p);
  default:
    break;
  }
  if (p->prev.end > p->prev.begin)
    parser_expected(p, "an expression after '%.*s'", parser_length_of(p->prev), parser_text_of(p, p->prev));
  else
    parser_expected(p, "an expression");
  return placeholder(p);
}

/* postfix ::= atom ('.1' | '.2' | LANE)*     -- LANE: .x .y .z .w .s0 ... .sF */
static Ast *parse_postfix(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Ast *e = parse_atom(p);
  while (parser_at(p, TOK_PROJ1) || parser_at(p, TOK_PROJ2) || parser_at(p, TOK_LANE)) {
    bool lane = parser_at(p, TOK_LANE);
    int which = lane ? (int)p->tok.int_value : parser_at(p, TOK_PROJ1) ? 1 : 2;
    parser_advance(p);
    Ast *proj = new_ast(p, lane ? AST_LANE : AST_PROJ, begin);
    proj->lhs = e;
    proj->proj = which;
    e = proj;
  }
  return e;
}

/* app ::= postfix postfix*                          -- left associative */
static Ast *parse_app(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Ast *fn = parse_postfix(p);
  while (starts_atom(p->tok.kind)) {
    Ast *arg = parse_postfix(p);
    Ast *app = new_ast(p, AST_APP, begin);
    app->lhs = fn;
    app->rhs = arg;
    fn = app;
  }
  return fn;
}

/* unary ::= ('-' | '!') unary | app */
static Ast *parse_unary(Parser *p) {
  if (!parser_at(p, TOK_MINUS) && !parser_at(p, TOK_BANG)) return parse_app(p);
  uint32_t begin = p->tok.span.begin;
  AstKind kind = parser_at(p, TOK_MINUS) ? AST_NEG : AST_NOT;
  parser_advance(p);
  if (!enter(p)) return placeholder(p);
  Ast *operand = parse_unary(p);
  leave(p);
  Ast *e = new_ast(p, kind, begin);
  e->lhs = operand;
  return e;
}

static Ast *make_binary(Parser *p, const BinaryOp *op, Ast *lhs, Ast *rhs, uint32_t begin) {
  Ast *e = new_ast(p, op->kind, begin);
  e->op = op->op;
  if (op->tok == TOK_PIPE) {
    /* x |> f is f x (spec section 2): lhs is the function */
    e->lhs = rhs;
    e->rhs = lhs;
    e->pipe = true;
  } else {
    e->lhs = lhs;
    e->rhs = rhs;
  }
  return e;
}

/* binary(min) ::= unary (op unary)*  for the operators of binary_ops whose
 * precedence is at least min, by precedence climbing: the right operand of
 * an operator of precedence q is binary(q + 1), so operators of one level
 * associate to the left, and the non-associative levels refuse a second
 * operator of the same level.  parse_binary_after goes on from lhs, an
 * operand read already that began at begin; binary(q + 1) is its first
 * unary then parse_binary_after only if an operator above q follows, which
 * it would return from at once otherwise (a call level less for most
 * operands: translation throughput, issue 35). */
static Ast *parse_binary_after(Parser *p, Ast *lhs, int min_prec, uint32_t begin) {
  for (;;) {
    const BinaryOp *op = binary_op_of(p->tok.kind);
    if (!op || op->prec < min_prec) return lhs;
    parser_advance(p);
    /* the right operand, binary(q + 1): its first unary here, and the
     * climb on from it only where a tighter operator follows (most
     * operands end at one of the same level or looser: `|>` chains) */
    uint32_t rhs_begin = p->tok.span.begin;
    Ast *rhs = parse_unary(p);
    const BinaryOp *tighter = binary_op_of(p->tok.kind);
    if (tighter && tighter->prec > op->prec) rhs = parse_binary_after(p, rhs, op->prec + 1, rhs_begin);
    lhs = make_binary(p, op, lhs, rhs, begin);
    if (op->assoc != ASSOC_NONE) continue;
    const BinaryOp *next = binary_op_of(p->tok.kind);
    if (next && next->prec == op->prec) {
      if (op->prec == PREC_CMP)
        parser_syntax_error(p, ERR_CHAINED_OPERATOR,
                     "comparisons do not chain: '%s' cannot follow another comparison "
                     "without parentheses",
                     tok_spelling[next->tok]);
      else
        parser_syntax_error(p, ERR_CHAINED_OPERATOR,
                     "assignments do not chain: ':=' cannot follow another ':=' without "
                     "parentheses");
      return lhs;
    }
  }
}

/* expr ::= binary(PREC_ASSIGN) [';' expr]            -- ';' right associative
 * (lambda and let are atoms whose body is an expr, which gives them the
 * loosest precedence) */
Ast *parse_expr(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  /* binary(PREC_ASSIGN), the loosest level: the climb only where an
   * operator follows the first unary (most lambda bodies and
   * parenthesised arguments have none) */
  Ast *first = parse_unary(p);
  if (binary_op_row[p->tok.kind]) first = parse_binary_after(p, first, PREC_ASSIGN, begin);
  if (!parser_at(p, TOK_SEMI)) return first;
  parser_advance(p);
  if (!enter(p)) return first;
  Ast *rest = parse_expr(p);
  leave(p);
  Ast *e = new_ast(p, AST_SEQ, begin);
  e->lhs = first;
  e->rhs = rest;
  return e;
}

/* ---- the program ---- */

/* After a failed declaration: back to the real token stream, then on to the
 * next top-level `def` or `kernel`. */
static void resynchronise(Parser *p) {
  p->failed = false;
  p->error_reported = false;
  p->depth = 0;
  p->tok = p->resume;
  while (!parser_at(p, TOK_EOF) && !parser_at(p, TOK_KW_DEF) && !parser_at(p, TOK_KW_KERNEL) && !parser_at(p, TOK_KW_PIPELINE) &&
         !parser_at(p, TOK_KW_FOREIGN))
    parser_advance(p);
}

static void parser_init(Parser *p, Arena *a, Interner *in, Diag *diag, const Source *src, int max_nesting) {
  memset(p, 0, sizeof *p);
  p->arena = a;
  p->interner = in;
  p->diag = diag;
  p->src = src;
  p->depth_walk.arena = a;
  p->max_depth = max_nesting;
  p->error_name = intern_cstr(in, "<error>");
  lexer_init(&p->lexer, src, in, diag);
  Span start = {src, 0, 0};
  p->prev = start;
  p->tok.span = start;
  parser_advance(p);
}

TypeAst *parse_phrase_type_text(Arena *a, Interner *in, Diag *diag, const Source *src) {
  Parser parser;
  parser_init(&parser, a, in, diag, src, DPIA_MAX_NESTING);
  TypeAst *t = parse_ptype(&parser);
  if (!parser_at(&parser, TOK_EOF)) parser_expected(&parser, "the end of the type");
  return parser.failed ? NULL : t;
}

static Program *parse_program_in(Parser *p, Arena *a, Interner *in, Diag *diag, const Source *src, int max_nesting);

/* program ::= decl* */
Program *parse_program(Arena *a, Interner *in, Diag *diag, const Source *src) {
  Parser parser;
  Program *prog = parse_program_in(&parser, a, in, diag, src, diag_depth_limit(diag, DPIA_MAX_NESTING));
  /* without errors, the lexer has read the whole text: the prelude defs it
   * names are those its words spelled */
  if (diag->nerrors == 0)
    prelude_add(a, in, diag, prog, parser.lexer.prelude_unsure ? NULL : &parser.lexer.prelude_named);
  return prog;
}

Program *parse_program_deep(Arena *a, Interner *in, Diag *diag, const Source *src, int max_nesting) {
  Parser parser;
  return parse_program_in(&parser, a, in, diag, src, max_nesting);
}

static Program *parse_program_in(Parser *p, Arena *a, Interner *in, Diag *diag, const Source *src, int max_nesting) {
  Program *prog = NEW(a, Program);
  prog->src = src;
  p->lexer.prelude_unsure = true; /* (not read: an error) */
  if (src->len >= UINT32_MAX) {
    /* spans are 32-bit offsets */
    Span whole = {src, 0, 0};
    diag_error(diag, ERR_TOO_LARGE, whole, "file too large (4 GiB or more)");
    return prog;
  }
  parser_init(p, a, in, diag, src, max_nesting);
  Vec decls = {0};
  while (!parser_at(p, TOK_EOF)) {
    if (parser_at(p, TOK_KW_DEF) || parser_at(p, TOK_KW_KERNEL) || parser_at(p, TOK_KW_PIPELINE) || parser_at(p, TOK_KW_FOREIGN)) {
      uint64_t nodes_before = p->nodes;
      Decl *d = parse_decl(p);
      if (!p->failed) {
        ASSERT(d && p->depth == 0);
        /* The nodes on a path from a root of the declaration to a node at
         * depth k are k + 1 distinct nodes made by this parse (new_ast,
         * new_type, new_size: the trees are acyclic, built bottom-up),
         * so a declaration of at most max_depth + 1 nodes is within the
         * limit without the walk (translation throughput: a program's
         * whole tree walked again). */
        if (p->nodes - nodes_before <= (uint64_t)p->max_depth + 1 ||
            decl_within_depth(&p->depth_walk, p->diag, d, p->max_depth))
          vec_push(a, &decls, d);
        continue;
      }
    } else {
      parser_expected(p, "'def' or 'kernel' at the start of a declaration");
    }
    resynchronise(p);
  }
  prog->ndecls = decls.len;
  prog->decls = NEWARRAY(a, Decl *, decls.len);
  for (int i = 0; i < decls.len; i++) prog->decls[i] = decls.items[i];
  return prog;
}
