/* unify.c: the inference machinery of the checker (check.c): size and
 * data type metavariables, unification (sizes through their canonical
 * forms, spec section 3), zonking, the deferred constraints between data
 * metavariables, requirements, and finishing a declaration: settling
 * postponed size equations, defaulting literal types, the final zonk,
 * and its requirements made distinct, each then settled into errors or
 * kernel preconditions by check_preconds.c (spec section 3, section 9
 * metadata `preconditions`). */
#include "check_int.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A namer for the types of one message (types.h): unknowns get letters
 * that no identifier of the declaration being checked uses. */
void check_namer(Checker *c, TypeNamer *tn) {
  const Span *sp = c->prog && c->current >= 0 && c->current < c->prog->ndecls ? &c->prog->decls[c->current]->span : NULL;
  if (sp && sp->src) tn_init(tn, c->arena, sp->src->text + sp->begin, sp->end - sp->begin);
  else tn_init(tn, c->arena, NULL, 0);
}

/* ---- sizes ---- */

/* A metavariable's name is its text in the SizeMeta, not interned: no
 * other name is spelled ?n<k> (no identifier has a '?'), and every size
 * that has it got it from here, so within the checker the pointer is the
 * name, as an interned one is; sizes order their variables by strcmp
 * (size.c), which is the same for both.  Every primitive's instance makes
 * a few: interning each (a hash, a probe, the interner's growth) was a
 * third of their cost (translation throughput). */
Sym fresh_size_meta(Checker *c, Span origin) {
  SizeMeta *m = NEW(c->arena, SizeMeta);
  /* ?n<k>, k = len + 1, written without snprintf */
  char digits[16];
  int nd = 0, len = 2;
  for (unsigned k = (unsigned)c->size_metas.len + 1; k > 0; k /= 10) digits[nd++] = (char)('0' + k % 10);
  m->text[0] = '?';
  m->text[1] = 'n';
  while (nd > 0) m->text[len++] = digits[--nd];
  m->name = m->text;
  m->index = c->size_metas.len;
  m->origin = origin;
  vec_push(c->arena, &c->size_metas, m);
  return m->name;
}

static inline SizeMeta *find_size_meta(Checker *c, Sym name) {
  /* a metavariable's name is its SizeMeta's text (fresh_size_meta), so
   * the SizeMeta is the one around it: found at every zonk without
   * reading the number in the name (translation throughput); one of this
   * checker's, at the place its index says */
  SizeMeta *m = (SizeMeta *)(uintptr_t)(name - offsetof(SizeMeta, text));
  ASSERT(m->index >= 0 && m->index < c->size_metas.len && c->size_metas.items[m->index] == m);
  return m;
}

static Size zonk_size_now(Checker *c, Size s, bool *lasting);

/* the metavariable that s is alone (1*?n), solved or not, or NULL */
static DPIA_ALWAYS_INLINE SizeMeta *lone_meta(Checker *c, Size s) {
  if (s.nterms != 1) return NULL;
  const SizeTerm *t = &s.terms[0];
  if (t->num != 1 || t->den != 1 || t->nfactors != 1 || t->factors[0].exp != 1) return NULL;
  Sym v = size_factor_var(&t->factors[0]);
  if (!v || v[0] != '?') return NULL;
  return find_size_meta(c, v);
}

/* the solved metavariable that s is alone, or NULL */
static SizeMeta *lone_solved_meta(Checker *c, Size s) {
  SizeMeta *m = lone_meta(c, s);
  return m && m->solved ? m : NULL;
}

static Size zonk_size_anew(Checker *c, Size s, bool *lasting, size_t h);

/* zonk_size, and whether its result is lasting (ZonkMemo).  The answers
 * found at once (a constant, the memo's) in a function of their own, which
 * the callers inline, apart from the work of zonk_size_anew: every array's
 * size is zonked, most of them found so (translation throughput). */
static inline Size zonk_size_at(Checker *c, Size s, bool *lasting) {
  *lasting = true;
  /* a constant (a vector width, a chunk) is its own zonk, without the
   * memo's lookup */
  if (s.nterms == 0 || (s.nterms == 1 && s.terms[0].nfactors == 0)) return s;
  const ZonkMemo *memo = c->zonk_memo;
  size_t h = ((uintptr_t)s.terms >> 4) * 31 + (size_t)s.nterms;
  h = (h ^ (h >> 9)) % ZONK_MEMO_SIZE;
  if (memo->entry[h].terms == s.terms && memo->entry[h].nterms == s.nterms &&
      (memo->entry[h].stamp == memo->solved || memo->entry[h].stamp == ZONK_LASTING)) {
    *lasting = memo->entry[h].stamp == ZONK_LASTING;
    return memo->entry[h].value;
  }
  return zonk_size_anew(c, s, lasting, h);
}

/* zonk_size_at of a data type's size, which is most often one variable
 * alone: a nat parameter ([N]float), its own zonk, or a metavariable
 * solved by a size without one (a primitive's fresh size:
 * SizeMeta.value_ground), whose zonk is its value (zonk_size_anew's first
 * answer); both lasting, and taken without the memo's lookup (translation
 * throughput) */
static inline Size zonk_type_size(Checker *c, Size s, bool *lasting) {
  if (s.nterms == 1) {
    const SizeTerm *t = &s.terms[0];
    Sym v = t->num == 1 && t->den == 1 && t->nfactors == 1 && t->factors[0].exp == 1 ? size_factor_var(&t->factors[0])
                                                                                     : NULL;
    if (v && v[0] != '?') {
      *lasting = true;
      return s;
    }
    SizeMeta *m = v ? find_size_meta(c, v) : NULL;
    if (m && m->solved && m->value_ground) {
      *lasting = true;
      return m->value;
    }
  }
  return zonk_size_at(c, s, lasting);
}

/* coefficients this small cannot overflow in a product of zonk_product's
 * (three factors of at most four terms each: 2^48 times 16 terms) */
static bool small_coefficients(Size s) {
  enum { SMALL = 1 << 16 };
  for (int i = 0; i < s.nterms; i++)
    if (s.terms[i].num <= -SMALL || s.terms[i].num >= SMALL || s.terms[i].den >= SMALL) return false;
  return true;
}

/* The zonk of s when s is one term k*?a*?b (k a constant, one or two
 * metavariables, each solved, to the power 1) whose values zonk lastingly
 * to sizes without floor atoms: k times the product of those zonks, the
 * metavariables' values' zonks found once (in the memo) and multiplied,
 * rather than substituted one at a time into s (a split's [?n*k], a
 * join's [?n*?m]: translation throughput).  The same size: neither s, the
 * values nor their zonks have a floor atom, so every step of the
 * substitutions is a product of polynomials, whose canonical form is
 * unique, and small coefficients leave no step an overflow
 * (tests/unit test_zonk compares both with substitution by hand).  False
 * where it does not apply. */
static bool zonk_product(Checker *c, Size s, Size *out) {
  if (s.nterms != 1 || !small_coefficients(s)) return false;
  const SizeTerm *t = &s.terms[0];
  if (t->nfactors < 1 || t->nfactors > 2) return false;
  Size values[2];
  for (int i = 0; i < t->nfactors; i++) {
    Sym v = size_factor_var(&t->factors[i]);
    if (!v || v[0] != '?' || t->factors[i].exp != 1) return false;
    SizeMeta *m = find_size_meta(c, v);
    if (!m->solved || size_has_floor(m->value)) return false;
    bool lasting = true;
    /* a value without metavariables is its own zonk (SizeMeta.value_ground) */
    values[i] = m->value_ground ? m->value : zonk_size_at(c, m->value, &lasting);
    if (!lasting || values[i].nterms > 4 || (!m->value_ground && size_has_floor(values[i])) ||
        !small_coefficients(values[i]))
      return false;
  }
  Size product = t->nfactors == 2 ? size_mul(&c->tc->sizes, values[0], values[1]) : values[0];
  if (t->num != 1 || t->den != 1) product = size_scale(&c->tc->sizes, product, t->num, t->den);
  *out = product;
  return true;
}

