/* phrase_print.c: typed phrases and whole defs back in the surface syntax
 * of spec section 2, so that every stage's result can be parsed and checked
 * again (spec section 9: --emit=intermediate, --emit=imperative, and the
 * re-check of the imperative program in `dpia verify`).
 *
 * What is printed is exactly what the checker needs to rebuild the same
 * phrase, and no more:
 *  - primitives with their static arguments only (split 2048, new float,
 *    for N, mapGlobal1); implicit sizes and types are inferred again;
 *  - (\x -> b) v as  let x = v in b  (the checker elaborates both alike),
 *    pair a b as (a, b), applications in prefix form (never |>);
 *  - literals so that they get their type back: a decimal literal whose
 *    type is float is written with a '.', a double one as (0.5 : double)
 *    (no literal syntax defaults to double, and whatever fixed the type in
 *    the source, an ascription or a context, may be gone after
 *    normalisation or translation), a vector-typed one as its scalar (the
 *    context broadcasts it again), except double vectors, ascribed too;
 *  - a lambda where the checker infers rather than checks (a let value, a
 *    component of {a, b}) with an ascription of its type: there nothing
 *    gives its parameters their types, which may have come from an
 *    ascription or a `>>` that no longer exists;
 *  - binders by their own names, with _2, _3 appended where a name is
 *    already bound in scope (inlining copies a def's body with its names,
 *    so the same name can be bound twice with an inner use of the outer
 *    one), is a nat or data parameter (sizes and types are looked up in the
 *    same scope), names a def used in the printed phrase, or is a primitive
 *    or keyword.  Renaming depends only on the names in scope, so printing a
 *    printed program again gives the same text.
 *
 * Layout, for people: a lambda whose body is a command, a `;` block or a
 * `let` continues on the next line, indented one level (2 spaces) deeper
 * than the line the lambda starts on; so does a lambda that begins its line
 * (an argument on a line of its own, a def's body) if its body does not fit
 * in LINE_WIDTH columns.  `c1; c2` puts each command on a line of its own
 * at the indentation of the first.  An application keeps its arguments on
 * its line unless one before the last spans lines (a lambda with a command
 * body, or a lambda too long for the line when the application begins in
 * the left half of its line): then each argument goes on a line of its own,
 * one level deeper, so that none hides behind the end of another's body.
 * Everything else stays on one line, however long.  Widths are measured by
 * rendering flat into a scratch buffer, giving up as soon as the text is
 * too long (LINE_WIDTH, or LONG_EXPRESSION when looking for command
 * blocks), so printing stays linear in the size of the phrase. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LONG_EXPRESSION bounds the flat rendering done to find out whether an
 * argument holds a command block, so that printing stays linear. */
enum { LINE_WIDTH = 100, LONG_EXPRESSION = 1000 };

/* Expression precedence, loosest first (spec section 2); the same levels as
 * ast_print.c and parse.c (|> and >> are never printed). */
enum Prec {
  P_TOP, /* lambda, let: the body takes everything to the right */
  P_SEQ,
  P_ASSIGN,
  P_OR,
  P_AND,
  P_CMP,
  P_ADD,
  P_MUL,
  P_UNARY,
  P_APP,
  P_POSTFIX,
  P_ATOM,
};

/* A binder in scope with the name it is printed under.  Scope entries live
 * in the stack frames of the printing functions that bind them. */
typedef struct Scope Scope;
struct Scope {
  const Binder *binder;
  const char *name;
  Scope *next;
};

typedef struct Printer {
  Buf *out;
  Scope *scope;      /* innermost first */
  Vec *reserved;     /* const char *: names no binder may be printed under */
  int line_indent;   /* indentation level of the current output line */
  size_t line_begin; /* offset in out of the current line */
  Buf *scratch;      /* for measuring flat renderings */
  bool flat;         /* measuring: everything on one line */
  size_t limit;      /* flat: give up beyond this many characters */
  bool too_long;     /* flat: gave up */
  Sym dep_row;       /* the next lambda is a dependent map's function: it
                        names this row first (\k row -> ...) */
  bool volatile_new; /* the next newLocal makes a volatile buffer: it is
                        printed newLocal volatile T */
  bool ascribe_joins; /* every joinAcc X is printed (joinAcc X : acc[[n][m]a])
                         (def_print_ascribing_joins) */
} Printer;

static void print(Printer *pr, const Phrase *p, int ctx, bool start);

/* ---- names ---- */

static bool is_ident(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '\''))
      return false;
  return true;
}

static bool is_keyword(const char *s) {
  static const char *const words[] = {"def", "kernel", "let", "in", "true", "false"};
  for (size_t i = 0; i < DPIA_COUNTOF(words); i++)
    if (strcmp(s, words[i]) == 0) return true;
  return false;
}

