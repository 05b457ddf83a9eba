/* index_print.c: the text of an index expression (ix_print), and what a
 * constructor records of it (ix_seal): its printed length and a
 * structural hash, so that comparing candidate forms never walks a tree
 * (index.c); and the printed length of a sum of parts counted without
 * making it (ix_parts_length), for the simplifier's search. */
#include "index.h"
#include "index_int.h"
#include "kir.h"
#include "memo.h"

#include <string.h>

/* ---- printing ---- */

void ix_print_atom(Buf *out, const KirExpr *e, IxExprPrinter print_expr) {
  bool paren = kir_prec(e) < PREC_POSTFIX;
  if (paren) buf_putc(out, '(');
  print_expr(out, e);
  if (paren) buf_putc(out, ')');
}

/* Binding strength in C: sums 1, products 2, atoms 3 (a negative
 * constant 0: it is wrapped wherever it is an operand).  ix_seal keeps it
 * in the node (Ix.precedence: a leaf's by its kind, an operator's from
 * operators[] below), which is what the parentheses below read. */
static int precedence(const Ix *e) { return e->precedence; }

/* an operator's text, its length (seal counts it for every node) and its
 * binding strength */
typedef struct Operator {
  const char *text;
  size_t length;
  uint8_t precedence;
} Operator;
#define OPERATOR(s, precedence) {s, sizeof(s) - 1, precedence}
static const Operator operators[] = {
    [IX_ADD] = OPERATOR(" + ", 1), [IX_SUB] = OPERATOR(" - ", 1), [IX_MUL] = OPERATOR("*", 2),
    [IX_DIV] = OPERATOR("/", 2),   [IX_MOD] = OPERATOR("%", 2),
};
#undef OPERATOR

static bool left_needs_parens(IxKind parent, const Ix *left) {
  int p = precedence(left);
  if (p == 0) return false; /* unary minus binds tighter than any operator */
  int parent_precedence = parent == IX_ADD || parent == IX_SUB ? 1 : 2;
  return p < parent_precedence;
}

/* Does a product print starting with a bare quotient (x/4*i)?  Then a
 * factor before it would be divided too: a*x/4*i is (a*x)/4*i in C.
 * ix_seal keeps it in the node (Ix.starts_quotient: a quotient or
 * remainder does, a product where its left operand does), so that no
 * parent walks the chain of products. */
static bool starts_with_quotient(const Ix *e) { return e->starts_quotient; }

/* Does the right operand need parentheses?  Only where C would regroup it
 * to a different value: a - (b + c), a*(b/c), a/(b*c), a*(b/4*c).  a + (b
 * - c) and a*(b*c) are the same numbers without them. */
static bool right_needs_parens(IxKind parent, const Ix *right) {
  int p = precedence(right);
  if (p == 0) return true;
  switch (parent) {
  case IX_ADD: return false;
  case IX_SUB: return p <= 1;
  case IX_MUL: return p < 2 || (p == 2 && (right->kind != IX_MUL || starts_with_quotient(right)));
  default: return p <= 2;
  }
}

typedef struct Printer {
  Buf *out;
  IxExprPrinter print_expr; /* IX_EXPR atoms */
} Printer;

/* by powers of ten, a multiplication a digit (every constant node is
 * measured when it is made: ix_seal); a magnitude is at most 2^63 < 10^19,
 * so the loop stops at 10^19 at the latest, which uint64 holds */
static size_t decimal_length(int64_t v) {
  uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  size_t n = v < 0 ? 2 : 1;
  for (uint64_t power = 10; magnitude >= power; power *= 10) n++;
  return n;
}

static void print_node(Printer *p, const Ix *e);

static void print_operand(Printer *p, const Ix *e, bool parens) {
  if (parens) buf_putc(p->out, '(');
  print_node(p, e);
  if (parens) buf_putc(p->out, ')');
}

/* A term of a flat sum: a variable, a constant >= 0 or a variable times
 * one, which print_node writes with no parentheses wherever it is in a
 * sum (precedence 3, or 2 with an atom on each side of its '*'). */
static bool flat_term(const Ix *e) {
  switch (e->kind) {
  case IX_VAR: return true;
  case IX_CONST: return e->value >= 0;
  case IX_MUL: return e->a->kind == IX_VAR && e->b->kind == IX_CONST && e->b->value >= 0;
  case IX_EXPR:
  case IX_ADD:
  case IX_SUB:
  case IX_DIV:
  case IX_MOD: return false;
  }
  return false;
}