/* zonk_size_at's s, not in the memo (slot h), zonked and kept there */
static Size zonk_size_anew(Checker *c, Size s, bool *lasting, size_t h) {
  ZonkMemo *memo = c->zonk_memo;
  /* A lone metavariable not solved yet (a primitive's fresh size, which
   * unify_size zonks before it solves it; asScalar's width at every
   * wake_deferred until it is known) is its own zonk, not lasting: what
   * zonk_size_now finds, after a scan that meets it unsolved, and what
   * the memo could only keep until the next metavariable is solved
   * (translation throughput). */
  SizeMeta *lone = lone_meta(c, s);
  if (lone && !lone->solved) {
    *lasting = false;
    return s;
  }
  /* A lone solved metavariable: zonk_size_now's first step replaces it by
   * its value, that very Size (size_subst of 1*?n keeps the value as it
   * is), and goes on from there, so the zonk of its value (the end of a
   * chain of them), kept in the memo under the value, is its zonk
   * (translation throughput: every phrase typed [?n]... asks this of ?n's
   * value again). */
  Size z;
  if (lone && lone->value_ground) {
    /* a value without metavariables (most: ?n1 := N/16384) is what
     * zonk_size_now would leave it, lasting, without the value's own
     * lookup or scan */
    z = lone->value;
    *lasting = true;
  } else if (lone) {
    Size v = lone->value; /* a chain ?n1 := ?n2 := ... followed without recursion */
    while ((lone = lone_solved_meta(c, v))) v = lone->value;
    z = zonk_size_at(c, v, lasting);
  } else if (zonk_product(c, s, &z)) {
    *lasting = true;
  } else {
    z = zonk_size_now(c, s, lasting);
  }
  if (c->tc->sizes.overflow) return z; /* reported once, where it happens */
  memo->entry[h].terms = s.terms;
  memo->entry[h].nterms = s.nterms;
  memo->entry[h].stamp = *lasting ? ZONK_LASTING : memo->solved;
  memo->entry[h].value = z;
  return z;
}

/* replace solved size metavariables */
Size zonk_size(Checker *c, Size s) {
  bool lasting;
  return zonk_size_at(c, s, &lasting);
}

/* The first variable of s (in the order of size_vars, floor atoms
 * included) that is a solved metavariable, or NULL; *met_unsolved is set
 * if a metavariable not solved comes before it (or anywhere, when none
 * is solved).  size_first_var_where's walk with the test written in, not
 * called through a pointer at every variable (translation throughput). */
static Sym first_solved_meta(Checker *c, Size s, bool *met_unsolved) {
  for (int i = 0; i < s.nterms; i++) {
    for (int j = 0; j < s.terms[i].nfactors; j++) {
      const SizeAtom *x = size_factor_atom(&s.terms[i].factors[j]);
      Sym found = NULL;
      switch (x->kind) {
      case SIZE_ATOM_VAR:
        if (x->var[0] != '?') break;
        if (find_size_meta(c, x->var)->solved) found = x->var;
        else *met_unsolved = true;
        break;
      case SIZE_ATOM_FLOOR:
        found = first_solved_meta(c, x->num, met_unsolved);
        if (!found) found = first_solved_meta(c, x->den, met_unsolved);
        break;
      }
      if (found) return found;
    }
  }
  return NULL;
}

/* The solved metavariables replaced one at a time, the first (in the order
 * of size_vars) first, until none is left: their values may have solved
 * metavariables of their own (ceil(?n1/64) has ?n1).  *lasting: no step met
 * a metavariable not solved (each scan stops at the first solved one, the
 * last scans all of the result), so solving more cannot change a step and
 * the result holds from now on (ZonkMemo). */
static Size zonk_size_now(Checker *c, Size s, bool *lasting) {
  bool met_unsolved = false;
  for (int guard = 0; guard < 10000; guard++) {
    Sym v = first_solved_meta(c, s, &met_unsolved);
    *lasting = !met_unsolved;
    if (!v) return s;
    Size out;
    if (!size_subst(&c->tc->sizes, s, v, find_size_meta(c, v)->value, &out)) {
      *lasting = false;
      return s;
    }
    s = out;
  }
  INTERNAL("size metavariables do not settle");
}

static Size size_from_int(Checker *c, int64_t n) { return size_const(&c->tc->sizes, n); }

bool check_overflow(Checker *c, Span span) {
  if (!c->tc->sizes.overflow) return true;
  c->tc->sizes.overflow = false;
  check_error(c, ERR_SIZE_OVERFLOW, span, "size arithmetic overflows 64 bits");
  return false;
}

static bool size_has_any_var(Size s) {
  for (int i = 0; i < s.nterms; i++)
    if (s.terms[i].nfactors) return true;
  return false;
}

static bool is_unnatural_const(Size s) {
  int64_t v;
  if (size_has_any_var(s)) return false;
  return !size_const_value(s, &v) || v < 0;
}

/* A size equation whose only solution is not a natural number, reported
 * at the primitive that introduced the unknown:  split 3  on 8 elements. */
static void report_unfit(Checker *c, SizeMeta *m, Size a, Size b, Size value, const char *what) {
  TypeNamer tn;
  check_namer(c, &tn);
  const char *n = tn_size_meta(&tn, m->name); /* the unknown the message is about */
  bool a_has = size_has_var(a, m->name);
  check_error(c, ERR_SIZE_MISMATCH, m->origin, "size %s does not fit %s here: %s would have to be %s, which is %s",
              tn_size(&tn, a_has ? b : a), tn_size(&tn, a_has ? a : b), n, tn_size(&tn, value), what);
}

static bool unify_size(Checker *c, Size a, Size b, Span span);

bool unify_sizes(Checker *c, Size a, Size b, Span span) { return unify_size(c, a, b, span); }

/* ?m := value, found from a == b (unify_size); reported there if value is
 * not a natural number, else required to be one.  ground: value is known
 * to have no metavariable (SizeMeta.value_ground). */
static void solve_size_meta(Checker *c, SizeMeta *sm, Size value, bool ground, Size a, Size b) {
  /* solved again (only after an overflow left it in a zonked size):
   * the lasting zonks of ZonkMemo may have used its old value */
  if (sm->solved)
    for (int e = 0; e < ZONK_MEMO_SIZE; e++)
      if (c->zonk_memo->entry[e].stamp == ZONK_LASTING) c->zonk_memo->entry[e].terms = NULL;
  sm->solved = true;
  sm->value = value;
  sm->value_ground = ground;
  c->zonk_memo->solved++;
  /* a size without variables has no metavariable either: the constants
   * are told apart without a scan for one */
  int64_t v;
  if (size_const_value(value, &v) && v < 0) {
    report_unfit(c, sm, a, b, value, "negative");
  } else if (!size_has_any_var(value) && !size_is_polynomial(value)) {
    report_unfit(c, sm, a, b, value, "not a whole number");
  } else {
    /* a size is a natural number: N/2048 needs N % 2048 == 0 */
    require_known(c, REQ_NATURAL, value, sm->origin, NULL, ground);
  }
}

