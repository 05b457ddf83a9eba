/* backend_c.c: printing shared by the C-family backends (backend_c.h). */
#include "backend_c.h"
#include "kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Without an exponent where a person writes none: 10.0f and 250000.0f,
 * not 1e+01f and 2.5e+05f (%g's choice for one or two digits). */
void cprint_float_shortest(Buf *out, double v, bool single) {
  Arena *a = out->arena;
  char *s = NULL;
  int digits = 17;
  for (int p = 1; p <= 17; p++) {
    s = arena_printf(a, "%.*g", p, v);
    double back = strtod(s, NULL); /* same locale as the printf: round trip */
    if (single ? (float)back == (float)v : back == v) {
      digits = p;
      break;
    }
  }
  const char *e = strchr(s, 'e');
  int exponent = e ? atoi(e + 1) : 0;
  if (e && exponent >= 0 && exponent <= 5 && isfinite(v)) /* the same digits, in full */
    s = arena_printf(a, "%.*f", digits - 1 > exponent ? digits - 1 - exponent : 0, v);
  for (char *c = s; *c; c++)
    if (*c == ',') *c = '.'; /* a host's locale must not leak into C source */
  /* inf: 1e999 */
  if (strchr(s, 'n')) {
    buf_puts(out, single ? "INFINITY" : "(double)INFINITY");
    return;
  }
  buf_puts(out, s);
  if (!strpbrk(s, ".e")) buf_puts(out, ".0");
  if (single) buf_putc(out, 'f');
}

/* A whole number below 10^5 in magnitude (0.0f, 2.0f: most literals of a
 * kernel) is its digits and .0, which is what the search above gives: the
 * first precision that reads back prints the integer's digits, in full
 * or as an exponent of at most 4 that is written out (float holds such an
 * integer exactly); -0.0 keeps its sign there.  Without the search's
 * printf and strtod calls (translation throughput, BENCHMARKS.md;
 * tests/unit/test_kir.c compares the two on such numbers and those
 * around them). */
void cprint_float(Buf *out, double v, bool single) {
  if (v > -1e5 && v < 1e5 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
    buf_put_int(out, (long long)v);
    buf_put(out, single ? ".0f" : ".0", single ? 3 : 2);
    return;
  }
  cprint_float_shortest(out, v, single);
}

void cprint_lit(Buf *out, KirLit l) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (l.scalar) {
  case SC_BOOL: buf_puts(out, l.i ? "true" : "false"); return;
  case SC_INT: emit(out, "%lld", (long long)l.i); return;
  case SC_FLOAT: cprint_float(out, l.f, true); return;
  case SC_DOUBLE: cprint_float(out, l.f, false); return;
  }
  DPIA_EXHAUSTIVE_END
}

void cprint_record_line(LineRec *rec, const Buf *out, const KirStmt *s) {
  if (!rec) return;
  for (; rec->scanned < out->len; rec->scanned++) rec->line += out->data[rec->scanned] == '\n';
  if (rec->stmts.len == rec->cap) {
    int cap = rec->cap ? rec->cap * 2 : 64;
    int *lines = NEWARRAY(rec->arena, int, cap);
    if (rec->cap) memcpy(lines, rec->lines, sizeof(int) * (size_t)rec->cap);
    rec->lines = lines;
    rec->cap = cap;
  }
  rec->lines[rec->stmts.len] = rec->line + (s->kind == KS_FOR && s->loop.unroll > 1); /* after its #pragma */
  vec_push(rec->arena, &rec->stmts, (void *)s);
}

/* the statements recorded, as statement_lines returns them */
static int cprint_lines(LineRec *rec, const Buf *out, const KirStmt *const **stmts, const int **lines,
                        const char **text) {
  *stmts = (const KirStmt *const *)rec->stmts.items;
  *lines = rec->lines;
  *text = out->data;
  return rec->stmts.len;
}

