/* ast_print.c: print syntax trees back in the surface syntax of spec
 * section 2, so that parsing the output gives the same tree again (the
 * round-trip tests in tests/parse check this).
 *
 * Parentheses appear only where the precedence of section 2 needs them,
 * plus around a lambda or let that is not the whole of its context (a body,
 * a parenthesised or bracketed phrase, a let value): the parser would
 * otherwise let its body run on.  program_print lays declarations out for
 * people (--emit dumps): `;` sequences one command a line, pipelines of two
 * or more `|>` one stage a line, and a lambda whose body is such a block
 * continues on the next line, indented.  ast_print keeps to one line, for
 * messages. */
#include "ast.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const binop_spelling[BIN_COUNT] = {
    [BIN_MUL] = "*", [BIN_DIV] = "/", [BIN_MOD] = "%", [BIN_ADD] = "+", [BIN_SUB] = "-",
    [BIN_LT] = "<",  [BIN_LE] = "<=", [BIN_GT] = ">",  [BIN_GE] = ">=", [BIN_EQ] = "==",
    [BIN_NE] = "!=", [BIN_AND] = "&&", [BIN_OR] = "||",
};

const char *const ast_kind_name[AST_COUNT] = {
#define X(id) [AST_##id] = #id,
    DPIA_AST_KINDS(X)
#undef X
};

/* Expression precedence, loosest first (spec section 2); must agree with
 * the table in parse.c. */
enum ExprPrec {
  EP_TOP, /* lambda, let: their body takes everything to the right */
  EP_SEQ,
  EP_ASSIGN,
  EP_PIPE,
  EP_COMPOSE,
  EP_OR,
  EP_AND,
  EP_CMP,
  EP_ADD,
  EP_MUL,
  EP_UNARY,
  EP_APP,
  EP_POSTFIX,
  EP_ATOM,
};

/* Type precedence: arrows (right associative) < '&' (left) < atoms. */
enum TypePrec { TP_ARROW, TP_WITH, TP_ATOM };

/* Size precedence: + - < * / < atoms, all left associative. */
enum SizePrec { SP_ADD = 1, SP_MUL, SP_ATOM };

typedef struct Printer {
  Buf *out;
  bool multiline; /* lay out blocks on several lines (program_print) */
  int indent;     /* of the current line, in levels of 2 spaces */
} Printer;

static void newline(Printer *pr) {
  buf_putc(pr->out, '\n');
  buf_indent(pr->out, pr->indent);
}

/* ---- sizes ---- */

static int size_prec(const SizeAst *s) {
  switch (s->kind) {
  case SZA_ADD:
  case SZA_SUB: return SP_ADD;
  case SZA_MUL:
  case SZA_DIV:
  case SZA_MOD: return SP_MUL;
  case SZA_NUM:
  case SZA_VAR:
  case SZA_CEIL:
  case SZA_FLOOR: return SP_ATOM;
  }
  INTERNAL("bad size kind %d", (int)s->kind);
}

static void print_size(Buf *out, const SizeAst *s, int ctx) {
  bool paren = size_prec(s) < ctx;
  if (paren) buf_putc(out, '(');
  switch (s->kind) {
  case SZA_NUM: emit(out, "%" PRIu64, s->num); break;
  case SZA_VAR: buf_puts(out, s->name); break;
  case SZA_CEIL:
  case SZA_FLOOR:
    buf_puts(out, s->kind == SZA_CEIL ? "ceil(" : "floor(");
    print_size(out, s->lhs, SP_MUL);
    buf_puts(out, " / ");
    print_size(out, s->rhs, SP_MUL + 1);
    buf_putc(out, ')');
    break;
  case SZA_ADD:
  case SZA_SUB:
  case SZA_MUL:
  case SZA_DIV:
  case SZA_MOD: {
    static const char *const spelling[] = {[SZA_ADD] = "+", [SZA_SUB] = "-", [SZA_MUL] = "*",
                                           [SZA_DIV] = "/", [SZA_MOD] = "%"};
    int prec = size_prec(s);
    print_size(out, s->lhs, prec);
    emit(out, " %s ", spelling[s->kind]);
    print_size(out, s->rhs, prec + 1);
    break;
  }
  }
  if (paren) buf_putc(out, ')');
}

void size_ast_print(Buf *out, const SizeAst *s) { print_size(out, s, SP_ADD); }

/* A primitive's size argument: an integer or a name as it is, anything
 * else in parentheses, ceil(...) and floor(...) too: the parser reads
 * `split ceil(N / 64)` as split applied to a variable named ceil
 * (docs/reference.md, "Sizes that do not divide"). */