/* The unsolved metavariable of s when s is k*?m for a constant k (*k
 * set) and the other side has none: the general way below then solves ?m
 * as other times 1/k (size_solve_scaled), through other's negation twice
 * (k*?m - other == 0, or other - k*?m == 0 times -1), which the terms
 * checked here cannot overflow (translation throughput: most equations a
 * primitive's instance makes are of this form, ?n1 == N/1024 or 4*?n9 ==
 * N).  NULL otherwise. */
static SizeMeta *lone_meta_of(Checker *c, Size s, Size other, bool other_lasting, const SizeTerm **k) {
  if (s.nterms != 1 || other.nterms >= SIZE_MAX_TERMS) return NULL;
  const SizeTerm *t = &s.terms[0];
  *k = t;
  if (t->num == 0 || t->num == INT64_MIN || t->nfactors != 1 || t->factors[0].exp != 1) return NULL;
  Sym v = size_factor_var(&t->factors[0]);
  if (!v || v[0] != '?') return NULL;
  SizeMeta *m = find_size_meta(c, v);
  /* a lasting zonk has no metavariable left: none unsolved met, every
   * solved one replaced (zonk_size_now) */
  if (m->solved || (!other_lasting && size_first_meta(other))) return NULL;
  for (int i = 0; i < other.nterms; i++)
    if (other.terms[i].num == INT64_MIN) return NULL;
  return m;
}

/* Unify two sizes; false if they are certainly different.  An equation
 * that no metavariable can be solved from yet is postponed. */
/* zonk_size of a side of an equation or of a vector's width, which is
 * most often a primitive's fresh metavariable, unsolved: its own zonk,
 * found before the memo's lookup, which never keeps one (zonk_size_anew;
 * translation throughput) */
static inline Size zonk_side(Checker *c, Size s, bool *lasting) {
  SizeMeta *m = lone_meta(c, s);
  if (m && !m->solved) {
    *lasting = false;
    return s;
  }
  return zonk_size_at(c, s, lasting);
}

static bool unify_size(Checker *c, Size a, Size b, Span span) {
  bool a_lasting, b_lasting;
  a = zonk_side(c, a, &a_lasting);
  b = zonk_side(c, b, &b_lasting);
  if (size_eq(a, b)) return true;
  /* a constant that is not a natural number was already reported (by
   * report_unfit); equations about it would only repeat the message */
  if (c->failed && (is_unnatural_const(a) || is_unnatural_const(b))) return true;
  const SizeTerm *k;
  Size value;
  SizeMeta *lone = lone_meta_of(c, a, b, b_lasting, &k);
  Size other = b;
  if (!lone) lone = lone_meta_of(c, b, a, a_lasting, &k), other = a;
  if (lone && k->num == 1 && k->den == 1) {
    solve_size_meta(c, lone, other, true, a, b); /* other itself, which has no metavariable */
    return true;
  }
  if (lone && size_solve_scaled(&c->tc->sizes, k->num, k->den, other, &value)) {
    solve_size_meta(c, lone, value, true, a, b); /* other scaled */
    return true;
  }
  Size diff = size_sub(&c->tc->sizes, a, b);
  if (!size_first_meta(diff)) return false;
  Sym *vars;
  int nvars = size_vars(c->arena, diff, &vars);
  for (int j = 0; j < nvars; j++) {
    Sym m = vars[j];
    if (m[0] != '?' || !size_solve_difference(&c->tc->sizes, diff, m, &value) || size_has_var(value, m)) continue;
    solve_size_meta(c, find_size_meta(c, m), value, false, a, b);
    return true;
  }
  Postponed *p = NEW(c->arena, Postponed);
  p->lhs = a;
  p->rhs = b;
  p->span = span;
  vec_push(c->arena, &c->postponed, p);
  return true;
}

/* ---- data types ---- */

static bool occurs(DataMeta *m, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_META: return t->meta == m;
  case DT_ARRAY:
  case DT_DEPARRAY: return occurs(m, t->elem);
  case DT_PAIR: return occurs(m, t->fst) || occurs(m, t->snd);
  default: return false;
  }
}

static bool class_admits(MetaClass cls, DataType *t) {
  t = dt_resolve(t);
  if (cls == MC_ANY) return true;
  if (t->kind == DT_META) return true;
  if (t->kind != DT_SCALAR) return false;
  if (cls == MC_NUMERIC) return t->scalar != SC_BOOL;
  return t->scalar == SC_FLOAT || t->scalar == SC_DOUBLE;
}

static MetaClass class_meet(MetaClass a, MetaClass b) { return a > b ? a : b; }

bool unify_data(Checker *c, DataType *a, DataType *b) {
  a = dt_resolve(a);
  b = dt_resolve(b);
  if (a == b) return true;
  if (a->kind == DT_META && b->kind == DT_META) {
    b->meta->cls = class_meet(a->meta->cls, b->meta->cls);
    a->meta->solution = b;
    return true;
  }
  if (b->kind == DT_META) {
    DataType *t = a;
    a = b;
    b = t;
  }
  if (a->kind == DT_META) {
    if (!class_admits(a->meta->cls, b) || occurs(a->meta, b)) return false;
    a->meta->solution = b;
    return true;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case DT_SCALAR: return a->scalar == b->scalar && a->width == b->width;
  case DT_ARRAY: {
    bool ok = unify_size(c, a->size, b->size, c->unify_span);
    return unify_data(c, a->elem, b->elem) && ok;
  }
  case DT_DEPARRAY: {
    /* the indices are canonical (dt_dep_index): the same name in both
     * elements, where their nesting is the same */
    if (a->index != b->index) return false;
    bool ok = unify_size(c, a->size, b->size, c->unify_span);
    return unify_data(c, a->elem, b->elem) && ok;
  }
  case DT_PAIR: {
    bool ok = unify_data(c, a->fst, b->fst);
    return unify_data(c, a->snd, b->snd) && ok;
  }
  case DT_IDX: return unify_size(c, a->size, b->size, c->unify_span);
  case DT_VAR: return a->name == b->name;
  case DT_META: return false;
  }
  return false;
}

/* Phrase types have no metavariables of their own; their data do.  The
 * passive arrow ->p and the plain one unify: passivity is the business of
 * the interference check (Promote and Derelict, Figure 3c). */
static bool unify_phrase(Checker *c, PhraseType *a, PhraseType *b) {
  bool fa = a->kind == PT_FN || a->kind == PT_FN_P;
  bool fb = b->kind == PT_FN || b->kind == PT_FN_P;
  if (fa && fb) {
    bool ok = unify_phrase(c, a->fst, b->fst);
    return unify_phrase(c, a->snd, b->snd) && ok;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case PT_EXP:
  case PT_ACC: return unify_data(c, a->data, b->data);
  case PT_COMM: return true;
  case PT_WITH: {
    bool ok = unify_phrase(c, a->fst, b->fst);
    return unify_phrase(c, a->snd, b->snd) && ok;
  }
  default: return false;
  }
}

bool unify_phrase_types(Checker *c, PhraseType *a, PhraseType *b) { return unify_phrase(c, a, b); }