void cprint_table(Buf *out, const char *head_text, const char *name, const KirTable *t,
                  void (*print_expr)(Buf *out, const KirExpr *e)) {
  Buf head;
  buf_init(&head, out->arena);
  emit(&head, "%s %s[%d] = {", head_text, name, t->n);
  size_t indent = head.len;
  const char **vals = NEWARRAY(out->arena, const char *, t->n > 0 ? t->n : 1);
  size_t total = 0;
  for (int j = 0; j < t->n; j++) {
    Buf v;
    buf_init(&v, out->arena);
    print_expr(&v, t->values[j]);
    vals[j] = v.data ? v.data : "";
    total += strlen(vals[j]) + 2;
  }
  buf_put(out, head.data, head.len);
  size_t col = indent;
  for (int j = 0; j < t->n; j++) {
    size_t w = strlen(vals[j]) + 2; /* ", " or "};" */
    bool fits_row = indent + (size_t)t->per_row * w <= 100;
    bool wrap = j > 0 && indent + total > 100 && (t->per_row < t->n && fits_row ? j % t->per_row == 0 : col + w > 100);
    if (wrap) {
      buf_putc(out, '\n');
      for (size_t k = 0; k < indent; k++) buf_putc(out, ' ');
      col = indent;
    } else if (j > 0) {
      buf_putc(out, ' ');
    }
    emit(out, "%s%s", vals[j], j + 1 == t->n ? "};" : ",");
    col += w;
  }
  buf_putc(out, '\n');
}

void cprint_comment(Buf *out, const char *text) {
  buf_puts(out, "/* ");
  for (const char *c = text;;) { /* a line at a time */
    const char *nl = strchr(c, '\n');
    if (!nl) {
      buf_puts(out, c);
      break;
    }
    buf_put(out, c, (size_t)(nl - c));
    buf_puts(out, "\n * ");
    c = nl + 1;
  }
  buf_puts(out, "\n */\n");
}

bool cprint_defined_before(NameSet *defined, const char *name) {
  if (!defined) return false;
  if (nameset_has(defined, name)) return true;
  nameset_add(defined, name);
  return false;
}

/* ---- a run's template (print_run) ----
 *
 * A run's steps print the same text but for their indices with $step
 * (kir_run_leaves): each template statement is printed once with a hole
 * where each such index goes, noting the precedence its place needs
 * (cprint_operand's min; none where printed whole), and each step fills
 * the holes with its own indices.  The text around a hole does not depend
 * on the index in it: the printer decides a node's text from its own
 * kind and fields and its operands' precedence, which the hole's min
 * keeps, but for two readings of an operand's text or index (a unary
 * minus's sign check, a local offset's subtraction), where the template
 * is not used (CHoles.broken) and each step is written out. */
enum { RUN_LEAVES = 16, RUN_HOLES = 16 };

typedef struct CHole {
  size_t at; /* in the statement's text */
  int slot, min;
  const KirExpr *leaf;
} CHole;

struct CHoles {
  const Buf *into; /* the statement's text */
  int nleaves;
  const KirExpr *leaves[RUN_LEAVES];
  int slots[RUN_LEAVES];
  int n;
  CHole hole[RUN_HOLES];
  bool broken; /* a hole the text around it reads, or one not in into */
};

static int hole_slot(const CHoles *t, const KirExpr *e) {
  for (int i = 0; i < t->nleaves; i++)
    if (t->leaves[i] == e) return t->slots[i];
  return -1;
}

/* e a leaf: its hole noted at the end of out (nothing written) */
static bool print_hole(const CExprHooks *h, Buf *out, const KirExpr *e, int min) {
  CHoles *t = h->holes;
  int slot = hole_slot(t, e);
  if (slot < 0) return false;
  if (out != t->into || t->n == RUN_HOLES) {
    t->broken = true;
    return false;
  }
  t->hole[t->n++] = (CHole){out->len, slot, min, e};
  return true;
}

void cprint_operand(const CExprHooks *h, Buf *out, const KirExpr *e, int min) {
  int prec;
  if (h->prec) {
    /* a run's template is printed with a prec hook (template_line), so
     * that the other printing asks nothing more */
    if (h->holes && e->kind == KE_IX && print_hole(h, out, e, min)) return;
    prec = h->prec(e);
  } else {
    prec = kir_prec(e);
  }
  bool paren = prec < min;
  if (paren) buf_putc(out, '(');
  cprint_expr(h, out, e);
  if (paren) buf_putc(out, ')');
}

void cprint_args(const CExprHooks *h, Buf *out, const KirExpr *e) {
  buf_putc(out, '(');
  for (int i = 0; i < e->call.nargs; i++) {
    if (i) buf_puts(out, ", ");
    cprint_operand(h, out, e->call.args[i], PREC_ASSIGN);
  }
  buf_putc(out, ')');
}

/* Does the index e, printed, subtract a term at its top level (i*14 +
 * i_2*2 - 28, 16 - i, -2*i + N)?  Its atoms are at least 0 (index.h), and
 * so is a parenthesised factor (an index), so a sum of added terms only
 * grows from left to right. */