static void print_flat_term(Printer *p, const Ix *e) {
  const Ix *v = e->kind == IX_MUL ? e->a : e;
  if (v->kind == IX_VAR)
    buf_put(p->out, v->name, v->length); /* its length, strlen(name): ix_seal */
  else
    buf_put_int(p->out, v->value);
  if (e->kind == IX_MUL) {
    buf_putc(p->out, '*');
    buf_put_int(p->out, e->b->value);
  }
}

/* A sum of flat terms, ((t1 + t2) + t3) + ..., as print_node writes it
 * (a sum left of " + " and a flat term right of it need no parentheses):
 * the terms and " + " between them, without asking each node's
 * neighbours for parentheses.  An unrolled step's indices, wg*512 +
 * lid*16 + 5, are such sums (codegen/unroll_step.c).  false (nothing
 * written) where e is not one. */
static bool print_flat_sum(Printer *p, const Ix *e) {
  enum { MOST = 8 };
  const Ix *terms[MOST];
  int n = 0;
  for (; e->kind == IX_ADD; e = e->a) {
    if (n == MOST - 1 || !flat_term(e->b)) return false;
    terms[n++] = e->b;
  }
  if (!flat_term(e)) return false;
  terms[n++] = e;
  for (int i = n - 1; i >= 0; i--) {
    print_flat_term(p, terms[i]);
    if (i > 0) buf_put(p->out, " + ", 3);
  }
  return true;
}

static void print_node(Printer *p, const Ix *e) {
  switch (e->kind) {
  case IX_CONST: buf_put_int(p->out, e->value); return;
  case IX_VAR: buf_put(p->out, e->name, e->length); return; /* its length, strlen(name): ix_seal */
  case IX_EXPR: ix_print_atom(p->out, e->expr, p->print_expr); return;
  case IX_ADD:
    if (print_flat_sum(p, e)) return;
    /* fall through */
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD:
    print_operand(p, e->a, left_needs_parens(e->kind, e->a));
    buf_put(p->out, operators[e->kind].text, operators[e->kind].length);
    print_operand(p, e->b, right_needs_parens(e->kind, e->b));
    return;
  }
  INTERNAL("bad index kind %d", (int)e->kind);
}

void ix_print(Buf *out, const Ix *e, IxExprPrinter print_expr) {
  Printer p = {out, print_expr};
  print_node(&p, e);
}

/* print_node(a + k), k >= 0: a flat sum (print_flat_sum) writes a's terms
 * as print_node writes a (a's own flat sum, or its one flat term, which
 * needs no parentheses), then " + " and k; any other sum writes a left of
 * " + " with no parentheses (left_needs_parens: only a negative constant
 * binds less tightly than " + ", and it needs none there) and k right of
 * it with none (right_needs_parens: a constant >= 0 is an atom).  The flat
 * sum's limit of terms does not matter: both ways write the same text. */
bool ix_print_plus_constant(Buf *out, const Ix *e, const Ix *a, const char *a_text, size_t a_len) {
  if (e->kind != IX_ADD || e->a != a || e->b->kind != IX_CONST || e->b->value < 0) return false;
  buf_put(out, a_text, a_len);
  buf_put(out, " + ", 3);
  buf_put_int(out, e->b->value);
  return true;
}

/* ---- what a constructor records: length and hash ----
 *
 * The simplifier weighs every candidate form by its printed length, and
 * the memo of ix_simplify finds equal inputs by hash: both are kept in
 * the node when it is made, from its children's, so that neither walks a
 * tree (print_node is what the length counts, character for character). */


uint64_t ix_name_hash(Sym name) {
  uint64_t h = 0xcbf29ce484222325u;
  for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3u;
  return h;
}

static size_t operand_length(const Ix *e, bool parens) { return e->length + (parens ? 2 : 0); }