static bool name_free(const Printer *pr, const char *name) {
  if (is_keyword(name) || prim_lookup(name, strlen(name), &(int){0}) != PRIM_COUNT) return false;
  for (const Scope *s = pr->scope; s; s = s->next)
    if (strcmp(s->name, name) == 0) return false;
  for (int i = 0; i < pr->reserved->len; i++)
    if (strcmp(pr->reserved->items[i], name) == 0) return false;
  return true;
}

/* Bring b into scope under its own name, or the first of name_2, name_3,
 * ... that is free; entry is the caller's storage for the scope entry. */
static void bind(Printer *pr, Scope *entry, const Binder *b) {
  const char *base = b->name && is_ident(b->name) ? b->name : "x";
  const char *name = base;
  for (int k = 2; !name_free(pr, name); k++) name = arena_printf(pr->out->arena, "%s_%d", base, k);
  entry->binder = b;
  entry->name = name;
  entry->next = pr->scope;
  pr->scope = entry;
}

static const char *binder_name(const Printer *pr, const Binder *b) {
  for (const Scope *s = pr->scope; s; s = s->next)
    if (s->binder == b) return s->name;
  return b->name; /* free in the printed phrase: reserved, never renamed */
}

static void reserve(Printer *pr, const char *name) {
  for (int i = 0; i < pr->reserved->len; i++)
    if (strcmp(pr->reserved->items[i], name) == 0) return;
  vec_push(pr->out->arena, pr->reserved, (void *)name);
}

/* Binders bound by the enclosing lambdas of the phrase being collected. */
typedef struct Bound Bound;
struct Bound {
  const Binder *binder;
  const Bound *next;
};

/* Reserve the names a binder must not shadow: the defs the phrase uses and
 * its free identifiers other than those already in scope. */
static void collect_reserved(Printer *pr, const Phrase *p, const Bound *bound) {
  for (;;) {
    switch (p->kind) {
    case PH_VAR: {
      for (const Bound *b = bound; b; b = b->next)
        if (b->binder == p->binder) return;
      for (const Scope *s = pr->scope; s; s = s->next)
        if (s->binder == p->binder) return;
      reserve(pr, p->binder->name);
      return;
    }
    case PH_DEF: reserve(pr, p->def->name); return;
    case PH_LIT: return;
    case PH_PRIM:
      if (p->prim == PRIM_FOREIGN) reserve(pr, p->foreign->name);
      return;
    case PH_LAM: {
      Bound inner = {p->lam_binder, bound};
      collect_reserved(pr, p->body, &inner);
      return;
    }
    case PH_PROJ:
    case PH_UNOP: p = p->fst; continue;
    default:
      /* iterate along the right spine: ; chains can be long */
      collect_reserved(pr, p->fst, bound);
      p = p->snd;
      continue;
    }
  }
}

/* ---- layout ---- */

static size_t column(const Printer *pr) { return pr->out->len - pr->line_begin; }

static void newline(Printer *pr, int level) {
  buf_putc(pr->out, '\n');
  pr->line_begin = pr->out->len;
  buf_indent(pr->out, level);
  pr->line_indent = level;
}

/* Does p, printed flat at context ctx, take at most room characters (and
 * contain nothing that is always laid out on several lines)?  *width gets
 * its length when it does. */
static bool fits_flat(Printer *pr, const Phrase *p, int ctx, size_t room, size_t *width) {
  buf_clear(pr->scratch);
  Printer f = *pr;
  f.out = pr->scratch;
  f.line_begin = 0;
  f.flat = true;
  f.limit = room;
  f.too_long = false;
  print(&f, p, ctx, false);
  if (f.too_long || f.out->len > room) return false;
  if (width) *width = f.out->len;
  return true;
}

/* ---- pieces ---- */

static bool is_let(const Phrase *p) { return p->kind == PH_APP && p->fst->kind == PH_LAM; }

static bool is_data_pair(const Phrase *p) {
  return p->kind == PH_APP && p->fst->kind == PH_APP && p->fst->fst->kind == PH_PRIM &&
         p->fst->fst->prim == PRIM_PAIR;
}

/* v.x: the primitive lane applied to its vector (docs/language.md section 11) */
static bool is_lane(const Phrase *p) {
  return p->kind == PH_APP && p->fst->kind == PH_PRIM && p->fst->prim == PRIM_LANE;
}

static bool lit_negative(const Phrase *p) {
  DataType *t = dt_resolve(p->type->data);
  if (p->lit_nelems > 0 || (t->kind == DT_SCALAR && t->scalar == SC_BOOL)) return false;
  return p->lit_is_float ? signbit(p->lit_float) != 0 : p->lit_int < 0;
}