static bool ix_subtracts(const Ix *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case IX_CONST: return e->value < 0;
  case IX_SUB: return true;
  case IX_ADD: return ix_subtracts(e->a) || ix_subtracts(e->b);
  case IX_MUL: return e->a->kind == IX_CONST && e->a->value < 0; /* -2*i; (i - 1)*K is an index times K */
  case IX_VAR:
  case IX_EXPR:
  case IX_DIV:
  case IX_MOD: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* Index ix printed as ix_print prints it, or, where it is the node
 * printed last in the statement (kept) and its text is still in out's
 * characters, that text copied: an index's text depends on its node alone
 * (ix_print has no context), and within a statement a buffer's text only
 * grows (kept is reset at each statement, and a buffer that moved, or
 * another buffer, has other characters: then it is printed) */
static void print_ix(const CExprHooks *h, Buf *out, const Ix *ix) {
  CIxText *kept = h->ix_text;
  if (kept->ix == ix && kept->data == out->data && kept->at + kept->len <= out->len) {
    buf_put(out, out->data + kept->at, kept->len); /* a buffer that grows keeps its old characters */
    return;
  }
  size_t at = out->len;
  ix_print(out, ix, h->print_expr);
  *kept = (CIxText){ix, out->data, at, out->len - at};
}

void cprint_expr(const CExprHooks *h, Buf *out, const KirExpr *e) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (e->kind) {
  case KE_INT: buf_put_int(out, (long long)e->value); return;
  case KE_VAR: buf_puts(out, e->name); return;
  case KE_LIT: cprint_lit(out, e->lit); return;
  case KE_IX:
    if (h->holes && print_hole(h, out, e, 0)) return;
    if (h->ix_text) print_ix(h, out, e->ix);
    else
      ix_print(out, e->ix, h->print_expr);
    return;
  case KE_UNARY: {
    /* - -x and - -1.0f would read as a decrement: (-x) */
    Buf operand;
    buf_init(&operand, out->arena);
    cprint_operand(h, &operand, e->un.operand, PREC_UNARY);
    bool sign = e->un.op != '&' && operand.data && (operand.data[0] == '-' || operand.data[0] == '!');
    emit(out, sign ? "%c(%s)" : "%c%s", e->un.op, operand.data ? operand.data : "");
    return;
  }
  case KE_BINARY: {
    int prec = kir_binop_prec[e->bin.op];
    /* no redundant parentheses, but the ones -Wparentheses wants (&& in
     * ||, a comparison in ==); a conjunction of tests and an address plus
     * offsets are associative */
    int lmin = prec, rmin = prec + 1;
    if (e->bin.op == KB_OR || e->bin.op == KB_EQ || e->bin.op == KB_NE) lmin = rmin = prec + 2;
    if (e->bin.op == KB_ALL || e->bin.op == KB_PTR_ADD) rmin = prec;
    /* ... unless an offset into a local or private array subtracts: C
     * defines p + n only where it stays within p's array (C11 6.5.6p8),
     * and loc + i*14 + i_2*2 - 28 first forms loc + i*14 + i_2*2, past
     * the end of loc at the last rows though the pointer is an element's
     * (Oclgrind: "index exceeds static array size"; LLVM's getelementptr
     * inbounds, a poison value): loc + (i*14 + i_2*2 - 28) forms the
     * element's address alone (tests/diff/regress/row_pointer_past_local_end.dpia).
     * A global buffer's pointers keep their form, which LLVM 15 steps with
     * the loop (pointers.c): a stencil's xs + gid*64 + i - 1 passes
     * through the centre it reads, and a buffer's length is no object
     * size the compiler knows. */
    if (h->holes && e->bin.op == KB_PTR_ADD && hole_slot(h->holes, e->bin.rhs) >= 0) h->holes->broken = true;
    if (e->bin.op == KB_PTR_ADD && e->bin.rhs->kind == KE_IX && ix_subtracts(e->bin.rhs->ix) &&
        e->bin.lhs->type->kind == KTY_POINTER &&
        (e->bin.lhs->type->space == KSP_LOCAL || e->bin.lhs->type->space == KSP_PRIVATE))
      rmin = prec + 1;
    cprint_operand(h, out, e->bin.lhs, lmin);
    buf_putc(out, ' ');
    buf_puts(out, kir_binop_text[e->bin.op]);
    buf_putc(out, ' ');
    cprint_operand(h, out, e->bin.rhs, rmin);
    return;
  }
  case KE_COND:
    cprint_operand(h, out, e->cond.test, PREC_COND + 1);
    buf_puts(out, " ? ");
    cprint_operand(h, out, e->cond.then, PREC_COND + 1);
    buf_puts(out, " : ");
    cprint_operand(h, out, e->cond.other, PREC_COND);
    return;
  case KE_INDEX:
    cprint_operand(h, out, e->index.base, PREC_POSTFIX);
    buf_putc(out, '[');
    cprint_expr(h, out, e->index.at);
    buf_putc(out, ']');
    return;
  case KE_MEMBER:
    cprint_operand(h, out, e->member.base, PREC_POSTFIX);
    buf_putc(out, '.');
    buf_puts(out, e->member.name);
    return;
  case KE_CALL:
    buf_puts(out, e->call.fn);
    cprint_args(h, out, e);
    return;
  case KE_CAST:
    if (e->call.type->kind == KTY_SCALAR && e->call.type->width > 1) break;
    buf_putc(out, '(');
    h->print_type(out, e->call.type);
    buf_putc(out, ')');
    cprint_operand(h, out, e->call.args[0], PREC_UNARY);
    return;
  case KE_QUERY:
  case KE_LANE:
  case KE_VLOAD:
  case KE_BUILTIN:
  case KE_VECTOR: break;
  }
  DPIA_EXHAUSTIVE_END
  h->print_own(h, out, e);
}