static void print_size_arg(Buf *out, const SizeAst *s) {
  bool call = s->kind == SZA_CEIL || s->kind == SZA_FLOOR;
  if (call) buf_putc(out, '(');
  print_size(out, s, SP_ATOM);
  if (call) buf_putc(out, ')');
}

/* ---- types ---- */

static int type_prec(const TypeAst *t) {
  switch (t->kind) {
  case TYA_FN:
  case TYA_FN_P: return TP_ARROW;
  case TYA_WITH: return TP_WITH;
  default: return TP_ATOM;
  }
}

static void print_type(Buf *out, const TypeAst *t, int ctx) {
  static const char *const scalar_names[] = {
      [SC_INT] = "int", [SC_FLOAT] = "float", [SC_DOUBLE] = "double", [SC_BOOL] = "bool"};
  bool paren = type_prec(t) < ctx;
  if (paren) buf_putc(out, '(');
  switch (t->kind) {
  case TYA_SCALAR:
    buf_puts(out, scalar_names[t->scalar]);
    if (t->vec_width > 1) emit(out, "%d", t->vec_width);
    break;
  case TYA_ARRAY:
    buf_putc(out, '[');
    print_size(out, t->size, SP_ADD);
    buf_putc(out, ']');
    print_type(out, t->elem, TP_ATOM);
    break;
  case TYA_DEPARRAY:
    buf_putc(out, '[');
    print_size(out, t->size, SP_ADD);
    emit(out, "](\\%s -> ", t->name);
    print_type(out, t->elem, TP_ARROW);
    buf_putc(out, ')');
    break;
  case TYA_PAIR:
    buf_putc(out, '(');
    print_type(out, t->fst, TP_ARROW);
    buf_puts(out, ", ");
    print_type(out, t->snd, TP_ARROW);
    buf_putc(out, ')');
    break;
  case TYA_IDX:
    buf_puts(out, "idx[");
    print_size(out, t->size, SP_ADD);
    buf_putc(out, ']');
    break;
  case TYA_NAMED: buf_puts(out, t->name); break;
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR:
    buf_puts(out, t->kind == TYA_EXP ? "exp[" : t->kind == TYA_ACC ? "acc[" : "var[");
    print_type(out, t->elem, TP_ARROW);
    buf_putc(out, ']');
    break;
  case TYA_COMM: buf_puts(out, "comm"); break;
  case TYA_WITH:
    print_type(out, t->fst, TP_WITH);
    buf_puts(out, " & ");
    print_type(out, t->snd, TP_ATOM);
    break;
  case TYA_FN:
  case TYA_FN_P:
    print_type(out, t->fst, TP_WITH);
    buf_puts(out, t->kind == TYA_FN ? " -> " : " ->p ");
    print_type(out, t->snd, TP_ARROW);
    break;
  }
  if (paren) buf_putc(out, ')');
}

void type_ast_print(Buf *out, const TypeAst *t) { print_type(out, t, TP_ARROW); }

/* ---- expressions ---- */

static bool prim_has_static_args(const Ast *e) {
  return prim_info[e->prim].nsizes > 0 || prim_info[e->prim].takes_type;
}

static int binop_prec(BinOp op) {
  switch (op) {
  case BIN_MUL:
  case BIN_DIV:
  case BIN_MOD: return EP_MUL;
  case BIN_ADD:
  case BIN_SUB: return EP_ADD;
  case BIN_LT:
  case BIN_LE:
  case BIN_GT:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE: return EP_CMP;
  case BIN_AND: return EP_AND;
  case BIN_OR: return EP_OR;
  case BIN_COUNT: break;
  }
  INTERNAL("bad binary operator %d", (int)op);
}

const char *lane_spelling(int lane, int width) {
  static const char *const xyzw[4] = {".x", ".y", ".z", ".w"};
  static const char *const s[16] = {".s0", ".s1", ".s2", ".s3", ".s4", ".s5", ".s6", ".s7",
                                    ".s8", ".s9", ".sa", ".sb", ".sc", ".sd", ".se", ".sf"};
  if (lane < 4 && width <= 4) return xyzw[lane];
  return s[lane & 15];
}