/* ---- zonking: replace solved metavariables everywhere ----
 *
 * Two ways.  A zonk during inference (a type for a message, a dependent
 * map's row) copies: a type with nothing to replace is returned as it is,
 * any other is made anew of its parts' zonks, and the type itself is left
 * as it was.  The final zonk of a checked declaration (zonk_tree,
 * finish_decl) replaces in place instead: its types are no longer unified,
 * no metavariable is solved again (a solution is never undone), so a type
 * means the same as its zonk for every holder of it; the zonk is written
 * into the type object itself (a part that was a solved DT_META becomes
 * its solution, a size its zonk) and the object marked ground, so every
 * other holder of it (a variable's type is its binder's, an application's
 * the result part of its function's, the data types unification shared)
 * finds it ground at its flag.  Rebuilding every phrase's type there made
 * a new object for each that held a solved metavariable (75 of the 76
 * phrase types of a search variant) and needed a table of the walk's data
 * zonks so that a shared type was not walked again (translation
 * throughput, BENCHMARKS.md).  A size whose zonk overflowed (the sticky
 * flag of SizeCtx) is written nowhere: from there on the final zonk copies
 * as the other does, and the error is reported where it is found. */

static bool same_size(Size a, Size b) { return a.terms == b.terms && a.nterms == b.nterms; }

static DataType *zonk_data_anew(Checker *c, DataType *t, bool in_place);

/* zonk_data, in place (the final zonk) or by copying.  A type known to
 * hold no metavariable (DataType.ground) is its own zonk at once; the
 * results are marked so where they hold none (a size's zonk is lasting
 * exactly when it met no unsolved metavariable, and it replaces every
 * solved one), so a type is walked by the zonks at most until it is
 * ground: the "cannot infer" scan after the final zonk (has_unsolved) and
 * the zonks of the def's parameters and result then stop at its top
 * (translation throughput, BENCHMARKS.md).  The answers found at once
 * (those, the scalars) here, which the callers inline; the work in
 * zonk_data_anew (as for sizes: zonk_size_at). */
static inline DataType *zonk_data_in(Checker *c, DataType *t, bool in_place) {
  t = dt_resolve(t);
  if (t->ground) return t;
  switch (t->kind) {
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return t;
  case DT_ARRAY:
  case DT_DEPARRAY:
  case DT_PAIR:
  case DT_IDX: break;
  }
  return zonk_data_anew(c, t, in_place);
}

/* zonk_data_in's t, a compound type not ground, zonked: in place when
 * in_place and no size overflowed, else t itself if nothing changed or a
 * new type */
static DataType *zonk_data_anew(Checker *c, DataType *t, bool in_place) {
  bool ground = false, lasting;
  Size n = {0};
  DataType *a = NULL, *b = NULL;
  switch (t->kind) {
  case DT_SCALAR:
  case DT_VAR:
  case DT_META: return t;
  case DT_ARRAY:
  case DT_DEPARRAY:
    n = zonk_type_size(c, t->size, &lasting);
    a = zonk_data_in(c, t->elem, in_place);
    ground = lasting && a->ground;
    break;
  case DT_PAIR:
    a = zonk_data_in(c, t->fst, in_place);
    b = zonk_data_in(c, t->snd, in_place);
    ground = a->ground && b->ground;
    break;
  case DT_IDX:
    n = zonk_type_size(c, t->size, &lasting);
    ground = lasting;
    break;
  }
  /* a size that overflowed is written nowhere (zonk_size keeps none
   * either), nor is t marked */
  bool overflow = c->tc->sizes.overflow;
  DataType *z = t;
  if (in_place && !overflow) {
    switch (t->kind) {
    case DT_ARRAY:
    case DT_DEPARRAY: t->size = n, t->elem = a; break;
    case DT_PAIR: t->fst = a, t->snd = b; break;
    case DT_IDX: t->size = n; break;
    case DT_SCALAR:
    case DT_VAR:
    case DT_META: break;
    }
  } else {
    switch (t->kind) {
    case DT_ARRAY:
      if (!same_size(n, t->size) || a != t->elem) z = dt_array(c->tc, n, a);
      break;
    case DT_DEPARRAY:
      if (!same_size(n, t->size) || a != t->elem) z = dt_deparray(c->tc, n, t->index, t->name, a);
      break;
    case DT_PAIR:
      if (a != t->fst || b != t->snd) z = dt_pair(c->tc, a, b);
      break;
    case DT_IDX:
      if (!same_size(n, t->size)) z = dt_idx(c->tc, n);
      break;
    case DT_SCALAR:
    case DT_VAR:
    case DT_META: break;
    }
  }
  if (ground && !overflow) z->ground = true;
  return z;
}

static DataType *zonk_data(Checker *c, DataType *t) { return zonk_data_in(c, t, false); }

/* the zonk of a phrase type, marked ground (PhraseType.ground) where its
 * data types are; in place as zonk_data_in: a phrase type's own parts are
 * phrase types, never replaced, only its data types are */
static PhraseType *zonk_phrase_type_in(Checker *c, PhraseType *t, bool in_place) {
  if (t->ground) return t;
  PhraseType *z = t;
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: {
    DataType *d = zonk_data_in(c, t->data, in_place);
    if (d != t->data) {
      if (in_place && !c->tc->sizes.overflow) t->data = d;
      else z = t->kind == PT_EXP ? pt_exp(c->tc, d) : pt_acc(c->tc, d);
    }
    if (d->ground && !c->tc->sizes.overflow) z->ground = true;
    return z;
  }
  case PT_COMM: return t;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: {
    PhraseType *a = zonk_phrase_type_in(c, t->fst, in_place), *b = zonk_phrase_type_in(c, t->snd, in_place);
    /* in place, a and b are t's own parts unless one was copied after an
     * overflow */
    if (a != t->fst || b != t->snd)
      z = t->kind == PT_WITH ? pt_with(c->tc, a, b) : t->kind == PT_FN ? pt_fn(c->tc, a, b) : pt_fn_p(c->tc, a, b);
    if (a->ground && b->ground) z->ground = true;
    return z;
  }
  }
  return t;
}

PhraseType *zonk_phrase_type(Checker *c, PhraseType *t) { return zonk_phrase_type_in(c, t, false); }
DataType *zonk_data_type(Checker *c, DataType *t) { return zonk_data_in(c, t, false); }
PhraseType *zonk_phrase_type_in_place(Checker *c, PhraseType *t) { return zonk_phrase_type_in(c, t, true); }

static bool pt_is_fn(const PhraseType *t) { return t->kind == PT_FN || t->kind == PT_FN_P; }

/* Report a type mismatch between what a context wants and what a phrase
 * has, unless they unify. */
/* levels of arrays around a data type, and the type inside them */
static int array_depth(DataType *t, DataType **inner) {
  int depth = 0;
  for (t = dt_resolve(t); t->kind == DT_ARRAY; t = dt_resolve(t->elem)) depth++;
  *inner = t;
  return depth;
}

/* An int where a math primitive takes a float or double (ceil x of an int
 * x, ceil N of a size): say what the primitive takes and what to write
 * instead of "expected a number, found int"; true if reported.  Rounding
 * a size is written in a type (docs/reference.md, "Sizes that do not
 * divide"), an int value is converted first (docs/language.md, the
 * conversions toFloat, toDouble). */