static int binop_prec(BinOp op) {
  switch (op) {
  case BIN_MUL:
  case BIN_DIV:
  case BIN_MOD: return P_MUL;
  case BIN_ADD:
  case BIN_SUB: return P_ADD;
  case BIN_LT:
  case BIN_LE:
  case BIN_GT:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE: return P_CMP;
  case BIN_AND: return P_AND;
  case BIN_OR: return P_OR;
  case BIN_COUNT: break;
  }
  INTERNAL("bad binary operator %d", (int)op);
}

static int prec_of(const Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_PAIR: return P_ATOM;
  case PH_DEF: return p->nsizes_given > 0 ? P_APP : P_ATOM;
  case PH_LIT: return lit_negative(p) ? P_UNARY : P_ATOM;
  case PH_PRIM: return prim_info[p->prim].nsizes > 0 || prim_info[p->prim].takes_type ? P_APP : P_ATOM;
  case PH_LAM: return P_TOP;
  case PH_APP: return is_let(p) ? P_TOP : is_data_pair(p) ? P_ATOM : is_lane(p) ? P_POSTFIX : P_APP;
  case PH_PROJ: return P_POSTFIX;
  case PH_SEQ: return P_SEQ;
  case PH_ASSIGN: return P_ASSIGN;
  case PH_BINOP: return binop_prec(p->op);
  case PH_UNOP: return P_UNARY;
  case PH_COUNT: break;
  }
  INTERNAL("bad phrase kind %d", (int)p->kind);
}

/* The shortest decimal that reads back as the same double, with a '.' or
 * an exponent so that it lexes as a decimal literal (lex.c); v >= 0. */
static void print_decimal(Buf *out, double v) {
  if (!isfinite(v)) INTERNAL("literal %g has no decimal form", v);
  char digits[64];
  for (int precision = 1; precision <= 17; precision++) {
    snprintf(digits, sizeof digits, "%.*g", precision, v);
    if (strtod(digits, NULL) == v) break;
  }
  /* 1e+10 -> 1e10, 2.5e-08 -> 2.5e-8, as people write them */
  const char *exponent = strchr(digits, 'e');
  if (exponent) {
    buf_put(out, digits, (size_t)(exponent - digits) + 1);
    const char *d = exponent + 1;
    if (*d == '-') buf_putc(out, '-');
    if (*d == '-' || *d == '+') d++;
    while (d[0] == '0' && d[1] != '\0') d++;
    buf_puts(out, d);
  } else {
    buf_puts(out, digits);
    if (!strchr(digits, '.')) buf_puts(out, ".0");
  }
}

/* The magnitude of a numeric literal of a floating type as a decimal.  An
 * integer literal there means the double nearest to it (what the lexer
 * makes of its decimal form too), so that a second print gives the same
 * digits even beyond 2^53. */
static void print_magnitude_decimal(Buf *out, const Phrase *p) {
  double v = p->lit_is_float ? p->lit_float : (double)p->lit_int;
  print_decimal(out, fabs(v));
}

static void print_size_arg(Buf *out, Size s);

static void print_literal(Printer *pr, const Phrase *p);

/* the elements of an array literal from *next on, nested as its type t */
static void print_array_elems(Printer *pr, const Phrase *p, DataType *t, int *next) {
  t = dt_resolve(t);
  if (t->kind != DT_ARRAY) {
    const Phrase *e = p->lit_elems[(*next)++];
    if (dt_resolve(e->type->data)->scalar == SC_DOUBLE) { /* the ascription is the whole literal's */
      if (lit_negative(e)) buf_putc(pr->out, '-');
      print_magnitude_decimal(pr->out, e);
    } else {
      print_literal(pr, e);
    }
    return;
  }
  int64_t n = 0;
  size_const_value(t->size, &n);
  buf_putc(pr->out, '[');
  for (int64_t i = 0; i < n; i++) {
    if (i) buf_puts(pr->out, ", ");
    print_array_elems(pr, p, t->elem, next);
  }
  buf_putc(pr->out, ']');
}

/* [1.0, 2.0], and ([1.0, 2.0] : [2]double) where a decimal would be a float */
static void print_array_literal(Printer *pr, const Phrase *p) {
  DataType *t = dt_resolve(p->type->data);
  bool ascribe = dt_resolve(p->lit_elems[0]->type->data)->scalar == SC_DOUBLE;
  if (ascribe) buf_putc(pr->out, '(');
  int next = 0;
  print_array_elems(pr, p, t, &next);
  if (ascribe) {
    buf_puts(pr->out, " : ");
    dt_print(pr->out, t);
    buf_putc(pr->out, ')');
  }
}

