/* ast.h: tokens and the surface syntax tree of .dpia files (spec section 2).
 *
 * This is the functional/imperative *source* tree, exactly as written (with
 * `|>` and `let` kept so messages can point at them).  The type checker
 * (check.c) elaborates it into typed phrases (phrase.h); later stages never
 * look at Ast nodes. */
#ifndef DPIA_AST_H
#define DPIA_AST_H

#include "diag.h"
#include "prims.h"

/* X(ID, "spelling") */
/* clang-format off */
#define DPIA_TOKENS(X)                         \
  X(EOF, "end of file")                        \
  X(IDENT, "identifier")                       \
  X(INT, "integer literal")                    \
  X(FLOAT, "decimal literal")                  \
  X(KW_DEF, "def")                             \
  X(KW_KERNEL, "kernel")                       \
  X(KW_PIPELINE, "pipeline")                   \
  X(KW_FOREIGN, "foreign")                     \
  X(STRING, "string literal")                  \
  X(KW_LET, "let")                             \
  X(KW_IN, "in")                               \
  X(KW_TRUE, "true")                           \
  X(KW_FALSE, "false")                         \
  X(KW_ITERATE, "iterate")                     \
  X(LPAREN, "(")                               \
  X(RPAREN, ")")                               \
  X(LBRACKET, "[")                             \
  X(RBRACKET, "]")                             \
  X(LBRACE, "{")                               \
  X(RBRACE, "}")                               \
  X(COMMA, ",")                                \
  X(COLON, ":")                                \
  X(EQ, "=")                                   \
  X(ARROW, "->")                               \
  X(ARROW_P, "->p")                            \
  X(LAMBDA, "\\")                              \
  X(PIPE, "|>")                                \
  X(COMPOSE, ">>")                             \
  X(SEMI, ";")                                 \
  X(ASSIGN, ":=")                              \
  X(PLUS, "+")                                 \
  X(MINUS, "-")                                \
  X(STAR, "*")                                 \
  X(SLASH, "/")                                \
  X(PERCENT, "%")                              \
  X(LT, "<")                                   \
  X(LE, "<=")                                  \
  X(GT, ">")                                   \
  X(GE, ">=")                                  \
  X(EQEQ, "==")                                \
  X(NE, "!=")                                  \
  X(ANDAND, "&&")                              \
  X(OROR, "||")                                \
  X(BANG, "!")                                 \
  X(AMP, "&")                                  \
  X(DOTDOT, "..")                              \
  X(PROJ1, ".1")                               \
  X(PROJ2, ".2")                               \
  X(LANE, "vector lane") /* .x .y .z .w .s0 ... .sF: int_value is the lane */
/* clang-format on */

typedef enum TokKind {
#define X(id, s) TOK_##id,
  DPIA_TOKENS(X)
#undef X
  TOK_COUNT
} TokKind;

extern const char *const tok_spelling[TOK_COUNT];

typedef struct Token {
  TokKind kind;
  uint32_t hash; /* TOK_IDENT: the interner's hash of the name (lexer_ident) */
  Span span;
  /* TOK_IDENT: the interned name, but NULL for a primitive's until
   * lexer_ident is asked (the parser needs only the primitive of most:
   * translation throughput) */
  Sym ident;
  /* TOK_IDENT: the primitive the name spells (PRIM_COUNT: none), with its
   * dimension suffix (mapGlobal1: dim 1, dim_written), found by the lexer
   * in its table of reserved names (lex.c) */
  uint16_t prim;
  uint8_t dim;
  bool dim_written;
  bool int_overflow;   /* TOK_INT: the literal does not fit 64 bits */
  bool float_suffix_f; /* TOK_FLOAT: 1.5f */
  /* set for their kinds only */
  union {
    uint64_t int_value;    /* TOK_INT (UINT64_MAX if int_overflow); TOK_LANE: the lane */
    double float_value;    /* TOK_FLOAT */
    const char *str_value; /* TOK_STRING: the text with \" and \\ unescaped, NUL-terminated */
  };
} Token;