static bool floating_arg_mismatch(Checker *c, TypeNamer *tn, Span span, const PhraseType *want,
                                  const PhraseType *have) {
  const Phrase *fn = c->floating_arg_of;
  if (!fn || want->kind != PT_EXP || have->kind != PT_EXP) return false;
  const DataType *w = dt_resolve(want->data), *h = dt_resolve(have->data);
  if (w->kind != DT_META || w->meta->cls != MC_FLOATING || dt_has_unknowns(h) || !dt_is_numeric(h) ||
      dt_is_floating(h))
    return false;
  const char *name = prim_info[fn->prim].name, *found = tn_data(tn, h);
  if (fn->prim == PRIM_CEIL || fn->prim == PRIM_FLOOR)
    check_error(c, ERR_TYPE_MISMATCH, span,
                "%s takes a float or double, found %s (whole already): to round a size %s, write %s(N/k) in a type, "
                "as in [%s(N/64)]float; to round a value as a float, convert it first: %s (toFloat x)",
                name, found, fn->prim == PRIM_CEIL ? "up" : "down", name, name, name);
  else
    check_error(c, ERR_TYPE_MISMATCH, span,
                "%s takes a float or double, found %s: convert it first: %s (toFloat x), or toDouble", name, found,
                name);
  return true;
}

bool expect_type(Checker *c, Span span, PhraseType *want, PhraseType *have, const char *ctx) {
  /* an array of arrays where a flat one is wanted: join is missing (the
   * shapes are taken before unifying, which may solve parts of them) */
  bool flatten = false;
  if (want->kind == PT_EXP && have->kind == PT_EXP) {
    DataType *wi, *hi;
    int dw = array_depth(want->data, &wi);
    /* have's shape matters only under a wanted array (most often a
     * metavariable or a scalar is wanted: translation throughput) */
    if (dw >= 1) {
      int dh = array_depth(have->data, &hi);
      flatten = dh > dw && wi->kind == DT_SCALAR && hi->kind == DT_SCALAR && dt_equal(wi, hi);
    }
  }
  Span saved = c->unify_span;
  c->unify_span = span;
  bool ok = unify_phrase(c, want, have);
  c->unify_span = saved;
  if (ok) return true;
  TypeNamer tn;
  check_namer(c, &tn);
  want = zonk_phrase_type(c, want);
  have = zonk_phrase_type(c, have);
  if (floating_arg_mismatch(c, &tn, span, want, have)) return false;
  const char *w, *h;
  if (want->kind == PT_EXP && have->kind == PT_EXP) {
    /* values: their types, or in words what they are where a part is
     * unknown (expected a pair, found float) */
    w = tn_describe_data(&tn, want->data);
    h = tn_describe_data(&tn, have->data);
  } else if (want->kind != have->kind && !(pt_is_fn(want) && pt_is_fn(have))) {
    w = tn_describe_phrase(&tn, want);
    h = tn_describe_phrase(&tn, have);
  } else {
    w = tn_phrase(&tn, want);
    h = tn_phrase(&tn, have);
  }
  /* the words may say the same of two different types (an array of 0
   * arrays, where the elements differ): then the types themselves */
  if (strcmp(w, h) == 0) {
    w = tn_phrase(&tn, want);
    h = tn_phrase(&tn, have);
  }
  if (ctx)
    check_error(c, ERR_TYPE_MISMATCH, span, "type mismatch in %s: expected %s, found %s", ctx, w, h);
  else
    check_error(c, ERR_TYPE_MISMATCH, span, "type mismatch: expected %s, found %s", w, h);
  if (flatten) diag_note(c->diag, span, "this is an array of arrays; 'join' flattens it");
  if (want->kind == PT_EXP && have->kind == PT_EXP && dt_resolve(want->data)->kind == DT_ARRAY &&
      dt_resolve(have->data)->kind == DT_DEPARRAY)
    diag_note(c->diag, span,
              "the elements of a dependent array differ in type: the dependent maps take one, each row with its "
              "own type (depMapSeq, depMapGlobal, depMapWorkgroup; docs/language.md section 30)");
  return false;
}

/* ---- deferred constraints ---- */

const char *check_describe(Checker *c, PhraseType *t) {
  TypeNamer tn;
  check_namer(c, &tn);
  return tn_describe_phrase(&tn, zonk_phrase_type(c, t));
}

/* a data type for a message of its own (types.h) */
static const char *user_data(Checker *c, DataType *t) {
  TypeNamer tn;
  check_namer(c, &tn);
  return tn_describe_data(&tn, zonk_data(c, t));
}

void defer(Checker *c, DeferKind kind, DataType *a, DataType *b, Size width, ScalarKind target, Span span) {
  Deferred *d = NEW(c->arena, Deferred);
  d->kind = kind;
  d->a = a;
  d->b = b;
  d->width = width;
  d->target = target;
  d->span = span;
  vec_push(c->arena, &c->deferred, d);
}

/* The pending deferred constraint whose result is m, or NULL */
static const Deferred *pending_with_result(const Checker *c, const DataType *m) {
  for (int i = 0; i < c->deferred.len; i++) {
    const Deferred *d = c->deferred.items[i];
    if (!d->done && dt_resolve(d->b) == m) return d;
  }
  return NULL;
}

/* v.z: once the type of v is known, it must be a vector with lane z, and
 * the lane has its scalar type (docs/language.md section 11). */
static void wake_lane(Checker *c, Deferred *d, DataType *v, DataType *lane) {
  if (v->kind == DT_META) return;
  d->done = true;
  int64_t k;
  if (!size_const_value(d->width, &k)) INTERNAL("a lane that is not a constant");
  if (v->kind != DT_SCALAR || v->width == 1) {
    check_error(c, ERR_LANE_OF_NON_VECTOR, d->span, "a lane of %s: only vectors (float4, int2, ...) have lanes",
                user_data(c, v));
    return;
  }
  if (k >= v->width) {
    const char *names = v->width <= 4 ? (v->width == 2 ? ".x .y" : v->width == 3 ? ".x .y .z" : ".x .y .z .w") : "";
    check_error(c, ERR_LANE_OUT_OF_RANGE, d->span, "%s has no lane %lld: its lanes are %s%s.s0 to .s%c",
                user_data(c, v), (long long)k, names, *names ? " or " : "", "0123456789ABCDEF"[v->width - 1]);
    return;
  }
  if (!unify_data(c, lane, dt_scalar(c->tc, v->scalar, 1)))
    check_error(c, ERR_TYPE_MISMATCH, d->span, "type mismatch: a lane of %s is a %s, found %s", user_data(c, v),
                scalar_name(v->scalar), user_data(c, lane));
}

/* One pending deferred constraint d, its sides resolved to a and b, not
 * both unknown: worked on as far as they allow (done when it is settled,
 * reported or not). */
