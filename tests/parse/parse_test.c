/* parse_test.c: tests of the front of the front end (lex.c, parse.c,
 * ast_print.c, prims.c) against spec section 2.
 *
 *   parse_test lexer          token streams of tricky inputs
 *   parse_test precedence     inline expressions, types and sizes against a
 *                             fully parenthesised print of the tree
 *   parse_test errors         syntax errors: the exact error lines
 *   parse_test limits         nesting limits, bad bytes, huge literals,
 *                             empty and comment-only files
 *   parse_test spans          source spans of nodes; lazy line starts
 *   parse_test prelude        the prelude defs random texts name; the
 *                             parser's primitive lookup against prim_lookup
 *   parse_test roundtrip DIR...   parse -> print -> parse -> print is a
 *                             fixed point for every .dpia file under DIRs
 *                             (found at test time) and the inline programs
 *   parse_test perf           a 10 MB file of declarations parses in time
 *
 * Each mode prints one line per failure and a summary; exit status 1 if
 * anything failed. */
#define _POSIX_C_SOURCE 200809L

#include "ast.h"
#include "parse_int.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct Tester {
  int checks, failures;
} Tester;

static void check(Tester *t, bool ok, const char *what, const char *detail) {
  t->checks++;
  if (ok) return;
  t->failures++;
  printf("FAIL %s\n", what);
  if (detail && *detail) printf("     %s\n", detail);
}

/* One parse of one text, with its own arena. */
typedef struct Parsed {
  Arena arena;
  Interner interner;
  Diag diag;
  Source src;
  Program *program;
} Parsed;

static void parse_text(Parsed *ps, DpiaMem *mem, const char *name, const char *text, size_t len) {
  arena_init(&ps->arena, mem);
  intern_init(&ps->interner, &ps->arena);
  diag_init(&ps->diag, &ps->arena);
  /* a private copy of exactly len bytes: the parser must not rely on a
   * terminating NUL */
  char *copy = arena_alloc(&ps->arena, len ? len : 1);
  memcpy(copy, text, len);
  source_init(&ps->src, &ps->arena, name, copy, len);
  ps->program = parse_program(&ps->arena, &ps->interner, &ps->diag, &ps->src);
}

static void parse_cstr(Parsed *ps, DpiaMem *mem, const char *text) {
  parse_text(ps, mem, "t.dpia", text, strlen(text));
}

/* The `file:line:col: error[CODE]: message` lines of the diagnostics, one
 * per error, each ending in '\n'. */
static const char *error_lines(Parsed *ps) {
  Buf all, errors;
  buf_init(&all, &ps->arena);
  buf_init(&errors, &ps->arena);
  diag_render_text(&ps->diag, &all);
  const char *line = all.data;
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    if (strstr(line, ": error[") && (size_t)(strstr(line, ": error[") - line) < n) {
      buf_put(&errors, line, n);
      buf_putc(&errors, '\n');
    }
    line += n + (end ? 1 : 0);
  }
  return errors.data;
}

/* ---- a printer that parenthesises every compound node ---- */

static void full_size(Buf *b, const SizeAst *s) {
  static const char *const ops[] = {[SZA_ADD] = "+", [SZA_SUB] = "-", [SZA_MUL] = "*",
                                    [SZA_DIV] = "/", [SZA_MOD] = "%"};
  switch (s->kind) {
  case SZA_NUM: emit(b, "%" PRIu64, s->num); return;
  case SZA_VAR: buf_puts(b, s->name); return;
  case SZA_CEIL:
  case SZA_FLOOR:
    buf_puts(b, s->kind == SZA_CEIL ? "ceil(" : "floor(");
    full_size(b, s->lhs);
    buf_puts(b, " / ");
    full_size(b, s->rhs);
    buf_putc(b, ')');
    return;
  default:
    buf_putc(b, '(');
    full_size(b, s->lhs);
    emit(b, " %s ", ops[s->kind]);
    full_size(b, s->rhs);
    buf_putc(b, ')');
  }
}

static void full_type(Buf *b, const TypeAst *t) {
  static const char *const scalars[] = {"int", "float", "double", "bool"};
  switch (t->kind) {
  case TYA_SCALAR:
    buf_puts(b, scalars[t->scalar]);
    if (t->vec_width > 1) emit(b, "%d", t->vec_width);
    return;
  case TYA_ARRAY:
    buf_putc(b, '[');
    full_size(b, t->size);
    buf_putc(b, ']');
    full_type(b, t->elem);
    return;
  case TYA_DEPARRAY:
    buf_putc(b, '[');
    full_size(b, t->size);
    emit(b, "](\\%s -> ", t->name);
    full_type(b, t->elem);
    buf_putc(b, ')');
    return;
  case TYA_PAIR:
    buf_putc(b, '(');
    full_type(b, t->fst);
    buf_puts(b, ", ");
    full_type(b, t->snd);
    buf_putc(b, ')');
    return;
  case TYA_IDX:
    buf_puts(b, "idx[");
    full_size(b, t->size);
    buf_putc(b, ']');
    return;
  case TYA_NAMED: buf_puts(b, t->name); return;
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR:
    buf_puts(b, t->kind == TYA_EXP ? "exp[" : t->kind == TYA_ACC ? "acc[" : "var[");
    full_type(b, t->elem);
    buf_putc(b, ']');
    return;
  case TYA_COMM: buf_puts(b, "comm"); return;
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P:
    buf_putc(b, '(');
    full_type(b, t->fst);
    buf_puts(b, t->kind == TYA_WITH ? " & " : t->kind == TYA_FN ? " -> " : " ->p ");
    full_type(b, t->snd);
    buf_putc(b, ')');
    return;
  }
}

static void full_expr(Buf *b, const Ast *e) {
  switch (e->kind) {
  case AST_VAR: buf_puts(b, e->name); return;
  case AST_INT: emit(b, "%" PRIu64, e->int_value); return;
  case AST_FLOAT: emit(b, "%g%s", e->float_value, e->float_suffix_f ? "f" : ""); return;
  case AST_BOOL: buf_puts(b, e->bool_value ? "true" : "false"); return;
  case AST_PRIM: {
    const PrimInfo *info = &prim_info[e->prim];
    bool args = info->nsizes > 0 || info->takes_type;
    if (args) buf_putc(b, '(');
    buf_puts(b, info->name);
    if (e->dim_written) emit(b, "%d", e->dim);
    for (int i = 0; i < info->nsizes; i++) {
      buf_putc(b, ' ');
      full_size(b, e->sizes[i]);
    }
    if (info->takes_type) {
      buf_putc(b, ' ');
      full_type(b, e->type_arg);
    }
    if (args) buf_putc(b, ')');
    return;
  }
  case AST_ITERATE:
    buf_puts(b, "(iterate ");
    full_size(b, e->count);
    buf_putc(b, ' ');
    full_expr(b, e->iter_fn);
    buf_putc(b, ')');
    return;
  case AST_LAMBDA:
    emit(b, "(\\%s -> ", e->bound);
    full_expr(b, e->body);
    buf_putc(b, ')');
    return;
  case AST_LET:
    emit(b, "(let %s = ", e->bound);
    full_expr(b, e->value);
    buf_puts(b, " in ");
    full_expr(b, e->body);
    buf_putc(b, ')');
    return;
  case AST_NEG:
  case AST_NOT:
    buf_puts(b, e->kind == AST_NEG ? "(-" : "(!");
    full_expr(b, e->lhs);
    buf_putc(b, ')');
    return;
  case AST_PROJ:
    buf_putc(b, '(');
    full_expr(b, e->lhs);
    emit(b, ".%d)", e->proj);
    return;
  case AST_LANE:
    buf_putc(b, '(');
    full_expr(b, e->lhs);
    emit(b, "%s)", lane_spelling(e->proj, 0));
    return;
  case AST_ASCRIBE:
    buf_putc(b, '(');
    full_expr(b, e->lhs);
    buf_puts(b, " : ");
    full_type(b, e->type);
    buf_putc(b, ')');
    return;
  case AST_ARRAY:
    buf_putc(b, '[');
    for (int i = 0; i < e->nelems; i++) {
      if (i) buf_puts(b, ", ");
      full_expr(b, e->elems[i]);
    }
    buf_putc(b, ']');
    return;
  case AST_TUPLE:
  case AST_PPAIR:
    buf_putc(b, e->kind == AST_TUPLE ? '(' : '{');
    full_expr(b, e->lhs);
    buf_puts(b, ", ");
    full_expr(b, e->rhs);
    buf_putc(b, e->kind == AST_TUPLE ? ')' : '}');
    return;
  case AST_APP:
    buf_putc(b, '(');
    if (e->pipe) {
      full_expr(b, e->rhs);
      buf_puts(b, " |> ");
      full_expr(b, e->lhs);
    } else {
      full_expr(b, e->lhs);
      buf_putc(b, ' ');
      full_expr(b, e->rhs);
    }
    buf_putc(b, ')');
    return;
  case AST_COMPOSE:
  case AST_SEQ:
  case AST_ASSIGN:
  case AST_BINOP: {
    const char *op = e->kind == AST_COMPOSE ? " >> "
                     : e->kind == AST_SEQ   ? "; "
                     : e->kind == AST_ASSIGN ? " := "
                                             : NULL;
    buf_putc(b, '(');
    full_expr(b, e->lhs);
    if (op) buf_puts(b, op);
    else emit(b, " %s ", binop_spelling[e->op]);
    full_expr(b, e->rhs);
    buf_putc(b, ')');
    return;
  }
  case AST_COUNT: break;
  }
  buf_puts(b, "<bad node>");
}

/* Every declaration, fully parenthesised, with its parameters and spans of
 * nothing: two trees print the same exactly when they are equal. */