static inline void print_trailing_comment(Buf *out, const KirStmt *s) {
  if (!s->comment) return;
  buf_puts(out, " /* ");
  buf_puts(out, s->comment);
  buf_puts(out, " */");
}

/* { comment, the body a level deeper, } at indent */
static void print_body(const CStmtHooks *h, Buf *out, const KirStmt *s, const KirBlock *body, int indent,
                       LineRec *rec) {
  buf_putc(out, '{');
  print_trailing_comment(out, s);
  buf_putc(out, '\n');
  cprint_block(h, out, body, indent + 1, rec);
  buf_indent(out, indent);
  buf_putc(out, '}');
}

/* a statement's expressions, by h->exprs where the backend has them
 * (CStmtHooks.exprs: the same text), else by its functions */
static inline void stmt_expr(const CStmtHooks *h, Buf *out, const KirExpr *e) {
  if (h->exprs) cprint_expr(h->exprs, out, e);
  else
    h->print_expr(out, e);
}

static inline void stmt_whole(const CStmtHooks *h, Buf *out, const KirExpr *e) {
  if (h->exprs) cprint_expr(h->exprs, out, e);
  else
    h->print_whole(out, e);
}

static inline void stmt_operand(const CStmtHooks *h, Buf *out, const KirExpr *e, int min) {
  if (h->exprs) cprint_operand(h->exprs, out, e, min);
  else
    h->print_operand(out, e, min);
}

/* the statement at hand begins: no index printed in it yet (CIxText) */
static inline void stmt_begins(const CStmtHooks *h) {
  if (h->exprs && h->exprs->ix_text) *h->exprs->ix_text = (CIxText){0};
}

void cprint_loop_head(const CStmtHooks *h, Buf *out, const KirStmt *s) {
  buf_puts(out, "for (int ");
  buf_puts(out, s->loop.var);
  buf_puts(out, " = ");
  stmt_whole(h, out, s->loop.init);
  buf_puts(out, "; ");
  buf_puts(out, s->loop.var);
  buf_puts(out, " < ");
  stmt_operand(h, out, s->loop.bound, kir_binop_prec[KB_LT] + 1);
  buf_puts(out, "; ");
  buf_puts(out, s->loop.var);
  buf_puts(out, " += ");
  stmt_whole(h, out, s->loop.step);
  buf_puts(out, ") ");
}

static void print_run(const CStmtHooks *h, Buf *out, const KirStmt *run, int indent, LineRec *rec);