/* Does size s name a binder in scope that is an index (an imperative
 * loop's, which is a size of its body too: a dependent map's row,
 * docs/language.md section 30)?  The re-parse reads the name as the index. */
static bool names_index(const Printer *pr, Size s) {
  for (const Scope *sc = pr->scope; sc; sc = sc->next) {
    const PhraseType *t = sc->binder->type;
    if (t && t->kind == PT_EXP && dt_resolve(t->data)->kind == DT_IDX && size_has_name(s, sc->name)) return true;
  }
  return false;
}

static void print_literal(Printer *pr, const Phrase *p) {
  Buf *out = pr->out;
  DataType *t = dt_resolve(p->type->data);
  if (p->lit_nelems > 0) {
    print_array_literal(pr, p);
    return;
  }
  if (p->lit_is_size) { /* idx row (N - 1) */
    /* a row's size as a value (\k row -> ... k ...) is an int, the loop's
     * index it names an idx: converted, the re-check reads the int (a bare
     * k assigned or passed where a number is expected is an index there) */
    bool convert = t->kind == DT_SCALAR && names_index(pr, p->lit_size);
    if (convert) buf_puts(out, "(toInt ");
    print_size_arg(out, p->lit_size);
    if (convert) buf_putc(out, ')');
    return;
  }
  if (t->kind == DT_IDX) { /* idx nbh 4: re-checked where an index is expected */
    emit(out, "%" PRId64, p->lit_int);
    return;
  }
  ASSERT(t->kind == DT_SCALAR);
  if (t->scalar == SC_BOOL) {
    buf_puts(out, p->lit_int ? "true" : "false");
    return;
  }
  /* a negative literal (only the translation makes them) prints as what it
   * re-parses to, negation of the magnitude, so a second print is the same */
  if (lit_negative(p)) buf_putc(out, '-');
  switch (t->scalar) {
  case SC_INT: {
    int64_t v = p->lit_is_float ? (int64_t)p->lit_float : p->lit_int;
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    emit(out, "%" PRIu64, m);
    return;
  }
  case SC_FLOAT: print_magnitude_decimal(out, p); return;
  case SC_DOUBLE:
    buf_putc(out, '(');
    print_magnitude_decimal(out, p);
    buf_puts(out, " : ");
    dt_print(out, t);
    buf_putc(out, ')');
    return;
  case SC_BOOL: break;
  }
  INTERNAL("bad literal");
}

/* A static size argument: an integer or a name as it is, anything else in
 * parentheses (split 2048, split N, split (N/64), split (ceil(N/64))). */
static void print_size_arg(Buf *out, Size s) {
  int64_t v;
  bool atom = (size_const_value(s, &v) && v >= 0) || size_lone_var(s);
  if (!atom) buf_putc(out, '(');
  size_print_in(out, s, SIZE_SYNTAX_DPIA, SIZE_ALONE);
  if (!atom) buf_putc(out, ')');
}

static void print_prim(Printer *pr, const Phrase *p) {
  const PrimInfo *info = &prim_info[p->prim];
  buf_puts(pr->out, p->prim == PRIM_FOREIGN ? p->foreign->name : info->name);
  if (p->dim != 0) emit(pr->out, "%d", p->dim);
  if (p->prim == PRIM_NEW_LOCAL && pr->volatile_new) buf_puts(pr->out, " volatile");
  pr->volatile_new = false;
  for (int i = 0; i < info->nsizes; i++) {
    buf_putc(pr->out, ' ');
    print_size_arg(pr->out, p->sizes[i]);
  }
  if (info->takes_type) {
    buf_putc(pr->out, ' ');
    dt_print(pr->out, p->type_arg);
  }
}

/* A body that always starts on a line of its own. */
static bool is_block(const Phrase *body) {
  return body->type->kind == PT_COMM || body->kind == PH_SEQ || is_let(body);
}

/* start: the lambda begins its line (an argument on a line of its own, a
 * def's body); only there does a long body move to the next lines, where
 * it gains room; a lambda in the middle of a line stays on it. */
static void print_lambda_body(Printer *pr, const Phrase *body, bool start) {
  buf_puts(pr->out, " ->");
  if (pr->flat) {
    if (is_block(body)) {
      pr->too_long = true;
      return;
    }
    buf_putc(pr->out, ' ');
    print(pr, body, P_TOP, false);
    return;
  }
  size_t col = column(pr) + 1;
  if (is_block(body) || (start && (col >= LINE_WIDTH || !fits_flat(pr, body, P_TOP, LINE_WIDTH - col, NULL)))) {
    newline(pr, pr->line_indent + 1);
    print(pr, body, P_TOP, true);
  } else {
    buf_putc(pr->out, ' ');
    print(pr, body, P_TOP, false);
  }
}

