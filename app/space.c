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
#include "json.h"
#include "space.h"

static void json_size(Arena *a, Buf *out, Size s) {
  Buf b;
  buf_init(&b, a);
  size_print_in(&b, s, SIZE_SYNTAX_PYTHON, SIZE_ALONE);
  emit_json_string(out, b.data);
}

static void json_precond(Arena *a, Buf *out, const Precond *p) {
  Buf b;
  buf_init(&b, a);
  precond_print(&b, p, SIZE_SYNTAX_PYTHON);
  emit_json_string(out, b.data);
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
static bool always_holds(Arena *a, const Precond *pre, int ntune, const Param *const *tune) {
  uint64_t points = 1;
  for (int i = 0; i < ntune; i++) {
    points *= domain_count(tune[i]);
    if (points > MOST_POINTS) return false;
  }
  const char **vn = NEWARRAY(a, const char *, ntune > 0 ? ntune : 1);
  int64_t *vv = NEWARRAY(a, int64_t, ntune > 0 ? ntune : 1);
  for (int i = 0; i < ntune; i++) vn[i] = tune[i]->name;
  NatValues nats = {ntune, vn, vv};
  for (uint64_t p = 0; p < points; p++) {
    uint64_t rest = p;
    for (int i = 0; i < ntune; i++) {
      vv[i] = (int64_t)domain_value(tune[i], rest % domain_count(tune[i]));
      rest /= domain_count(tune[i]);
    }
    if (precond_eval(pre, nat_lookup, &nats) != PRECOND_HOLDS) return false;
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

/* one member of "tune": {"name": "WG", "values": [32, 64]} */
static void emit_tune_entry(Buf *out, const Param *pa, bool first) {
  emit(out, "%s\n   {\"name\": ", first ? "" : ",");
  emit_json_string(out, pa->name);
  if (pa->tune_range) {
    emit(out, ", \"range\": {\"min\": %llu, \"max\": %llu}}", (unsigned long long)pa->tune_lo,
         (unsigned long long)pa->tune_hi);
  } else {
    buf_puts(out, ", \"values\": [");
    for (int v = 0; v < pa->ntune_values; v++)
      emit(out, "%s%llu", v ? ", " : "", (unsigned long long)pa->tune_values[v]);
    buf_puts(out, "]}");
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
    open[nopen] = tune[i];
    emit_tune_entry(out, tune[i], nopen++ == 0);
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
    const Precond *pre = &k->preconds[i];
    bool sized = false, tuned = false;
    for (int j = 0; j < k->nparams; j++) {
      if (k->params[j].role != KP_NAT || !precond_mentions(pre, k->params[j].name)) continue;
      bool is_tune = false;
      for (int t = 0; t < nopen; t++) is_tune |= strcmp(open[t]->name, k->params[j].name) == 0;
      if (is_tune)
        tuned = true;
      else
        sized = true;
    }
    if (tuned && !sized && always_holds(a, pre, nopen, open)) continue;
    if (ncons++) buf_puts(out, ", ");
    json_precond(a, out, pre);
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

/* ---- a space split on the values of tune parameters ----
 *
 * A tune parameter that must be a constant (a vector width: asVector V)
 * makes the symbolic kernel an error, so it has no space of its own.  The
 * space is then the union of the spaces of the kernels specialised at each
 * value of such parameters (`--set V=4`): for the smallest set of listed
 * (not range) tune parameters at whose values some kernel translates, each
 * combination of their values is translated on its own, and
 *   - a constraint of every kernel that translates holds as it is;
 *   - one of some of them only holds under its values: "V != 4 or (c)";
 *   - values at which the kernel does not translate are excluded: "V != 1";
 *   - a size that differs between values is a conditional expression,
 *     "(N//4 if V == 4 else N//8)".
 * "split" names those parameters. */

typedef struct Part {
  const long long *values; /* of the split parameters */
  const Json *space;       /* NULL: the kernel does not translate at them */
  const char *cond;        /* "V == 4" */
} Part;

static const char *part_condition(Arena *a, int nsplit, const Param *const *split, const long long *values) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < nsplit; i++) emit(&b, "%s%s == %lld", i ? " and " : "", split[i]->name, values[i]);
  return b.data;
}

/* "c holds unless the parameters have these values" */
static void emit_unless(Buf *out, int nsplit, const Param *const *split, const Part *p, const char *c) {
  Buf b;
  buf_init(&b, out->arena);
  if (nsplit == 1) {
    emit(&b, "%s != %lld", split[0]->name, p->values[0]);
  } else {
    emit(&b, "not (%s)", p->cond);
  }
  if (c) emit(&b, " or (%s)", c);
  emit_json_string(out, b.data);
}

static bool has_string(const Json *array, const char *s) {
  for (int i = 0; array && i < array->n; i++)
    if (array->items[i]->kind == JSON_STRING && strcmp(array->items[i]->str, s) == 0) return true;
  return false;
}

/* The string at index d of member key of each translated part (index -1:
 * the member itself), as one expression: the same for all, or a
 * conditional over their values.  False when a part lacks it. */
static bool emit_merged(Buf *out, int nparts, const Part *parts, const char *key, int d) {
  const char *first = NULL;
  bool same = true;
  int last = -1;
  for (int i = 0; i < nparts; i++) {
    if (!parts[i].space) continue;
    const Json *v = json_get(parts[i].space, key);
    if (v && d >= 0) v = v->kind == JSON_ARRAY && d < v->n ? v->items[d] : NULL;
    if (!v || v->kind != JSON_STRING) return false;
    if (!first) first = v->str;
    same &= strcmp(first, v->str) == 0;
    last = i;
  }
  if (same) {
    emit_json_string(out, first);
    return true;
  }
  Buf b;
  buf_init(&b, out->arena);
  buf_putc(&b, '(');
  for (int i = 0; i < nparts; i++) {
    if (!parts[i].space) continue;
    const Json *v = json_get(parts[i].space, key);
    if (d >= 0) v = v->items[d];
    if (i == last)
      emit(&b, "%s)", v->str);
    else
      emit(&b, "%s if %s else ", v->str, parts[i].cond);
  }
  emit_json_string(out, b.data);
  return true;
}

/* the launch sizes of the parts: false when they differ in shape */
static bool emit_launch(Buf *out, int nparts, const Part *parts) {
  int ndims = -1, nlocal = -2;
  for (int i = 0; i < nparts; i++) {
    if (!parts[i].space) continue;
    const Json *g = json_get(parts[i].space, "global_size"), *l = json_get(parts[i].space, "local_size");
    int nl = l && l->kind == JSON_ARRAY ? l->n : -1;
    if (!g || g->kind != JSON_ARRAY || (ndims >= 0 && g->n != ndims) || (nlocal != -2 && nl != nlocal)) return false;
    ndims = g->n;
    nlocal = nl;
  }
  emit(out, "],\n \"global_size\": [");
  for (int d = 0; d < ndims; d++) {
    if (d) buf_puts(out, ", ");
    if (!emit_merged(out, nparts, parts, "global_size", d)) return false;
  }
  emit(out, "], \"local_size\": ");
  if (nlocal < 0) {
    buf_puts(out, "null");
  } else {
    buf_putc(out, '[');
    for (int d = 0; d < nlocal; d++) {
      if (d) buf_puts(out, ", ");
      if (!emit_merged(out, nparts, parts, "local_size", d)) return false;
    }
    buf_putc(out, ']');
  }
  emit(out, ",\n \"local_memory_bytes\": ");
  if (!emit_merged(out, nparts, parts, "local_memory_bytes", -1)) return false;
  emit(out, "}\n");
  return true;
}

static bool emit_split(Arena *a, const Decl *d, int nsplit, const Param *const *split, int nparts, const Part *parts,
                       bool array, Buf *out) {
  const Json *any = NULL;
  for (int i = 0; i < nparts && !any; i++) any = parts[i].space;
  const Json *kernel = json_get(any, "kernel"), *file = json_get(any, "file"), *sizes = json_get(any, "sizes");
  if (!kernel || !file || !sizes || sizes->kind != JSON_ARRAY) return false;
  Buf b;
  buf_init(&b, a);
  if (array) buf_putc(&b, '[');
  emit(&b, "{\"kernel\": ");
  emit_json_string(&b, kernel->str);
  emit(&b, ", \"file\": ");
  emit_json_string(&b, file->str);
  emit(&b, ",\n \"tune\": [");
  for (int i = 0, n = 0; i < d->nparams; i++)
    if (d->params[i].tune) emit_tune_entry(&b, &d->params[i], n++ == 0);
  emit(&b, "],\n \"split\": [");
  for (int i = 0; i < nsplit; i++) {
    if (i) buf_puts(&b, ", ");
    emit_json_string(&b, split[i]->name);
  }
  emit(&b, "],\n \"sizes\": [");
  for (int i = 0; i < sizes->n; i++) {
    if (i) buf_puts(&b, ", ");
    emit_json_string(&b, sizes->items[i]->str);
  }
  emit(&b, "],\n \"constraints\": [");
  int ncons = 0;
  /* the values at which the kernel does not translate */
  for (int i = 0; i < nparts; i++) {
    if (parts[i].space) continue;
    if (ncons++) buf_puts(&b, ", ");
    emit_unless(&b, nsplit, split, &parts[i], NULL);
  }
  /* each part's constraints, in the order of the parts, each once */
  for (int i = 0; i < nparts; i++) {
    const Json *cs = parts[i].space ? json_get(parts[i].space, "constraints") : NULL;
    for (int j = 0; cs && j < cs->n; j++) {
      const char *c = cs->items[j]->str;
      bool seen = false, everywhere = true;
      for (int k = 0; k < nparts; k++) {
        const Json *other = parts[k].space ? json_get(parts[k].space, "constraints") : NULL;
        if (!other) continue;
        bool here = has_string(other, c);
        if (k < i && here) seen = true;
        everywhere &= here;
      }
      if (seen) continue;
      if (everywhere) {
        if (ncons++) buf_puts(&b, ", ");
        emit_json_string(&b, c);
        continue;
      }
      for (int k = i; k < nparts; k++) {
        const Json *other = parts[k].space ? json_get(parts[k].space, "constraints") : NULL;
        if (!other || !has_string(other, c)) continue;
        if (ncons++) buf_puts(&b, ", ");
        emit_unless(&b, nsplit, split, &parts[k], c);
      }
    }
  }
  if (!emit_launch(&b, nparts, parts)) return false;
  if (array) buf_puts(&b, "]\n");
  buf_puts(out, b.data);
  return true;
}

enum { MOST_PARTS = 64 }; /* combinations of split values tried */

/* The parts of one set of split parameters (bit i of mask: listed[i]);
 * false when none translates or a translation fails otherwise than by an
 * error in the program (then the caller reports the symbolic errors). */
static bool try_split(Arena *a, const Source *src, const DpiaOptions *opt, const Decl *d, int nlisted,
                      const Param *const *listed, unsigned mask, Buf *out) {
  const Param **split = NEWARRAY(a, const Param *, nlisted);
  const char **names = NEWARRAY(a, const char *, nlisted);
  int nsplit = 0;
  long nparts = 1;
  for (int i = 0; i < nlisted; i++) {
    if (!(mask & (1u << i))) continue;
    names[nsplit] = listed[i]->name;
    split[nsplit++] = listed[i];
    nparts *= listed[i]->ntune_values;
    if (nparts > MOST_PARTS) return false;
  }
  Part *parts = NEWARRAY(a, Part, nparts);
  bool any = false;
  for (long p = 0; p < nparts; p++) {
    long long *values = NEWARRAY(a, long long, nsplit);
    long rest = p;
    for (int i = nsplit - 1; i >= 0; i--) {
      values[i] = (long long)split[i]->tune_values[rest % split[i]->ntune_values];
      rest /= split[i]->ntune_values;
    }
    DpiaOptions sub = *opt;
    sub.kernel = d->name;
    sub.nsets = nsplit;
    sub.set_names = names;
    sub.set_values = values;
    DpiaResult *r;
    int st = dpia_process(src->name, src->text, src->len, &sub, &r);
    parts[p].values = values;
    parts[p].cond = part_condition(a, nsplit, split, values);
    parts[p].space = NULL;
    if (st == DPIA_OK) {
      size_t len;
      const char *text = dpia_result_output(r, &len);
      Buf why;
      buf_init(&why, a);
      parts[p].space = json_parse(a, text, len, &why);
      if (!parts[p].space || parts[p].space->kind != JSON_OBJECT) st = DPIA_EINTERNAL;
      any = true;
    }
    dpia_result_free(r);
    if (st != DPIA_OK && st != DPIA_EUSER) return false;
  }
  return any && emit_split(a, d, nsplit, split, (int)nparts, parts, !opt->kernel, out);
}

bool space_split(Arena *a, const Program *prog, const DpiaOptions *opt, Buf *out) {
  if (opt->action != DPIA_TRANSLATE || opt->emit != DPIA_EMIT_SPACE || opt->emit_also || opt->nsets) return false;
  const Decl *d = NULL;
  int nkernels = 0;
  for (int i = 0; i < prog->ndecls; i++) {
    const Decl *k = prog->decls[i];
    if (!k->is_kernel || (opt->kernel && strcmp(opt->kernel, k->name) != 0)) continue;
    d = k;
    nkernels++;
  }
  if (nkernels != 1) return false;
  const Param **listed = NEWARRAY(a, const Param *, d->nparams > 0 ? d->nparams : 1);
  int nlisted = 0;
  for (int i = 0; i < d->nparams && nlisted < 8; i++)
    if (d->params[i].tune && !d->params[i].tune_range) listed[nlisted++] = &d->params[i];
  /* the smallest sets first, each in the order of the parameters */
  for (int size = 1; size <= nlisted; size++)
    for (unsigned mask = 1; mask < (1u << nlisted); mask++)
      if (__builtin_popcount(mask) == size && try_split(a, prog->src, opt, d, nlisted, listed, mask, out)) return true;
  return false;
}

/* ---- dpia check of such a program ----
 *
 * `dpia check` accepts what --emit=space accepts: a program whose kernels
 * do not check with their tune parameters symbolic (asVector V) checks
 * when, for the fewest listed tune parameters (by name, in every kernel
 * that has them) and some combination of their values, the program
 * specialised at those values (`--set`) checks.  -v prints, for each
 * combination, the error of one that does not check and the -v text of
 * one that does (once for all of them when it is the same text): the
 * types, the tune parameters with their domains and the preconditions. */

/* "V = 4, W = 2" */
static const char *values_text(Arena *a, int n, const char *const *names, const long long *values) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < n; i++) emit(&b, "%s%s = %lld", i ? ", " : "", names[i], values[i]);
  return b.data;
}

typedef struct CheckPart {
  const char *values; /* values_text */
  const char *error;  /* the first error where it does not check, else NULL */
  const char *text;   /* -v's text where it checks */
} CheckPart;

/* The parts of one set of names (bit i of mask: names[i], with the values
 * of listed[i]); false when none checks or a check fails otherwise than by
 * an error in the program or its settings. */
static bool try_check_split(Arena *a, const Source *src, const DpiaOptions *opt, int nlisted, const char *const *names,
                            const Param *const *listed, unsigned mask, Buf *out) {
  const char **split = NEWARRAY(a, const char *, nlisted);
  const Param **params = NEWARRAY(a, const Param *, nlisted);
  int nsplit = 0;
  long nparts = 1;
  for (int i = 0; i < nlisted; i++) {
    if (!(mask & (1u << i))) continue;
    split[nsplit] = names[i];
    params[nsplit++] = listed[i];
    nparts *= listed[i]->ntune_values;
    if (nparts > MOST_PARTS) return false;
  }
  CheckPart *parts = NEWARRAY(a, CheckPart, nparts);
  bool any = false, same = true;
  const char *text = NULL;
  for (long p = 0; p < nparts; p++) {
    long long *values = NEWARRAY(a, long long, nsplit);
    long rest = p;
    for (int i = nsplit - 1; i >= 0; i--) {
      values[i] = (long long)params[i]->tune_values[rest % params[i]->ntune_values];
      rest /= params[i]->ntune_values;
    }
    DpiaOptions sub = *opt;
    sub.nsets = nsplit;
    sub.set_names = split;
    sub.set_values = values;
    DpiaResult *r;
    int st = dpia_process(src->name, src->text, src->len, &sub, &r);
    parts[p].values = values_text(a, nsplit, split, values);
    if (st == DPIA_OK) {
      size_t len;
      const char *t = dpia_result_output(r, &len);
      parts[p].text = arena_strndup(a, t ? t : "", t ? len : 0);
      if (text && strcmp(text, parts[p].text) != 0) same = false;
      if (!text) text = parts[p].text;
      any = true;
    } else {
      const DpiaDiagnostic *e = dpia_result_diagnostic(r, 0);
      parts[p].error = e ? (e->file && e->line ? arena_printf(a, "%s:%d:%d: %s", e->file, e->line, e->column,
                                                               e->message)
                                               : arena_strndup(a, e->message, strlen(e->message)))
                         : "it does not check";
    }
    dpia_result_free(r);
    if (st != DPIA_OK && st != DPIA_EUSER && st != DPIA_EUSAGE) return false;
  }
  if (!any) return false;
  if (!opt->verbose) return true;
  Buf list;
  buf_init(&list, a);
  for (int i = 0; i < nsplit; i++) emit(&list, "%s%s", i ? (i + 1 < nsplit ? ", " : " and ") : "", split[i]);
  emit(out,
       nsplit == 1 ? "%s must be a constant (a vector width): each of its values is checked on its own\n"
                   : "%s must be constants (vector widths): each combination of their values is checked on its own\n",
       list.data);
  for (long p = 0; p < nparts; p++)
    if (parts[p].error) emit(out, "with %s: does not check: %s\n", parts[p].values, parts[p].error);
  if (same) {
    Buf at;
    buf_init(&at, a);
    for (long p = 0; p < nparts; p++)
      if (parts[p].text) emit(&at, "%s%s", at.len ? "; " : "", parts[p].values);
    emit(out, "with %s:\n%s", at.data, text);
    return true;
  }
  for (long p = 0; p < nparts; p++)
    if (parts[p].text) emit(out, "with %s:\n%s", parts[p].values, parts[p].text);
  return true;
}

bool check_split(Arena *a, const Program *prog, const DpiaOptions *opt, Buf *out) {
  if (opt->action != DPIA_CHECK || opt->nsets) return false;
  /* the listed tune parameters of every kernel, one per name (the first
   * kernel's values) */
  int cap = 8, nlisted = 0;
  const char **names = NEWARRAY(a, const char *, cap);
  const Param **listed = NEWARRAY(a, const Param *, cap);
  for (int i = 0; i < prog->ndecls; i++) {
    const Decl *d = prog->decls[i];
    if (!d->is_kernel || (opt->kernel && strcmp(opt->kernel, d->name) != 0)) continue;
    for (int j = 0; j < d->nparams && nlisted < cap; j++) {
      const Param *pa = &d->params[j];
      if (!pa->tune || pa->tune_range) continue;
      bool seen = false;
      for (int k = 0; k < nlisted; k++) seen |= strcmp(names[k], pa->name) == 0;
      if (seen) continue;
      names[nlisted] = pa->name;
      listed[nlisted++] = pa;
    }
  }
  for (int size = 1; size <= nlisted; size++)
    for (unsigned mask = 1; mask < (1u << nlisted); mask++)
      if (__builtin_popcount(mask) == size && try_check_split(a, prog->src, opt, nlisted, names, listed, mask, out))
        return true;
  return false;
}
