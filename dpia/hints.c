/* hints.c: suggestions in the checker's messages (hints.h). */
#include "hints.h"

#include <string.h>

const char *span_text(Arena *a, Span s) {
  if (!s.src || s.end < s.begin || s.end > s.src->len) return "";
  return arena_strndup(a, s.src->text + s.begin, s.end - s.begin);
}

const char *prim_display_name(Arena *a, Prim p, int dim, Span at) {
  const char *name = prim_info[p].name;
  if (!(prim_info[p].flags & PF_DIM)) return name;
  size_t n = strlen(name);
  bool spelled = false;
  if (at.src && at.begin + n < at.src->len && at.end >= at.begin + n &&
      strncmp(at.src->text + at.begin, name, n) == 0) {
    char d = at.src->text[at.begin + n];
    if (d >= '0' && d <= '2') {
      spelled = true;
      dim = d - '0';
    }
  }
  return spelled || dim != 0 ? arena_printf(a, "%s%d", name, dim) : name;
}

static char lower(char ch) { return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch; }

int name_distance(const char *a, const char *b) {
  enum { MAX = 64 };
  size_t n = strlen(a), m = strlen(b);
  if (n >= MAX || m >= MAX) return MAX;
  int d[MAX + 1][MAX + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    for (size_t j = 1; j <= m; j++) {
      int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      int best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]) &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[n][m];
}

void guess_init(NameGuess *g, const char *unknown) {
  g->unknown = unknown;
  g->best = NULL;
  g->best_distance = 0;
}

void guess_offer(NameGuess *g, const char *candidate) {
  if (!candidate || strcmp(candidate, g->unknown) == 0) return;
  /* a slip: one edit in 3 to 5 letters, two in 6 to 8, three beyond; a
   * name of one or two letters only by its case */
  int len = (int)strlen(g->unknown);
  int allowed = len < 3 ? 0 : len < 6 ? 1 : len < 9 ? 2 : 3;
  int d = name_distance(g->unknown, candidate);
  if (d > allowed) return;
  if (!g->best || d < g->best_distance) {
    g->best = candidate;
    g->best_distance = d;
  }
}

void guess_offer_prims(NameGuess *g, bool imperative) {
  for (int p = 0; p < PRIM_COUNT; p++)
    if (prim_info[p].flags & PF_FUNC) guess_offer(g, prim_info[p].name);
  if (!imperative) return;
  for (int p = 0; p < PRIM_COUNT; p++)
    if (!(prim_info[p].flags & PF_FUNC)) guess_offer(g, prim_info[p].name);
}

const char *guess_best(const NameGuess *g) { return g->best; }

const char *static_size_operator_hint(Arena *a, const Ast *e) {
  if (e->kind != AST_BINOP) return NULL;
  if (e->op != BIN_ADD && e->op != BIN_SUB && e->op != BIN_MUL && e->op != BIN_DIV) return NULL;
  const Ast *l = e->lhs, *r = e->rhs;
  if (l->kind != AST_PRIM || prim_info[l->prim].nsizes == 0) return NULL;
  if (r->kind != AST_INT && r->kind != AST_VAR) return NULL;
  const SizeAst *last = l->sizes[prim_info[l->prim].nsizes - 1];
  if (!last || last->span.src != e->span.src) return NULL;
  Span head = {e->span.src, l->span.begin, last->span.begin};
  Span size_op_arg = {e->span.src, last->span.begin, r->span.end};
  /* the operator applies to the function split 2048, not to the size */
  return arena_printf(a, "'%s' parses as '(%s) %s %s'; write '%s(%s)'", span_text(a, e->span),
                      span_text(a, l->span), binop_spelling[e->op], span_text(a, r->span), span_text(a, head),
                      span_text(a, size_op_arg));
}