/* \a b c -> body: one scope entry per parameter, in this frame */
static void print_lambda_params(Printer *pr, const Phrase *lam, bool start) {
  Scope entry;
  bind(pr, &entry, lam->lam_binder);
  buf_puts(pr->out, entry.name);
  if (lam->body->kind == PH_LAM) {
    buf_putc(pr->out, ' ');
    print_lambda_params(pr, lam->body, start);
  } else {
    print_lambda_body(pr, lam->body, start);
  }
  pr->scope = entry.next;
}

/* A phrase where the checker infers its type instead of checking it
 * against one: a lambda there gets an ascription (see the top). */
static void print_inferred(Printer *pr, const Phrase *p, int ctx, bool start) {
  if (p->kind != PH_LAM) {
    print(pr, p, ctx, start);
    return;
  }
  buf_putc(pr->out, '(');
  print(pr, p, P_TOP, false);
  buf_puts(pr->out, " : ");
  pt_print(pr->out, p->type);
  buf_putc(pr->out, ')');
}

static void print_let(Printer *pr, const Phrase *p, bool start) {
  const Phrase *lam = p->fst;
  int base = pr->line_indent;
  buf_puts(pr->out, "let ");
  /* the name is chosen in the outer scope, and the value is printed there:
   * it cannot see the name */
  Buf *out = pr->out;
  Scope entry;
  Scope *outer = pr->scope;
  bind(pr, &entry, lam->lam_binder);
  pr->scope = outer;
  emit(out, "%s = ", entry.name);
  /* a let or lambda as the value is parenthesised: it would parse without,
   * but `let y = let x = ...` is hard to read */
  print_inferred(pr, p->snd, P_SEQ, false);
  buf_puts(out, " in");
  pr->scope = &entry;
  if (pr->flat) {
    if (start) {
      pr->too_long = true;
    } else {
      buf_putc(out, ' ');
      print(pr, lam->body, P_TOP, false);
    }
  } else if (start) {
    newline(pr, base);
    print(pr, lam->body, P_TOP, true);
  } else {
    buf_putc(out, ' ');
    print(pr, lam->body, P_TOP, false);
  }
  pr->scope = outer;
}

static void print_seq(Printer *pr, const Phrase *p, bool start) {
  if (pr->flat) {
    pr->too_long = true;
    return;
  }
  if (!start) newline(pr, pr->line_indent + 1);
  int base = pr->line_indent;
  /* right associative: a; (b; c) prints as a; b; c, along a loop since
   * command sequences can be long */
  for (; p->kind == PH_SEQ; p = p->snd) {
    print(pr, p->fst, P_SEQ + 1, true);
    buf_putc(pr->out, ';');
    newline(pr, base);
  }
  print(pr, p, P_SEQ, true);
}

/* May the arguments before the last one stay on the line of the head (then
 * only the last one, typically a lambda, continues on the next lines)?  Not
 * when one of them spans lines: anything holding a command block, or, for
 * an application that begins in the left half of its line, a lambda that
 * does not fit on the line.  Further right, where one argument a line would
 * not gain much room, and for a long expression without lambdas, the
 * arguments stay on the line, however long: breaking would not help
 * reading. */
static bool args_fit(Printer *pr, const Phrase **args, int n, bool left_half) {
  size_t used = column(pr);
  for (int i = 0; i + 1 < n; i++) {
    size_t width;
    if (args[i]->kind == PH_LAM && left_half) {
      if (used + 1 >= LINE_WIDTH || !fits_flat(pr, args[i], P_POSTFIX, LINE_WIDTH - used - 1, &width)) return false;
    } else if (!fits_flat(pr, args[i], P_POSTFIX, LONG_EXPRESSION, &width)) {
      return false;
    }
    used += 1 + width;
  }
  return true;
}

