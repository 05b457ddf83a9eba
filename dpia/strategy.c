/* strategy.c: the OpenCL hierarchy and address space rules (spec section 5;
 * the paper leaves them as future work in its section 9).
 *
 * Works on the normalized kernel body, where every def is inlined, so a
 * rule sees the nesting the kernel really has.  Messages name both
 * constructs and point at the inner one, with a note at the outer one. */
#include "check.h"
#include "hints.h"

#include <string.h>

/* An enclosing construct whose function argument we are inside. */
typedef struct Frame Frame;
struct Frame {
  Prim prim;
  int dim;
  Span span;
  const Frame *up;
  bool has_nested_grid; /* a grid-level map whose body holds another one */
};

typedef struct Strategy {
  Arena *arena;
  Diag *diag;
  const DefInfo *kernel;
  bool ok;
  bool has_grid; /* the kernel has a grid-level map: it runs on many work-items */
  Vec reported;  /* spans already reported (an inlined def appears twice) */
  /* high-level mode (docs/language.md section 21): a computing plain map
   * is no error; the first one is kept here */
  bool high_level;
  Span unlowered;
} Strategy;

/* How the value of a phrase is used: written straight to the output
 * buffer through acceptors (the acceptor translation reaches it), or read
 * after being materialised (the continuation translation). */
typedef struct Position {
  bool to_output;
  Span reader; /* the construct that reads it, when !to_output */
  Prim reader_prim;
} Position;

/* as the user wrote it: mapGlobal, mapGlobal1 (hints.h) */
static const char *construct_name(Arena *a, Prim p, int dim, Span at) { return prim_display_name(a, p, dim, at); }

static bool first_report(Strategy *s, Span span) {
  for (int i = 0; i < s->reported.len; i++) {
    const Span *t = s->reported.items[i];
    if (t->src == span.src && t->begin == span.begin && t->end == span.end) return false;
  }
  Span *copy = NEW(s->arena, Span);
  *copy = span;
  vec_push(s->arena, &s->reported, copy);
  return true;
}

static const Frame *find(const Frame *f, bool (*pred)(const Frame *, const void *), const void *arg) {
  for (; f; f = f->up)
    if (pred(f, arg)) return f;
  return NULL;
}

static bool is_map_at(Prim p, PrimLevel level) { return prim_family(p) == PFAM_MAP && prim_level(p) == level; }

/* a grid-level map: mapGlobal or mapWorkgroup */
static bool is_parallel_map(Prim p) { return is_map_at(p, PLVL_GLOBAL) || is_map_at(p, PLVL_WORKGROUP); }

static bool is_any_map(Prim p) { return prim_family(p) == PFAM_MAP; }

static bool is_to_private_prim(Prim p) { return prim_family(p) == PFAM_MEMORY && prim_level(p) == PLVL_PRIVATE; }

static bool is_workgroup(const Frame *f, const void *arg) {
  (void)arg;
  return is_map_at(f->prim, PLVL_WORKGROUP);
}

static bool is_local_same_dim(const Frame *f, const void *arg) {
  return is_map_at(f->prim, PLVL_LOCAL) && f->dim == *(const int *)arg;
}

static bool is_sequential_or_local(const Frame *f, const void *arg) {
  (void)arg;
  return is_map_at(f->prim, PLVL_LOCAL) || is_map_at(f->prim, PLVL_SEQ) || prim_family(f->prim) == PFAM_REDUCE;
}

static bool is_to_private(const Frame *f, const void *arg) {
  (void)arg;
  return is_to_private_prim(f->prim);
}

static bool is_grid_same_dim(const Frame *f, const void *arg) {
  return is_parallel_map(f->prim) && f->dim == *(const int *)arg;
}

/* Only grid-level maps (mapGlobal, mapWorkgroup) around: code here runs in
 * work-items of different work-groups, which no barrier orders. */
static bool grid_context(const Frame *f) {
  for (; f; f = f->up)
    if (!is_parallel_map(f->prim)) return false;
  return true;
}

static const Frame *innermost_grid(const Frame *f) {
  for (; f; f = f->up)
    if (is_parallel_map(f->prim)) return f;
  return NULL;
}