/* ---- sizes in source form (`nat` in the grammar) ---- */
/* SZA_DIV is exact division (the checker requires that it divide);
 * SZA_MOD is lhs % rhs; SZA_CEIL and SZA_FLOOR are ceil(lhs / rhs) and
 * floor(lhs / rhs), rounded (docs/reference.md, "Sizes that do not
 * divide"). */
typedef enum SizeAstKind {
  SZA_NUM, SZA_VAR, SZA_ADD, SZA_SUB, SZA_MUL, SZA_DIV, SZA_MOD, SZA_CEIL, SZA_FLOOR
} SizeAstKind;
typedef struct SizeAst SizeAst;
struct SizeAst {
  SizeAstKind kind;
  Span span;
  uint64_t num;         /* SZA_NUM (fits 64 bits; the lexer rejects more) */
  Sym name;             /* SZA_VAR */
  SizeAst *lhs, *rhs;   /* SZA_ADD .. SZA_FLOOR */
};

/* ---- types in source form (`type` and `ptype`) ---- */
typedef enum ScalarKind { SC_INT, SC_FLOAT, SC_DOUBLE, SC_BOOL } ScalarKind;

#define DPIA_TYPE_AST_KINDS(X)                                          \
  X(SCALAR)   /* scalar, vec_width (1 = scalar; 2 3 4 8 16 = vector) */ \
  X(ARRAY)    /* size, elem: [size]elem */                               \
  X(PAIR)     /* fst, snd: (fst, snd) */                                 \
  X(IDX)      /* size: idx[size] */                                      \
  X(DEPARRAY) /* size, name, elem: [size](\name -> elem), the element's   \
                 sizes may use the index name (language.md section 30) */ \
  X(NAMED)    /* name: a `data` parameter */                             \
  X(EXP)      /* elem: exp[elem] */                                      \
  X(ACC)      /* elem: acc[elem] */                                      \
  X(VAR)      /* elem: var[elem] = acc[elem] & exp[elem] */              \
  X(COMM)     /* comm */                                                 \
  X(WITH)     /* fst, snd: fst & snd (phrase pair) */                    \
  X(FN)       /* fst, snd: fst -> snd */                                 \
  X(FN_P)     /* fst, snd: fst ->p snd (passive function) */

typedef enum TypeAstKind {
#define X(id) TYA_##id,
  DPIA_TYPE_AST_KINDS(X)
#undef X
} TypeAstKind;

typedef struct TypeAst TypeAst;
struct TypeAst {
  TypeAstKind kind;
  Span span;
  ScalarKind scalar; /* TYA_SCALAR */
  int vec_width;     /* TYA_SCALAR: 1, or 2 3 4 8 16 */
  SizeAst *size;     /* TYA_ARRAY, TYA_DEPARRAY, TYA_IDX */
  TypeAst *elem;     /* TYA_ARRAY, TYA_DEPARRAY, TYA_EXP, TYA_ACC, TYA_VAR */
  TypeAst *fst, *snd; /* TYA_PAIR, TYA_WITH, TYA_FN, TYA_FN_P */
  Sym name;          /* TYA_NAMED; TYA_DEPARRAY: the index */
  Span name_span;    /* TYA_DEPARRAY: where the index is bound */
};

/* ---- expressions and commands ---- */
typedef enum BinOp {
  BIN_MUL, BIN_DIV, BIN_MOD, BIN_ADD, BIN_SUB,
  BIN_LT, BIN_LE, BIN_GT, BIN_GE, BIN_EQ, BIN_NE,
  BIN_AND, BIN_OR,
  BIN_COUNT
} BinOp;
extern const char *const binop_spelling[BIN_COUNT];

