/* check_clauses.c: a kernel's clauses after its parameters, `updates xs
 * [region]` (docs/language.md section 27) and `permutation p` (section
 * 29), checked for check.c's check_decl (check_int.h). */
#include "check_int.h"

/* `updates xs` (docs/language.md section 27): xs is a parameter of the
 * kernel, an array of numbers or vectors (one buffer: a pair would be
 * split into several, and the output with it), and each dimension of the
 * region is a range lo .. hi inside it.  The sizes of the region are
 * converted here, with the body's requirements (lo <= hi + 1, hi < n: the
 * kernel's preconditions); the result is compared with them once its type
 * is known (check_updates_result). */
/* Dimension i (from 0) of a region lo .. hi whose sizes decide that it is
 * outside the array (len = hi + 1 - lo or rest = n - 1 - hi a negative
 * constant) is an error of its own (E0329), at the region, naming it and
 * the dimension's size: the generic negative-size error (E0403) would
 * name neither.  A region the sizes do not decide is left to the
 * preconditions. */
static bool region_inside(Checker *c, const Decl *d, int i, Span whole, const Size bounds[3], Size len,
                          Size rest) {
  int64_t v;
  bool past = size_const_value(rest, &v) && v < 0;
  if (!past && !(size_const_value(len, &v) && v < 0)) return true;
  Buf lo, hi, n, last;
  Buf *texts[] = {&lo, &hi, &n, &last};
  Size sizes[] = {bounds[0], bounds[1], bounds[2], size_sub(&c->tc->sizes, bounds[2], size_const(&c->tc->sizes, 1))};
  for (int k = 0; k < 4; k++) {
    buf_init(texts[k], c->arena);
    size_print(texts[k], sizes[k]);
  }
  if (past)
    check_error(c, ERR_UPDATES_REGION_OUTSIDE, whole,
                "the region %s .. %s of 'updates %s' ends past the array: dimension %d of '%s' has %s elements, "
                "the last at index %s",
                lo.data, hi.data, d->updates, i + 1, d->updates, n.data, last.data);
  else
    check_error(c, ERR_UPDATES_REGION_OUTSIDE, whole,
                "the region %s .. %s of 'updates %s' ends before it begins (%lld elements; dimension %d of '%s' has "
                "%s)",
                lo.data, hi.data, d->updates, (long long)v, i + 1, d->updates, n.data);
  return false;
}

/* one region, ra as written, into r: false after an error */
static bool check_region(Checker *c, Env *env, const Decl *d, DataType *t, const RegionAst *ra, Region *r) {
  SizeCtx *sc = &c->tc->sizes;
  r->ndims = ra->ndims;
  for (int i = 0; i < ra->ndims; i++) {
    if (t->kind != DT_ARRAY) {
      check_error(c, ERR_BAD_UPDATES, ra->lo[i]->span, "'%s' has %d dimension%s; the region gives %d", d->updates, i,
                  i == 1 ? "" : "s", ra->ndims);
      return false;
    }
    Size lo, hi;
    bool ok = conv_size(c, env, ra->lo[i], &lo);
    if (!(conv_size(c, env, ra->hi[i], &hi) && ok)) return false;
    Span whole = ra->lo[i]->span;
    whole.end = ra->hi[i]->span.end;
    /* hi + 1 - lo elements, n - 1 - hi after them: both natural */
    r->lo[i] = lo;
    r->len[i] = size_sub(sc, size_add(sc, hi, size_const(sc, 1)), lo);
    r->rest[i] = size_sub(sc, t->size, size_add(sc, hi, size_const(sc, 1)));
    if (!region_inside(c, d, i, whole, (Size[3]){lo, hi, t->size}, r->len[i], r->rest[i])) return false;
    require(c, REQ_NATURAL, r->len[i], whole, "the region of 'updates'");
    require(c, REQ_NATURAL, r->rest[i], whole, "the region of 'updates'");
    t = dt_resolve(t->elem);
  }
  return true;
}

/* Regions a and b are disjoint: on a dimension both restrict, one ends
 * before the other begins, for all sizes (the translation writes each
 * through an acceptor view of the one buffer, and an element in both
 * would be written twice, by two work-items). */
static bool regions_disjoint(SizeCtx *sc, const Region *a, const Region *b) {
  for (int i = 0; i < a->ndims && i < b->ndims; i++)
    if (size_provably_at_least(sc, b->lo[i], size_add(sc, a->lo[i], a->len[i])) ||
        size_provably_at_least(sc, a->lo[i], size_add(sc, b->lo[i], b->len[i])))
      return true;
  return false;
}

/* the parameter named by `updates` (the k-th name of the clause), an
 * array of numbers or vectors, or NULL after the error */
static Binder *updated_param(Checker *c, const Decl *d, const DefInfo *def, int k) {
  Sym name = d->updated[k];
  Binder *b = NULL;
  for (int i = 0; i < def->nparams; i++)
    if (def->params[i]->name == name) b = def->params[i];
  if (!b) {
    check_error(c, ERR_BAD_UPDATES, d->updates_span, "kernel '%s' updates '%s', which is not one of its parameters",
                d->name, name);
    return NULL;
  }
  for (int j = 0; j < k; j++)
    if (d->updated[j] == name) {
      check_error(c, ERR_BAD_UPDATES, d->updates_span, "kernel '%s' updates '%s' twice", d->name, name);
      return NULL;
    }
  DataType *t = dt_resolve(b->type->data);
  DataType *inner = t;
  while (inner->kind == DT_ARRAY) inner = dt_resolve(inner->elem);
  if (t->kind != DT_ARRAY || inner->kind != DT_SCALAR) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_BAD_UPDATES, d->updates_span,
                "kernel '%s' updates '%s' of type %s: only an array of numbers or vectors (one buffer) is updated "
                "in place",
                d->name, name, tn_data(&tn, t));
    return NULL;
  }
  return b;
}