static int expr_prec(const Ast *e) {
  switch (e->kind) {
  case AST_LAMBDA:
  case AST_LET: return EP_TOP;
  case AST_SEQ: return EP_SEQ;
  case AST_ASSIGN: return EP_ASSIGN;
  case AST_APP: return e->pipe ? EP_PIPE : EP_APP;
  case AST_COMPOSE: return EP_COMPOSE;
  case AST_BINOP: return binop_prec(e->op);
  case AST_NEG:
  case AST_NOT: return EP_UNARY;
  case AST_PROJ:
  case AST_LANE: return EP_POSTFIX;
  case AST_PRIM: return prim_has_static_args(e) ? EP_APP : EP_ATOM;
  case AST_ITERATE: return EP_APP;
  case AST_VAR:
  case AST_INT:
  case AST_FLOAT:
  case AST_BOOL:
  case AST_TUPLE:
  case AST_PPAIR:
  case AST_ARRAY:
  case AST_ASCRIBE: return EP_ATOM;
  case AST_COUNT: break;
  }
  INTERNAL("bad Ast kind %d", (int)e->kind);
}

/* The shortest %g form that reads back as the same double, always with a
 * '.' or an exponent so that it lexes as a decimal literal (lex.c). */
static void print_float(Buf *out, double v, bool suffix_f) {
  /* the lexer only makes finite, non-negative literals (-x is AST_NEG) */
  ASSERT(isfinite(v) && !signbit(v));
  Buf digits;
  buf_init(&digits, out->arena);
  for (int precision = 1; precision <= 17; precision++) {
    buf_clear(&digits);
    emit(&digits, "%.*g", precision, v);
    if (strtod(digits.data, NULL) == v) break;
  }
  /* 1e+10 -> 1e10, 2.5e-08 -> 2.5e-8: the same number, as people write it */
  const char *exponent = strchr(digits.data, 'e');
  if (exponent) {
    buf_put(out, digits.data, (size_t)(exponent - digits.data) + 1);
    const char *digit = exponent + 1;
    if (*digit == '-') buf_putc(out, *digit);
    if (*digit == '-' || *digit == '+') digit++;
    while (digit[0] == '0' && digit[1] != '\0') digit++;
    buf_puts(out, digit);
  } else {
    buf_puts(out, digits.data);
    if (!strchr(digits.data, '.')) buf_puts(out, ".0");
  }
  if (suffix_f) buf_putc(out, 'f');
}

static int pipe_chain_length(const Ast *e) {
  int n = 0;
  for (; e->kind == AST_APP && e->pipe; e = e->rhs) n++;
  return n;
}

/* A body that program_print starts on a line of its own. */
static bool is_block(const Ast *e) {
  while (e->kind == AST_LAMBDA) e = e->body;
  return e->kind == AST_SEQ || e->kind == AST_LET || pipe_chain_length(e) >= 2;
}

static void print_expr(Printer *pr, const Ast *e, int ctx, bool line_start);

/* x |> f |> g on separate lines: the chain's head, then one stage a line. */
static void print_pipe_lines(Printer *pr, const Ast *e) {
  if (e->kind == AST_APP && e->pipe) {
    print_pipe_lines(pr, e->rhs);
    newline(pr);
    buf_puts(pr->out, "|> ");
    print_expr(pr, e->lhs, EP_PIPE + 1, false);
  } else {
    print_expr(pr, e, EP_PIPE, true);
  }
}

static void print_lambda(Printer *pr, const Ast *e) {
  buf_putc(pr->out, '\\');
  for (; e->kind == AST_LAMBDA; e = e->body) emit(pr->out, "%s ", e->bound);
  buf_puts(pr->out, "->");
  if (pr->multiline && is_block(e)) {
    pr->indent++;
    newline(pr);
    print_expr(pr, e, EP_TOP, true);
    pr->indent--;
  } else {
    buf_putc(pr->out, ' ');
    print_expr(pr, e, EP_TOP, false);
  }
}

static void print_binary(Printer *pr, const Ast *lhs, const char *op, const Ast *rhs, int lhs_ctx,
                         int rhs_ctx, bool line_start) {
  print_expr(pr, lhs, lhs_ctx, line_start);
  emit(pr->out, " %s ", op);
  print_expr(pr, rhs, rhs_ctx, false);
}