/* where a temporary made at this point lives: the memory of the nearest
 * toGlobal/toLocal/toPrivate below the grid map g (spec section 6) */
static Prim temp_memory(const Frame *f, const Frame *g) {
  for (; f && f != g; f = f->up)
    if (prim_family(f->prim) == PFAM_MEMORY) return f->prim;
  return PRIM_TO_GLOBAL;
}

static bool contains_prim(const Phrase *p, Prim prim) {
  switch (p->kind) {
  case PH_PRIM: return p->prim == prim;
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return false;
  case PH_LAM: return contains_prim(p->body, prim);
  case PH_PROJ:
  case PH_UNOP: return contains_prim(p->fst, prim);
  default: return contains_prim(p->fst, prim) || contains_prim(p->snd, prim);
  }
}

/* an array whose size is not a constant, anywhere in t */
static bool has_symbolic_array(const DataType *t) {
  t = dt_resolve((DataType *)t);
  int64_t n;
  switch (t->kind) {
  case DT_ARRAY: return !size_const_value(t->size, &n) || has_symbolic_array(t->elem);
  case DT_PAIR: return has_symbolic_array(t->fst) || has_symbolic_array(t->snd);
  default: return false;
  }
}

static bool contains_grid_map(const Phrase *p) {
  switch (p->kind) {
  case PH_PRIM: return is_parallel_map(p->prim);
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return false;
  case PH_LAM: return contains_grid_map(p->body);
  case PH_PROJ:
  case PH_UNOP: return contains_grid_map(p->fst);
  default: return contains_grid_map(p->fst) || contains_grid_map(p->snd);
  }
}

static void violation(Strategy *s, DiagCode code, Span inner, const Frame *outer, const char *fmt, const char *a,
                      const char *b) {
  s->ok = false;
  if (!first_report(s, inner)) return;
  diag_error(s->diag, code, inner, fmt, a, b);
  if (outer)
    diag_note(s->diag, outer->span, "the enclosing '%s' is here", construct_name(s->arena, outer->prim, outer->dim, outer->span));
}

static const Phrase *computing_part(Arena *a, const Phrase *e);

/* The first part of the function f that computes, or NULL when f only
 * rearranges data (a view function, docs/language.md section 9): a lambda
 * whose body is a view of its parameter, or a view primitive or a plain
 * map waiting for its array (split 2, transpose, snd, zip ys, map snd). */
static const Phrase *computing_fn(Arena *a, const Phrase *f) {
  return f->kind == PH_LAM ? computing_part(a, f->body) : computing_part(a, f);
}

/* The first part of e that computes, or NULL when e is built from
 * variables and literals by view primitives (idx included: a gather is a
 * view) and plain maps of view functions, applied fully or partially. */
static const Phrase *computing_part(Arena *a, const Phrase *e) {
  switch (e->kind) {
  case PH_VAR:
  case PH_LIT: return NULL;
  case PH_PROJ: return computing_part(a, e->fst);
  case PH_PRIM:
  case PH_APP: {
    PhraseSpine sp;
    phrase_spine(a, e, &sp);
    if (sp.head->kind != PH_PRIM) return e;
    Prim p = sp.head->prim;
    bool view_map = is_map_at(p, PLVL_NONE);
    if (prim_family(p) != PFAM_VIEW && !view_map) return e;
    for (int i = 0; i < sp.nargs; i++) {
      /* a nested map that computes is reported by itself: its head here
       * tells the enclosing map to stay silent */
      if (view_map && i == 0) {
        if (computing_fn(a, sp.args[0])) return sp.head;
        continue;
      }
      /* padCst's value is evaluated where the padding is read, like a
       * literal: any scalar expression that makes no array (vec 4 0.25) */
      if (p == PRIM_PAD_CST && i == 0 && !phrase_computes(sp.args[0])) continue;
      const Phrase *c = computing_part(a, sp.args[i]);
      if (c) return c;
    }
    return NULL;
  }
  default: return e;
  }
}

/* The rules about where a primitive may appear.  A plain map is a view
 * when its function is one, allowed anywhere; otherwise it has no level. */