static void full_program(Buf *b, const Program *p) {
  for (int i = 0; i < p->ndecls; i++) {
    const Decl *d = p->decls[i];
    emit(b, "%s %s", d->is_kernel ? "kernel" : "def", d->name);
    for (int j = 0; j < d->nparams; j++) {
      const Param *pa = &d->params[j];
      emit(b, " (%s: ", pa->name);
      if (pa->kind == PARAM_NAT) buf_puts(b, "nat");
      else if (pa->kind == PARAM_DATA) buf_puts(b, "data");
      else if (pa->kind == PARAM_UNTYPED) buf_puts(b, "untyped");
      else full_type(b, pa->type);
      buf_putc(b, ')');
      /* sharing of one TypeAst by a parameter group is part of the tree */
      if (j > 0 && pa->type && pa->type == d->params[j - 1].type) buf_puts(b, "&shared");
    }
    if (d->result) {
      buf_puts(b, " : ");
      full_type(b, d->result);
    }
    buf_puts(b, " = ");
    if (d->is_foreign) emit(b, "foreign \"%s\"", d->foreign_body);
    else full_expr(b, d->body);
    buf_putc(b, '\n');
  }
}

/* ---- round trip ---- */

/* parse(text) -> print -> parse -> print: the second parse must succeed,
 * give the same tree, and print the same text. */