static void print_expr(Printer *pr, const Ast *e, int ctx, bool line_start) {
  Buf *out = pr->out;
  int prec = expr_prec(e);
  if (prec < ctx) {
    buf_putc(out, '(');
    print_expr(pr, e, EP_TOP, false);
    buf_putc(out, ')');
    return;
  }
  switch (e->kind) {
  case AST_VAR: buf_puts(out, e->name); return;
  case AST_INT: emit(out, "%" PRIu64, e->int_value); return;
  case AST_FLOAT: print_float(out, e->float_value, e->float_suffix_f); return;
  case AST_BOOL: buf_puts(out, e->bool_value ? "true" : "false"); return;
  case AST_PRIM: {
    const PrimInfo *info = &prim_info[e->prim];
    buf_puts(out, info->name);
    if (e->dim_written || e->dim != 0) emit(out, "%d", e->dim);
    for (int i = 0; i < info->nsizes; i++) {
      buf_putc(out, ' ');
      print_size_arg(out, e->sizes[i]);
    }
    if (info->takes_type) {
      buf_putc(out, ' ');
      print_type(out, e->type_arg, TP_ATOM);
    }
    return;
  }
  case AST_ITERATE:
    buf_puts(out, "iterate ");
    print_size_arg(out, e->count);
    buf_putc(out, ' ');
    print_expr(pr, e->iter_fn, EP_POSTFIX, false);
    return;
  case AST_LAMBDA: print_lambda(pr, e); return;
  case AST_LET:
    emit(out, "let %s = ", e->bound);
    print_expr(pr, e->value, EP_TOP, false);
    buf_puts(out, " in");
    if (pr->multiline && line_start) newline(pr);
    else buf_putc(out, ' ');
    print_expr(pr, e->body, EP_TOP, pr->multiline && line_start);
    return;
  case AST_SEQ:
    /* right associative: a; (b; c) prints as a; b; c */
    print_expr(pr, e->lhs, EP_SEQ + 1, line_start);
    buf_putc(out, ';');
    if (pr->multiline) newline(pr);
    else buf_putc(out, ' ');
    print_expr(pr, e->rhs, EP_SEQ, pr->multiline);
    return;
  case AST_ASSIGN:
    print_binary(pr, e->lhs, ":=", e->rhs, EP_ASSIGN + 1, EP_ASSIGN + 1, line_start);
    return;
  case AST_APP:
    if (e->pipe) {
      if (pr->multiline && line_start && pipe_chain_length(e) >= 2) print_pipe_lines(pr, e);
      else print_binary(pr, e->rhs, "|>", e->lhs, EP_PIPE, EP_PIPE + 1, line_start);
      return;
    }
    print_expr(pr, e->lhs, EP_APP, line_start);
    buf_putc(out, ' ');
    print_expr(pr, e->rhs, EP_POSTFIX, false);
    return;
  case AST_COMPOSE:
    print_binary(pr, e->lhs, ">>", e->rhs, EP_COMPOSE, EP_COMPOSE + 1, line_start);
    return;
  case AST_BINOP: {
    /* comparisons are non-associative: both operands one level tighter */
    int lhs_ctx = prec == EP_CMP ? prec + 1 : prec;
    print_binary(pr, e->lhs, binop_spelling[e->op], e->rhs, lhs_ctx, prec + 1, line_start);
    return;
  }
  case AST_NEG:
  case AST_NOT: {
    buf_putc(out, e->kind == AST_NEG ? '-' : '!');
    size_t operand_at = out->len;
    print_expr(pr, e->lhs, EP_UNARY, false);
    if (e->kind == AST_NEG && out->data[operand_at] == '-') {
      /* `- -x`, never `--x`, which would start a comment */
      buf_putc(out, ' ');
      memmove(out->data + operand_at + 1, out->data + operand_at, out->len - 1 - operand_at);
      out->data[operand_at] = ' ';
    }
    return;
  }
  case AST_PROJ:
  case AST_LANE:
    /* (1).1, not 1.1, which would lex as a decimal literal */
    if (e->lhs->kind == AST_INT || e->lhs->kind == AST_FLOAT) {
      buf_putc(out, '(');
      print_expr(pr, e->lhs, EP_TOP, false);
      buf_putc(out, ')');
    } else {
      print_expr(pr, e->lhs, EP_POSTFIX, line_start);
    }
    if (e->kind == AST_LANE)
      buf_puts(out, lane_spelling(e->proj, 0));
    else
      emit(out, ".%d", e->proj);
    return;
  case AST_TUPLE:
  case AST_PPAIR:
    buf_putc(out, e->kind == AST_TUPLE ? '(' : '{');
    print_expr(pr, e->lhs, EP_TOP, false);
    buf_puts(out, ", ");
    print_expr(pr, e->rhs, EP_TOP, false);
    buf_putc(out, e->kind == AST_TUPLE ? ')' : '}');
    return;
  case AST_ASCRIBE:
    buf_putc(out, '(');
    print_expr(pr, e->lhs, EP_TOP, false);
    buf_puts(out, " : ");
    print_type(out, e->type, TP_ARROW);
    buf_putc(out, ')');
    return;
  case AST_ARRAY:
    buf_putc(out, '[');
    for (int i = 0; i < e->nelems; i++) {
      if (i) buf_puts(out, ", ");
      print_expr(pr, e->elems[i], EP_TOP, false);
    }
    buf_putc(out, ']');
    return;
  case AST_COUNT: break;
  }
  INTERNAL("bad Ast kind %d", (int)e->kind);
}