/* clang-format off */
#define DPIA_AST_KINDS(X)                                                        \
  X(VAR)     /* name */                                                          \
  X(INT)     /* int_value: integer literal */                                    \
  X(FLOAT)   /* float_value, float_suffix_f: decimal literal */                  \
  X(BOOL)    /* bool_value */                                                    \
  X(PRIM)    /* prim, dim, sizes[nsizes], type_arg: primitive with its static    \
                arguments (split 2048, new float, mapLocal1) */                  \
  X(LAMBDA)  /* name, name_span, body: \name -> body (one parameter; \a b -> e   \
                is two nested LAMBDAs) */                                        \
  X(LET)     /* name, name_span, lhs = value, rhs = body */                      \
  X(APP)     /* lhs = function, rhs = argument; pipe set if written rhs |> lhs */ \
  X(COMPOSE) /* lhs >> rhs: \x -> rhs (lhs x) */                                 \
  X(SEQ)     /* lhs; rhs */                                                      \
  X(ASSIGN)  /* lhs := rhs */                                                    \
  X(BINOP)   /* op, lhs, rhs */                                                  \
  X(NEG)     /* lhs: -lhs */                                                     \
  X(NOT)     /* lhs: !lhs */                                                     \
  X(PROJ)    /* lhs, proj (1 or 2): lhs.1, lhs.2 */                              \
  X(LANE)    /* lhs, lane (0-15): a vector's lane, lhs.x, lhs.s7 */              \
  X(TUPLE)   /* lhs, rhs: data pair (lhs, rhs) */                                \
  X(PPAIR)   /* lhs, rhs: phrase pair {lhs, rhs} */                              \
  X(ASCRIBE) /* lhs, type: (lhs : type) */                                       \
  X(ITERATE) /* count, iter_fn: iterate count f, applied count times             \
                (docs/language.md section 15) */                                 \
  X(ARRAY)   /* elems[nelems], nelems >= 1: array literal [e1, ..., en]          \
                (docs/language.md section 13) */
/* clang-format on */

typedef enum AstKind {
#define X(id) AST_##id,
  DPIA_AST_KINDS(X)
#undef X
  AST_COUNT
} AstKind;
extern const char *const ast_kind_name[AST_COUNT];

typedef struct Ast Ast;
struct Ast {
  AstKind kind;
  Span span; /* the whole phrase as written */
  union {
    Sym name;            /* VAR */
    uint64_t int_value;  /* INT */
    struct {             /* FLOAT */
      double float_value;
      bool float_suffix_f;
    };
    bool bool_value;     /* BOOL */
    struct {             /* PRIM */
      Prim prim;
      int dim;           /* 0..2; dim_written if the suffix was spelled */
      bool dim_written;
      SizeAst *sizes[PRIM_MAX_SIZES];
      TypeAst *type_arg;
      bool volatile_new; /* newLocal volatile T: toLocalVolatile's buffer, as printed */
    };
    struct {             /* LAMBDA, LET */
      Sym bound;
      Span bound_span;
      Ast *body;         /* LAMBDA: body; LET: body */
      Ast *value;        /* LET: the bound value */
    };
    struct {             /* ARRAY */
      Ast **elems;
      int nelems;
    };
    struct {             /* ITERATE */
      SizeAst *count;
      Ast *iter_fn;
    };
    struct {             /* APP COMPOSE SEQ ASSIGN BINOP NEG NOT PROJ LANE TUPLE PPAIR ASCRIBE */
      Ast *lhs, *rhs;
      BinOp op;          /* BINOP */
      int proj;          /* PROJ: 1 or 2; LANE: the lane, 0-15 */
      bool pipe;         /* APP written with |> */
      TypeAst *type;     /* ASCRIBE */
    };
  };
};

/* ---- declarations ---- */
/* PARAM_UNTYPED: a bare name in a def (`def square x = x * x`): the def is
 * a template, its body checked at each use with the arguments' types, like
 * a lambda's (docs/language.md); all or none of a def's parameters are. */
typedef enum ParamKind { PARAM_NAT, PARAM_DATA, PARAM_PHRASE, PARAM_UNTYPED } ParamKind;

typedef struct Param {
  Sym name;
  Span span;        /* the name */
  ParamKind kind;
  TypeAst *type;    /* PARAM_PHRASE: as written; a data type T means exp[T] */
  /* A tuning parameter, `(WG: tune [32, 64])` or `(C: tune [1 .. 4096])`
   * (docs/language.md section 6): a PARAM_NAT of a kernel with a
   * declared domain, either the ntune_values listed or tune_lo..tune_hi. */
  bool tune;
  bool tune_range;
  int ntune_values;
  uint64_t *tune_values;
  uint64_t tune_lo, tune_hi;
  /* `(KS: tune [256, 512] = 512)`: the value used when neither --set nor
   * the tuning cache gives one (docs/tune.md), so that a kernel tuned on
   * one machine is the program with the literal written on any other. */
  bool tune_has_default;
  uint64_t tune_default;
} Param;