static void check_placement(Strategy *s, const Phrase *head, const PhraseSpine *sp, const Frame *f) {
  const char *name = construct_name(s->arena, head->prim, head->dim, head->span);
  const Frame *o;
  if (is_map_at(head->prim, PLVL_NONE)) {
    const Phrase *c = sp->nargs ? computing_fn(s->arena, sp->args[0]) : head;
    if (!c || (c != head && c->kind == PH_PRIM && is_map_at(c->prim, PLVL_NONE))) return;
    if (s->high_level) {
      if (!s->unlowered.src) s->unlowered = head->span;
      return;
    }
    s->ok = false;
    if (first_report(s, head->span)) {
      diag_error(s->diag, ERR_NO_PARALLEL_LEVEL, head->span,
                 "this 'map' computes, so it needs an OpenCL level: choose mapGlobal, mapWorkgroup, mapLocal or "
                 "mapSeq (a plain map is only for functions that rearrange data, such as transpose or split 2)");
      if (c != head) diag_note(s->diag, c->span, "it computes here");
      diag_note(s->diag, head->span,
                "a kernel with such maps is a high-level program: `dpia check --high-level` accepts it and `dpia "
                "rewrite` lowers it to a strategy rule by rule (docs/language.md section 21)");
    }
  } else if (is_map_at(head->prim, PLVL_LOCAL)) {
    if ((o = find(f, is_to_private, NULL)))
      violation(s, ERR_BAD_ADDRESS_SPACE, head->span, o,
                "'%s' inside '%s': private memory belongs to one work-item, so a parallel map "
                "cannot produce it",
                name, construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_local_same_dim, &head->dim)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o, "'%s' inside another '%s' of the same dimension", name,
                construct_name(s->arena, o->prim, o->dim, o->span));
    else if (!find(f, is_workgroup, NULL)) {
      s->ok = false;
      if (first_report(s, head->span))
        diag_error(s->diag, ERR_BAD_PARALLEL_NESTING, head->span,
                   "'%s' outside of any mapWorkgroup: mapLocal must be inside the body of a "
                   "mapWorkgroup",
                   name);
    }
  } else if (is_parallel_map(head->prim)) {
    if ((o = find(f, is_to_private, NULL)))
      violation(s, ERR_BAD_ADDRESS_SPACE, head->span, o,
                "'%s' inside '%s': private memory belongs to one work-item, so a parallel map "
                "cannot produce it",
                name, construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_sequential_or_local, NULL)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o,
                "'%s' inside '%s': work-group and global parallelism cannot be nested in "
                "local or sequential code",
                name, construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_grid_same_dim, &head->dim)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o, "'%s' inside '%s' of the same dimension", name,
                construct_name(s->arena, o->prim, o->dim, o->span));
  } else if (prim_family(head->prim) == PFAM_MEMORY && prim_level(head->prim) == PLVL_LOCAL) {
    if (!find(f, is_workgroup, NULL)) {
      s->ok = false;
      if (first_report(s, head->span))
        diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                   "'toLocal' outside of any mapWorkgroup: local memory belongs to a "
                   "work-group, so toLocal must be inside the body of a mapWorkgroup");
    }
  }
}

/* Views through which the acceptor translation passes (Figure 5a and the
 * acceptor forms of spec section 4): a value produced under them still
 * goes straight to the output. */
static bool passes_acceptor(Prim p) { return prim_family(p) == PFAM_VIEW && prim_lowered(p) != PRIM_COUNT; }

/* Which arguments of a primitive are functions run inside it (its body). */
static bool is_body_arg(Prim p, int i) { return prim_computes(p) && i == 0; }

/* A parallel map runs one work-item (or work-group) an element: over an
 * array of no elements (`take 0`) there would be nothing to launch, or a
 * work-group of no work-items, which OpenCL does not have.  A sequential
 * loop over it is fine: it runs no step. */