static void print_app(Printer *pr, const Phrase *p, bool start) {
  /* f a1 ... an: walk down the spine, print the head, then the arguments */
  int n = 0;
  const Phrase *head = p;
  while (head->kind == PH_APP && !is_let(head) && !is_data_pair(head)) {
    n++;
    head = head->fst;
  }
  const Phrase **args = NEWARRAY(pr->out->arena, const Phrase *, n);
  const Phrase *a = p;
  for (int i = n - 1; i >= 0; i--) {
    args[i] = a->snd;
    a = a->fst;
  }
  int base = pr->line_indent;
  bool left_half = column(pr) < LINE_WIDTH / 2;
  /* the buffer of toLocalVolatile (docs/language.md section 32) says so:
   * newLocal volatile T (\t -> ...), which parses back to one */
  pr->volatile_new = head->kind == PH_PRIM && head->prim == PRIM_NEW_LOCAL && n >= 1 && args[0]->kind == PH_LAM &&
                     args[0]->lam_binder->volatile_local;
  print(pr, head, P_APP, start);
  /* a dependent map's function names its row, which its types may use
   * (docs/language.md section 30): \k row -> ..., k a name no binder
   * inside is printed under */
  Sym row = head->kind == PH_PRIM && (prim_family(head->prim) == PFAM_MAP || prim_family(head->prim) == PFAM_MAP_I) &&
                    n >= 1 && args[0]->kind == PH_LAM
                ? head->dep_index
                : NULL;
  if (row) reserve(pr, row);
  if (pr->flat || args_fit(pr, args, n, left_half)) {
    for (int i = 0; i < n; i++) {
      buf_putc(pr->out, ' ');
      pr->dep_row = i == 0 ? row : NULL;
      print(pr, args[i], P_POSTFIX, false);
    }
    return;
  }
  /* an argument before the last spans lines (a lambda whose body is a
   * command, say): one argument a line, so that none hides behind the end
   * of another's body */
  for (int i = 0; i < n; i++) {
    newline(pr, base + 1);
    pr->dep_row = i == 0 ? row : NULL;
    print(pr, args[i], P_POSTFIX, true);
  }
}

static void print(Printer *pr, const Phrase *p, int ctx, bool start) {
  Buf *out = pr->out;
  if (pr->flat && (pr->too_long || out->len > pr->limit)) {
    pr->too_long = true;
    return;
  }
  if (pr->ascribe_joins && p->kind == PH_APP && p->fst->kind == PH_PRIM && p->fst->prim == PRIM_JOIN_ACC) {
    buf_putc(out, '(');
    print_app(pr, p, start);
    buf_puts(out, " : ");
    pt_print(out, p->type);
    buf_putc(out, ')');
    return;
  }
  int prec = prec_of(p);
  if (prec < ctx) {
    /* what starts a line still starts it behind its parenthesis */
    buf_putc(out, '(');
    print(pr, p, P_TOP, start);
    buf_putc(out, ')');
    return;
  }
  switch (p->kind) {
  case PH_VAR: buf_puts(out, binder_name(pr, p->binder)); return;
  case PH_DEF:
    /* with the size arguments written at this use (docs/language.md
     * section 1.2), at their values */
    buf_puts(out, p->def->name);
    for (int i = 0; i < p->nsizes_given; i++) {
      buf_putc(out, ' ');
      print_size_arg(out, p->subst->sizes[i]);
    }
    return;
  case PH_LIT: print_literal(pr, p); return;
  case PH_PRIM: print_prim(pr, p); return;
  case PH_LAM:
    buf_putc(out, '\\');
    if (pr->dep_row) emit(out, "%s ", pr->dep_row);
    pr->dep_row = NULL;
    print_lambda_params(pr, p, start);
    return;
  case PH_APP:
    if (is_let(p)) {
      print_let(pr, p, start);
    } else if (is_lane(p)) {
      /* (1.5).x, not 1.5.x: a literal's digits would take the '.' */
      bool lit = p->snd->kind == PH_LIT;
      if (lit) buf_putc(out, '(');
      print(pr, p->snd, lit ? P_TOP : P_POSTFIX, start);
      if (lit) buf_putc(out, ')');
      int64_t k = 0;
      size_const_value(p->fst->sizes[0], &k);
      DataType *v = dt_resolve(p->snd->type->data);
      buf_puts(out, lane_spelling((int)k, v->kind == DT_SCALAR ? v->width : 0));
    } else if (is_data_pair(p)) {
      buf_putc(out, '(');
      print(pr, p->fst->snd, P_TOP, false);
      buf_puts(out, ", ");
      print(pr, p->snd, P_TOP, false);
      buf_putc(out, ')');
    } else {
      print_app(pr, p, start);
    }
    return;
  case PH_PAIR:
    buf_putc(out, '{');
    size_t width;
    if (!pr->flat && p->type->kind == PT_WITH && p->type->fst->kind == PT_COMM &&
        !fits_flat(pr, p, P_ATOM, LINE_WIDTH > column(pr) ? LINE_WIDTH - column(pr) : 0, &width)) {
      /* the two sides of an if, each a command on lines of its own */
      int base = pr->line_indent;
      newline(pr, base + 1);
      print(pr, p->fst, P_TOP, true);
      buf_putc(out, ',');
      newline(pr, base + 1);
      print(pr, p->snd, P_TOP, true);
      buf_putc(out, '}');
      return;
    }
    print_inferred(pr, p->fst, P_TOP, false);
    buf_puts(out, ", ");
    print_inferred(pr, p->snd, P_TOP, false);
    buf_putc(out, '}');
    return;
  case PH_PROJ:
    print(pr, p->fst, P_POSTFIX, start);
    emit(out, ".%d", p->index);
    return;
  case PH_SEQ: print_seq(pr, p, start); return;
  case PH_ASSIGN:
    print(pr, p->fst, P_ASSIGN + 1, start);
    buf_puts(out, " := ");
    print(pr, p->snd, P_ASSIGN + 1, false);
    return;
  case PH_BINOP:
    /* left associative, except comparisons, which do not chain */
    print(pr, p->fst, prec == P_CMP ? prec + 1 : prec, start);
    emit(out, " %s ", binop_spelling[p->op]);
    print(pr, p->snd, prec + 1, false);
    return;
  case PH_UNOP:
    buf_putc(out, p->unop);
    /* `- -x`, never `--x`, which would start a comment */
    if (p->unop == '-' && ((p->fst->kind == PH_UNOP && p->fst->unop == '-') ||
                           (p->fst->kind == PH_LIT && lit_negative(p->fst))))
      buf_putc(out, ' ');
    print(pr, p->fst, P_UNARY, false);
    return;
  case PH_COUNT: break;
  }
  INTERNAL("bad phrase kind %d", (int)p->kind);
}