/* the statement s from the current column, through its end of line */
static void print_stmt(const CStmtHooks *h, Buf *out, const KirStmt *s, int indent, LineRec *rec) {
  stmt_begins(h);
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL:
    if (*h->decl_space[s->decl.space]) buf_puts(out, h->decl_space[s->decl.space]); /* private: none, no call */
    if (s->decl.is_volatile) buf_puts(out, h->volatile_word);
    if (s->decl.is_const) buf_puts(out, "const ");
    h->print_type(out, s->decl.type); /* const global float *xs_i: no space after the * */
    if (s->decl.type->kind != KTY_POINTER) buf_putc(out, ' ');
    buf_puts(out, s->decl.name);
    if (s->decl.array_len >= 0) {
      buf_putc(out, '[');
      buf_put_int(out, (long long)s->decl.array_len);
      buf_putc(out, ']');
    }
    if (s->decl.init) {
      buf_puts(out, " = ");
      stmt_whole(h, out, s->decl.init);
    }
    buf_putc(out, ';');
    print_trailing_comment(out, s);
    break;
  case KS_ASSIGN:
    stmt_expr(h, out, s->assign.lhs);
    buf_puts(out, " = ");
    stmt_whole(h, out, s->assign.rhs);
    buf_putc(out, ';');
    print_trailing_comment(out, s);
    break;
  case KS_VSTORE:
    if (h->exprs) h->print_vstore_by(h->exprs, out, s);
    else
      h->print_vstore(out, s);
    buf_putc(out, ';');
    print_trailing_comment(out, s);
    break;
  case KS_FOR:
    if (s->loop.unroll > 1) {
      emit(out, "%s %d\n", h->unroll_pragma, s->loop.unroll);
      buf_indent(out, indent);
    }
    cprint_loop_head(h, out, s);
    print_body(h, out, s, &s->loop.body, indent, rec);
    break;
  case KS_IF:
    buf_puts(out, "if (");
    stmt_expr(h, out, s->cond.cond);
    buf_puts(out, ") ");
    if (s->cond.one_line) { /* the one statement, on this line */
      if (s->cond.body.first->kind == KS_RUN) INTERNAL("a run of steps as the one statement of a test");
      cprint_record_line(rec, out, s->cond.body.first);
      print_stmt(h, out, s->cond.body.first, indent, rec);
      return;
    }
    print_body(h, out, s, &s->cond.body, indent, rec);
    break;
  case KS_BLOCK: print_body(h, out, s, &s->block.body, indent, rec); break;
  case KS_BARRIER:
    h->print_barrier(out, s);
    buf_putc(out, ';');
    print_trailing_comment(out, s);
    break;
  case KS_EXPR:
    /* a call as a statement; anything else is cast to void, as C says
     * a value is discarded on purpose (-Wunused-value) */
    if (s->expr->kind == KE_CALL) {
      stmt_expr(h, out, s->expr);
    } else {
      buf_puts(out, "(void)");
      stmt_operand(h, out, s->expr, PREC_UNARY);
    }
    buf_putc(out, ';');
    print_trailing_comment(out, s);
    break;
  case KS_COMMENT:
    buf_puts(out, "/* ");
    buf_puts(out, s->text);
    buf_puts(out, " */");
    break;
  case KS_RUN: print_run(h, out, s, indent, rec); return; /* its lines end themselves */
  }
  DPIA_EXHAUSTIVE_END
  buf_putc(out, '\n');
}

/* An assignment or a store of a run's template, as print_stmt prints it
 * without its end of line, its expressions by eh (h->exprs with holes:
 * print_expr, print_whole and print_vstore print by h->exprs). */
static void print_template_stmt(const CStmtHooks *h, const CExprHooks *eh, Buf *out, const KirStmt *s) {
  stmt_begins(h);
  if (s->kind == KS_ASSIGN) {
    cprint_expr(eh, out, s->assign.lhs);
    buf_puts(out, " = ");
    cprint_expr(eh, out, s->assign.rhs);
  } else {
    h->print_vstore_by(eh, out, s);
  }
  buf_putc(out, ';');
  print_trailing_comment(out, s);
}

/* A run's template statement j as text with holes (above); false where
 * it cannot be (then the run is printed written out). */
typedef struct RunLine {
  Buf text;
  CHoles holes;
} RunLine;

static bool template_line(const CStmtHooks *h, const KirStmt *run, int j, const KirStmt *x, int indent,
                          RunLine *line) {
  /* a step leaves out an assignment of a value to itself (unroll_step.c,
   * append_step), and a run holds none: its two sides are never of one
   * kind (may_assign_itself) */
  if (x->kind == KS_ASSIGN && x->assign.lhs->kind == x->assign.rhs->kind) return false;
  CHoles *t = &line->holes;
  t->into = &line->text;
  t->nleaves = kir_run_leaves(run, j, t->leaves, t->slots, RUN_LEAVES);
  if (t->nleaves < 0) return false;
  CExprHooks eh = *h->exprs;
  eh.holes = t;
  if (!eh.prec) eh.prec = kir_prec; /* cprint_operand asks for holes only with one */
  buf_indent(&line->text, indent);
  print_template_stmt(h, &eh, &line->text, x);
  buf_putc(&line->text, '\n');
  return !t->broken && t->n == t->nleaves; /* each leaf once, where expected */
}