void check_updates_region(Checker *c, Env *env, const Decl *d, DefInfo *def) {
  for (int k = 0; k < d->nupdated; k++) {
    def->updated[k] = updated_param(c, d, def, k);
    if (!def->updated[k]) return;
  }
  def->nupdated = d->nupdated;
  def->updates = def->updated[0];
  DataType *t = dt_resolve(def->updates->type->data);
  def->nregions = d->nregions;
  for (int k = 0; k < d->nregions; k++)
    if (!check_region(c, env, d, t, &d->regions[k], &def->regions[k])) {
      def->updates = NULL;
      return;
    }
  for (int k = 1; k < d->nregions; k++)
    for (int j = 0; j < k; j++) {
      if (regions_disjoint(&c->tc->sizes, &def->regions[j], &def->regions[k])) continue;
      check_error(c, ERR_UPDATES_REGIONS_OVERLAP, d->regions[k].span,
                  "region %d of 'updates %s' may overlap region %d: no dimension that both restrict shows one "
                  "ending before the other begins, and an element in both would be written twice",
                  k + 1, d->updates, j + 1);
      diag_note(c->diag, d->regions[j].span, "region %d is here", j + 1);
      def->updates = NULL;
      return;
    }
}

/* `permutation p` (docs/language.md section 29): p is a parameter of the
 * kernel of type [n]idx[n], n positions of an array of n elements, which
 * the clause promises distinct: the kernel's host passes a permutation of
 * 0 .. n-1 (dpia run and the interpreters verify it, E0812), and a scatter
 * through p writes each element of its result once (scir.c). */
void check_permutation_params(Checker *c, const Decl *d, DefInfo *def) {
  /* a functional def's caller could pass anything: only a kernel's host
   * (checked by dpia run and the interpreters) or an imperative program
   * (a kernel's translation, which writes an acceptor parameter, as
   * def_print prints it for the re-check) declares permutations */
  bool imperative = false;
  for (int i = 0; i < def->nparams; i++)
    if (def->params[i]->type && def->params[i]->type->kind == PT_ACC) imperative = true;
  if (!d->is_kernel && !imperative) {
    check_error(c, ERR_BAD_PERMUTATION, d->perm_spans[0],
                "def '%s' declares '%s' a permutation, but only a kernel's inputs can be declared permutations "
                "(a def's caller could pass any array): scatter in the kernel",
                d->name, d->perms[0]);
    return;
  }
  for (int k = 0; k < d->nperms; k++) {
    Binder *b = NULL;
    for (int i = 0; i < def->nparams; i++)
      if (def->params[i]->name == d->perms[k]) b = def->params[i];
    if (!b) {
      check_error(c, ERR_BAD_PERMUTATION, d->perm_spans[k],
                  "kernel '%s' declares '%s' a permutation, but it is not one of its parameters", d->name,
                  d->perms[k]);
      continue;
    }
    DataType *t = dt_resolve(b->type->data);
    DataType *e = t->kind == DT_ARRAY ? dt_resolve(t->elem) : NULL;
    if (!e || e->kind != DT_IDX || !size_eq(e->size, t->size)) {
      TypeNamer tn;
      check_namer(c, &tn);
      check_error(c, ERR_BAD_PERMUTATION, d->perm_spans[k],
                  "kernel '%s' declares '%s' a permutation, but its type is %s: a permutation of n positions has "
                  "type [n]idx[n]",
                  d->name, d->perms[k], tn_data(&tn, t));
      continue;
    }
    b->permutation = true;
  }
}

/* the type of region r of xs's type whole */
static DataType *region_type(TypeCtx *tc, DataType *whole, const Region *r) {
  DataType *t = whole;
  for (int i = 0; i < r->ndims; i++) t = dt_resolve(t->elem);
  for (int i = r->ndims - 1; i >= 0; i--) t = dt_array(tc, r->len[i], t);
  return t;
}

/* the type of the result: xs's, its region's, or the tuple of its
 * regions' (pairs nested to the right); with several inputs, the tuple
 * of their types */
void check_updates_result(Checker *c, const Decl *d, DefInfo *def) {
  TypeCtx *tc = c->tc;
  DataType *whole = dt_resolve(def->updates->type->data), *t = whole;
  if (def->nregions > 0) t = region_type(tc, whole, &def->regions[def->nregions - 1]);
  for (int k = def->nregions - 2; k >= 0; k--) t = dt_pair(tc, region_type(tc, whole, &def->regions[k]), t);
  if (def->nupdated > 1) t = def_updated_type(tc, def);
  DataType *got = def->result->data;
  if (dt_equal(got, t)) return;
  TypeNamer tn;
  check_namer(c, &tn);
  if (def->nupdated > 1)
    check_error(c, ERR_BAD_UPDATES, d->updates_span,
                "kernel '%s' updates %d inputs, of types %s (in order), but its result is %s: the result of a kernel "
                "updating several inputs in place is the tuple of their new values",
                d->name, def->nupdated, tn_data(&tn, t), tn_data(&tn, got));
  else if (def->nregions == 0)
    check_error(c, ERR_BAD_UPDATES, d->updates_span,
                "kernel '%s' updates '%s' of type %s, but its result is %s: the result of a kernel computing in place "
                "has the type of the input it updates",
                d->name, d->updates, tn_data(&tn, whole), tn_data(&tn, got));
  else
    check_error(c, ERR_BAD_UPDATES, d->updates_span, "kernel '%s' updates %s of type %s of '%s', but its result is %s",
                d->name, def->nregions == 1 ? "a region" : "regions", tn_data(&tn, t), d->updates, tn_data(&tn, got));
}