void ast_print(Buf *out, const Ast *e) {
  Printer pr = {out, false, 0};
  print_expr(&pr, e, EP_TOP, false);
}

/* ---- declarations ---- */

void tune_domain_print(Buf *out, const Param *pa) {
  if (pa->tune_range) {
    emit(out, "tune [%llu .. %llu]", (unsigned long long)pa->tune_lo, (unsigned long long)pa->tune_hi);
  } else {
    buf_puts(out, "tune [");
    for (int j = 0; j < pa->ntune_values; j++) emit(out, "%s%llu", j ? ", " : "", (unsigned long long)pa->tune_values[j]);
    buf_putc(out, ']');
  }
  if (pa->tune_has_default) emit(out, " = %llu", (unsigned long long)pa->tune_default);
}

/* (xs ys: [N]float): consecutive parameters that were declared together
 * share one TypeAst, and print together again. */
static int print_param_group(Buf *out, const Param *params, int i, int n) {
  const Param *first = &params[i];
  if (first->kind == PARAM_UNTYPED) {
    emit(out, " %s", first->name);
    return i + 1;
  }
  int end = i + 1;
  if (first->kind == PARAM_PHRASE)
    while (end < n && params[end].kind == PARAM_PHRASE && params[end].type == first->type) end++;
  buf_puts(out, " (");
  for (int j = i; j < end; j++) emit(out, j > i ? " %s" : "%s", params[j].name);
  buf_puts(out, ": ");
  switch (first->kind) {
  case PARAM_NAT:
    if (!first->tune) {
      buf_puts(out, "nat");
    } else {
      tune_domain_print(out, first);
    }
    break;
  case PARAM_DATA: buf_puts(out, "data"); break;
  case PARAM_PHRASE: print_type(out, first->type, TP_ARROW); break;
  case PARAM_UNTYPED: break;
  }
  buf_putc(out, ')');
  return end;
}

void print_string_literal(Buf *out, const char *text) {
  buf_putc(out, '"');
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\') buf_putc(out, '\\');
    buf_putc(out, *c);
  }
  buf_putc(out, '"');
}

/* One declaration as written, under the name name (its own if NULL), and a
 * newline. */
void decl_updates_print(Buf *out, const Decl *d) {
  if (d->updates) emit(out, " updates %s", d->updates);
  for (int k = 1; k < d->nupdated; k++) emit(out, ", %s", d->updated[k]);
  for (int k = 0; k < d->nregions; k++) {
    buf_puts(out, k ? ", " : " ");
    for (int j = 0; j < d->regions[k].ndims; j++) {
      buf_puts(out, "[");
      size_ast_print(out, d->regions[k].lo[j]);
      buf_puts(out, " .. ");
      size_ast_print(out, d->regions[k].hi[j]);
      buf_putc(out, ']');
    }
  }
}

void decl_print(Buf *out, const Decl *d, Sym name) {
  emit(out, "%s %s", d->is_kernel ? "kernel" : d->is_pipeline ? "pipeline" : d->is_foreign ? "foreign" : "def",
       name ? name : d->name);
  for (int j = 0; j < d->nparams;) j = print_param_group(out, d->params, j, d->nparams);
  if (d->nperms) buf_puts(out, " permutation");
  for (int j = 0; j < d->nperms; j++) emit(out, " %s", d->perms[j]);
  decl_updates_print(out, d);
  if (d->result) {
    buf_puts(out, " : ");
    print_type(out, d->result, TP_ARROW);
  }
  buf_puts(out, " =");
  if (d->is_foreign) {
    buf_putc(out, ' ');
    print_string_literal(out, d->foreign_body);
    buf_putc(out, '\n');
    return;
  }
  Printer pr = {out, true, 1};
  newline(&pr);
  print_expr(&pr, d->body, EP_TOP, true);
  buf_putc(out, '\n');
}

/* the program as written: the prelude's defs it uses are not printed
 * (parsing the text adds them again) */
void program_print(Buf *out, const Program *p) {
  bool first = true;
  for (int i = 0; i < p->ndecls; i++) {
    const Decl *d = p->decls[i];
    if (d->from_prelude) continue;
    if (!first) buf_putc(out, '\n');
    first = false;
    decl_print(out, d, NULL);
  }
}
