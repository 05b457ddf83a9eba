/* space.c: the search space of a kernel's tune parameters as data
 * (`--emit=space`, docs/language.md section 6.1), for auto-tuners such as
 * Kernel Tuner, whose `restrictions` are Python expressions over the
 * parameter names:
 *
 *   {"kernel": "gemv", "file": "gemv.dpia",
 *    "tune": [{"name": "WG", "values": [32, 64, 128, 256]}],
 *    "sizes": ["M", "N"],
 *    "constraints": ["N % WG == 0", "N >= WG"],
 *    "global_size": ["M*WG"], "local_size": ["WG"],
 *    "local_memory_bytes": "4*WG"}
 *
 * The constraints are the kernel's preconditions (the checker's and the
 * launch's, spec section 3) written in Python: `/` is `//` (both truncate:
 * every operand is a size, so non-negative), `&&` and `||` are `and` and
 * `or`.  A precondition over tune parameters only that every point of
 * their domains satisfies (WG >= 1) is left out: it constrains nothing.
 * Sizes use the same syntax.  Deterministic. */
#include <string.h>

#include "dpia_codegen.h"
#include "dpia_front.h"
#include "dpia_verify.h"
#include "space.h"

/* the C expression of a size or precondition, in Python */
static void python_expr(Buf *out, const char *c) {
  for (const char *p = c; *p; p++) {
    if (*p == '/') buf_puts(out, "//");
    else if (p[0] == '&' && p[1] == '&') buf_puts(out, "and"), p++;
    else if (p[0] == '|' && p[1] == '|') buf_puts(out, "or"), p++;
    else buf_putc(out, *p);
  }
}

static void json_python(Arena *a, Buf *out, const char *c) {
  Buf b;
  buf_init(&b, a);
  python_expr(&b, c);
  emit_json_string(out, b.data);
}

static void json_size(Arena *a, Buf *out, Size s) {
  Buf b;
  buf_init(&b, a);
  size_print(&b, s);
  json_python(a, out, b.data);
}

bool expr_mentions(const char *expr, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(expr, name); p; p = strstr(p + 1, name)) {
    bool before = p > expr && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    char c = p[n];
    bool after = c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
    if (!before && !after) return true;
  }
  return false;
}

static uint64_t domain_count(const Param *pa) {
  return pa->tune_range ? pa->tune_hi - pa->tune_lo + 1 : (uint64_t)pa->ntune_values;
}

static uint64_t domain_value(const Param *pa, uint64_t i) {
  return pa->tune_range ? pa->tune_lo + i : pa->tune_values[i];
}

enum { MOST_POINTS = 1 << 16 }; /* a larger domain product is not enumerated */

/* Does pre, which mentions no nat parameter but the tune parameters tune[],
 * hold at every point of their domains?  False when it cannot be told
 * (too many points, or an evaluation error such as a division by zero). */
static bool always_holds(Arena *a, const char *pre, int ntune, const Param *const *tune) {
  uint64_t points = 1;
  for (int i = 0; i < ntune; i++) {
    points *= domain_count(tune[i]);
    if (points > MOST_POINTS) return false;
  }
  const char **vn = NEWARRAY(a, const char *, ntune > 0 ? ntune : 1);
  int64_t *vv = NEWARRAY(a, int64_t, ntune > 0 ? ntune : 1);
  for (int i = 0; i < ntune; i++) vn[i] = tune[i]->name;
  NatValues nats = {ntune, vn, vv};
  Buf why;
  buf_init(&why, a);
  for (uint64_t p = 0; p < points; p++) {
    uint64_t rest = p;
    for (int i = 0; i < ntune; i++) {
      vv[i] = (int64_t)domain_value(tune[i], rest % domain_count(tune[i]));
      rest /= domain_count(tune[i]);
    }
    int64_t v;
    buf_clear(&why);
    if (!precond_eval(pre, &nats, &v, &why) || !v) return false;
  }
  return true;
}