/* The text of each step's index in a hole: its precedence as the leaf's
 * is measured (the leaf's node, its index the step's), and where the
 * index is one sum s + k of the step before's s (a run's flat indices:
 * unroll_step.c, flat_at_step), s's text is kept from that step. */
typedef struct SlotText {
  const Ix *of;
  size_t at, len; /* in RunText.kept */
} SlotText;

static void print_step_index(const CExprHooks *eh, Buf *out, const CHole *hole, const Ix *made, SlotText *kept,
                             Buf *kept_text, CIxText *last) {
  bool paren = false; /* none where printed whole (min 0) */
  if (hole->min > 0) {
    KirExpr as = *hole->leaf;
    as.ix = made;
    paren = (eh->prec ? eh->prec(&as) : kir_prec(&as)) < hole->min;
  }
  if (paren) buf_putc(out, '(');
  /* the index printed last again (a zip's two vector loads share their
   * offset, and so a step's two holes their index): its text copied,
   * which print_run's text keeps where it was (out only grows there; a
   * buffer that grows keeps its old characters) */
  if (last->ix == made) {
    buf_put(out, out->data + last->at, last->len);
    if (paren) buf_putc(out, ')');
    return;
  }
  size_t at = out->len;
  SlotText *k = &kept[hole->slot];
  if (made->kind == IX_ADD && k->of != made->a) {
    k->of = made->a;
    k->at = kept_text->len;
    ix_print(kept_text, made->a, eh->print_expr);
    k->len = kept_text->len - k->at;
  }
  if (!(made->kind == IX_ADD && ix_print_plus_constant(out, made, k->of, kept_text->data + k->at, k->len)))
    ix_print(out, made, eh->print_expr);
  *last = (CIxText){made, NULL, at, out->len - at};
  if (paren) buf_putc(out, ')');
}

/* the run's template statements as lines with holes (*n of them), each
 * indented and ended, or NULL where the run is printed written out */
static RunLine *template_lines(const CStmtHooks *h, Arena *a, const KirStmt *run, int indent, int *n) {
  if (!h->exprs) return NULL;
  *n = 0;
  for (const KirStmt *x = run->run.body.first; x; x = x->next) *n += kir_run_template_stmt(x);
  RunLine *lines = NEWARRAY(a, RunLine, *n > 0 ? *n : 1);
  int j = 0;
  for (const KirStmt *x = run->run.body.first; x; x = x->next) {
    if (!kir_run_template_stmt(x)) continue;
    memset(&lines[j], 0, sizeof lines[j]);
    buf_init(&lines[j].text, a);
    if (!template_line(h, run, j, x, indent, &lines[j])) return NULL;
    j++;
  }
  return lines;
}

bool cprint_run_by_template(const CStmtHooks *h, Arena *a, const KirStmt *run) {
  int n;
  return template_lines(h, a, run, 0, &n) != NULL;
}

/* run's steps, a line each statement, the first line's indentation
 * written already (cprint_stmt's, print_stmt's case) */
static void print_run(const CStmtHooks *h, Buf *out, const KirStmt *run, int indent, LineRec *rec) {
  Arena *a = out->arena;
  size_t first = 2 * (size_t)indent; /* buf_indent's */
  if (out->len < first) INTERNAL("a run of steps printed unindented");
  int n = 0;
  /* statement_lines records each statement printed: the steps'
   * statements written out, as a reader of lines expects them */
  const RunLine *lines = rec ? NULL : template_lines(h, a, run, indent, &n);
  if (!lines || n == 0) {
    KirBlock steps = kir_run_steps(a, run, false);
    for (const KirStmt *x = steps.first; x; x = x->next) {
      if (x != steps.first) buf_indent(out, indent);
      cprint_record_line(rec, out, x);
      print_stmt(h, out, x, indent, rec);
    }
    if (!steps.first) out->data[out->len -= first] = 0; /* no line: none indented */
    return;
  }
  int nslots = kir_run_slots(run);
  SlotText *kept = NEWARRAY(a, SlotText, nslots > 0 ? nslots : 1);
  memset(kept, 0, sizeof(SlotText) * (size_t)(nslots > 0 ? nslots : 1));
  Buf kept_text;
  buf_init(&kept_text, a);
  /* room for the steps' lines at once (an index's text is at most about
   * as long as a hole's allowance), not the text doubled step by step */
  size_t step_text = 0;
  for (int i = 0; i < n; i++) step_text += lines[i].text.len + (size_t)lines[i].holes.n * 32;
  buf_reserve(out, step_text * (size_t)run->run.count);
  CIxText last = {0}; /* the index printed last, at [at, at + len) of out */
  for (int64_t t = 0; t < run->run.count; t++) {
    const Ix *const *row = kir_run_row(run, t);
    for (int i = 0; i < n; i++) {
      const RunLine *line = &lines[i];
      size_t from = t == 0 && i == 0 ? first : 0; /* its indentation is out's already */
      for (int k = 0; k < line->holes.n; k++) {
        const CHole *hole = &line->holes.hole[k];
        buf_put(out, line->text.data + from, hole->at - from);
        print_step_index(h->exprs, out, hole, row[hole->slot], kept, &kept_text, &last);
        from = hole->at;
      }
      buf_put(out, line->text.data + from, line->text.len - from);
    }
  }
}