static void round_trip(Tester *t, DpiaMem *mem, const char *name, const char *text, size_t len) {
  Parsed first, second, third;
  parse_text(&first, mem, name, text, len);
  Buf printed1, full1;
  buf_init(&printed1, &first.arena);
  buf_init(&full1, &first.arena);
  program_print(&printed1, first.program);
  full_program(&full1, first.program);

  parse_text(&second, mem, name, printed1.data, printed1.len);
  Buf printed2, full2;
  buf_init(&printed2, &second.arena);
  buf_init(&full2, &second.arena);
  program_print(&printed2, second.program);
  full_program(&full2, second.program);

  char *what = arena_printf(&first.arena, "round trip of %s", name);
  /* a first parse with errors that kept declarations (a reserved name, a
   * bad vector width) prints them, and they are reported again */
  check(t, second.diag.nerrors == 0 || first.diag.nerrors > 0, what,
        arena_printf(&first.arena, "the printed program does not parse:\n%s\n%s",
                     error_lines(&second), printed1.data));
  check(t, strcmp(full1.data, full2.data) == 0, what,
        arena_printf(&first.arena, "the tree changed:\n%s---\n%s", full1.data, full2.data));
  check(t, strcmp(printed1.data, printed2.data) == 0, what,
        arena_printf(&first.arena, "the print is not a fixed point:\n%s---\n%s", printed1.data,
                     printed2.data));

  /* single-line printing of each body must give the same tree too */
  for (int i = 0; i < first.program->ndecls; i++) {
    if (first.program->decls[i]->is_foreign) continue; /* a string, no expression */
    Buf line;
    buf_init(&line, &first.arena);
    emit(&line, "def x =\n");
    ast_print(&line, first.program->decls[i]->body);
    parse_text(&third, mem, name, line.data, line.len);
    Buf a, b;
    buf_init(&a, &first.arena);
    buf_init(&b, &first.arena);
    full_expr(&a, first.program->decls[i]->body);
    /* the prelude's defs the body names come first (parse_program) */
    int n = third.program->ndecls;
    if (n >= 1 && !third.program->decls[n - 1]->from_prelude) full_expr(&b, third.program->decls[n - 1]->body);
    check(t, third.diag.nerrors == 0 && strcmp(a.data, b.data) == 0, what,
          arena_printf(&first.arena, "ast_print of a body does not read back: %s\n%s",
                       line.data, error_lines(&third)));
    arena_free(&third.arena);
  }
  arena_free(&second.arena);
  arena_free(&first.arena);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Round-trip every .dpia file under path; returns how many were found. */
static int round_trip_tree(Tester *t, DpiaMem *mem, Arena *paths, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (S_ISREG(st.st_mode)) {
    if (!has_suffix(path, ".dpia")) return 0;
    FILE *f = fopen(path, "rb");
    size_t len = (size_t)st.st_size;
    char *text = arena_alloc(paths, len + 1);
    bool read_ok = f && fread(text, 1, len, f) == len;
    if (f) fclose(f);
    check(t, read_ok, path, "cannot read the file");
    if (read_ok) round_trip(t, mem, path, text, len);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) return 0;
  DIR *dir = opendir(path);
  if (!dir) return 0;
  Vec names = {0};
  for (struct dirent *ent; (ent = readdir(dir));) {
    if (ent->d_name[0] == '.') continue;
    vec_push(paths, &names, arena_printf(paths, "%s/%s", path, ent->d_name));
  }
  closedir(dir);
  int found = 0;
  for (int i = 0; i < names.len; i++) found += round_trip_tree(t, mem, paths, names.items[i]);
  return found;
}

/* Inline programs covering the syntax, for the round trip. */
static const char *const inline_programs[] = {
    "kernel k (N: nat) (xs ys: [N]float) = zip xs ys |> split (2048 * 128) |> mapWorkgroup "
    "(\\zs1 -> zs1 |> split 2048 |> mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) "
    "0.0 zs2)) |> join",
    "def racy (N: nat) (xs: [N]float) (out: acc[[N]float]) (b: acc[float]) =\n"
    "  parfor out (\\i o -> b := idx xs i)",
    "def f (a: exp[float] & acc[float] -> comm ->p comm) (d: data) (v: [N]d) : comm =\n"
    "  new float (\\v -> v.1 := 1.5f; a {v.2, v.1} skip; let y = v.2 in skip)",
    "def g (x: (float, [N](int4, idx[N / 2]))) = (x : (float, [N](int4, idx[N / 2])))",
    "def h = - -x; a - -b; !(!c); -(f x); (a - b) - c; a - (b - c); a < (b < c)",
    "def i = f >> g >> (h >> k); x |> (y |> z); (\\x -> x) 1; f (\\x -> x); (let a = 1 in a) + 1",
    "def j = (1).1; (1.5).2; x.1.2; (f x).1; {a, b}.1; (a, b).2; 1e300; 1.0e-300; 0.1f; 2.5e-8f",
    "def k = slide 3 1 xs |> padClamp 1 1 |> padCst 2 (N - 1) 0.0 |> take (N / 2) |> drop 1",
    "def l = mapGlobal1 f xs; mapLocal0 g ys; mapWorkgroup h zs; parforGlobal2 out body",
    "def m = newLocal [64]float4 (\\v -> skip); new (float, int) f; newGlobal [N][M]double8 g",
    "def n = a := b || c && d == e; (a := b) ; c; ((d; e); f)",
    "def o = \\x -> \\y -> x + y; let f = \\x -> x in let g = f in g; x |> \\y -> y",
    "def p = a + \\x -> x; a * (b + c) % d / e; a <= b; a >= b; a != b; a > b; true || false",
    "def q (f: exp[int] -> (exp[int] -> comm) -> comm) (g: (comm & comm) & comm) = skip",
    "def r = 18446744073709551615 + 0; vec 4 x; for N (\\i -> skip); for (N * 2) f",
    "def s (x: [N](\\i -> [N - i](\\j -> (idx[j + 1], [2]float)))) = (x : [N](\\k -> [N - k][k]float))",
};

/* ---- precedence ---- */

typedef enum CaseKind { CASE_EXPR, CASE_TYPE, CASE_SIZE } CaseKind;
typedef struct PrecCase {
  CaseKind kind;
  const char *source;
  const char *expected;
} PrecCase;

static const PrecCase prec_cases[] = {
    /* the spec's own example (section 2) */
    {CASE_EXPR, "\\i o -> o := xs |> f; skip", "(\\i -> (\\o -> ((o := (xs |> f)); skip)))"},
    {CASE_EXPR, "a + b * c", "(a + (b * c))"},
    {CASE_EXPR, "a * b + c", "((a * b) + c)"},
    {CASE_EXPR, "a - b - c", "((a - b) - c)"},
    {CASE_EXPR, "a / b % c * d", "(((a / b) % c) * d)"},
    {CASE_EXPR, "f x y", "((f x) y)"},
    {CASE_EXPR, "f x.1", "(f (x.1))"},
    {CASE_EXPR, "x.1.2", "((x.1).2)"},
    {CASE_EXPR, "-f x", "(-(f x))"},
    {CASE_EXPR, "- - x", "(-(-x))"},
    {CASE_EXPR, "a - -b", "(a - (-b))"},
    {CASE_EXPR, "!a && b", "((!a) && b)"},
    {CASE_EXPR, "a || b && c", "(a || (b && c))"},
    {CASE_EXPR, "a && b || c", "((a && b) || c)"},
    {CASE_EXPR, "a < b + 1", "(a < (b + 1))"},
    {CASE_EXPR, "a == b && c != d", "((a == b) && (c != d))"},
    {CASE_EXPR, "-a * b", "((-a) * b)"},
    {CASE_EXPR, "a * -b", "(a * (-b))"},
    {CASE_EXPR, "x |> f |> g", "((x |> f) |> g)"},
    {CASE_EXPR, "f >> g >> h", "((f >> g) >> h)"},
    {CASE_EXPR, "x |> f >> g", "(x |> (f >> g))"},
    {CASE_EXPR, "a >> b |> c", "((a >> b) |> c)"},
    {CASE_EXPR, "f >> g || h", "(f >> (g || h))"},
    {CASE_EXPR, "a; b; c", "(a; (b; c))"},
    {CASE_EXPR, "a := b; c := d", "((a := b); (c := d))"},
    {CASE_EXPR, "a := b || c", "(a := (b || c))"},
    {CASE_EXPR, "o := x |> f", "(o := (x |> f))"},
    {CASE_EXPR, "let x = 1 in x + 1", "(let x = 1 in (x + 1))"},
    {CASE_EXPR, "let f = \\x -> x in f 1; skip", "(let f = (\\x -> x) in ((f 1); skip))"},
    {CASE_EXPR, "f \\x -> x + 1", "(f (\\x -> (x + 1)))"},
    {CASE_EXPR, "a + \\x -> x; y", "(a + (\\x -> (x; y)))"},
    {CASE_EXPR, "\\x->p", "(\\x -> p)"},
    {CASE_EXPR, "\xce\xbbx y -> x", "(\\x -> (\\y -> x))"},
    {CASE_EXPR, "split 2048 xs", "((split 2048) xs)"},
    {CASE_EXPR, "split (N / 64) xs", "((split (N / 64)) xs)"},
    {CASE_EXPR, "split N xs |> join", "(((split N) xs) |> join)"},
    {CASE_EXPR, "slide 3 1 xs", "((slide 3 1) xs)"},
    {CASE_EXPR, "new float (\\v -> v.1 := 1.5)", "((new float) (\\v -> ((v.1) := 1.5)))"},
    {CASE_EXPR, "new [N][64]float4 f", "((new [N][64]float4) f)"},
    {CASE_EXPR, "newLocal (float, int) f", "((newLocal (float, int)) f)"},
    {CASE_EXPR, "mapGlobal1 f xs", "((mapGlobal1 f) xs)"},
    {CASE_EXPR, "mapSeq1 xs", "(mapSeq1 xs)"},
    {CASE_EXPR, "(a, b).1", "((a, b).1)"},
    {CASE_EXPR, "{a, b}.2 x", "(({a, b}.2) x)"},
    {CASE_EXPR, "(x : [N]float)", "(x : [N]float)"},
    {CASE_EXPR, "(f : exp[float] -> exp[float]) y", "((f : (exp[float] -> exp[float])) y)"},
    {CASE_EXPR, "(((x)))", "x"},
    {CASE_EXPR, "(a; b, \\x -> x)", "((a; b), (\\x -> x))"},
    {CASE_EXPR, "reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs",
     "(((reduceSeq (\\x -> (\\a -> (((fst x) * (snd x)) + a)))) 0) zs)"},
    {CASE_EXPR, "for N (\\i -> out i := 1.5e3f)", "((for N) (\\i -> ((out i) := 1500f)))"},
    {CASE_EXPR, "true && !false", "(true && (!false))"},
    {CASE_TYPE, "exp[float] -> exp[float] -> comm", "(exp[float] -> (exp[float] -> comm))"},
    {CASE_TYPE, "comm & comm & comm", "((comm & comm) & comm)"},
    {CASE_TYPE, "comm & comm -> comm", "((comm & comm) -> comm)"},
    {CASE_TYPE, "(comm -> comm) -> comm", "((comm -> comm) -> comm)"},
    {CASE_TYPE, "exp[idx[N]] -> acc[float] ->p comm", "(exp[idx[N]] -> (acc[float] ->p comm))"},
    {CASE_TYPE, "var[[N](float, d)] & comm", "(var[[N](float, d)] & comm)"},
    {CASE_TYPE, "[N][M]double16", "[N][M]double16"},
    {CASE_TYPE, "(float)", "float"},
    {CASE_TYPE, "[N](\\i -> [N - i - 1](float, int))", "[N](\\i -> [((N - i) - 1)](float, int))"},
    {CASE_TYPE, "[N]([M]float)", "[N][M]float"},
    {CASE_SIZE, "N * 2 + 1", "((N * 2) + 1)"},
    {CASE_SIZE, "1 + N * 2", "(1 + (N * 2))"},
    {CASE_SIZE, "N - M - 1", "((N - M) - 1)"},
    {CASE_SIZE, "N / (M * 2)", "(N / (M * 2))"},
    {CASE_SIZE, "N / 2 / 4", "((N / 2) / 4)"},
};

static void test_precedence(Tester *t, DpiaMem *mem) {
  for (size_t i = 0; i < DPIA_COUNTOF(prec_cases); i++) {
    const PrecCase *c = &prec_cases[i];
    Arena scratch;
    arena_init(&scratch, mem);
    const char *text = c->kind == CASE_EXPR   ? arena_printf(&scratch, "def t = %s", c->source)
                       : c->kind == CASE_TYPE
                           ? arena_printf(&scratch, "def t (x: %s) = x", c->source)
                                              : arena_printf(&scratch, "def t (x: [%s]float) = x",
                                                             c->source);
    Parsed ps;
    parse_cstr(&ps, mem, text);
    Buf got;
    buf_init(&got, &scratch);
    if (ps.program->ndecls == 1) {
      const Decl *d = ps.program->decls[0];
      if (c->kind == CASE_EXPR) full_expr(&got, d->body);
      else if (c->kind == CASE_TYPE) full_type(&got, d->params[0].type);
      else full_size(&got, d->params[0].type->size);
    }
    char *what = arena_printf(&scratch, "precedence of '%s'", c->source);
    check(t, ps.diag.nerrors == 0 && strcmp(got.data, c->expected) == 0, what,
          arena_printf(&scratch, "expected %s, got %s %s", c->expected, got.data,
                       error_lines(&ps)));
    arena_free(&ps.arena);
    /* and the pretty printer keeps that structure */
    round_trip(t, mem, what, text, strlen(text));
    arena_free(&scratch);
  }
}

/* ---- errors ---- */

typedef struct ErrorCase {
  const char *source;
  const char *expected; /* every error line, each ending in '\n' */
} ErrorCase;

static const ErrorCase error_cases[] = {
    {"def f = (a", "t.dpia:1:11: error[E0103]: expected ')' after the parenthesised expression, found end of file\n"},
    {"def f = a +", "t.dpia:1:12: error[E0103]: expected an expression after '+', found end of file\n"},
    {"def f = \\ -> x", "t.dpia:1:11: error[E0103]: expected a parameter name after '\\', found '->'\n"},
    {"def f = \\x y x + 1", "t.dpia:1:16: error[E0103]: expected '->' after the parameters of the lambda, found '+'\n"},
    {"def = 1", "t.dpia:1:5: error[E0103]: expected a name after 'def', found '='\n"},
    {"x = 1\ndef ok = 1",
     "t.dpia:1:1: error[E0103]: expected 'def' or 'kernel' at the start of a declaration, found 'x'\n"},
    {"def f (x) = x", "t.dpia:1:9: error[E0103]: expected ':' after the parameter names (a parameter is written '(x: "
                      "type)'), found ')'\n"},
    {"kernel k (N: nat) (xs: [N]float)xs |> f",
     "t.dpia:1:33: error[E0103]: expected '=' after the parameters of 'k' (a parameter is written '(xs: "
     "type)'), found 'xs'\n"},
    {"def f = a < b < c",
     "t.dpia:1:15: error[E0104]: comparisons do not chain: '<' cannot follow another comparison without "
     "parentheses\n"},
    {"def f = a := b := c",
     "t.dpia:1:16: error[E0104]: assignments do not chain: ':=' cannot follow another ':=' without "
     "parentheses\n"},
    {"def f = (a, b, c)", "t.dpia:1:14: error[E0107]: a pair has exactly two components; nest pairs as (a, (b, c))\n"},
    {"def f = {a b}", "t.dpia:1:13: error[E0103]: expected ',' after the first component of the phrase pair '{a, b}', "
                      "found '}'\n"},
    {"def f = let x 1 in x", "t.dpia:1:15: error[E0103]: expected '=' after 'let x', found '1'\n"},
    {"def f = let x = 1 y", "t.dpia:1:20: error[E0103]: expected 'in' after the value of 'x', found end of file\n"},
    {"def f (x: [N]bool4) = x",
     "t.dpia:1:14: error[E0105]: there are no bool vectors ('bool4'); vectors are int, float or double\n"},
    {"def f (x: float5) = x",
     "t.dpia:1:11: error[E0105]: 'float5' is not a vector type: vector widths are 2, 3, 4, 8 and 16\n"},
    {"def f (x: exp float) = x", "t.dpia:1:15: error[E0103]: expected '[' after 'exp', found 'float'\n"},
    {"def f (x: [N]exp[float]) = x",
     "t.dpia:1:14: error[E0308]: 'exp' is a phrase type, but a data type is expected here\n"},
    {"def f (x: [N]nat) = x", "t.dpia:1:14: error[E0105]: 'nat' is a kind, not a type; it can only follow the ':' of a "
                              "parameter\n"},
    {"def f (a: (comm, float)) = a",
     "t.dpia:1:12: error[E0308]: a pair '(a, b)' holds data types, but this is a phrase type; a pair of "
     "phrases is written 'a & b'\n"},
    {"def f = 99999999999999999999", "t.dpia:1:9: error[E0102]: integer literal too large\n"},
    {"def f = split 99999999999999999999 xs", "t.dpia:1:15: error[E0102]: integer literal too large\n"},
    {"def f = x @ y", "t.dpia:1:11: error[E0101]: unexpected character '@'\n"},
    {"def f = x \xc3\xa9", "t.dpia:1:11: error[E0101]: unexpected character '\xc3\xa9' (U+00E9)\n"},
    {"def f = (@)", "t.dpia:1:10: error[E0101]: unexpected character '@'\n"},
    {"def f = 2f", "t.dpia:1:10: error[E0102]: invalid suffix 'f' on integer literal: a decimal literal needs a '.' "
                   "or an exponent, as in 2.0f\n"},
    {"def f = 1.5e3x", "t.dpia:1:14: error[E0102]: invalid suffix 'x' on decimal literal\n"},
    {"def f = 1e999", "t.dpia:1:9: error[E0102]: decimal literal too large\n"},
    {"def f = x.3", "t.dpia:1:10: error[E0101]: unexpected '.': a projection is written '.1' or '.2'\n"},
    {"def f = x.q",
     "t.dpia:1:10: error[E0109]: '.q' is not a vector lane: lanes are .x .y .z .w, or .s0 to .sF (one lane "
     "at a time)\n"},
    {"def f = x.sG + x.s10",
     "t.dpia:1:10: error[E0109]: '.sG' is not a vector lane: lanes are .x .y .z .w, or .s0 to .sF "
     "(one lane at a time)\nt.dpia:1:17: error[E0109]: '.s10' is not a vector lane: lanes are .x .y "
     ".z .w, or .s0 to .sF (one lane at a time)\n"},
    {"def map = 1", "t.dpia:1:5: error[E0203]: 'map' is a primitive and cannot be rebound\n"},
    {"def f = \\x exp -> x", "t.dpia:1:12: error[E0203]: 'exp' is a primitive and cannot be rebound\n"},
    /* the uses of a rebound primitive would parse as the primitive: one error only */
    {"def f (vec: float) = vec * 2.0", "t.dpia:1:8: error[E0203]: 'vec' is a primitive and cannot be rebound\n"},
    {"def f = \\(x: float) -> x",
     "t.dpia:1:10: error[E0106]: lambda parameters are written without types: their types come from the "
     "primitive the lambda is passed to\n"},
    {"def f = a )", "t.dpia:1:11: error[E0103]: unexpected ')' with no matching opening bracket\n"},
    {"def f = a = b", "t.dpia:1:11: error[E0103]: unexpected '=': comparison is written '==' and assignment ':='\n"},
    {"def f = split ) xs",
     "t.dpia:1:15: error[E0103]: expected a size argument after 'split' (an integer, a nat parameter or "
     "a parenthesised size expression), found ')'\n"},
    {"def f = slide 3 + xs",
     "t.dpia:1:17: error[E0103]: expected size argument 2 of 'slide' (an integer, a nat parameter or a "
     "parenthesised size expression), found '+'\n"},
    {"def f = new 3 g", "t.dpia:1:13: error[E0103]: expected a data type after 'new', found '3'\n"},
    {"def f (x: nat -> comm) = x", "t.dpia:1:15: error[E0103]: expected ')' after the parameter's type, found '->'\n"},
    {"def f = (x : exp[float]",
     "t.dpia:1:24: error[E0103]: expected ')' after the type of the ascription, found end of file\n"},
    {"def f = x;", "t.dpia:1:11: error[E0103]: expected an expression after ';', found end of file\n"},
    {"def f = x\n  in y", "t.dpia:2:3: error[E0103]: unexpected 'in' without a 'let'\n"},
    {"def f = x : float",
     "t.dpia:1:11: error[E0103]: unexpected ':': a type ascription is written in parentheses, (e : "
     "type)\n"},
    {"def f = a, b", "t.dpia:1:10: error[E0103]: unexpected ',': a pair is written in parentheses, (a, b)\n"},
    /* at the end of the file: just after the last token, not past the
     * trailing lines */
    {"def f = (a   \n\n-- the end\n\n",
     "t.dpia:1:11: error[E0103]: expected ')' after the parenthesised expression, found end of file\n"},
    {"def f (N: nat aVeryLongIdentifierThatGoesOnAndOnAndOnAndOn) = 1",
     "t.dpia:1:15: error[E0103]: expected ')' after the parameter's type, found "
     "'aVeryLongIdentifierThatGoesOnAndOnAndOnA...'\n"},
    /* independent errors in several declarations: all reported, no cascade */
    {"def f = (a\ndef g = b +\ndef h = ok\nkernel k = )\ndef i = x x\ndef j = ] ]",
     "t.dpia:2:1: error[E0103]: expected ')' after the parenthesised expression, found 'def'\n"
     "t.dpia:3:1: error[E0103]: expected an expression after '+', found 'def'\n"
     "t.dpia:4:12: error[E0103]: expected an expression after '=', found ')'\n"
     "t.dpia:6:9: error[E0103]: expected an expression after '=', found ']'\n"},
    /* several errors in one declaration: only the first */
    {"def f = (a b c ] ) ) ( (", "t.dpia:1:16: error[E0103]: expected ')' after the parenthesised "
                                 "expression, found ']'\n"},
};

static void test_errors(Tester *t, DpiaMem *mem) {
  for (size_t i = 0; i < DPIA_COUNTOF(error_cases); i++) {
    const ErrorCase *c = &error_cases[i];
    Parsed ps;
    parse_cstr(&ps, mem, c->source);
    const char *got = error_lines(&ps);
    check(t, strcmp(got, c->expected) == 0, arena_printf(&ps.arena, "errors of '%s'", c->source),
          arena_printf(&ps.arena, "expected:\n%s     got:\n%s", c->expected, got));
    arena_free(&ps.arena);
  }
  /* the note that points at the unclosed bracket */
  Parsed ps;
  parse_cstr(&ps, mem, "def f = g (a\n  b c");
  Buf all;
  buf_init(&all, &ps.arena);
  diag_render_text(&ps.diag, &all);
  check(t, strstr(all.data, "t.dpia:1:11: note: to match this '('\n") != NULL,
        "note at the unclosed '('", all.data);
  arena_free(&ps.arena);
  /* the declarations around a bad one still parse */
  parse_cstr(&ps, mem, "def a = 1\ndef b = (\ndef c = 2");
  check(t, ps.program->ndecls == 2 && ps.diag.nerrors == 1, "recovery keeps good declarations",
        "");
  arena_free(&ps.arena);
}

/* ---- limits ---- */

/* Text with `prefix`, `middle` repeated n times, `core`, `closer` repeated
 * n times. */
static const char *repeat(Arena *a, const char *prefix, const char *middle, int n,
                          const char *core, const char *closer) {
  Buf b;
  buf_init(&b, a);
  buf_puts(&b, prefix);
  for (int i = 0; i < n; i++) buf_puts(&b, middle);
  buf_puts(&b, core);
  for (int i = 0; i < n; i++) buf_puts(&b, closer);
  return b.data;
}

/* a string literal and its exact length, NUL bytes included */
#define BYTES(literal) literal, sizeof(literal) - 1

typedef struct LimitCase {
  const char *name;
  const char *prefix, *middle, *core, *closer;
  int n;
  int expect_errors; /* 0: parses; 1: exactly one "nesting too deep" */
} LimitCase;

static const LimitCase limit_cases[] = {
    {"100000 nested parentheses", "def f = ", "(", "x", ")", 100000, 1},
    {"100000 unclosed parentheses", "def f = ", "(", "x", "", 100000, 1},
    {"100000 nested lambdas", "def f = ", "\\x -> ", "x", "", 100000, 1},
    {"100000 lambda parameters", "def f = \\", "x ", "-> x", "", 100000, 1},
    {"100000-element ';' chain", "def f = ", "skip; ", "skip", "", 100000, 1},
    {"100000 unary minus", "def f = ", "- ", "x", "", 100000, 1},
    {"100000 nested lets", "def f = ", "let x = 1 in ", "x", "", 100000, 1},
    {"100000-argument application", "def f = g", " x", "", "", 100000, 1},
    {"100000-operand sum", "def f = x", " + x", "", "", 100000, 1},
    {"100000-stage pipeline", "def f = x", " |> g", "", "", 100000, 1},
    {"100000 projections", "def f = x", ".1", "", "", 100000, 1},
    {"100000 nested braces", "def f = ", "{a, ", "b", "}", 100000, 1},
    {"100000 arrows in a type", "def f (x: ", "comm -> ", "comm) = x", "", 100000, 1},
    {"100000 '&' in a type", "def f (x: comm", " & comm", ") = x", "", 100000, 1},
    {"100000 nested array types", "def f (x: ", "[N]", "float) = x", "", 100000, 1},
    {"100000 nested size parentheses", "def f (x: [", "(", "N", ")", 100000, 1},
    {"100000-term size", "def f (x: [N", " + N", "]float) = x", "", 100000, 1},
    {"100000 nested pair types", "def f (x: ", "(float, ", "float", ")", 100000, 1},
    {"1000 nested parentheses (the limit)", "def f = ", "(", "x", ")", 1000, 0},
    {"1000 nested lambdas (the limit)", "def f = ", "\\x -> ", "x", "", 1000, 0},
    {"1001-element ';' chain (the limit)", "def f = ", "skip; ", "skip", "", 1000, 0},
    {"1001 nested lambdas", "def f = ", "\\x -> ", "x", "", 1001, 1},
    {"1001-operand sum", "def f = x", " + x", "", "", 1000, 0},
    {"1002-operand sum", "def f = x", " + x", "", "", 1001, 1},
};

static void expect_result(Tester *t, Parsed *ps, const char *name, int ndecls,
                          const char *errors) {
  const char *got = error_lines(ps);
  check(t, ps->program->ndecls == ndecls && strcmp(got, errors) == 0, name,
        arena_printf(&ps->arena, "%d declarations (expected %d), errors:\n%s     expected:\n%s",
                     ps->program->ndecls, ndecls, got, errors));
}

static void test_limits(Tester *t, DpiaMem *mem) {
  for (size_t i = 0; i < DPIA_COUNTOF(limit_cases); i++) {
    const LimitCase *c = &limit_cases[i];
    Arena scratch;
    arena_init(&scratch, mem);
    const char *text = repeat(&scratch, c->prefix, c->middle, c->n, c->core, c->closer);
    Parsed ps;
    parse_cstr(&ps, mem, text);
    const char *got = error_lines(&ps);
    bool ok = c->expect_errors == 0
                  ? ps.diag.nerrors == 0 && ps.program->ndecls == 1
                  : ps.diag.nerrors == 1 && ps.program->ndecls == 0 &&
                        strstr(got, "error[E0901]: nesting too deep (more than 1000 levels)\n") != NULL;
    check(t, ok, c->name, arena_printf(&scratch, "%d errors, %d decls: %.300s", ps.diag.nerrors,
                                       ps.program->ndecls, got));
    arena_free(&ps.arena);
    arena_free(&scratch);
  }
  /* the deepest '(' allowed is the 1000th: the error is at the 1001st */
  Arena scratch;
  arena_init(&scratch, mem);
  Parsed ps;
  parse_cstr(&ps, mem, repeat(&scratch, "def f = ", "(", 1001, "x", ")"));
  expect_result(t, &ps, "1001 nested parentheses", 0,
                "t.dpia:1:1009: error[E0901]: nesting too deep (more than 1000 levels)\n");
  arena_free(&ps.arena);
  arena_free(&scratch);

  static const struct {
    const char *name;
    const char *text;
    size_t len;
    int ndecls;
    const char *errors;
  } byte_cases[] = {
      {"invalid UTF-8", BYTES("def f = x \xff y"), 1, "t.dpia:1:11: error[E0101]: invalid UTF-8 byte 0xff\n"},
      {"overlong UTF-8 (one error for the run)", BYTES("def f = x \xc0\xaf\xc0 y"), 1,
       "t.dpia:1:11: error[E0101]: invalid UTF-8 byte 0xc0\n"},
      {"UTF-8 surrogate", BYTES("def f = x \xed\xa0\x80 y"), 1, "t.dpia:1:11: error[E0101]: invalid UTF-8 byte 0xed\n"},
      {"truncated UTF-8 at the end", BYTES("def f = x \xce"), 1,
       "t.dpia:1:11: error[E0101]: invalid UTF-8 byte 0xce\n"},
      {"invalid UTF-8 in a comment", BYTES("-- caf\xe9\ndef f = x"), 1,
       "t.dpia:1:7: error[E0101]: invalid UTF-8 byte 0xe9\n"},
      {"UTF-8 in a comment", BYTES("-- \xce\xbb caf\xc3\xa9 \xe2\x86\x92\ndef f = x"), 1, ""},
      {"NUL byte", BYTES("def f = x\0y"), 1, "t.dpia:1:10: error[E0101]: unexpected NUL byte\n"},
      {"NUL bytes at the start", BYTES("\0\0\0def f = x"), 1, "t.dpia:1:1: error[E0101]: unexpected NUL byte\n"},
      {"control character", BYTES("def f = x\x01"), 1,
       "t.dpia:1:10: error[E0101]: unexpected control character 0x01\n"},
      {"largest 64-bit literal", BYTES("def f = 18446744073709551615"), 1, ""},
      {"64-bit overflow", BYTES("def f = 18446744073709551616"), 1,
       "t.dpia:1:9: error[E0102]: integer literal too large\n"},
      {"empty file", BYTES(""), 0, ""},
      {"only comments", BYTES("-- one\n-- two\n   -- three"), 0, ""},
      {"only whitespace", BYTES(" \n\t\r\n "), 0, ""},
      {"byte order mark",
       BYTES("\xef\xbb\xbf"
             "def f = x"),
       1, ""},
      {"'-' at the very end", BYTES("def f = x -"), 0,
       "t.dpia:1:12: error[E0103]: expected an expression after '-', found end of file\n"},
      {"'->' at the very end", BYTES("def f = \\x ->"), 0,
       "t.dpia:1:14: error[E0103]: expected an expression after '->', found end of file\n"},
      {"'.' at the very end", BYTES("def f = x."), 1,
       "t.dpia:1:10: error[E0101]: unexpected '.': a projection is written '.1' or '.2'\n"},
      {"'1.' at the very end", BYTES("def f = 1."), 1,
       "t.dpia:1:10: error[E0101]: unexpected '.': a projection is written '.1' or '.2'\n"},
      {"exponent at the very end", BYTES("def f = 1e"), 1,
       "t.dpia:1:10: error[E0102]: invalid suffix 'e' on integer literal\n"},
      {"'|' at the very end", BYTES("def f = x |"), 1, "t.dpia:1:11: error[E0101]: unexpected character '|'\n"},
  };
  for (size_t i = 0; i < DPIA_COUNTOF(byte_cases); i++) {
    parse_text(&ps, mem, "t.dpia", byte_cases[i].text, byte_cases[i].len);
    expect_result(t, &ps, byte_cases[i].name, byte_cases[i].ndecls, byte_cases[i].errors);
    arena_free(&ps.arena);
  }
}

/* ---- lexer ---- */


typedef struct LexCase {
  const char *source;
  const char *expected; /* token kinds, space separated, by their spelling */
} LexCase;

static const LexCase lex_cases[] = {
    {"x ->pq", "identifier(x) -> identifier(pq)"},
    {"a->p b", "identifier(a) ->p identifier(b)"},
    {"a ->p' b", "identifier(a) -> identifier(p') identifier(b)"},
    {"a->p", "identifier(a) ->p"},
    {"x.1.2", "identifier(x) .1 .2"},
    {"x1.2", "identifier(x1) .2"},
    {"1.5.1", "decimal(1.5) .1"},
    {"(a, b).2", "( identifier(a) , identifier(b) ) .2"},
    {"1.5f 1.5e3 1.5e-3 2e3 2E+3f 0.1", "decimal(1.5f) decimal(1500) decimal(0.0015) "
                                        "decimal(2000) decimal(2000f) decimal(0.1)"},
    {"42 0 007", "integer(42) integer(0) integer(7)"},
    {"\xce\xbbx \\y", "\\ identifier(x) \\ identifier(y)"},
    {"|> || >> >= > <= < == = != ! && & := : ; , -",
     "|> || >> >= > <= < == = != ! && & := : ; , -"},
    {"( ) [ ] { } + * / %", "( ) [ ] { } + * / %"},
    {"def kernel let in true false", "def kernel let in true false"},
    {"define kernels lets int float exp nat", "identifier(define) identifier(kernels) "
                                              "identifier(lets) identifier(int) identifier(float) "
                                              "identifier(exp) identifier(nat)"},
    {"x' _y a_1'", "identifier(x') identifier(_y) identifier(a_1')"},
    {"a -- comment -> ( \n b", "identifier(a) identifier(b)"},
    {"a--b\nc", "identifier(a) identifier(c)"},
    {"a - -b", "identifier(a) - - identifier(b)"},
    {"a-->b", "identifier(a)"},
    {"a->b", "identifier(a) -> identifier(b)"},
};

static void describe_tokens(Buf *b, Parsed *ps) {
  Lexer lx;
  lexer_init(&lx, &ps->src, &ps->interner, &ps->diag);
  for (bool first = true;; first = false) {
    Token tok = lexer_next(&lx);
    if (tok.kind == TOK_EOF) break;
    if (!first) buf_putc(b, ' ');
    switch (tok.kind) {
    case TOK_IDENT: emit(b, "identifier(%s)", lexer_ident(&lx, &tok)); break;
    case TOK_INT: emit(b, "integer(%" PRIu64 ")", tok.int_value); break;
    case TOK_FLOAT: emit(b, "decimal(%g%s)", tok.float_value, tok.float_suffix_f ? "f" : ""); break;
    default: buf_puts(b, tok_spelling[tok.kind]); break;
    }
  }
}

static void test_lexer(Tester *t, DpiaMem *mem) {
  for (size_t i = 0; i < DPIA_COUNTOF(lex_cases); i++) {
    Parsed ps;
    /* lex only: an empty program first just sets up the context */
    parse_text(&ps, mem, "t.dpia", "", 0);
    source_init(&ps.src, &ps.arena, "t.dpia", lex_cases[i].source, strlen(lex_cases[i].source));
    Buf got;
    buf_init(&got, &ps.arena);
    describe_tokens(&got, &ps);
    check(t, ps.diag.nerrors == 0 && strcmp(got.data, lex_cases[i].expected) == 0,
          arena_printf(&ps.arena, "tokens of '%s'", lex_cases[i].source),
          arena_printf(&ps.arena, "expected %s, got %s", lex_cases[i].expected, got.data));
    arena_free(&ps.arena);
  }
  /* values at the edges */
  Parsed ps;
  parse_text(&ps, mem, "t.dpia", "", 0);
  source_init(&ps.src, &ps.arena, "t.dpia", "18446744073709551615 18446744073709551616 0.1", 45);
  Lexer lx;
  lexer_init(&lx, &ps.src, &ps.interner, &ps.diag);
  Token a = lexer_next(&lx), b = lexer_next(&lx), c = lexer_next(&lx), d = lexer_next(&lx);
  check(t, a.kind == TOK_INT && a.int_value == UINT64_MAX && !a.int_overflow, "UINT64_MAX lexes",
        "");
  check(t, b.kind == TOK_INT && b.int_overflow, "UINT64_MAX + 1 sets int_overflow", "");
  check(t, c.kind == TOK_FLOAT && c.float_value == 0.1 && d.kind == TOK_EOF, "0.1 is exact", "");
  check(t, d.span.begin == 45 && d.span.end == 45, "end of file is at the end", "");
  arena_free(&ps.arena);
  /* lexer_scan writes each token over the parser's current one: every
   * field its kind has (ast.h: the name and primitive of any, the value of
   * a literal or lane) must be the token's own, none left from the token
   * before (a string's text after an identifier, an integer's value after
   * a lane, a primitive after a primitive's name), so scanning into one
   * Token gives what a fresh, zeroed one gets */
  {
    static const char text[] = "\"c\" x 7 .w 1.5f 18446744073709551616 \"\" y .s3 def ( 2e3 z mapLocal1 split zip n";
    Parsed fresh, reused;
    parse_text(&fresh, mem, "t.dpia", "", 0);
    parse_text(&reused, mem, "t.dpia", "", 0);
    source_init(&fresh.src, &fresh.arena, "t.dpia", text, sizeof text - 1);
    source_init(&reused.src, &reused.arena, "t.dpia", text, sizeof text - 1);
    Lexer lf, lr;
    lexer_init(&lf, &fresh.src, &fresh.interner, &fresh.diag);
    lexer_init(&lr, &reused.src, &reused.interner, &reused.diag);
    Token one;
    memset(&one, 0, sizeof one);
    int n = 0, differ = 0;
    for (;; n++) {
      Token want;
      memset(&want, 0, sizeof want);
      want = lexer_next(&lf);
      lexer_scan(&lr, &one);
      TokKind k = want.kind;
      bool same =
          one.kind == want.kind && one.span.begin == want.span.begin && one.span.end == want.span.end &&
          (one.ident == NULL) == (want.ident == NULL) &&
          (k != TOK_IDENT || strcmp(lexer_ident(&lr, &one), lexer_ident(&lf, &want)) == 0) && one.prim == want.prim &&
          one.dim == want.dim && one.dim_written == want.dim_written &&
          ((k != TOK_INT && k != TOK_LANE) || one.int_value == want.int_value) &&
          (k != TOK_INT || one.int_overflow == want.int_overflow) &&
          (k != TOK_FLOAT || (one.float_value == want.float_value && one.float_suffix_f == want.float_suffix_f)) &&
          (k != TOK_STRING || strcmp(one.str_value, want.str_value) == 0);
      if (!same && differ++ < 3)
        check(t, false, "a token scanned over the one before is the token alone",
              arena_printf(&reused.arena, "token %d (%s) differs", n, tok_spelling[want.kind]));
      if (want.kind == TOK_EOF) break;
    }
    check(t, differ == 0 && n == 17, "tokens scanned into one Token are the tokens alone",
          arena_printf(&reused.arena, "%d tokens, %d differ", n, differ));
    arena_free(&fresh.arena);
    arena_free(&reused.arena);
  }
  /* printed decimal literals read back as the same double (ast_print.c):
   * edge values, then pseudo-random finite bit patterns */
  static const double edges[] = {0.0, 0.1, 0.5, 1.0, 1.5, 100.0, 123456789.0, 1e22, 1e23,
                                 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                 0.30000000000000004, 9007199254740993.0};
  uint64_t state = 0x9E3779B97F4A7C15u;
  int mismatches = 0;
  for (int i = 0; i < 20000; i++) {
    double v;
    if (i < (int)DPIA_COUNTOF(edges)) {
      v = edges[i];
    } else {
      state = state * 6364136223846793005u + 1442695040888963407u;
      uint64_t bits = (state >> 1) & ~(UINT64_C(1) << 63); /* non-negative */
      memcpy(&v, &bits, sizeof v);
      if (v != v || v > 1.7976931348623157e308) continue; /* NaN, infinity */
    }
    parse_text(&ps, mem, "t.dpia", "", 0);
    Ast lit;
    memset(&lit, 0, sizeof lit);
    lit.kind = AST_FLOAT;
    lit.float_value = v;
    lit.float_suffix_f = i % 2;
    Buf text;
    buf_init(&text, &ps.arena);
    ast_print(&text, &lit);
    source_init(&ps.src, &ps.arena, "t.dpia", text.data, text.len);
    lexer_init(&lx, &ps.src, &ps.interner, &ps.diag);
    Token tok = lexer_next(&lx);
    bool ok = tok.kind == TOK_FLOAT && tok.float_value == v && tok.float_suffix_f == (i % 2) &&
              lexer_next(&lx).kind == TOK_EOF && ps.diag.nerrors == 0;
    if (!ok && mismatches++ < 5)
      check(t, false, "a printed decimal literal reads back",
            arena_printf(&ps.arena, "%.17g printed as %s", v, text.data));
    arena_free(&ps.arena);
  }
  check(t, mismatches == 0, "all printed decimal literals read back", "");
  /* prim_lookup and its dimension suffix */
  int dim;
  check(t, prim_lookup("mapGlobal1", 10, &dim) == PRIM_MAP_GLOBAL && dim == 1, "mapGlobal1", "");
  check(t, prim_lookup("mapLocal", 8, &dim) == PRIM_MAP_LOCAL && dim == 0, "mapLocal", "");
  check(t, prim_lookup("parforWorkgroup2", 16, &dim) == PRIM_PARFOR_WORKGROUP && dim == 2,
        "parforWorkgroup2", "");
  check(t, prim_lookup("mapGlobal3", 10, &dim) == PRIM_COUNT, "mapGlobal3 is not a primitive", "");
  check(t, prim_lookup("mapSeq1", 7, &dim) == PRIM_COUNT, "mapSeq1 is not a primitive", "");
  check(t, prim_lookup("mapGlobal10", 11, &dim) == PRIM_COUNT, "mapGlobal10", "");
  check(t, prim_lookup("exp", 3, &dim) == PRIM_EXP, "exp is a primitive", "");
  check(t, prim_lookup("expx", 3, &dim) == PRIM_EXP, "prim_lookup uses only len bytes", "");
  check(t, prim_lookup("ma", 2, &dim) == PRIM_COUNT && prim_lookup("", 0, &dim) == PRIM_COUNT,
        "prefixes of names are not primitives", "");
  for (int p = 0; p < PRIM_COUNT; p++)
    check(t, prim_lookup(prim_info[p].name, strlen(prim_info[p].name), &dim) == (Prim)p,
          prim_info[p].name, "the table and the lookup disagree");
}

/* lexer_scan reads a number at a digit itself (lex_number_checked: up to
 * 19 digits, an integer done without lex_number), while a number after a
 * comment reaches lex_number through lex_skipping: the two paths must
 * agree, token for token and error for error, on numbers of 1 to 24
 * digits (10^19 and more overflow), each followed by what makes it an
 * integer, a decimal or an error, near the end of the text and far from
 * it (issue 35, translation throughput). */
static void test_number_paths(Tester *t, DpiaMem *mem) {
  static const char *const after[] = {"", " ", ")", "\n", ".5", ".", ".1 x", "f", "abc", "e3", "e+2f", "E-1", "_", "'",
                                      "x.2", "5", ".s1", ".w", "..", ".5e", "--c\n"};
  static const char *const tails[] = {"", " y", " yyyyyyyyyyyyyyyyyyyyyyyyyyyy"};
  uint64_t state = 0x2545F4914F6CDD1Du;
  int cases = 0, differ = 0;
  for (int digits = 1; digits <= 24; digits++)
    for (size_t a = 0; a < DPIA_COUNTOF(after); a++)
      for (size_t tl = 0; tl < DPIA_COUNTOF(tails); tl++)
        for (int round = 0; round < 4; round++) {
          char number[32];
          for (int i = 0; i < digits; i++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            /* round 0: all nines (the largest value of its length) */
            number[i] = round == 0 ? '9' : (char)('0' + (state >> 33) % 10);
          }
          number[digits] = 0;
          Parsed direct, skipped;
          parse_text(&direct, mem, "t.dpia", "", 0);
          parse_text(&skipped, mem, "t.dpia", "", 0);
          const char *text = arena_printf(&direct.arena, "%s%s%s", number, after[a], tails[tl]);
          const char *commented = arena_printf(&skipped.arena, "--\n%s", text);
          source_init(&direct.src, &direct.arena, "t.dpia", text, strlen(text));
          source_init(&skipped.src, &skipped.arena, "t.dpia", commented, strlen(commented));
          Lexer ld, ls;
          lexer_init(&ld, &direct.src, &direct.interner, &direct.diag);
          lexer_init(&ls, &skipped.src, &skipped.interner, &skipped.diag);
          bool same = true;
          for (int n = 0; same; n++) {
            Token want = lexer_next(&ls), got = lexer_next(&ld);
            TokKind k = want.kind;
            same = got.kind == k && got.span.begin + 3 == want.span.begin && got.span.end + 3 == want.span.end &&
                   (k != TOK_IDENT || strcmp(lexer_ident(&ld, &got), lexer_ident(&ls, &want)) == 0) &&
                   ((k != TOK_INT && k != TOK_LANE) || got.int_value == want.int_value) &&
                   (k != TOK_INT || got.int_overflow == want.int_overflow) &&
                   (k != TOK_FLOAT ||
                    (got.float_value == want.float_value && got.float_suffix_f == want.float_suffix_f));
            if (k == TOK_EOF || n > 8) break;
          }
          same = same && direct.diag.nerrors == skipped.diag.nerrors;
          for (const Diagnostic *x = direct.diag.first, *y = skipped.diag.first; same && (x || y);
               x = x->next, y = y->next)
            same = x && y && x->code == y->code && x->span.begin + 3 == y->span.begin &&
                   x->span.end + 3 == y->span.end && strcmp(x->message, y->message) == 0;
          if (!same && differ++ < 5)
            check(t, false, "a number lexed at a token's start is the number lexed after a comment",
                  arena_printf(&direct.arena, "'%s' differs", text));
          cases++;
          arena_free(&direct.arena);
          arena_free(&skipped.arena);
        }
  Arena report;
  arena_init(&report, mem);
  check(t, differ == 0 && cases == 24 * (int)(DPIA_COUNTOF(after) * DPIA_COUNTOF(tails)) * 4,
        "numbers lexed at a token's start and after a comment agree",
        arena_printf(&report, "%d of %d differ", differ, cases));
  arena_free(&report);
}

/* ---- spans ---- */

static const char *span_text(Arena *a, Span s) {
  return arena_strndup(a, s.src->text + s.begin, s.end - s.begin);
}

static void expect_span(Tester *t, Arena *a, const char *what, Span s, const char *expected) {
  const char *got = span_text(a, s);
  check(t, strcmp(got, expected) == 0, what,
        arena_printf(a, "expected '%s', got '%s'", expected, got));
}

static void test_spans(Tester *t, DpiaMem *mem) {
  Parsed ps;
  parse_cstr(&ps, mem,
             "-- spans\n"
             "def f (xs ys: [N]float) (N: nat) : exp[float] =\n"
             "  (a + b) * c |> g x.1; (\\u v -> (u, v)); (w : float); {p, q}; split (N / 2) z\n"
             "def next = 1");
  Arena *a = &ps.arena;
  check(t, ps.diag.nerrors == 0 && ps.program->ndecls == 2, "span program parses",
        error_lines(&ps));
  if (ps.program->ndecls != 2) {
    arena_free(a);
    return;
  }
  const Decl *d = ps.program->decls[0];
  expect_span(t, a, "declaration span", d->span,
              "def f (xs ys: [N]float) (N: nat) : exp[float] =\n"
              "  (a + b) * c |> g x.1; (\\u v -> (u, v)); (w : float); {p, q}; split (N / 2) z");
  expect_span(t, a, "name span", d->name_span, "f");
  expect_span(t, a, "parameter span", d->params[1].span, "ys");
  expect_span(t, a, "shared parameter type", d->params[1].type->span, "[N]float");
  check(t, d->params[0].type == d->params[1].type && d->params[2].kind == PARAM_NAT,
        "parameter group shares its type", "");
  expect_span(t, a, "result type", d->result->span, "exp[float]");
  const Ast *seq = d->body;
  expect_span(t, a, "sequence", seq->span,
              "(a + b) * c |> g x.1; (\\u v -> (u, v)); (w : float); {p, q}; split (N / 2) z");
  const Ast *pipe = seq->lhs;
  expect_span(t, a, "pipe", pipe->span, "(a + b) * c |> g x.1");
  expect_span(t, a, "pipe function", pipe->lhs->span, "g x.1");
  expect_span(t, a, "projection", pipe->lhs->rhs->span, "x.1");
  expect_span(t, a, "binary operator", pipe->rhs->span, "(a + b) * c");
  expect_span(t, a, "parenthesised operand is just the inner node", pipe->rhs->lhs->span, "a + b");
  const Ast *lam = seq->rhs->lhs;
  expect_span(t, a, "lambda", lam->span, "\\u v -> (u, v)");
  expect_span(t, a, "inner lambda", lam->body->span, "v -> (u, v)");
  expect_span(t, a, "lambda parameter", lam->bound_span, "u");
  expect_span(t, a, "pair", lam->body->body->span, "(u, v)");
  expect_span(t, a, "ascription", seq->rhs->rhs->lhs->span, "(w : float)");
  expect_span(t, a, "phrase pair", seq->rhs->rhs->rhs->lhs->span, "{p, q}");
  const Ast *split = seq->rhs->rhs->rhs->rhs;
  expect_span(t, a, "application", split->span, "split (N / 2) z");
  expect_span(t, a, "primitive with static argument", split->lhs->span, "split (N / 2)");
  expect_span(t, a, "size argument", split->lhs->sizes[0]->span, "N / 2");
  arena_free(a);
}

/* ---- performance ---- */

static void test_perf(Tester *t, DpiaMem *mem) {
  Arena scratch;
  arena_init(&scratch, mem);
  Buf text;
  buf_init(&text, &scratch);
  int n = 0;
  while (text.len < 10u * 1024 * 1024) {
    emit(&text,
         "-- declaration %d\n"
         "kernel dot%d (N: nat) (xs ys: [N]float) =\n"
         "  zip xs ys\n"
         "  |> split (2048 * 128)\n"
         "  |> mapWorkgroup (\\zs1 ->\n"
         "       zs1 |> split 2048\n"
         "           |> mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"
         "  |> join\n"
         "def imp%d (out: acc[[N]float]) (b: exp[float] & acc[float] -> comm ->p comm) =\n"
         "  parfor out (\\i o -> o := idx xs i + 1.5e-3f; new float (\\v -> v.1 := (v.2, 2).1))\n",
         n, n, n);
    n++;
  }
  struct timespec start, end;
  struct rusage usage_start, usage_end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  getrusage(RUSAGE_SELF, &usage_start);
  Parsed ps;
  parse_text(&ps, mem, "big.dpia", text.data, text.len);
  getrusage(RUSAGE_SELF, &usage_end);
  clock_gettime(CLOCK_MONOTONIC, &end);
  double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
  double user = (double)(usage_end.ru_utime.tv_sec - usage_start.ru_utime.tv_sec) +
                (double)(usage_end.ru_utime.tv_usec - usage_start.ru_utime.tv_usec) / 1e6;
  double sys = (double)(usage_end.ru_stime.tv_sec - usage_start.ru_stime.tv_sec) +
               (double)(usage_end.ru_stime.tv_usec - usage_start.ru_stime.tv_usec) / 1e6;
  printf("parsed %zu bytes, %d declarations: %.3f s wall, %.3f s user, %.3f s system "
         "(%zu bytes of arena)\n",
         text.len, ps.program->ndecls, wall, user, sys, ps.arena.total);
  check(t, ps.diag.nerrors == 0 && ps.program->ndecls == 2 * n, "a 10 MB file of valid declarations parses", "");
  /* Speed is a figure printed above, not a pass/fail condition: machines
   * here are shared and noisy, and sanitizer builds are several times
   * slower (DEVELOPERS.md: speed targets are checked by benchmarks). */
  arena_free(&ps.arena);
  arena_free(&scratch);
}

/* ---- the prelude's defs a program names (prelude.c, mentions) ---- */

/* Random texts of words around the prelude's names (the names, their
 * prefixes and extensions, other words with upper-case letters, glued by
 * identifier characters or not) in comments and code: the program gets
 * exactly the prelude defs whose names are whole words of its text
 * (maximal runs of letters, digits and '_'), found here word by word. */
static void test_prelude(Tester *t, DpiaMem *mem) {
  static const char *const names[] = {"slide2D",  "slide3D",  "padClamp2D", "padClamp3D", "padCst2D",   "padCst3D",
                                      "zip2D",    "splitPad", "mapPad",     "mapPadClamp", "tileIndices"};
  static const char *const pieces[] = {"slide2D", "slide3D", "padClamp2D", "padClamp3D", "padCst2D", "padCst3D",
                                       "zip2D", "splitPad", "mapPad", "mapPadClamp", "tileIndices", "mapWorkgroup",
                                       "reduceSeq", "asVector", "Pad", "Clamp", "D", "Indices", "2D", "Cst", "x",
                                       "_", "'", "1", " ", " ", "\n-- ", "(", ".", "-", "\xce\xbb"};
  uint64_t rng = 88172645463325252u;
  int cases = 0;
  for (int round = 0; round < 800; round++) {
    Arena scratch;
    arena_init(&scratch, mem);
    Buf text;
    buf_init(&text, &scratch);
    buf_puts(&text, "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x)\n-- ");
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int n = (int)(rng % 16);
    for (int i = 0; i < n; i++) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      buf_puts(&text, pieces[rng % DPIA_COUNTOF(pieces)]);
    }
    buf_putc(&text, '\n');
    bool want[DPIA_COUNTOF(names)] = {false};
    for (size_t i = 0; i < text.len;) {
      size_t j = i;
      while (j < text.len && (text.data[j] == '_' || (text.data[j] >= '0' && text.data[j] <= '9') ||
                              ((text.data[j] | 0x20) >= 'a' && (text.data[j] | 0x20) <= 'z')))
        j++;
      for (size_t k = 0; k < DPIA_COUNTOF(names); k++)
        if (j - i == strlen(names[k]) && memcmp(text.data + i, names[k], j - i) == 0) want[k] = true;
      i = j > i ? j : i + 1;
    }
    Parsed ps;
    parse_text(&ps, mem, "prelude.dpia", text.data, text.len);
    bool got[DPIA_COUNTOF(names)] = {false};
    for (int d = 0; d < ps.program->ndecls; d++)
      for (size_t k = 0; k < DPIA_COUNTOF(names); k++)
        if (ps.program->decls[d]->from_prelude && strcmp(ps.program->decls[d]->name, names[k]) == 0) got[k] = true;
    bool same = ps.diag.nerrors == 0 && memcmp(want, got, sizeof want) == 0;
    check(t, same, arena_printf(&scratch, "the prelude defs named by %s", text.data), error_lines(&ps));
    cases += n > 0;
    arena_free(&ps.arena);
    arena_free(&scratch);
  }
  check(t, cases > 700, "random texts tried", "");
}