static void check_not_empty(Strategy *s, const Phrase *app, const Phrase *head, int nargs) {
  if (prim_family(head->prim) != PFAM_MAP || prim_level(head->prim) == PLVL_NONE ||
      prim_level(head->prim) == PLVL_SEQ || nargs != 2 || !app->type || app->type->kind != PT_EXP)
    return;
  const DataType *t = dt_resolve(app->type->data);
  int64_t n;
  if (!t || t->kind != DT_ARRAY || !size_const_value(t->size, &n) || n > 0) return;
  s->ok = false;
  if (first_report(s, head->span))
    diag_error(s->diag, ERR_SIZE_TOO_SMALL, head->span,
               "'%s' over an array of no elements: a parallel map runs one work-item an element, and OpenCL "
               "launches at least one (a sequential mapSeq may run no step)",
               construct_name(s->arena, head->prim, head->dim, head->span));
}

static void walk(Strategy *s, const Phrase *p, const Frame *f, Position pos);

static void walk_spine(Strategy *s, const Phrase *p, const Frame *f, Position pos) {
  PhraseSpine spine;
  phrase_spine(s->arena, p, &spine);
  const Phrase *head = spine.head;
  int nargs = spine.nargs;
  const Phrase *const *args = (const Phrase *const *)spine.args;
  if (head->kind == PH_LAM && head->shares && nargs == 1) {
    /* a sharing let (normalize.c): its body is where the let is */
    walk(s, head->body, f, pos);
    walk(s, args[0], f, (Position){false, head->span, PRIM_COUNT});
    return;
  }
  if (head->kind != PH_PRIM) {
    walk(s, head, f, (Position){false, head->span, PRIM_COUNT});
    for (int i = 0; i < nargs; i++) walk(s, args[i], f, (Position){false, head->span, PRIM_COUNT});
    return;
  }
  check_placement(s, head, &spine, f);
  check_not_empty(s, p, head, nargs);
  Prim prim = head->prim;
  /* a view map: no loop and no memory, its function only rearranges */
  bool view_map = is_map_at(prim, PLVL_NONE);
  if (is_parallel_map(prim) && grid_context(f) && !pos.to_output) {
    /* spec section 5: no barrier across work-groups, at the top of the
     * kernel or inside another grid-level map */
    s->ok = false;
    if (first_report(s, head->span)) {
      const char *name = construct_name(s->arena, prim, head->dim, head->span);
      diag_error(s->diag, ERR_NO_BARRIER, head->span,
                 "the result of this '%s' is read by a later stage of the same kernel, but OpenCL has no barrier "
                 "across work-groups; split the computation into two kernels",
                 name);
      if (is_map_at(pos.reader_prim, PLVL_NONE))
        diag_note(s->diag, pos.reader,
                  "it is read here by a view 'map', which is not written through: apply the view inside the "
                  "function of this '%s' instead",
                  name);
      else if (pos.reader_prim != PRIM_COUNT && prim_family(pos.reader_prim) == PFAM_VIEW &&
               prim_lowered(pos.reader_prim) == PRIM_COUNT)
        diag_note(s->diag, pos.reader,
                  "it is read here by '%s', which cannot be written through (it has no acceptor form: its elements "
                  "repeat or move elements other work-items compute)",
                  construct_name(s->arena, pos.reader_prim, 0, pos.reader));
      else if (pos.reader_prim != PRIM_COUNT)
        diag_note(s->diag, pos.reader, "it is read here by '%s'", construct_name(s->arena, pos.reader_prim, 0, pos.reader));
    }
  }
  const Frame *g = innermost_grid(f);
  bool materialises = (prim_family(prim) == PFAM_MEMORY && !is_to_private_prim(prim)) ||
                      (is_any_map(prim) && !view_map && !pos.to_output && !is_to_private_prim(temp_memory(f, g)));
  if (g && g->has_nested_grid && materialises) {
    /* the body of g runs in every work-item of the nested grid map's
     * dimension: a temporary made here would be written by all of them at
     * once (temporaries are widened per iteration of g only) */
    s->ok = false;
    if (first_report(s, head->span)) {
      diag_error(s->diag, ERR_REDUNDANT_WORK, head->span,
                 "'%s' materialises its result in the body of '%s', which holds another grid-level map: every "
                 "work-item of that map would compute it at once; move it inside that map, use toPrivate, or "
                 "split the kernel",
                 construct_name(s->arena, prim, head->dim, head->span),
                 construct_name(s->arena, g->prim, g->dim, g->span));
      diag_note(s->diag, g->span, "the enclosing '%s' is here", construct_name(s->arena, g->prim, g->dim, g->span));
    }
  }
  bool body_has_grid = nargs > 0 && is_body_arg(prim, 0) && contains_grid_map(args[0]);
  bool sequential_temp = materialises && !is_parallel_map(prim) && !body_has_grid;
  if (!g && s->has_grid && sequential_temp) {
    /* the same at the top of a kernel: every work-item of the grid would
     * write the whole temporary, which the grid map then reads */
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_REDUNDANT_WORK, head->span,
                 "'%s' materialises its result at the top of kernel '%s', outside its grid-level maps: every "
                 "work-item would compute it and write it at once; move it inside the map that reads it, use "
                 "toPrivate, or split the kernel",
                 construct_name(s->arena, prim, head->dim, head->span), s->kernel->name);
  }
  /* private memory has constant sizes (spec section 8: a newPrivate array
   * of constant size is a private array): a toPrivate result, a
   * temporary inside a toPrivate and a reduction's array accumulator of
   * symbolic size cannot be generated, so check rejects them here rather
   * than translate later */
  const DataType *private_t = NULL;
  if (is_to_private_prim(prim) && nargs == 2)
    private_t = p->type->data;
  else if (is_any_map(prim) && !view_map && nargs == 2 && !pos.to_output && is_to_private_prim(temp_memory(f, g)))
    private_t = p->type->data;
  else if (prim_family(prim) == PFAM_REDUCE && nargs == 3 && !contains_prim(args[0], PRIM_MAP_LOCAL))
    private_t = args[1]->type->data; /* a mapLocal's accumulator is local (docs/language.md) */
  bool result_in_private = !f && is_to_private_prim(prim) && pos.to_output; /* reported below */
  if (private_t && !result_in_private && has_symbolic_array(private_t)) {
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                 "'%s' keeps %s in private memory, but its size is not a constant and OpenCL has no private "
                 "memory of variable size; use toLocal or toGlobal, or split by a constant",
                 construct_name(s->arena, prim, head->dim, head->span), dt_str(s->arena, private_t));
  }
  if (result_in_private) {
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                 "the result of kernel '%s' would be produced in private memory; a kernel's result is written to "
                 "global memory (the output buffer): remove this toPrivate",
                 s->kernel->name);
  }
  Frame inner = {prim, head->dim, head->span, f, false};
  for (int i = 0; i < nargs; i++) {
    if (is_body_arg(prim, i)) {
      inner.has_nested_grid = is_parallel_map(prim) && contains_grid_map(args[i]);
      /* a misplaced toPrivate was reported: its body is not checked as
       * private code again (no cascade) */
      walk(s, args[i], result_in_private ? f : &inner, (Position){true, head->span, prim});
    } else {
      walk(s, args[i], f, (Position){pos.to_output && passes_acceptor(prim), head->span, prim});
    }
  }
}

static void walk(Strategy *s, const Phrase *p, const Frame *f, Position pos) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return;
  case PH_PRIM:
  case PH_APP: walk_spine(s, p, f, pos); return;
  case PH_LAM: walk(s, p->body, f, pos); return;
  case PH_PROJ:
  case PH_UNOP: walk(s, p->fst, f, (Position){false, p->span, PRIM_COUNT}); return;
  default:
    walk(s, p->fst, f, (Position){false, p->span, PRIM_COUNT});
    walk(s, p->snd, f, (Position){false, p->span, PRIM_COUNT});
    return;
  }
}

bool strategy_check_kernel(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body) {
  return strategy_check_high_level(a, diag, kernel, normal_body, false, NULL);
}

bool strategy_check_high_level(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                               Span *unlowered) {
  Strategy s = {a, diag, kernel, true, contains_grid_map(normal_body), {0}, high_level, {0}};
  walk(&s, normal_body, NULL, (Position){true, normal_body->span, PRIM_COUNT});
  if (unlowered) *unlowered = s.unlowered;
  return s.ok;
}