void cprint_stmt(const CStmtHooks *h, Buf *out, const KirStmt *s, int indent, LineRec *rec) {
  buf_indent(out, indent);
  cprint_record_line(rec, out, s);
  print_stmt(h, out, s, indent, rec);
}

void cprint_block(const CStmtHooks *h, Buf *out, const KirBlock *b, int indent, LineRec *rec) {
  for (const KirStmt *s = b->first; s; s = s->next) cprint_stmt(h, out, s, indent, rec);
}

void cprint_struct(Buf *out, const KirStruct *s, void (*print_type)(Buf *out, const KirType *t)) {
  emit(out, "typedef struct {\n");
  for (int i = 0; i < 2; i++) {
    const KirStructField *f = &s->field[i];
    buf_puts(out, "  ");
    print_type(out, f->type);
    emit(out, " %s", f->name);
    if (f->array_len >= 0) emit(out, "[%lld]", (long long)f->array_len);
    emit(out, ";\n");
  }
  emit(out, "} %s;\n\n", s->name);
}

void cprint_plain_param(Buf *out, const KirParam *p, void (*print_type)(Buf *out, const KirType *t),
                        const char *restrict_word, const char *local_type,
                        void (*print_local)(Buf *out, const KirParam *p)) {
  switch ((KParamRole)p->role) {
  case KP_OUTPUT:
  case KP_TEMP:
  case KP_INPUT:
    if (p->role == KP_INPUT && !p->updated) buf_puts(out, "const ");
    print_type(out, p->type);
    if (p->restrict_ || (p->role == KP_INPUT && !p->updated)) emit(out, " *%s %s", restrict_word, p->name);
    else emit(out, " *%s", p->name);
    return;
  case KP_SCALAR:
  case KP_NAT:
    print_type(out, p->type);
    emit(out, " %s", p->name);
    return;
  case KP_LOCAL:
    emit(out, "%s ", local_type);
    print_local(out, p);
    return;
  }
  INTERNAL("kernel parameter role %d", p->role);
}

void cprint_params(Buf *out, size_t start, const KirKernel *k, void (*print_param)(Buf *out, const KirParam *p)) {
  cprint_params_more(out, start, k, print_param, 0, NULL);
}

void cprint_params_more(Buf *out, size_t start, const KirKernel *k, void (*print_param)(Buf *out, const KirParam *p),
                        int nextra, const char *const *extra) {
  /* the column after the last line break since start */
  size_t col = out->len - start;
  for (size_t i = out->len; i > start; i--)
    if (out->data[i - 1] == '\n') {
      col = out->len - i;
      break;
    }
  Buf decls;
  buf_init(&decls, out->arena);
  int n = k->nparams + nextra;
  size_t *ends = NEWARRAY(out->arena, size_t, n > 0 ? n : 1);
  size_t width = 0;
  for (int i = 0; i < n; i++) {
    size_t from = decls.len;
    if (i < k->nparams) print_param(&decls, &k->params[i]);
    else buf_puts(&decls, extra[i - k->nparams]);
    ends[i] = decls.len;
    width += decls.len - from + 2;
  }
  bool one_line = col + width <= 100;
  static const char blanks[] = "                                "; /* a continuation line's indentation */
  for (int i = 0; i < n; i++) {
    if (i) {
      if (one_line) {
        buf_puts(out, ", ");
      } else {
        buf_put(out, ",\n", 2);
        for (size_t c = 0; c < col; c += sizeof blanks - 1)
          buf_put(out, blanks, col - c < sizeof blanks - 1 ? col - c : sizeof blanks - 1);
      }
    }
    size_t from = i ? ends[i - 1] : 0;
    buf_put(out, decls.data + from, ends[i] - from);
  }
}