/* The prelude defs the lexer finds a text to name (Lexer's prelude_named,
 * which prelude_add reads instead of scanning the text) against the words
 * of the text found by hand, for random texts of names, pieces of names,
 * quotes, projections, comments, strings and stray bytes that lex without
 * an error (prelude_add runs only then); and that the lexer is unsure
 * (leaves it to the scan) only where a projection's digit is glued to a
 * name. */
static void test_prelude_marks(Tester *t, DpiaMem *mem) {
  static const char *const pieces[] = {
      "slide2D", "padCst3D", "zip2D", "splitPad", "mapPadClamp", "tileIndices", "mapPad", "Pad", "x",  "_",
      "'",       "1",        "2",     ".1",       ".2",          " ",           "\n",     "-- ", "\"", "(",
      "\\",      ".",        "-",     "\xce\xbb", "λ",           "mapGlobal1",  "kernel", "|>"};
  uint64_t rng = 0x2545F4914F6CDD1Du;
  int sure = 0, unsure = 0;
  for (int round = 0; round < 20000; round++) {
    Arena a;
    arena_init(&a, mem);
    Buf text;
    buf_init(&text, &a);
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    for (int i = (int)(rng % 12); i >= 0; i--) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      buf_puts(&text, pieces[rng % DPIA_COUNTOF(pieces)]);
    }
    uint32_t want = 0;
    bool glued = false;
    for (size_t i = 0; i < text.len;) {
      size_t j = i;
      while (j < text.len && (text.data[j] == '_' || (text.data[j] >= '0' && text.data[j] <= '9') ||
                              ((text.data[j] | 0x20) >= 'a' && (text.data[j] | 0x20) <= 'z')))
        j++;
      for (int k = 0; k < prelude_def_count(); k++)
        if (j - i == strlen(prelude_def_name(k)) && memcmp(text.data + i, prelude_def_name(k), j - i) == 0)
          want |= 1u << k;
      i = j > i ? j : i + 1;
    }
    for (size_t i = 0; i + 2 < text.len; i++)
      glued |= text.data[i] == '.' && (text.data[i + 1] == '1' || text.data[i + 1] == '2') &&
               (text.data[i + 2] == '_' || ((text.data[i + 2] | 0x20) >= 'a' && (text.data[i + 2] | 0x20) <= 'z'));
    Interner in;
    intern_init(&in, &a);
    Diag diag;
    diag_init(&diag, &a);
    Source src;
    source_init(&src, &a, "marks.dpia", text.data, text.len);
    Lexer lx;
    lexer_init(&lx, &src, &in, &diag);
    Token tok;
    do lexer_scan(&lx, &tok);
    while (tok.kind != TOK_EOF);
    if (diag.nerrors) {
      arena_free(&a);
      continue;
    }
    if (lx.prelude_unsure)
      unsure++;
    else
      sure++;
    check(t, lx.prelude_unsure ? glued : lx.prelude_named == want,
          arena_printf(&a, "the prelude defs the lexer finds in %s", text.data),
          arena_printf(&a, "0x%x%s, not 0x%x", lx.prelude_named, lx.prelude_unsure ? " (unsure)" : "", want));
    arena_free(&a);
  }
  char counts[64];
  snprintf(counts, sizeof counts, "%d sure, %d unsure", sure, unsure);
  check(t, sure > 1000 && unsure > 50, "texts without errors, with and without a glued projection", counts);
}