static DPIA_NOINLINE void wake_one(Checker *c, Deferred *d, DataType *a, DataType *b) {
  Span saved = c->unify_span;
  c->unify_span = d->span;
  if (d->kind == DEFER_LANE) {
    wake_lane(c, d, a, b);
  } else if (d->kind == DEFER_VECTOR_OF) {
    /* b = a<width>: a is a scalar, b a vector of it */
    int64_t w;
    bool lasting;
    bool width_known = size_const_value(zonk_side(c, d->width, &lasting), &w);
    if (!width_known && a->kind == DT_SCALAR && b->kind == DT_SCALAR && b->width > 1) {
      /* asScalar of float8s whose scalar type is known first (xs |>
       * asScalar |> padCst 2 1 1.5f): the width still comes from the
       * vector type, and with it the size n*k of the scalars */
      unify_size(c, d->width, size_from_int(c, b->width), d->span);
      width_known = size_const_value(zonk_side(c, d->width, &lasting), &w);
    }
    if (a->kind != DT_META) {
      if (a->kind != DT_SCALAR || a->width != 1) {
        check_error(c, ERR_TYPE_MISMATCH, d->span, "expected an array of scalars, found elements of type %s",
                    user_data(c, a));
        d->done = true;
      } else if (width_known) {
        d->done = true;
        if (!unify_data(c, b, dt_scalar(c->tc, a->scalar, (int)w)))
          check_error(c, ERR_TYPE_MISMATCH, d->span, "type mismatch: expected %s%d, found %s", scalar_name(a->scalar),
                      (int)w, user_data(c, b));
      } else if (b->kind != DT_META && !(b->kind == DT_SCALAR && b->width > 1)) {
        d->done = true;
        check_error(c, ERR_TYPE_MISMATCH, d->span, "expected a vector type, found %s", user_data(c, b));
      }
    } else if (b->kind == DT_SCALAR) {
      d->done = true;
      if (b->width == 1) {
        check_error(c, ERR_TYPE_MISMATCH, d->span, "expected a vector type, found %s", user_data(c, b));
      } else {
        unify_data(c, a, dt_scalar(c->tc, b->scalar, 1));
        if (!unify_size(c, d->width, size_from_int(c, b->width), d->span))
          check_error(c, ERR_TYPE_MISMATCH, d->span, "vector width mismatch: %s", user_data(c, b));
      }
    } else if (b->kind != DT_META) {
      d->done = true;
      check_error(c, ERR_TYPE_MISMATCH, d->span, "expected a vector type, found %s", user_data(c, b));
    }
  } else {
    const Deferred *inner = a->kind == DT_META ? pending_with_result(c, a) : NULL;
    if (a->kind == DT_META && b->kind == DT_SCALAR && b->width > 1 && b->scalar != SC_BOOL &&
        (!inner || inner->kind == DEFER_CONVERT)) {
      /* x * toFloat (toInt (1.5 * 4.0)) with x a float2: the result,
       * not fixed when the operator met it, took the vector type
       * (arith_type); conversions are elementwise, so the argument, not
       * fixed either, is the vector of the same width (every lane the
       * value the scalar would have: the broadcast), of the type another
       * conversion gives it, if one does.  It was a type
       * mismatch, and an internal error when a def's scalar parameter,
       * inlined, left only literals (differential test, seed 41 #535). */
      ScalarKind s = inner ? inner->target : a->meta->cls == MC_FLOATING ? SC_FLOAT : SC_INT;
      unify_data(c, a, dt_scalar(c->tc, s, b->width));
      a = dt_resolve(d->a);
    }
    if (a->kind != DT_META) {
      d->done = true;
      if (a->kind != DT_SCALAR || a->scalar == SC_BOOL)
        check_error(c, ERR_BAD_OPERANDS, d->span, "conversion to %s needs a numeric argument, found %s",
                    scalar_name(d->target), user_data(c, a));
      else if (!unify_data(c, b, dt_scalar(c->tc, d->target, a->width))) {
        DataType *want = dt_resolve(b);
        if (a->width == 1 && want->kind == DT_SCALAR && want->width > 1)
          /* the result met a vector before the argument's type was known */
          check_error(c, ERR_TYPE_MISMATCH, d->span,
                      "type mismatch: conversion gives %s where %s is needed; broadcast it: vec %d (...)",
                      scalar_name(d->target), user_data(c, want), want->width);
        else
          check_error(c, ERR_TYPE_MISMATCH, d->span, "type mismatch: conversion gives %s%s", scalar_name(d->target),
                      a->width > 1 ? "<vector>" : "");
      }
    }
  }
  c->unify_span = saved;
}

/* Try to make progress on deferred constraints; returns true if any did.
 * Called after most applications, where most constraints wait: the walk
 * apart from the work (wake_one), so that a call that finds nothing to do
 * costs little (translation throughput). */
bool wake_deferred(Checker *c) {
  bool progress = false;
  for (int i = 0; i < c->deferred.len; i++) {
    Deferred *d = c->deferred.items[i];
    if (d->done) continue;
    DataType *a = dt_resolve(d->a), *b = dt_resolve(d->b);
    /* both sides unknown: every kind waits for one of them (a lane for
     * its vector a; a vector or a conversion for a or b to be a type),
     * whatever the width, and does nothing until then; most calls find
     * a primitive's constraints so until its argument is unified
     * (translation throughput) */
    if (a->kind == DT_META && b->kind == DT_META) continue;
    wake_one(c, d, a, b);
    if (d->done) progress = true;
  }
  return progress;
}

/* ---- finishing a declaration ---- */

static void default_metas_in(Checker *c, DataType *t) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_META:
    if (t->meta->awaited) return;
    if (t->meta->cls == MC_NUMERIC) t->meta->solution = c->tc->t_int;
    else if (t->meta->cls == MC_FLOATING) t->meta->solution = c->tc->t_float;
    return;
  case DT_ARRAY:
  case DT_DEPARRAY: default_metas_in(c, t->elem); return;
  case DT_PAIR:
    default_metas_in(c, t->fst);
    default_metas_in(c, t->snd);
    return;
  default: return;
  }
}

/* first unsolved metavariable (data or size) in a zonked type, for the
 * "cannot infer" message: its sizes' metavariables are all unsolved
 * (zonk_size), so none is zonked again */
static bool has_unsolved(DataType *t) {
  t = dt_resolve(t);
  if (t->ground) return false;
  switch (t->kind) {
  case DT_META: return true;
  case DT_ARRAY:
  case DT_DEPARRAY: return size_first_meta(t->size) || has_unsolved(t->elem);
  case DT_PAIR: return has_unsolved(t->fst) || has_unsolved(t->snd);
  case DT_IDX: return size_first_meta(t->size) != NULL;
  default: return false;
  }
}

enum { CLEAN_TYPES = 64 };
typedef struct Finish {
  Checker *c;
  bool reported_unsolved;
  /* phrase types found without unsolved metavariables, direct-mapped:
   * the phrases share their types' parts (zonk_tree, pt_unsolved_in) */
  const PhraseType *clean[CLEAN_TYPES];
} Finish;

/* whether a zonked phrase type has an unsolved metavariable, asked of
 * every phrase's: an application's type is part of its function's, asked
 * next, so types found without are kept (nothing is solved during
 * zonk_tree) */
static bool pt_unsolved_in(Finish *f, const PhraseType *t) {
  if (t->ground) return false;
  uintptr_t h = (uintptr_t)t >> 4;
  h = (h ^ (h >> 6)) % CLEAN_TYPES;
  if (f->clean[h] == t) return false;
  bool unsolved;
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: unsolved = has_unsolved(t->data); break;
  case PT_COMM: return false;
  default: unsolved = pt_unsolved_in(f, t->fst) || pt_unsolved_in(f, t->snd); break;
  }
  if (!unsolved) f->clean[h] = t;
  return unsolved;
}

/* zonk_tree's report of p, whose zonked type is not ground: the first
 * phrase whose type has an unsolved metavariable cannot be inferred.
 * Out of the walk, with the other rare work, so that the walk's own frame
 * stays small (translation throughput). */
static DPIA_NOINLINE void report_unsolved(Finish *f, const Phrase *p) {
  if (f->reported_unsolved || !pt_unsolved_in(f, p->type)) return;
  f->reported_unsolved = true;
  TypeNamer tn;
  check_namer(f->c, &tn);
  check_error(f->c, ERR_CANNOT_INFER, p->span,
              "cannot infer the type of this phrase: %s; add a type ascription (e : type)", tn_phrase(&tn, p->type));
}

/* zonk_tree's work at a use of a def: its size and data arguments
 * zonked, and the first one left unknown reported */