/* ---- entry points ---- */

static void printer_init(Printer *pr, Buf *out, Vec *reserved, int indent) {
  memset(pr, 0, sizeof *pr);
  pr->out = out;
  pr->reserved = reserved;
  pr->line_indent = indent;
  const char *nl = out->len ? strrchr(out->data, '\n') : NULL;
  pr->line_begin = nl ? (size_t)(nl - out->data) + 1 : 0;
  pr->scratch = NEW(out->arena, Buf);
  buf_init(pr->scratch, out->arena);
}

/* Is the output at the start of a line (nothing but indentation on it)? */
static bool at_line_start(const Printer *pr) {
  for (size_t i = pr->line_begin; i < pr->out->len; i++)
    if (pr->out->data[i] != ' ') return false;
  return true;
}

void phrase_print(Buf *out, const Phrase *p, int indent) {
  Vec reserved = {0};
  Printer pr;
  printer_init(&pr, out, &reserved, indent);
  collect_reserved(&pr, p, NULL);
  print(&pr, p, P_TOP, at_line_start(&pr));
}

static void print_foreign_decl(Buf *out, const DefInfo *f, Sym name);

void def_print(Buf *out, const DefInfo *def, Sym name_override) {
  def_print_ascribing_joins(out, def, name_override, false);
}

void def_print_ascribing_joins(Buf *out, const DefInfo *def, Sym name_override, bool ascribe_joins) {
  if (def->is_foreign) {
    print_foreign_decl(out, def, name_override ? name_override : def->name);
    return;
  }
  /* a template has no checked body of its own (each use checks it at the
   * arguments' types, docs/language.md section 1.1): it prints as written,
   * which checks again the same way */
  if (decl_is_template(def->decl)) {
    decl_print(out, def->decl, name_override);
    return;
  }
  ASSERT(def->body);
  Vec reserved = {0};
  Printer pr;
  printer_init(&pr, out, &reserved, 0);
  pr.ascribe_joins = ascribe_joins;
  emit(out, "%s %s",
       def->is_kernel     ? "kernel"
       : def->is_pipeline ? "pipeline"
                          : "def",
       name_override ? name_override : def->name);
  if (def->nsize_params) {
    buf_puts(out, " (");
    for (int i = 0; i < def->nsize_params; i++) {
      emit(out, i ? " %s" : "%s", def->size_params[i]);
      reserve(&pr, def->size_params[i]);
    }
    buf_puts(out, ": nat)");
  }
  if (def->ndata_params) {
    buf_puts(out, " (");
    for (int i = 0; i < def->ndata_params; i++) {
      emit(out, i ? " %s" : "%s", def->data_params[i]);
      reserve(&pr, def->data_params[i]);
    }
    buf_puts(out, ": data)");
  }
  /* the parameters are in scope under their own names (the checker has
   * rejected duplicates); consecutive ones of one type share a group */
  Scope *entries = NEWARRAY(out->arena, Scope, def->nparams);
  for (int i = 0; i < def->nparams; i++) {
    entries[i] = (Scope){def->params[i], def->params[i]->name, pr.scope};
    pr.scope = &entries[i];
  }
  for (int i = 0; i < def->nparams;) {
    int end = i + 1;
    while (end < def->nparams && pt_equal(def->params[end]->type, def->params[i]->type)) end++;
    buf_puts(out, " (");
    for (int j = i; j < end; j++) emit(out, j > i ? " %s" : "%s", def->params[j]->name);
    buf_puts(out, ": ");
    pt_print(out, def->params[i]->type);
    buf_putc(out, ')');
    i = end;
  }
  /* inputs declared permutations (docs/language.md section 29), which
   * the imperative program's scatterAcc needs declared again */
  bool perm = false;
  for (int i = 0; i < def->nparams; i++) {
    if (!def->params[i]->permutation) continue;
    emit(out, perm ? " %s" : " permutation %s", def->params[i]->name);
    perm = true;
  }
  /* the regions a kernel computing in place updates, as written (their
   * sizes name the size parameters, printed under their own names); not
   * of its translation, a command writing its output parameter */
  if (def->decl && def->body->type->kind != PT_COMM) decl_updates_print(out, def->decl);
  /* a body of function or phrase pair type is checked against its printed
   * result type, so that lambdas in it get their parameter types */
  const PhraseType *result = def->body->type;
  if (result->kind == PT_FN || result->kind == PT_FN_P || result->kind == PT_WITH) {
    buf_puts(out, " : ");
    pt_print(out, result);
  }
  buf_puts(out, " =");
  collect_reserved(&pr, def->body, NULL);
  newline(&pr, 1);
  print(&pr, def->body, P_TOP, true);
  buf_putc(out, '\n');
}