/* The lexer's reserved names (lex.c: keywords, primitives with their
 * dimension suffixes) against prim_lookup and the keywords' spellings, for
 * every primitive's name and every keyword, with dimension suffixes 0-3,
 * cut short and extended: each form lexed alone, then in a line of them
 * all (the same names again, as the interner has them by then). */
static void test_prim_lookup(Tester *t, DpiaMem *mem) {
  Arena a;
  arena_init(&a, mem);
  Interner in;
  intern_init(&in, &a);
  Diag diag;
  diag_init(&diag, &a);
  /* the names that are identifiers (not `.lane`, nor "string literal") */
  Vec names = {0};
  for (int i = 0; i < PRIM_COUNT + TOK_COUNT; i++) {
    const char *name = i < PRIM_COUNT ? prim_info[i].name : tok_spelling[i - PRIM_COUNT];
    bool ident = (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z');
    for (const char *c = name; *c; c++)
      ident = ident && (*c == '_' || (*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z'));
    if (ident) vec_push(&a, &names, (void *)name);
  }
  Buf line;
  buf_init(&line, &a);
  int tried = 0;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < names.len; i++) {
      const char *name = names.items[i];
      const char *forms[] = {name,
                             arena_printf(&a, "%s0", name),
                             arena_printf(&a, "%s1", name),
                             arena_printf(&a, "%s2", name),
                             arena_printf(&a, "%s3", name),
                             arena_printf(&a, "%sx", name),
                             arena_printf(&a, "%.*s", (int)strlen(name) - 1, name)};
      for (size_t f = 0; f < DPIA_COUNTOF(forms); f++) {
        if (!*forms[f]) continue;
        int want_dim = -1;
        Prim want = prim_lookup(forms[f], strlen(forms[f]), &want_dim);
        TokKind want_kind = TOK_IDENT;
        for (int k = TOK_KW_DEF; k < TOK_COUNT; k++)
          if (strcmp(tok_spelling[k], forms[f]) == 0) want_kind = (TokKind)k;
        if (want_kind != TOK_IDENT) want = PRIM_COUNT, want_dim = 0;
        bool want_written = want != PRIM_COUNT && strlen(forms[f]) > strlen(prim_info[want].name);
        Source src;
        const char *text = round == 0 ? forms[f] : arena_printf(&a, "%s%s", line.data, forms[f]);
        source_init(&src, &a, "names.dpia", text, strlen(text));
        Lexer lx;
        lexer_init(&lx, &src, &in, &diag);
        Token tok;
        size_t len = strlen(text);
        do lexer_scan(&lx, &tok);
        while (tok.span.end < len && tok.kind != TOK_EOF);
        bool ok = tok.kind == want_kind && tok.prim == (uint16_t)want && (want == PRIM_COUNT || tok.dim == want_dim) &&
                  tok.dim_written == want_written &&
                  (tok.kind != TOK_IDENT || strcmp(lexer_ident(&lx, &tok), forms[f]) == 0);
        check(t, ok, arena_printf(&a, "the name %s", forms[f]),
              arena_printf(&a, "token %s, primitive %d (dimension %d%s), not %s, %d (dimension %d)",
                           tok_spelling[tok.kind], (int)tok.prim, tok.dim, tok.dim_written ? ", written" : "",
                           tok_spelling[want_kind], (int)want, want_dim));
        if (round == 0) emit(&line, "%s ", forms[f]);
        tried++;
      }
    }
  }
  check(t, diag.nerrors == 0 && tried > 1000, "names tried", "");
  arena_free(&a);
}

/* A source whose line starts are made at its first position
 * (source_init_lazy), and one made at once (source_init), give every
 * offset the line and column counted by hand: random texts of short and
 * empty lines, CRLF, with and without a last newline. */
static void test_lazy_lines(Tester *t, DpiaMem *mem) {
  Arena a;
  arena_init(&a, mem);
  uint64_t rng = 0x9E3779B97F4A7C15u;
  int differ = 0, offsets = 0;
  for (int round = 0; round < 300; round++) {
    char text[64];
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    size_t len = rng % sizeof text;
    for (size_t i = 0; i < len; i++) text[i] = "ab \n\r"[(rng >> (i % 29)) % 5];
    Source eager, lazy;
    source_init(&eager, &a, "e.dpia", text, len);
    source_init_lazy(&lazy, &a, "l.dpia", text, len);
    for (uint32_t off = 0; off <= len + 1; off++) {
      uint32_t l1, c1, l2, c2;
      /* the lazy one asked at a random offset first */
      source_position(&lazy, (uint32_t)((off + rng) % (len + 2)), &l2, &c2);
      source_position(&lazy, off, &l2, &c2);
      source_position(&eager, off, &l1, &c1);
      /* by hand: the newlines before the offset (clamped to the text) */
      uint32_t at = off > len ? (uint32_t)len : off, line = 1, start = 0;
      for (uint32_t i = 0; i < at; i++)
        if (text[i] == '\n') line++, start = i + 1;
      differ += l1 != line || c1 != at - start + 1 || l2 != line || c2 != at - start + 1;
      offsets++;
    }
  }
  check(t, differ == 0 && offsets > 1000, "lazy line starts agree with eager ones",
        arena_printf(&a, "%d of %d offsets differ", differ, offsets));
  arena_free(&a);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s lexer|precedence|errors|limits|spans|prelude|perf|roundtrip DIR...\n",
            argv[0]);
    return 2;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    printf("FAIL out of memory\n");
    return 1;
  }
  Tester t = {0, 0};
  const char *mode = argv[1];
  if (strcmp(mode, "lexer") == 0) {
    test_lexer(&t, &mem);
    test_number_paths(&t, &mem);
  } else if (strcmp(mode, "precedence") == 0) {
    test_precedence(&t, &mem);
  } else if (strcmp(mode, "errors") == 0) {
    test_errors(&t, &mem);
  } else if (strcmp(mode, "limits") == 0) {
    test_limits(&t, &mem);
  } else if (strcmp(mode, "spans") == 0) {
    test_spans(&t, &mem);
    test_lazy_lines(&t, &mem);
  } else if (strcmp(mode, "prelude") == 0) {
    test_prelude(&t, &mem);
    test_prelude_marks(&t, &mem);
    test_prim_lookup(&t, &mem);
  } else if (strcmp(mode, "perf") == 0) {
    test_perf(&t, &mem);
  } else if (strcmp(mode, "roundtrip") == 0) {
    for (size_t i = 0; i < DPIA_COUNTOF(inline_programs); i++) {
      const char *text = inline_programs[i];
      Arena names;
      arena_init(&names, &mem);
      Parsed ps;
      parse_cstr(&ps, &mem, text);
      check(&t, ps.diag.nerrors == 0 && ps.program->ndecls == 1,
            arena_printf(&names, "inline program %zu parses", i), error_lines(&ps));
      arena_free(&ps.arena);
      round_trip(&t, &mem, arena_printf(&names, "inline program %zu", i), text, strlen(text));
      arena_free(&names);
    }
    Arena paths;
    arena_init(&paths, &mem);
    int files = 0;
    for (int i = 2; i < argc; i++) files += round_trip_tree(&t, &mem, &paths, argv[i]);
    printf("round-tripped %d files\n", files);
    check(&t, files >= 3, "found the .dpia files to round-trip", "fewer than 3 files found");
    arena_free(&paths);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
  }
  printf("%s: %d checks, %d failed\n", mode, t.checks, t.failures);
  return t.failures ? 1 : 0;
}