/* the local memory of the kernel: every newLocal's bytes, summed */
static void local_bytes(Arena *a, SizeCtx *sc, const Phrase *p, Size *total) {
  if (!p) return;
  switch (p->kind) {
  case PH_PRIM:
    if (p->prim == PRIM_NEW_LOCAL && p->type_arg) {
      DataType *t = dt_resolve(p->type_arg);
      Size n = size_const(sc, 1);
      for (; t->kind == DT_ARRAY; t = dt_resolve(t->elem)) n = size_mul(sc, n, t->size);
      Buf why;
      buf_init(&why, a);
      NatValues none = {0, NULL, NULL};
      const Lay *l = lay_of(a, t, &none, &why);
      if (l) *total = size_add(sc, *total, size_mul(sc, n, size_const(sc, l->bytes)));
    }
    return;
  case PH_LAM: local_bytes(a, sc, p->body, total); return;
  case PH_APP:
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP:
    local_bytes(a, sc, p->fst, total);
    local_bytes(a, sc, p->snd, total);
    return;
  case PH_PROJ:
  case PH_UNOP: local_bytes(a, sc, p->fst, total); return;
  default: return;
  }
}

void space_emit(Arena *a, const ImpKernel *k, Buf *out) {
  const Decl *d = k->def ? k->def->decl : NULL;
  int nparams = d ? d->nparams : 0;
  const Param **tune = NEWARRAY(a, const Param *, nparams > 0 ? nparams : 1);
  int ntune = 0;
  for (int i = 0; i < nparams; i++)
    if (d->params[i].tune) tune[ntune++] = &d->params[i];
  emit(out, "{\"kernel\": ");
  emit_json_string(out, k->name);
  emit(out, ", \"file\": ");
  emit_json_string(out, k->source_name ? k->source_name : "<input>");
  emit(out, ",\n \"tune\": [");
  /* the parameters still symbolic: one given by --set is a constant */
  const Param **open = NEWARRAY(a, const Param *, ntune > 0 ? ntune : 1);
  int nopen = 0;
  for (int i = 0; i < ntune; i++) {
    bool symbolic = false;
    for (int j = 0; j < k->nparams; j++)
      symbolic |= k->params[j].role == KP_NAT && strcmp(k->params[j].name, tune[i]->name) == 0;
    if (!symbolic) continue;
    const Param *pa = tune[i];
    open[nopen] = pa;
    emit(out, "%s\n   {\"name\": ", nopen++ ? "," : "");
    emit_json_string(out, pa->name);
    if (pa->tune_range) {
      emit(out, ", \"range\": {\"min\": %llu, \"max\": %llu}}", (unsigned long long)pa->tune_lo,
           (unsigned long long)pa->tune_hi);
    } else {
      buf_puts(out, ", \"values\": [");
      for (int v = 0; v < pa->ntune_values; v++) emit(out, "%s%llu", v ? ", " : "", (unsigned long long)pa->tune_values[v]);
      buf_puts(out, "]}");
    }
  }
  emit(out, "],\n \"sizes\": [");
  int nsizes = 0;
  for (int j = 0; j < k->nparams; j++) {
    const KParam *p = &k->params[j];
    bool is_tune = false;
    for (int i = 0; i < nopen; i++) is_tune |= strcmp(open[i]->name, p->name) == 0;
    if (p->role != KP_NAT || is_tune) continue;
    if (nsizes++) buf_puts(out, ", ");
    emit_json_string(out, p->name);
  }
  emit(out, "],\n \"constraints\": [");
  int ncons = 0;
  for (int i = 0; i < k->nprecond; i++) {
    const char *pre = k->preconds[i];
    bool sized = false, tuned = false;
    for (int j = 0; j < k->nparams; j++) {
      if (k->params[j].role != KP_NAT || !expr_mentions(pre, k->params[j].name)) continue;
      bool is_tune = false;
      for (int t = 0; t < nopen; t++) is_tune |= strcmp(open[t]->name, k->params[j].name) == 0;
      if (is_tune) tuned = true;
      else sized = true;
    }
    if (tuned && !sized && always_holds(a, pre, nopen, open)) continue;
    if (ncons++) buf_puts(out, ", ");
    json_python(a, out, pre);
  }
  emit(out, "],\n \"global_size\": [");
  for (int i = 0; i < k->ndims; i++) {
    if (i) buf_puts(out, ", ");
    json_size(a, out, k->global_size[i]);
  }
  emit(out, "], \"local_size\": ");
  if (k->has_local) {
    buf_putc(out, '[');
    for (int i = 0; i < k->ndims; i++) {
      if (i) buf_puts(out, ", ");
      json_size(a, out, k->local_size[i]);
    }
    buf_putc(out, ']');
  } else {
    buf_puts(out, "null");
  }
  SizeCtx sc = {a, false};
  Size bytes = size_const(&sc, 0);
  local_bytes(a, &sc, k->def ? k->def->body : NULL, &bytes);
  emit(out, ",\n \"local_memory_bytes\": ");
  json_size(a, out, bytes);
  emit(out, "}\n");
}