static DPIA_NOINLINE void zonk_def_use(Finish *f, Phrase *p) {
  Checker *c = f->c;
  for (int i = 0; i < p->subst->n; i++) {
    if (p->subst->is_size[i]) p->subst->sizes[i] = zonk_size(c, p->subst->sizes[i]);
    else p->subst->datas[i] = zonk_data_in(c, p->subst->datas[i], true);
    bool unsolved = p->subst->is_size[i] ? size_first_meta(p->subst->sizes[i]) != NULL
                                         : has_unsolved(p->subst->datas[i]);
    if (unsolved && !f->reported_unsolved) {
      /* nothing at this use fixes it: it would reach the kernel as an
       * unknown (spec section 3: every size is determined) */
      f->reported_unsolved = true;
      if (p->subst->is_size[i])
        check_error(c, ERR_CANNOT_INFER, p->span,
                    "the size %s of '%s' is not determined by the arguments here: pass it explicitly (size "
                    "arguments come first, in the order of the def's nat parameters: %s 4 ...)",
                    p->subst->names[i], p->def->name, p->def->name);
      else
        check_error(c, ERR_CANNOT_INFER, p->span, "the data type %s of '%s' is not determined by the arguments here",
                    p->subst->names[i], p->def->name);
    }
  }
}

/* Zonk every type in the tree in place (zonk_phrase_type_in_place) and
 * report the first phrase whose type cannot be inferred, in the tree's
 * order (a phrase, then its parts left to right).  The phrases share
 * their types' objects (an application's type is the result part of its
 * function's, as apply_spine makes them; a variable's is its binder's; a
 * lambda's parts are its binder's and its body's): each object is zonked
 * at the first phrase that holds it and marked ground there, and found so
 * at the others, so no type is walked twice (the spines were zonked from
 * their functions' types for that, when the zonk made new types).  A
 * phrase's last part is taken in the same call, not a call of its own
 * (a pipeline nests its stages there; translation throughput). */
static void zonk_tree(Finish *f, Phrase *p) {
  Checker *c = f->c;
  for (;;) {
    p->type = zonk_phrase_type_in(c, p->type, true);
    if (!p->type->ground) report_unsolved(f, p);
    switch (p->kind) {
    case PH_VAR: return;
    case PH_LIT:
      for (int i = 0; i < p->lit_nelems; i++) zonk_tree(f, p->lit_elems[i]);
      return;
    case PH_PRIM:
      if (p->type_arg) p->type_arg = zonk_data_in(c, p->type_arg, true);
      return;
    case PH_DEF: zonk_def_use(f, p); return;
    case PH_LAM:
      p->lam_binder->type = zonk_phrase_type_in(c, p->lam_binder->type, true);
      p = p->body;
      break;
    case PH_PROJ:
    case PH_UNOP: p = p->fst; break;
    default:
      zonk_tree(f, p->fst);
      p = p->snd;
      break;
    }
  }
}

/* Mark (or unmark) the metavariables that a pending deferred constraint
 * solves from its other side: the result of a conversion, the vector of
 * vec k x or asScalar, which then are not defaulted (spec section 2: an
 * unconstrained literal is int or float, but the conversion's result is
 * constrained by the conversion). */
static void mark_awaited(Checker *c, bool on) {
  for (int i = 0; i < c->deferred.len; i++) {
    Deferred *d = c->deferred.items[i];
    DataType *b = dt_resolve(d->b);
    if (!d->done && b->kind == DT_META) b->meta->awaited = on;
  }
}

/* A conversion whose argument is, through other conversions, its own
 * result: (\t -> toDouble (toInt t) + t) 1.5, where the operator made the
 * outer conversion's result the literal's type.  No other constraint can
 * fix it, and marking it awaited kept it from being defaulted ("cannot
 * infer", differential test, seed 8 #288); conversions keep the width, and
 * the literal it started from is a scalar, so it is the outer conversion's
 * target type. */
static bool settle_conversion_cycles(Checker *c) {
  bool progress = false;
  for (int i = 0; i < c->deferred.len; i++) {
    Deferred *d = c->deferred.items[i];
    DataType *b = dt_resolve(d->b);
    if (d->done || d->kind != DEFER_CONVERT || b->kind != DT_META) continue;
    DataType *x = dt_resolve(d->a);
    for (int steps = 0; steps <= c->deferred.len && x->kind == DT_META; steps++) {
      if (x == b) {
        unify_data(c, b, dt_scalar(c->tc, d->target, 1));
        progress = true;
        break;
      }
      const Deferred *inner = pending_with_result(c, x);
      if (!inner || inner->kind != DEFER_CONVERT) break;
      x = dt_resolve(inner->a);
    }
  }
  return progress;
}

/* Whether any data metavariable of the context could be defaulted: one
 * not solved, of class numeric or floating (default_metas_in).  Without
 * one, default_tree's walk of the whole tree changes nothing, as after
 * most programs' inference (translation throughput). */
static bool defaultable_metas(TypeCtx *tc) {
  /* a program of n defs makes metas in each: scanning all of them at
   * each def's end was quadratic (tests/limits, 16000 defs) */
  while (tc->metas_solved < tc->metas.len && ((const DataMeta *)tc->metas.items[tc->metas_solved])->solution)
    tc->metas_solved++;
  for (int i = tc->metas_solved; i < tc->metas.len; i++) {
    const DataMeta *m = tc->metas.items[i];
    if (!m->solution && m->cls != MC_ANY) return true;
  }
  return false;
}

static void default_tree(Checker *c, Phrase *p) {
  if (p->type->kind == PT_EXP) default_metas_in(c, p->type->data);
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: default_tree(c, p->body); return;
  default:
    default_tree(c, p->fst);
    if (p->kind != PH_PROJ && p->kind != PH_UNOP) default_tree(c, p->snd);
  }
}

static void check_literal_ranges(Checker *c) {
  for (int i = 0; i < c->lits.len; i++) {
    Phrase *p = c->lits.items[i];
    DataType *t = dt_resolve(p->type->data);
    if (t->kind != DT_SCALAR) continue;
    if (t->scalar == SC_INT && !p->lit_is_float && p->lit_int > INT32_MAX)
      check_error(c, ERR_BAD_LITERAL, p->span, "integer literal %lld does not fit its type int", (long long)p->lit_int);
  }
}

/* ---- requirements ---- */

void require_known(Checker *c, ReqKind kind, Size s, Span span, const char *what, bool ground) {
  Requirement *r = NEW(c->arena, Requirement);
  r->kind = kind;
  r->size = s;
  r->span = span;
  r->what = what;
  r->ground = ground;
  vec_push(c->arena, &c->reqs, r);
}

void require(Checker *c, ReqKind kind, Size s, Span span, const char *what) {
  require_known(c, kind, s, span, what, false);
}

enum { REQ_BUCKETS = 16, REQ_ONE_CHAIN = 4, REQ_FEW = 32, REQ_MET = -1 };

/* Whether a requirement on the zonked size s is a whole constant that
 * meets it (split 4096's 4096 >= 1, a view's 64 >= 0: 7 of a search
 * variant's 14 requirements).  settle_requirement gives such a one no
 * message and no precondition (for a natural one it only reports an
 * overflow left before it), and a use of the def would instantiate it as
 * it is, met again: so it is neither made distinct nor kept in the def
 * (translation throughput; not so with DpiaOptions.debug_no_shortcuts,
 * which test check-shortcuts compares). */