/* Is v in the domain of the tune parameter pa? */
static inline bool param_tune_allows(const Param *pa, uint64_t v) {
  if (pa->tune_range) return v >= pa->tune_lo && v <= pa->tune_hi;
  for (int i = 0; i < pa->ntune_values; i++)
    if (pa->tune_values[i] == v) return true;
  return false;
}

/* the dimensions an `updates` region may restrict: the outer two, which
 * acceptor views can reach (translate/stage1.c, region_acc); and how many
 * regions one clause may give (docs/language.md section 27) */
enum { DECL_MAX_REGION = 2, DECL_MAX_REGIONS = 4 };
/* how many inputs one `updates x, b` clause may name */
enum { DECL_MAX_UPDATED = 4 };

/* one region of an `updates` clause, `[lo .. hi][lo .. hi]` as written:
 * ndims ranges, of the outer dimensions, both ends included */
typedef struct RegionAst {
  int ndims;
  SizeAst *lo[DECL_MAX_REGION], *hi[DECL_MAX_REGION];
  Span span; /* from its first bracket to its last */
} RegionAst;

typedef struct Decl {
  bool is_kernel;
  /* `pipeline NAME params = body`: kernels of the file applied on the host,
   * one after the other (docs/language.md section 8); never also is_kernel */
  bool is_pipeline;
  Sym name;
  Span span;        /* the whole declaration */
  Span name_span;
  Param *params;
  int nparams;
  TypeAst *result;  /* optional ': type' */
  Ast *body;
  /* `foreign NAME params : type = "body"`: a scalar function written in
   * OpenCL C (docs/language.md section 14); never also is_kernel or
   * is_pipeline.  body is NULL; foreign_body the string's text. */
  bool is_foreign;
  const char *foreign_body;
  Span foreign_body_span;
  bool from_prelude; /* added by prelude_add, not written in the program */
  /* `kernel k ... (xs: [N]float) updates xs = ...` (docs/language.md
   * section 27): the kernel computes in place, its output written into the
   * buffer of its input updates (NULL: none); with a region,
   * `updates xs [1 .. M-2][1 .. N-2]`, the result fills elements
   * lo[d] to hi[d] (both included) of the region's first ndims
   * dimensions and the rest of xs is left as it is; with several regions
   * (`updates xs [..], [..]`), the result is the tuple of their values,
   * pairs nested to the right, each filling its region. */
  Sym updates;
  Span updates_span; /* the clause, from `updates` to its last bracket */
  /* `updates x, b`: several inputs, each replaced by its component of the
   * result (pairs nested to the right), without regions; updated[0] is
   * updates */
  int nupdated;
  Sym updated[DECL_MAX_UPDATED];
  /* `kernel k ... (perm: [N]idx[N]) permutation perm = ...`
   * (docs/language.md section 29): inputs declared to be permutations,
   * whose elements are distinct, so that a scatter through one writes
   * each element of its result once; perm_spans[i] is the name's span */
  int nperms;
  Sym *perms;
  Span *perm_spans;
  /* the regions of `updates xs [..][..], [..][..]`, none for all of xs */
  int nregions;
  RegionAst regions[DECL_MAX_REGIONS];
} Decl;

/* a def whose parameters are untyped (PARAM_UNTYPED) */
static inline bool decl_is_template(const Decl *d) { return d->nparams > 0 && d->params[0].kind == PARAM_UNTYPED; }

typedef struct Program {
  const Source *src;
  Decl **decls;
  int ndecls;
} Program;

/* Limits that keep any input from exhausting the stack (issue: bad input). */
enum { DPIA_MAX_NESTING = 1000 };