void ix_seal(Ix *e) {
  uint64_t h = hash_mix(0x9e3779b97f4a7c15u, (uint64_t)e->kind);
  switch (e->kind) {
  case IX_CONST:
    e->precedence = e->value < 0 ? 0 : 3;
    e->starts_quotient = false;
    e->length = decimal_length(e->value);
    e->hash = hash_mix(h, (uint64_t)e->value);
    return;
  case IX_VAR:
    e->precedence = 3;
    e->starts_quotient = false;
    e->length = strlen(e->name);
    e->hash = hash_mix(h, ix_name_hash(e->name));
    return;
  case IX_EXPR: /* equal atoms print alike, so have one width */
    e->precedence = 3;
    e->starts_quotient = false;
    e->exprs = true;
    e->length = e->width;
    e->hash = hash_mix(h, e->width);
    return;
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: {
    bool left_parens = left_needs_parens(e->kind, e->a);
    e->precedence = operators[e->kind].precedence;
    /* a left operand that starts with a quotient is a product, quotient
     * or remainder, which needs no parentheses left of '*' */
    e->starts_quotient = e->kind == IX_DIV || e->kind == IX_MOD || (e->kind == IX_MUL && e->a->starts_quotient);
    e->length = operand_length(e->a, left_parens) + operators[e->kind].length +
                operand_length(e->b, right_needs_parens(e->kind, e->b));
    e->hash = hash_mix(hash_mix(h, e->a->hash), e->b->hash);
    e->divides = e->kind == IX_DIV || e->kind == IX_MOD || e->a->divides || e->b->divides;
    e->exprs = e->a->exprs || e->b->exprs;
    return;
  }
  }
  INTERNAL("bad index kind %d", (int)e->kind);
}

/* ---- the length of a sum of parts (index_int.h) ----
 *
 * Counted as ix_seal counts the nodes assemble would make (index.c),
 * operand by operand. */

static size_t left_operand_length(IxKind parent, const Ix *e) {
  return operand_length(e, left_needs_parens(parent, e));
}

static size_t right_operand_length(IxKind parent, const Ix *e) {
  return operand_length(e, right_needs_parens(parent, e));
}

/* A product's first atom is a left operand of *, each further factor and
 * the coefficient a right one; a product then needs no parentheses right
 * of + or -, a lone atom what it needs itself (an atom kept as written
 * may be a sum), a lone constant them where negative (INT64_MIN, which has
 * no magnitude). */
IxPart ix_term_part(const PolyTerm *t) {
  IxPart part = {NULL, false, t, 0, false, false};
  const Ix *lone = NULL; /* the first atom, while it is the only one */
  bool product = false;
  for (int i = 0; i < t->nfactors; i++) {
    const Ix *a = t->factors[i].atom;
    for (int64_t k = 0; k < t->factors[i].exp; k++) {
      if (!lone && !product) {
        lone = a;
        part.length = a->length;
        continue;
      }
      if (lone) part.length = left_operand_length(IX_MUL, lone);
      part.length += 1 + right_operand_length(IX_MUL, a);
      lone = NULL;
      product = true;
    }
  }
  int64_t c = t->num;
  part.negative = c < 0 && c != INT64_MIN;
  if (part.negative) c = -c;
  if (c != 1 || (!lone && !product)) {
    size_t digits = decimal_length(c);
    if (lone) part.length = left_operand_length(IX_MUL, lone);
    /* a negative constant is wrapped right of *, + and - */
    part.length += lone || product ? 1 + digits + (c < 0 ? 2 : 0) : digits;
    part.parens_add = part.parens_sub = !lone && !product && c < 0;
  } else if (lone) {
    part.parens_add = right_needs_parens(IX_ADD, lone);
    part.parens_sub = right_needs_parens(IX_SUB, lone);
  }
  return part;
}

IxPart ix_group_part(const Ix *group, bool negative, const PolyTerm *first) {
  return (IxPart){group, negative, first, group->length, right_needs_parens(IX_ADD, group),
                  right_needs_parens(IX_SUB, group)};
}

/* The added parts come first, so the sum starts with a negative part only
 * when all are negative: then it prints 0 - m1 - m2 ..., each magnitude a
 * right operand of -; otherwise the first part is a left operand of + or
 * -, which needs no parentheses (not even a sum does), and the others
 * right operands of their + or -.  Which added part comes first matters
 * only for a magnitude that needs parentheses right of + (a negative
 * constant). */
bool ix_parts_length(const IxPart *parts, int n, size_t *length) {
  if (n == 0) {
    *length = 1; /* 0 */
    return true;
  }
  bool all_negative = true;
  size_t sum = 0;
  for (int i = 0; i < n; i++) {
    bool parens = parts[i].negative ? parts[i].parens_sub : parts[i].parens_add;
    if (!parts[i].negative && parens) return false;
    all_negative &= parts[i].negative;
    sum += 3 + parts[i].length + (parens ? 2 : 0); /* " + " or " - " */
  }
  *length = all_negative ? sum + 1 : sum - 3;
  return true;
}