/* ---- foreign functions (docs/language.md section 14) ---- */

static void collect_foreigns(Arena *a, const Phrase *p, Vec *out) {
  Vec stack = {0};
  vec_push(a, &stack, (void *)p);
  while (stack.len > 0) {
    const Phrase *q = stack.items[--stack.len];
    if (q->kind == PH_PRIM && q->prim == PRIM_FOREIGN) {
      bool seen = false;
      for (int i = 0; i < out->len && !seen; i++) seen = out->items[i] == q->foreign;
      if (!seen) vec_push(a, out, (void *)q->foreign);
    } else if (q->kind == PH_LAM) {
      vec_push(a, &stack, q->body);
    } else if (q->kind != PH_VAR && q->kind != PH_LIT && q->kind != PH_PRIM && q->kind != PH_DEF) {
      if (q->kind != PH_PROJ && q->kind != PH_UNOP && q->snd) vec_push(a, &stack, q->snd);
      if (q->fst) vec_push(a, &stack, q->fst);
    }
  }
}

void foreign_decls_print(Buf *out, DefInfo *const *defs, int n) {
  Vec used = {0};
  for (int i = 0; i < n; i++)
    if (defs[i] && defs[i]->body) collect_foreigns(out->arena, defs[i]->body, &used);
  for (int i = 0; i < used.len; i++) {
    print_foreign_decl(out, used.items[i], NULL);
    buf_putc(out, '\n');
  }
}

/* foreign NAME (x: T) ... : R = "body" and a newline */
static void print_foreign_decl(Buf *out, const DefInfo *f, Sym name) {
  emit(out, "foreign %s", name ? name : f->name);
  for (int j = 0; j < f->nparams && f->ok; j++) {
    emit(out, " (%s: ", f->params[j]->name);
    dt_print(out, f->params[j]->type->data);
    buf_putc(out, ')');
  }
  if (f->ok) {
    buf_puts(out, " : ");
    dt_print(out, f->result->data);
  }
  buf_puts(out, " = ");
  print_string_literal(out, f->decl->foreign_body);
  buf_putc(out, '\n');
}

bool foreign_uses_double(const DefInfo *f) {
  if (dt_resolve(f->result->data)->scalar == SC_DOUBLE) return true;
  for (int i = 0; i < f->nparams; i++)
    if (dt_resolve(f->params[i]->type->data)->scalar == SC_DOUBLE) return true;
  return false;
}

void foreign_c_definition(Buf *out, const DefInfo *f, const char *storage) {
  emit(out, "%s%s %s(", storage, scalar_name(dt_resolve(f->result->data)->scalar), f->name);
  for (int i = 0; i < f->nparams; i++)
    emit(out, "%s%s %s", i ? ", " : "", scalar_name(dt_resolve(f->params[i]->type->data)->scalar),
         f->params[i]->name);
  if (f->nparams == 0) buf_puts(out, "void");
  buf_putc(out, ')');
  /* the body as written; statements without their braces become a block */
  const char *b = f->decl->foreign_body;
  while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r') b++;
  size_t n = strlen(b);
  while (n > 0 && (b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\n' || b[n - 1] == '\r')) n--;
  if (n > 0 && b[0] == '{') emit(out, " %.*s\n", (int)n, b);
  else emit(out, " {\n  %.*s\n}\n", (int)n, b);
}