/* lex.c */
typedef struct ReservedName ReservedName;
typedef struct Lexer {
  const Source *src;
  Interner *interner;
  Diag *diag;
  uint32_t pos;
  /* src's text and length, read at every byte: kept here, not behind src */
  const char *text;
  size_t len;
  const ReservedName *reserved; /* lex.c's table of reserved names, built once per process */
  /* The prelude's defs the text names (bit i: prelude.c's def i), as
   * prelude_add would find them by scanning the text: the identifiers
   * that spell one, and the words of comments and strings; unless
   * prelude_unsure, when a word is not one token (an identifier glued to
   * a projection, `x.1slide2D`) and only the scan of the whole text says. */
  uint32_t prelude_named;
  bool prelude_unsure;
} Lexer;
void lexer_init(Lexer *lx, const Source *src, Interner *in, Diag *diag);
/* Next token; lexical errors are reported to diag and skipped. */
/* the next token, written to *t (the parser's current one: lexer_scan),
 * and whether errors were reported on the way to it; or returned */
bool lexer_scan(Lexer *lx, Token *t);
Token lexer_next(Lexer *lx);
/* t's interned name (t an identifier lx made), interned now if it was
 * not; NULL for a token of another kind */
Sym lexer_ident(Lexer *lx, Token *t);

/* prelude.c: puts the prelude's defs that the program names and does not
 * declare itself before its declarations (docs/language.md section 10);
 * parse_program calls it, parse_program_deep (text dpia printed) not.
 * named: the defs the program's text names (bit i: def i), as the lexer
 * found them (Lexer's prelude_named), or NULL for a scan of the text. */
void prelude_add(Arena *a, Interner *in, Diag *diag, Program *prog, const uint32_t *named);
/* the prelude's defs, in order: their number and names */
int prelude_def_count(void);
const char *prelude_def_name(int i);
/* The prelude's defs named by whole words (maximal runs of letters,
 * digits and '_') of text[begin, end) whose first and last words end
 * there (the bytes around are no letters, digits or '_'), ORed into
 * *named (bit i: def i): for the lexer, of a comment or a string. */
void prelude_words_in(const char *begin, const char *end, uint32_t *named);

/* parse.c: parse a whole file.  Returns a Program even with errors (the
 * declarations that parsed); diag->nerrors tells whether it is usable. */
Program *parse_program(Arena *a, Interner *in, Diag *diag, const Source *src);
/* The same with another nesting limit: for text dpia printed itself (the
 * re-check of an imperative program, which nests deeper than its source),
 * up to the checker's own bound, DPIA_MAX_NESTING * 4. */
Program *parse_program_deep(Arena *a, Interner *in, Diag *diag, const Source *src, int max_nesting);
/* parse.c: a phrase type alone (spec section 2, `ptype`), as the signatures
 * of the primitive table are written; NULL after reporting an error. */
TypeAst *parse_phrase_type_text(Arena *a, Interner *in, Diag *diag, const Source *src);

/* ast_print.c: a vector lane as the source writes it: .x .y .z .w for
 * lanes 0-3 when the vector has at most 4 (width 0: not known), else .s4
 * ... .sf (lex.c reads both for any width) */
const char *lane_spelling(int lane, int width);

/* ast_print.c: print in surface syntax, fully parenthesised where needed so
 * that the output parses back to the same tree. */
void ast_print(Buf *out, const Ast *e);
/* a tune parameter's domain as written: "tune [32, 64] = 64" */
void tune_domain_print(Buf *out, const Param *pa);
void type_ast_print(Buf *out, const TypeAst *t);
void size_ast_print(Buf *out, const SizeAst *s);
void program_print(Buf *out, const Program *p);
/* one declaration as program_print lays it out, named name (NULL: its own) */
/* d's `updates xs [lo .. hi] ...` clause as written, with its leading
 * space (nothing for a kernel without one) */
void decl_updates_print(Buf *out, const Decl *d);
void decl_print(Buf *out, const Decl *d, Sym name);
/* a string literal that lexes back to text (a foreign function's body):
 * '"' and '\\' escaped with a backslash */
void print_string_literal(Buf *out, const char *text);

#endif