static bool met_constant(Size s, bool positive) {
  int64_t v;
  return size_const_value(s, &v) && v >= (positive ? 1 : 0);
}

/* settle_requirements' key of a requirement of kind positive on the zonked
 * size s: of what size_eq compares first (the number of terms, the first
 * term's coefficient and factor count), so that sizes size_eq finds equal
 * have one key; below REQ_BUCKETS */
static unsigned requirement_key(Size s, bool positive) {
  uint64_t h = (uint64_t)s.nterms * 2 + positive;
  if (s.nterms > 0) {
    h = h * 31 + (uint64_t)s.terms[0].num;
    h = h * 31 + (uint64_t)s.terms[0].den;
    h = h * 31 + (uint64_t)s.terms[0].nfactors;
  }
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15u;
  return (unsigned)(h >> 60) % REQ_BUCKETS;
}

/* Settle the requirements of a declaration: constant ones are decided now,
 * symbolic ones become preconditions (spec section 3). */
static void settle_requirements(Checker *c, DefInfo *def) {
  Vec pre = {0};
  /* what a use instantiates: each distinct requirement once, or a def
   * using the one before it twice would carry 2^n (tests/limits) */
  def->nreqs = 0;
  def->req_sizes = NEWARRAY(c->arena, Size, c->reqs.len);
  def->req_positive = NEWARRAY(c->arena, bool, c->reqs.len);
  /* each requirement's first of the same kind and size (itself if none
   * before), and each distinct one's first; these and the table's chains
   * on the stack for a few requirements (every search variant's), else in
   * the arena */
  bool few = c->reqs.len <= REQ_FEW;
  int first_of_few[REQ_FEW], first_req_few[REQ_FEW], next_few[REQ_FEW];
  bool clean_few[REQ_FEW];
  int *first_of = few ? first_of_few : NEWARRAY(c->arena, int, c->reqs.len);
  int *first_req = few ? first_req_few : NEWARRAY(c->arena, int, c->reqs.len);
  /* The distinct ones found by a table of chains, each distinct one in
   * the chain of its requirement_key: a requirement is compared (size_eq)
   * only with those of its key, not with every distinct one before it (a
   * search variant has 14 requirements, 8 distinct: 26 comparisons in a
   * loop over them; translation throughput).  Equal sizes have equal keys,
   * so the one found is the one the loop found: distinct ones are
   * pairwise unequal, at most one is equal.  A few requirements (the
   * one-line kernel's) share one chain, without keys. */
  int bucket[REQ_BUCKETS];
  int nbuckets = c->reqs.len > REQ_ONE_CHAIN ? REQ_BUCKETS : 1;
  for (int k = 0; k < nbuckets; k++) bucket[k] = -1;
  int *next_in_bucket = few ? next_few : NEWARRAY(c->arena, int, c->reqs.len);
  for (int i = 0; i < c->reqs.len; i++) {
    Requirement *r = c->reqs.items[i];
    Size s = requirement_size(c, r);
    bool positive = r->kind == REQ_POSITIVE;
    if (!c->tc->no_shortcuts && met_constant(s, positive)) {
      first_of[i] = REQ_MET;
      continue;
    }
    unsigned key = nbuckets > 1 ? requirement_key(s, positive) : 0;
    int seen = -1;
    for (int j = bucket[key]; j >= 0 && seen < 0; j = next_in_bucket[j])
      if (def->req_positive[j] == positive && size_eq(def->req_sizes[j], s)) seen = j;
    if (seen >= 0) {
      first_of[i] = first_req[seen];
      continue;
    }
    first_of[i] = first_req[def->nreqs] = i;
    next_in_bucket[def->nreqs] = bucket[key];
    bucket[key] = def->nreqs;
    def->req_sizes[def->nreqs] = s;
    def->req_positive[def->nreqs++] = positive;
  }
  /* A requirement of the same kind and size as one before it (a
   * primitive's instance requires its sizes natural, and the next one
   * requires the same again: 6 of a search variant's 14) adds nothing
   * once the first was settled without a diagnostic or an overflow: the
   * same size gives the same fraction and the same preconditions, which
   * add_precond finds there already (equal, or merged into one that says
   * them: an lcm or a maximum, whose span a repeat leaves as it is).  A
   * first that reported something is repeated, so that every message
   * stays (translation throughput). */
  bool *clean = few ? clean_few : NEWARRAY(c->arena, bool, c->reqs.len);
  for (int i = 0; i < c->reqs.len; i++) {
    Requirement *r = c->reqs.items[i];
    if (first_of[i] == REQ_MET) {
      /* all that settle_requirement does with it: a natural one reports
       * an overflow left by the zonks before it (check_overflow) */
      if (r->kind == REQ_NATURAL) check_overflow(c, r->span);
      continue;
    }
    if (first_of[i] != i && clean[first_of[i]]) continue;
    Size s = requirement_size(c, r);
    const Diagnostic *last = c->diag->last;
    bool overflow = c->tc->sizes.overflow;
    settle_requirement(c, &pre, r, i, s);
    clean[i] = !overflow && !c->tc->sizes.overflow && c->diag->last == last;
  }
  finish_preconds(c, def, &pre);
}

void finish_decl(Checker *c, DefInfo *def) {
  /* let deferred constraints and postponed equations settle; default
   * literal types; settle again */
  for (int round = 0; round < 3; round++) {
    while (wake_deferred(c)) {
    }
    /* only the equations postponed before this round: one that
     * unify_size postpones again waits for the next round (else this loop
     * never ends) */
    int npostponed = c->postponed.len;
    for (int i = 0; i < npostponed; i++) {
      Postponed *p = c->postponed.items[i];
      if (!p) continue;
      c->postponed.items[i] = NULL;
      Size l = zonk_size(c, p->lhs), r = zonk_size(c, p->rhs);
      if (size_eq(l, r)) continue;
      if (!size_first_meta(size_sub(&c->tc->sizes, l, r))) {
        check_error(c, ERR_SIZE_MISMATCH, p->span, "size mismatch: %s is not equal to %s", check_size_str(c, l),
                    check_size_str(c, r));
        continue;
      }
      if (round < 2) {
        unify_size(c, l, r, p->span); /* may postpone again */
      } else {
        check_error(c, ERR_CANNOT_INFER, p->span, "cannot infer the sizes in %s == %s; add a type ascription",
                    check_size_str(c, l), check_size_str(c, r));
      }
    }
    if (round == 1 && def->body) {
      /* toDouble 2 > 0.5: the literal 2 defaults to int, and the
       * conversion then makes the comparison's type double; defaulting
       * the conversion's result as well (to the float of 0.5) would
       * contradict it */
      if (settle_conversion_cycles(c))
        while (wake_deferred(c)) {
        }
      mark_awaited(c, true);
      if (defaultable_metas(c->tc)) default_tree(c, def->body);
      mark_awaited(c, false);
    }
  }
  if (!c->failed && def->body) {
    Finish f = {.c = c};
    zonk_tree(&f, def->body);
    if (!c->failed) dep_scopes(c, def->body);
    for (int i = 0; i < def->nparams; i++) def->params[i]->type = zonk_phrase_type(c, def->params[i]->type);
    def->result = zonk_phrase_type(c, def->result);
    def->type = zonk_phrase_type(c, def->type);
    check_literal_ranges(c);
  }
  if (!c->failed) settle_requirements(c, def);
  /* counted anew for the next declaration (one that stops before its
   * finish keeps the count: its successor's body is then walked, as
   * every body was) */
  c->rows_given = 0;
}