int cprint_statement_lines(Arena *a, const KirKernel *k, CKernelPrinter print, const KirStmt *const **stmts,
                           const int **lines, const char **text) {
  Buf out;
  buf_init(&out, a);
  LineRec rec = {.arena = a, .line = 1};
  print(k, NULL, &out, &rec);
  return cprint_lines(&rec, &out, stmts, lines, text);
}

void cprint_tops(const CTops *c, const KirKernel *k, NameSet *defined, Buf *out) {
  bool table = false;
  for (int i = 0; i < k->ntops; i++) {
    const KirTop *t = &k->tops[i];
    if (cprint_defined_before(defined, t->name)) continue;
    DPIA_EXHAUSTIVE_BEGIN
    switch (t->kind) {
    case KT_STRUCT: /* a pair type's, the same in every program */
      if (c->guard_structs) emit(out, "#ifndef DPIA_C_HAVE_%s\n#define DPIA_C_HAVE_%s\n", t->name, t->name);
      cprint_struct(out, &t->st, c->print_type);
      if (c->guard_structs) buf_puts(out, "#endif\n");
      break;
    case KT_FOREIGN: emit(out, "/* foreign function %s */\n%s%s\n", t->name, c->foreign, t->text); break;
    case KT_CONST: {
      Buf head;
      buf_init(&head, out->arena);
      buf_puts(&head, c->table);
      c->print_type(&head, t->table.elem);
      cprint_table(out, head.data, t->name, &t->table, c->print_value);
      table = true;
      break;
    }
    }
    DPIA_EXHAUSTIVE_END
  }
  if (table) buf_putc(out, '\n');
}

/* ---- walking a kernel (CWalk) ---- */

static void walk_type(const CWalk *w, const KirType *t) {
  if (t && w->on_type) w->on_type(w->ctx, t);
}

static void walk_expr(const CWalk *w, const KirExpr *e);

static void walk_ix(const CWalk *w, const Ix *x) {
  if (!x) return;
  if (x->kind == IX_EXPR) walk_expr(w, x->expr);
  walk_ix(w, x->a);
  walk_ix(w, x->b);
}

static void walk_expr(const CWalk *w, const KirExpr *e) {
  if (!e) return;
  if (w->on_expr) w->on_expr(w->ctx, e);
  if (e->kind == KE_IX) {
    walk_ix(w, e->ix);
    return;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++) walk_expr(w, kids[i]);
}

static void walk_block(const CWalk *w, const KirBlock *b) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (w->on_stmt) w->on_stmt(w->ctx, s);
    DPIA_EXHAUSTIVE_BEGIN
    switch (s->kind) {
    case KS_DECL:
      walk_type(w, s->decl.type);
      walk_expr(w, s->decl.init);
      break;
    case KS_ASSIGN:
      walk_expr(w, s->assign.lhs);
      walk_expr(w, s->assign.rhs);
      break;
    case KS_VSTORE:
      walk_expr(w, s->vstore.value);
      walk_expr(w, s->vstore.offset);
      walk_expr(w, s->vstore.ptr);
      break;
    case KS_FOR:
      walk_expr(w, s->loop.init);
      walk_expr(w, s->loop.bound);
      walk_expr(w, s->loop.step);
      walk_block(w, &s->loop.body);
      break;
    case KS_IF:
      walk_expr(w, s->cond.cond);
      walk_block(w, &s->cond.body);
      break;
    case KS_BLOCK: walk_block(w, &s->block.body); break;
    case KS_EXPR: walk_expr(w, s->expr); break;
    case KS_BARRIER:
    case KS_COMMENT: break;
    case KS_RUN:
      INTERNAL("a run of steps reaches a backend's walk: cg_lower writes every run out (kir_write_out_runs)");
    }
    DPIA_EXHAUSTIVE_END
  }
}

void cwalk_kernel(const CWalk *w, const KirKernel *k) {
  for (int i = 0; i < k->nparams; i++) walk_type(w, k->params[i].type);
  for (int i = 0; i < k->ntops; i++) {
    const KirTop *t = &k->tops[i];
    if (t->kind == KT_STRUCT)
      for (int f = 0; f < 2; f++) walk_type(w, t->st.field[f].type);
    if (t->kind == KT_CONST) {
      walk_type(w, t->table.elem);
      for (int j = 0; j < t->table.n; j++) walk_expr(w, t->table.values[j]);
    }
  }
  walk_block(w, &k->locals);
  walk_block(w, &k->body);
}
