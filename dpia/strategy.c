/* strategy.c: the OpenCL hierarchy and address space rules (spec section 5;
 * the paper leaves them as future work in its section 9).
 *
 * Works on the normalized kernel body, where every def is inlined, so a
 * rule sees the nesting the kernel really has.  Messages name both
 * constructs and point at the inner one, with a note at the outer one. */
#include "check.h"
#include "hints.h"

#include <string.h>

/* What a primitive is to the rules of this file.  role_of says it for
 * every primitive in one exhaustive switch, so a new row of prims.h must
 * choose its role here, and a new role breaks every switch below. */
typedef enum Role {
  ROLE_VIEW_MAP,      /* map: a view when its function is one, else it lacks a level */
  ROLE_SEQ_MAP,       /* mapSeq */
  ROLE_GLOBAL_MAP,    /* mapGlobal */
  ROLE_WORKGROUP_MAP, /* mapWorkgroup */
  ROLE_LOCAL_MAP,     /* mapLocal */
  ROLE_REDUCE,        /* reduce, reduceSeq: a loop in one work-item */
  ROLE_SCAN,          /* scanSeq: a loop in one work-item writing an element a step */
  ROLE_REDUCE_RANGE,  /* reduceRange: a loop in one work-item over a range read from data */
  ROLE_WINDOW,        /* slideSeq: a mapSeq keeping its window in private memory */
  ROLE_TO_GLOBAL,     /* toGlobal */
  ROLE_TO_LOCAL,      /* toLocal, toLocalVolatile */
  ROLE_TO_PRIVATE,    /* toPrivate */
  ROLE_VIEW,          /* rearranges its arrays (idx included: a gather is a view) */
  ROLE_PAD_VIEW,      /* padCst: a view whose first argument is a value, read where the padding is */
  ROLE_SCALAR,        /* computes a scalar or vector: select, vec, float4, math, conversions, foreign */
  ROLE_IMPERATIVE     /* Figure 4b and 4c: never in a functional kernel body */
} Role;

static Role role_of(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_MAP: return ROLE_VIEW_MAP;
  case PRIM_MAP_SEQ: return ROLE_SEQ_MAP;
  case PRIM_MAP_GLOBAL: return ROLE_GLOBAL_MAP;
  case PRIM_MAP_WORKGROUP: return ROLE_WORKGROUP_MAP;
  case PRIM_MAP_LOCAL: return ROLE_LOCAL_MAP;
  case PRIM_DEP_MAP_SEQ: return ROLE_SEQ_MAP;
  case PRIM_DEP_MAP_GLOBAL: return ROLE_GLOBAL_MAP;
  case PRIM_DEP_MAP_WORKGROUP: return ROLE_WORKGROUP_MAP;
  PRIM_CASES_REDUCE: return ROLE_REDUCE;
  PRIM_CASES_SCAN: return ROLE_SCAN;
  PRIM_CASES_REDUCE_RANGE: return ROLE_REDUCE_RANGE;
  PRIM_CASES_WINDOW: return ROLE_WINDOW;
  case PRIM_TO_GLOBAL: return ROLE_TO_GLOBAL;
  case PRIM_TO_LOCAL:
  case PRIM_TO_LOCAL_VOLATILE: return ROLE_TO_LOCAL;
  case PRIM_TO_PRIVATE: return ROLE_TO_PRIVATE;
  case PRIM_PAD_CST: return ROLE_PAD_VIEW;
  case PRIM_ZIP:
  case PRIM_SPLIT:
  case PRIM_JOIN:
  case PRIM_PAIR:
  case PRIM_FST:
  case PRIM_SND:
  case PRIM_LANE:
  case PRIM_AS_VECTOR:
  case PRIM_AS_SCALAR:
  case PRIM_TRANSPOSE:
  case PRIM_SLIDE:
  case PRIM_PAD_CLAMP:
  case PRIM_REORDER_STRIDE:
  case PRIM_TAKE:
  case PRIM_DROP:
  case PRIM_INDICES:
  case PRIM_TRIANGLE:
  case PRIM_DEP_JOIN:
  case PRIM_UNZIP:
  case PRIM_SCATTER:
  case PRIM_MIRROR:
  case PRIM_IDX: return ROLE_VIEW;
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN: return ROLE_SCALAR;
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return ROLE_IMPERATIVE;
  }
  DPIA_EXHAUSTIVE_END
  return ROLE_IMPERATIVE;
}

/* a grid-level map (mapGlobal, mapWorkgroup): its iterations may run in
 * different work-groups, which no barrier orders */
static bool is_grid_map(Role r) { return r == ROLE_GLOBAL_MAP || r == ROLE_WORKGROUP_MAP; }

/* An enclosing construct whose function argument we are inside. */
typedef struct Frame Frame;
struct Frame {
  Prim prim;
  Role role;
  int dim;
  Span span;
  const Frame *up;
  bool has_nested_grid; /* a grid-level map whose body holds another one */
  Sym row;              /* a dependent map's row, a size of its body's types (Phrase.dep_index) */
  bool gridless;        /* the argument walked with this frame holds no grid-level map */
};

typedef struct Strategy {
  Arena *arena;
  Diag *diag;
  const DefInfo *kernel;
  bool ok;
  /* the kernel has a grid-level map: it runs on many work-items.  -1
   * while not known: looked for in body when a rule first asks
   * (kernel_has_grid), which few do (issue 35: a walk of the whole body
   * before the check's own) */
  int has_grid;
  const Phrase *body;
  /* every rule asked of every primitive, none skipped for a view or a
   * scalar primitive (anywhere), and has_grid looked for first:
   * strategy_check_every_rule, for test strategy, which compares the two */
  bool every_rule;
  Vec reported;  /* spans already reported (an inlined def appears twice) */
  /* high-level mode (docs/language.md section 21): a computing plain map
   * is no error; the first one is kept here */
  bool high_level;
  Span unlowered;
  /* looking: whether the phrase walked is what normalize_def would give
   * back as it is is looked for on the way (strategy_check_normal_as_is);
   * not_as_is once the walk meets what normalize.c's already_normal
   * refuses (a def, a lambda or def applied, a projection of a pair) or
   * what the write-through of view maps moves (a plain map), or would
   * leave a phrase unwalked (pair_of_parts): the walk stops there.  nodes
   * counts the phrases walked (each spine's applications and head with
   * it), at least the distinct ones, so more than the depth */
  bool looking, not_as_is;
  long nodes;
} Strategy;

/* How the value of a phrase is used: written straight to the output
 * buffer through acceptors (the acceptor translation reaches it), or read
 * after being materialised (the continuation translation). */
typedef struct Position {
  bool to_output;
  Span reader; /* the construct that reads it, when !to_output */
  Prim reader_prim; /* PRIM_COUNT when it is no primitive */
  const DefInfo *reader_prelude; /* the prelude def the reader is part of (Phrase.prelude) */
  const char *reader_why; /* a view map reader: why its function is not written through */
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

static bool is_workgroup(const Frame *f, const void *arg) {
  (void)arg;
  return f->role == ROLE_WORKGROUP_MAP;
}

static bool is_local_same_dim(const Frame *f, const void *arg) {
  return f->role == ROLE_LOCAL_MAP && f->dim == *(const int *)arg;
}

static bool is_global_same_dim(const Frame *f, const void *arg) {
  return f->role == ROLE_GLOBAL_MAP && f->dim == *(const int *)arg;
}

/* a loop whose state (a scan's accumulator, a window, reduceRange's
 * accumulator and its trip count, that work-item's own data) is one
 * work-item's: the work-items of a group would not all run the barriers
 * a mapLocal in its step needs */
static bool has_private_state(const Frame *f, const void *arg) {
  (void)arg;
  return f->role == ROLE_SCAN || f->role == ROLE_WINDOW || f->role == ROLE_REDUCE_RANGE;
}

/* code inside runs in one work-item, or in the work-items of one group */
static bool is_sequential_or_local(const Frame *f, const void *arg) {
  (void)arg;
  DPIA_EXHAUSTIVE_BEGIN
  switch (f->role) {
  case ROLE_SEQ_MAP:
  case ROLE_LOCAL_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW: return true;
  case ROLE_VIEW_MAP:
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL:
  case ROLE_TO_PRIVATE:
  case ROLE_VIEW:
  case ROLE_PAD_VIEW:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool is_to_private(const Frame *f, const void *arg) {
  (void)arg;
  return f->role == ROLE_TO_PRIVATE;
}

static bool is_grid_same_dim(const Frame *f, const void *arg) {
  return is_grid_map(f->role) && f->dim == *(const int *)arg;
}

/* Only grid-level maps (mapGlobal, mapWorkgroup) around: code here runs in
 * work-items of different work-groups, which no barrier orders. */
static bool grid_context(const Frame *f) {
  for (; f; f = f->up)
    if (!is_grid_map(f->role)) return false;
  return true;
}

static const Frame *innermost_grid(const Frame *f) {
  for (; f; f = f->up)
    if (is_grid_map(f->role)) return f;
  return NULL;
}

/* Does a temporary made at this point live in private memory?  It lives
 * in the memory of the nearest toGlobal/toLocal/toPrivate below the grid
 * map g, global memory without one (spec section 6). */
static bool temp_in_private(const Frame *f, const Frame *g) {
  for (; f && f != g; f = f->up) {
    DPIA_EXHAUSTIVE_BEGIN
    switch (f->role) {
    case ROLE_TO_PRIVATE: return true;
    case ROLE_TO_GLOBAL:
    case ROLE_TO_LOCAL: return false;
    case ROLE_VIEW_MAP:
    case ROLE_SEQ_MAP:
    case ROLE_GLOBAL_MAP:
    case ROLE_WORKGROUP_MAP:
    case ROLE_LOCAL_MAP:
    case ROLE_REDUCE:
    case ROLE_SCAN:
    case ROLE_REDUCE_RANGE:
    case ROLE_WINDOW:
    case ROLE_VIEW:
    case ROLE_PAD_VIEW:
    case ROLE_SCALAR:
    case ROLE_IMPERATIVE: break;
    }
    DPIA_EXHAUSTIVE_END
  }
  return false;
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
  case PH_PRIM: return is_grid_map(role_of(p->prim));
  case PH_VAR:
  case PH_LIT:
  case PH_DEF: return false;
  case PH_LAM: return contains_grid_map(p->body);
  case PH_PROJ:
  case PH_UNOP: return contains_grid_map(p->fst);
  default: return contains_grid_map(p->fst) || contains_grid_map(p->snd);
  }
}

/* contains_grid_map of the kernel's body, looked for once */
static bool kernel_has_grid(Strategy *s) {
  if (s->has_grid < 0) s->has_grid = contains_grid_map(s->body);
  return s->has_grid;
}

/* contains_grid_map(p) for p walked with frame f: false at once inside
 * an argument known to hold none (every phrase walked with f is inside
 * the argument f was made for), so that the nested bodies of a kernel are
 * not searched again at every level (issue 35); at the top (no frame),
 * false where the body is known to hold none, and a grid map found in p
 * is one of the body's */
static bool grid_below(Strategy *s, const Frame *f, const Phrase *p) {
  if (f ? f->gridless : !s->has_grid) return false;
  bool found = contains_grid_map(p);
  if (found && !f) s->has_grid = 1;
  return found;
}

/* A primitive that every rule below allows anywhere and that neither
 * computes (prim_computes) nor makes memory: a view (but scatter, mirror
 * and depJoin, which are only written) or a scalar primitive.  Of the
 * rules only the positions of its arguments (to_output) apply to it,
 * which walk_spine then gives them at once (issue 35: most of a kernel's
 * spines are views, for which each rule was asked to find nothing; test
 * strategy compares with every rule asked, strategy_check_every_rule) */
static bool anywhere(Prim prim) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (role_of(prim)) {
  case ROLE_VIEW: return prim != PRIM_SCATTER && prim != PRIM_MIRROR && prim != PRIM_DEP_JOIN;
  case ROLE_PAD_VIEW:
  case ROLE_SCALAR: return true;
  case ROLE_VIEW_MAP: /* a map that computes has no level */
  case ROLE_SEQ_MAP:
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_LOCAL_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL:
  case ROLE_TO_PRIVATE:
  case ROLE_IMPERATIVE: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
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
    Role r = role_of(sp.head->prim);
    DPIA_EXHAUSTIVE_BEGIN
    switch (r) {
    case ROLE_VIEW_MAP:
    case ROLE_VIEW:
    case ROLE_PAD_VIEW: break;
    case ROLE_SEQ_MAP:
    case ROLE_GLOBAL_MAP:
    case ROLE_WORKGROUP_MAP:
    case ROLE_LOCAL_MAP:
    case ROLE_REDUCE:
    case ROLE_SCAN:
    case ROLE_REDUCE_RANGE:
    case ROLE_WINDOW:
    case ROLE_TO_GLOBAL:
    case ROLE_TO_LOCAL:
    case ROLE_TO_PRIVATE:
    case ROLE_SCALAR:
    case ROLE_IMPERATIVE: return e;
    }
    DPIA_EXHAUSTIVE_END
    for (int i = 0; i < sp.nargs; i++) {
      /* a nested map that computes is reported by itself: its head here
       * tells the enclosing map to stay silent */
      if (r == ROLE_VIEW_MAP && i == 0) {
        if (computing_fn(a, sp.args[0])) return sp.head;
        continue;
      }
      /* padCst's value is evaluated where the padding is read, like a
       * literal: any scalar expression that makes no array (vec 4 0.25) */
      if (r == ROLE_PAD_VIEW && i == 0 && !phrase_computes(sp.args[0])) continue;
      const Phrase *c = computing_part(a, sp.args[i]);
      if (c) return c;
    }
    return NULL;
  }
  default: return e;
  }
}

/* toLocalVolatile's buffer holds numbers (docs/language.md section 32):
 * an array, of any rank, of scalars.  A vector or a pair element would be
 * read and written through a pointer of its lanes or fields, or by
 * vloadn and vstoren, none of which OpenCL C gives a volatile form. */
static void volatile_elements(Strategy *s, const Phrase *head) {
  const DataType *t = dt_resolve(head->type->snd->snd->data), *e = t;
  while (e->kind == DT_ARRAY) e = dt_resolve(e->elem);
  if (t->kind == DT_ARRAY && ((e->kind == DT_SCALAR && e->width == 1) || e->kind == DT_IDX)) return;
  s->ok = false;
  if (first_report(s, head->span))
    diag_error(s->diag, ERR_VOLATILE_ELEMENTS, head->span,
               "'toLocalVolatile' makes %s, not an array of scalars: a volatile local buffer holds numbers, "
               "each read and written by itself (use toLocal)",
               dt_str(s->arena, t));
}

/* the name of head as the program spelled it, for a message: made only
 * where one is reported (issue 35: made for every primitive, it was a
 * twentieth of the pass) */
static const char *head_name(Strategy *s, const Phrase *head) {
  return construct_name(s->arena, head->prim, head->dim, head->span);
}

/* The rules about where a primitive may appear.  A plain map is a view
 * when its function is one, allowed anywhere; otherwise it has no level. */
static void check_placement(Strategy *s, const Phrase *head, const PhraseSpine *sp, const Frame *f) {
  const Frame *o;
  DPIA_EXHAUSTIVE_BEGIN
  switch (role_of(head->prim)) {
  case ROLE_VIEW_MAP: {
    const Phrase *c = sp->nargs ? computing_fn(s->arena, sp->args[0]) : head;
    if (!c || (c != head && c->kind == PH_PRIM && role_of(c->prim) == ROLE_VIEW_MAP)) return;
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
    return;
  }
  case ROLE_LOCAL_MAP:
    if ((o = find(f, is_to_private, NULL)))
      violation(s, ERR_BAD_ADDRESS_SPACE, head->span, o,
                "'%s' inside '%s': private memory belongs to one work-item, so a parallel map "
                "cannot produce it",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_local_same_dim, &head->dim)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o, "'%s' inside another '%s' of the same dimension",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, has_private_state, NULL)) && prim_family(o->prim) == PFAM_REDUCE_RANGE)
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o,
                "'%s' inside the function of '%s': its trip count is one work-item's data and its accumulator "
                "that work-item's (private), so the work-items of a group cannot compute its steps together; "
                "give each work-item a range of its own instead (docs/language.md section 25)",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if (o)
      /* a scan's accumulator is one work-item's, and each step's is
       * written to the result by that work-item (stage1.c, scan_seq); so
       * is a sliding window, which that work-item loads and rotates
       * (stage2.c, lower_slide_seq_i) */
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o,
                arena_printf(s->arena,
                             "'%%s' inside the function of '%%s': %s is one work-item's (private), so the "
                             "work-items of a group cannot compute its steps together; %s each work-item's part "
                             "inside a mapLocal instead",
                             o->role == ROLE_SCAN ? "a scan's accumulator" : "a sliding window",
                             o->role == ROLE_SCAN ? "scan" : "slide over"),
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if (!find(f, is_workgroup, NULL)) {
      s->ok = false;
      if (first_report(s, head->span))
        diag_error(s->diag, ERR_BAD_PARALLEL_NESTING, head->span,
                   "'%s' outside of any mapWorkgroup: mapLocal must be inside the body of a "
                   "mapWorkgroup",
                   head_name(s, head));
    }
    /* a mapGlobal of dimension d gives each element a global id of d,
     * which holds the local id of d: a mapLocal of d inside would share
     * it (a mapWorkgroup of another dimension between them, spec section
     * 5, does not separate them), and each work-item would compute the
     * one element where both ids agree */
    else if ((o = find(f, is_global_same_dim, &head->dim)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o,
                "'%s' inside '%s' of the same dimension: a work-item's global id in that dimension holds its local "
                "id, so the two maps cannot share it; use another dimension for one of them",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    return;
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
    if ((o = find(f, is_to_private, NULL)))
      violation(s, ERR_BAD_ADDRESS_SPACE, head->span, o,
                "'%s' inside '%s': private memory belongs to one work-item, so a parallel map "
                "cannot produce it",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_sequential_or_local, NULL)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o,
                "'%s' inside '%s': work-group and global parallelism cannot be nested in "
                "local or sequential code",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    else if ((o = find(f, is_grid_same_dim, &head->dim)))
      violation(s, ERR_BAD_PARALLEL_NESTING, head->span, o, "'%s' inside '%s' of the same dimension",
                head_name(s, head), construct_name(s->arena, o->prim, o->dim, o->span));
    return;
  case ROLE_TO_LOCAL:
    if (!find(f, is_workgroup, NULL)) {
      s->ok = false;
      if (first_report(s, head->span))
        diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                   "'%s' outside of any mapWorkgroup: local memory belongs to a "
                   "work-group, so %s must be inside the body of a mapWorkgroup",
                   head_name(s, head), head_name(s, head));
    } else if (head->prim == PRIM_TO_LOCAL_VOLATILE) {
      volatile_elements(s, head);
    }
    return;
  /* allowed anywhere: sequential code runs in any work-item, and global
   * and private memory are anyone's */
  case ROLE_SEQ_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_PRIVATE:
  case ROLE_VIEW:
  case ROLE_PAD_VIEW:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: return;
  }
  DPIA_EXHAUSTIVE_END
}

/* Views through which the acceptor translation passes (Figure 5a and the
 * acceptor forms of spec section 4): a value produced under them still
 * goes straight to the output. */
static bool passes_acceptor(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (role_of(p)) {
  case ROLE_VIEW:
  case ROLE_PAD_VIEW: return prim_lowered(p) != PRIM_COUNT; /* its acceptor twin (prims.h) */
  case ROLE_VIEW_MAP:
  case ROLE_SEQ_MAP:
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_LOCAL_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL:
  case ROLE_TO_PRIVATE:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* Which arguments of a primitive are functions run inside it (its body):
 * the first of each that computes (prims.h). */
static bool is_body_arg(Prim p, int i) { return prim_computes(p) && i == 0; }

/* Where the result of the grid map `name`, which no barrier can order
 * before its reader, is read (the note of ERR_NO_BARRIER). */
static void reader_note(Strategy *s, Position pos, const char *name) {
  const char *reader = construct_name(s->arena, pos.reader_prim, 0, pos.reader);
  if (pos.reader_prelude && !passes_acceptor(pos.reader_prim)) {
    /* the span is the program's call of the def (normalize.c): name the
     * def, whose parts the program never wrote */
    diag_note(s->diag, pos.reader,
              "it is read here by '%s', a prelude def, which is not written through (%s): split the kernel, the "
              "next one applying '%s' to this result (docs/language.md section 16)",
              pos.reader_prelude->name,
              pos.reader_why ? pos.reader_why : arena_printf(s->arena, "its '%s' is not", reader),
              pos.reader_prelude->name);
    return;
  }
  DPIA_EXHAUSTIVE_BEGIN
  switch (role_of(pos.reader_prim)) {
  case ROLE_VIEW_MAP:
    /* the view maps that write through were moved into the map's function
     * (strategy_write_through): this one's function does not */
    diag_note(s->diag, pos.reader,
              "it is read here by a view 'map' whose function is not written through (%s): a view map after a "
              "grid map is moved inside its function only when it uses its row once, through views that have "
              "an acceptor form (split, join, transpose, padCst, take, drop, unzip, ...; docs/language.md "
              "section 9); compute the rearranged row inside the function of this '%s' instead, or split the "
              "kernel",
              pos.reader_why ? pos.reader_why : "its array is not read by it directly", name);
    return;
  case ROLE_VIEW:
  case ROLE_PAD_VIEW:
    if (passes_acceptor(pos.reader_prim)) break;
    diag_note(s->diag, pos.reader,
              "it is read here by '%s', which cannot be written through (it has no acceptor form: its elements "
              "repeat or move elements other work-items compute)",
              reader);
    return;
  case ROLE_SEQ_MAP:
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_LOCAL_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL:
  case ROLE_TO_PRIVATE:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: break;
  }
  DPIA_EXHAUSTIVE_END
  diag_note(s->diag, pos.reader, "it is read here by '%s'", reader);
}

/* ---- view maps written through (docs/language.md sections 9 and 16) ----
 *
 * A view map after a grid map, in output position,
 *   map f (mapGlobal g xs)   =   mapGlobal (\x -> f (g x)) xs
 * is the same array, and the right side writes through: f's views go
 * inside the map's function, where each iteration writes its own row
 * through their acceptor forms (padCst's borders by one work-item,
 * section 16).  The left side would read the grid map's result, which no
 * barrier can order (spec section 5, ERR_NO_BARRIER).  So before the
 * rules are checked, a kernel's normal body gets the right side wherever
 * f is a view function whose views all have acceptor forms and that uses
 * its element once (no computation is duplicated or moved across the
 * strategy: g runs where it ran, f computes nothing).  Only programs the
 * rule on barriers would reject change.  The prelude's padCst2D and
 * padCst3D are written this way (prelude.c). */

static const char *not_through_fn(Arena *a, const Phrase *f);

static const char *no_acceptor(Arena *a, const Phrase *head) {
  return arena_printf(a, "'%s' has no acceptor form", prim_info[head->prim].name);
}

/* Why v is not made of the single use of z by views with acceptor forms
 * (z in an array argument, never padCst's value) and view maps of such
 * functions; NULL when it is. */
static const char *not_through_to(Arena *a, const Phrase *v, const Binder *z) {
  if (v->kind == PH_VAR && v->binder == z) return NULL;
  PhraseSpine sp;
  phrase_spine(a, v, &sp);
  if (sp.head->kind != PH_PRIM || (!(prim_info[sp.head->prim].flags & PF_VIEW) && sp.head->prim != PRIM_MAP))
    return "it computes";
  Prim prim = sp.head->prim;
  if (prim == PRIM_MAP) {
    if (sp.nargs != 2 || phrase_uses(sp.args[0], z)) return "it is not a view function";
    const char *why = not_through_fn(a, sp.args[0]);
    return why ? why : not_through_to(a, sp.args[1], z);
  }
  if (!passes_acceptor(prim)) return no_acceptor(a, sp.head);
  if (prim == PRIM_PAD_CST && sp.nargs == 2 && phrase_uses(sp.args[0], z)) return "its row is padCst's value";
  for (int i = 0; i < sp.nargs; i++)
    if (phrase_uses(sp.args[i], z)) return not_through_to(a, sp.args[i], z);
  return "it does not use its row";
}

/* Why f, a function of one array, is not a view function that writes
 * through: \z -> V with V as above, or a view primitive (or view map)
 * lacking only its array (padCst 1 1 0.0, split 2, map (take 3)); NULL
 * when it is. */
static const char *not_through_fn(Arena *a, const Phrase *f) {
  if (f->kind == PH_LAM) {
    int uses = f->shares ? 0 : phrase_uses(f->body, f->lam_binder);
    if (uses > 1) return "it uses its row more than once";
    return uses == 1 ? not_through_to(a, f->body, f->lam_binder) : "it does not use its row";
  }
  PhraseSpine sp;
  phrase_spine(a, f, &sp);
  if (sp.head->kind != PH_PRIM) return "it is not a view function";
  if (sp.head->prim == PRIM_MAP) return sp.nargs == 1 ? not_through_fn(a, sp.args[0]) : "it is not a view function";
  if (!(prim_info[sp.head->prim].flags & PF_VIEW)) return "it computes";
  if (!passes_acceptor(sp.head->prim)) return no_acceptor(a, sp.head);
  /* the array is the missing last argument: padCst's value is given */
  return sp.head->prim != PRIM_PAD_CST || sp.nargs == 1 ? NULL : "its row is padCst's value";
}

typedef struct Through {
  Arena *arena;
  TypeCtx *tc;
} Through;

static Phrase *made(Through *t, PhraseTermKind kind, Span span, PhraseType *type) {
  Phrase *p = NEW(t->arena, Phrase);
  p->kind = kind;
  p->span = span;
  p->type = type;
  return p;
}

static Phrase *apply(Through *t, Phrase *fn, Phrase *arg, Span span) {
  Phrase *p = made(t, PH_APP, span, fn->type->snd);
  p->fst = fn;
  p->snd = arg;
  return p;
}

/* app, an application of n arguments, with args in their places (app
 * itself when none changed) */
static Phrase *respine(Through *t, Phrase *app, Phrase *const *args, int n) {
  if (n == 0) return app;
  Phrase *fn = respine(t, app->fst, args, n - 1);
  if (fn == app->fst && args[n - 1] == app->snd) return app;
  Phrase *q = arena_dup(t->arena, app, sizeof *app);
  q->normal_run = 0;
  q->fst = fn;
  q->snd = args[n - 1];
  return q;
}

/* map f (grid g xs)  ->  grid (\x -> f (g x)) xs, the view map's type */
static Phrase *fuse(Through *t, const Phrase *view_map, Phrase *f, const PhraseSpine *grid) {
  Phrase *g = grid->args[0], *xs = grid->args[1];
  Binder *x;
  Phrase *element; /* g x */
  if (g->kind == PH_LAM && !g->shares) {
    x = g->lam_binder;
    element = g->body;
  } else {
    x = NEW(t->arena, Binder);
    x->name = f->kind == PH_LAM ? f->lam_binder->name : "x";
    x->span = g->span;
    x->type = g->type->fst;
    x->id = ++t->tc->next_binder;
    Phrase *v = made(t, PH_VAR, g->span, x->type);
    v->binder = x;
    element = apply(t, g, v, g->span);
  }
  Phrase *body = f->kind == PH_LAM ? phrase_subst(t->arena, t->tc, f->body, f->lam_binder, element)
                                   : apply(t, f, element, view_map->span);
  Phrase *lam = made(t, PH_LAM, g->span, pt_fn(t->tc, x->type, body->type));
  lam->lam_binder = x;
  lam->body = body;
  Phrase *head = arena_dup(t->arena, grid->head, sizeof *grid->head);
  head->normal_run = 0;
  head->type = pt_fn(t->tc, lam->type, pt_fn(t->tc, xs->type, view_map->type));
  return apply(t, apply(t, head, lam, grid->head->span), xs, view_map->span);
}

/* p with the view maps in output position (to_output, as Position's in
 * walk_spine) fused into the grid maps they read */
static Phrase *through(Through *t, Phrase *p, bool to_output) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return p;
  case PH_LAM: {
    Phrase *body = through(t, p->body, to_output);
    if (body == p->body) return p;
    Phrase *q = arena_dup(t->arena, p, sizeof *p);
    q->normal_run = 0;
    q->body = body;
    return q;
  }
  case PH_APP: {
    PhraseSpine sp;
    phrase_spine(t->arena, p, &sp);
    Phrase *head = sp.head;
    Phrase **args = NEWARRAY(t->arena, Phrase *, sp.nargs);
    if (head->kind == PH_LAM && head->shares && sp.nargs == 1) {
      /* a sharing let: its body is where the let is */
      Phrase *h = through(t, head, to_output);
      args[0] = through(t, sp.args[0], false);
      if (h == head && args[0] == sp.args[0]) return p;
      return apply(t, h, args[0], p->span);
    }
    /* a view function only: a map that computes keeps its error (E0601),
     * its computation is not moved into the grid map */
    if (head->kind == PH_PRIM && head->prim == PRIM_MAP && sp.nargs == 2 && to_output &&
        !computing_fn(t->arena, sp.args[0]) && !not_through_fn(t->arena, sp.args[0])) {
      PhraseSpine grid;
      phrase_spine(t->arena, sp.args[1], &grid);
      if (grid.head->kind == PH_PRIM && is_grid_map(role_of(grid.head->prim)) && grid.nargs == 2)
        return through(t, fuse(t, p, sp.args[0], &grid), true);
    }
    Prim prim = head->kind == PH_PRIM ? head->prim : PRIM_COUNT;
    bool changed = false;
    for (int i = 0; i < sp.nargs; i++) {
      bool out = prim != PRIM_COUNT && (is_body_arg(prim, i) || (to_output && passes_acceptor(prim)));
      args[i] = through(t, sp.args[i], out);
      changed |= args[i] != sp.args[i];
    }
    return changed ? respine(t, p, args, sp.nargs) : p;
  }
  case PH_PROJ:
  case PH_UNOP: {
    Phrase *x = through(t, p->fst, false);
    if (x == p->fst) return p;
    Phrase *q = arena_dup(t->arena, p, sizeof *p);
    q->normal_run = 0;
    q->fst = x;
    return q;
  }
  case PH_PAIR:
  case PH_SEQ:
  case PH_ASSIGN:
  case PH_BINOP: {
    Phrase *x = through(t, p->fst, false), *y = through(t, p->snd, false);
    if (x == p->fst && y == p->snd) return p;
    Phrase *q = arena_dup(t->arena, p, sizeof *p);
    q->normal_run = 0;
    q->fst = x;
    q->snd = y;
    return q;
  }
  case PH_COUNT: break;
  }
  INTERNAL("phrase kind %d", (int)p->kind);
}

Phrase *strategy_write_through_known(Arena *a, TypeCtx *tc, Phrase *normal_body, int holds_map) {
  /* only a view map moves: a body without one is given back as it is */
  if (holds_map == 0 || (holds_map < 0 && !contains_prim(normal_body, PRIM_MAP))) return normal_body;
  Through t = {a, tc};
  return through(&t, normal_body, true);
}

Phrase *strategy_write_through(Arena *a, TypeCtx *tc, Phrase *normal_body) {
  return strategy_write_through_known(a, tc, normal_body, -1);
}

bool phrase_is_view(Arena *a, const Phrase *e) { return computing_part(a, e) == NULL; }

/* e's views down to fst y (which 1) or snd y (2): y, or NULL */
static const Phrase *part_of(Arena *a, const Phrase *e, int *which) {
  for (;;) {
    PhraseSpine sp;
    phrase_spine(a, e, &sp);
    if (e->kind != PH_APP || sp.head->kind != PH_PRIM || sp.nargs != 1) return NULL;
    Prim p = sp.head->prim;
    if (p == PRIM_FST || p == PRIM_SND) {
      *which = p == PRIM_FST ? 1 : 2;
      return sp.args[0];
    }
    if (prim_family(p) != PFAM_VIEW || prim_lowered(p) == PRIM_COUNT) return NULL;
    e = sp.args[0];
  }
}

const Phrase *phrase_pair_of_parts(Arena *a, const Phrase *p) {
  PhraseSpine sp;
  phrase_spine(a, p, &sp);
  if (sp.head->kind != PH_PRIM || sp.head->prim != PRIM_PAIR || sp.nargs != 2) return NULL;
  int w1, w2;
  const Phrase *y1 = part_of(a, sp.args[0], &w1), *y2 = part_of(a, sp.args[1], &w2);
  return y1 && y2 && w1 == 1 && w2 == 2 && phrase_alpha_equal(y1, y2) ? y1 : NULL;
}

/* A parallel map runs one work-item (or work-group) an element: over an
 * array of no elements (`take 0`) there would be nothing to launch, or a
 * work-group of no work-items, which OpenCL does not have.  A sequential
 * loop over it is fine: it runs no step. */
static void check_not_empty(Strategy *s, const Phrase *app, const Phrase *head, int nargs) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (role_of(head->prim)) {
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_LOCAL_MAP: break;
  case ROLE_VIEW_MAP:
  case ROLE_SEQ_MAP:
  case ROLE_REDUCE:
  case ROLE_SCAN:
  case ROLE_REDUCE_RANGE:
  case ROLE_WINDOW:
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL:
  case ROLE_TO_PRIVATE:
  case ROLE_VIEW:
  case ROLE_PAD_VIEW:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: return;
  }
  DPIA_EXHAUSTIVE_END
  if (nargs != 2 || !app->type || app->type->kind != PT_EXP) return;
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

/* fn is the mapSeq copying an array literal of computed elements into the
 * private array the checker makes for it (check_lit.c) */
static bool copies_array_literal(const Phrase *fn) {
  while (fn->kind == PH_APP) fn = fn->fst;
  return fn->kind == PH_PRIM && fn->fills_literal;
}

/* mirror xs written through (docs/language.md section 29.1): the
 * work-item that computes element (i, j), j >= i, writes (j, i) too, an
 * element of another row, which every other work-item's part of the
 * result leaves alone (the elements (i, j), j >= i, and their images are
 * disjoint pairs).  That is all the proof needs where the result is
 * written and never read back in the kernel: the kernel's output.  A
 * temporary (toGlobal, toLocal, toPrivate) is read by a later stage,
 * which would find the mirrored half written by other work-items (a
 * barrier, or none across work-groups), and an output that updates an
 * input in place (section 27) is read by other work-items at the
 * elements the mirror writes: both are refused (E0505). */
static void mirror_placement(Strategy *s, const Phrase *head, const Frame *f) {
  const char *why = NULL;
  const Frame *temp = NULL;
  for (const Frame *g = f; g && !temp; g = g->up)
    if (g->role == ROLE_TO_GLOBAL || g->role == ROLE_TO_LOCAL || g->role == ROLE_TO_PRIVATE) temp = g;
  if (temp)
    why = arena_printf(s->arena,
                       "it is written into the temporary of a '%s', which a later stage reads: a work-item would "
                       "read elements of the mirrored half that other work-items wrote; make the mirror the "
                       "kernel's result",
                       prim_info[temp->prim].name);
  if (!why && s->kernel->updates)
    why = arena_printf(s->arena,
                       "kernel '%s' updates its input '%s' in place, and the mirrored half's elements are read as "
                       "inputs by the work-items that own them; write the result to an output of its own (no "
                       "'updates')",
                       s->kernel->name, s->kernel->updates->name);
  if (!why) return;
  s->ok = false;
  if (!first_report(s, head->span)) return;
  diag_error(s->diag, ERR_MIRROR_NOT_OUTPUT, head->span,
             "'mirror' writes element (j, i) from the work-item of element (i, j), a write outside its own part "
             "of the result, which is disjoint from the others' only where nothing reads it back; %s "
             "(docs/language.md section 29.1)",
             why);
  if (temp) diag_note(s->diag, temp->span, "the temporary: the result of this '%s'", prim_info[temp->prim].name);
}

/* not inlined into walk, whose leaves (variables, literals) then cost a
 * call without walk_spine's frame (issue 35) */
static __attribute__((noinline)) void walk_spine(Strategy *s, const Phrase *p, const Frame *f, Position pos) {
  PhraseSpine spine;
  phrase_spine(s->arena, p, &spine);
  const Phrase *head = spine.head;
  int nargs = spine.nargs;
  const Phrase *const *args = (const Phrase *const *)spine.args;
  /* the spine's applications but p, and its head (Strategy.looking): a
   * lambda or def applied is a redex, a plain map is written through */
  s->nodes += nargs;
  if (s->looking &&
      ((nargs && (head->kind == PH_LAM || head->kind == PH_DEF)) || (head->kind == PH_PRIM && head->prim == PRIM_MAP))) {
    s->not_as_is = true;
    return;
  }
  if (head->kind == PH_LAM && head->shares && nargs == 1) {
    /* a sharing let (normalize.c): its body is where the let is */
    walk(s, head->body, f, pos);
    walk(s, args[0], f, (Position){false, head->span, PRIM_COUNT, head->prelude, NULL});
    return;
  }
  if (head->kind != PH_PRIM) {
    walk(s, head, f, (Position){false, head->span, PRIM_COUNT, head->prelude, NULL});
    for (int i = 0; i < nargs; i++) walk(s, args[i], f, (Position){false, head->span, PRIM_COUNT, head->prelude, NULL});
    return;
  }
  const Phrase *parts = !f && pos.to_output && s->kernel->nregions > 1 ? phrase_pair_of_parts(s->arena, p) : NULL;
  if (parts) {
    /* the regions of an in-place kernel written by one value's parts
     * through views (phrase_pair_of_parts): the value is written, once */
    if (s->looking) {
      s->not_as_is = true; /* not all of p walked: not known */
      return;
    }
    walk(s, parts, f, pos);
    return;
  }
  Prim prim = head->prim;
  if (!s->every_rule && anywhere(prim)) {
    bool through = pos.to_output && passes_acceptor(prim);
    for (int i = 0; i < nargs; i++) walk(s, args[i], f, (Position){through, head->span, prim, head->prelude, NULL});
    return;
  }
  check_placement(s, head, &spine, f);
  check_not_empty(s, p, head, nargs);
  Role role = role_of(prim);
  if (is_grid_map(role) && grid_context(f) && !pos.to_output) {
    /* spec section 5: no barrier across work-groups, at the top of the
     * kernel or inside another grid-level map */
    s->ok = false;
    if (first_report(s, head->span)) {
      const char *name = construct_name(s->arena, prim, head->dim, head->span);
      diag_error(s->diag, ERR_NO_BARRIER, head->span,
                 "the result of this '%s' is read by a later stage of the same kernel, but OpenCL has no barrier "
                 "across work-groups; split the computation into two kernels",
                 name);
      if (pos.reader_prim != PRIM_COUNT) reader_note(s, pos, name);
    }
  }
  if (prim == PRIM_SCATTER && !pos.to_output) {
    /* scatter has an acceptor form only (docs/language.md section 29):
     * element j of its result is the element whose position is j, which
     * no index expression finds without the inverse permutation */
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_CODEGEN_UNSUPPORTED, head->span,
                 "the result of 'scatter' is read here, but a scatter is only written: make it the result of the "
                 "kernel or of the function of a toGlobal, toLocal or toPrivate, through views that are written "
                 "through");
  }
  if (prim == PRIM_MIRROR && !pos.to_output) {
    /* mirror is only written, as scatter (docs/language.md section 29.1) */
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_CODEGEN_UNSUPPORTED, head->span,
                 "the result of 'mirror' is read here, but a mirror is only written: make it the result of the "
                 "kernel, through views that are written through");
  }
  if (prim == PRIM_MIRROR && pos.to_output) mirror_placement(s, head, f);
  if (prim == PRIM_DEP_JOIN && !pos.to_output) {
    /* depJoin is written through (docs/language.md section 30.2):
     * element j of its result is in the row whose offset is the last at
     * or below j, a quadratic's root for rows of sizes a + b*i, which no
     * index expression of code generation computes */
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_DEP_JOIN_READ, head->span,
                 "the result of 'depJoin' is read here, but a depJoin is only written: make it the result of the "
                 "kernel or of the function of a toGlobal, toLocal or toPrivate, through views that are written "
                 "through");
  }
  const Frame *g = innermost_grid(f);
  /* Does it make a temporary in global or local memory, and what does it
   * keep in private memory?  Private memory has constant sizes (spec
   * section 8: a newPrivate array of constant size is a private array): a
   * toPrivate result, a temporary inside a toPrivate and a reduction's
   * array accumulator of symbolic size cannot be generated, so check
   * rejects them below rather than translate later. */
  bool materialises = false;
  const DataType *private_t = NULL;
  DPIA_EXHAUSTIVE_BEGIN
  switch (role) {
  case ROLE_TO_GLOBAL:
  case ROLE_TO_LOCAL: materialises = true; break;
  case ROLE_TO_PRIVATE:
    if (nargs == 2) private_t = p->type->data;
    break;
  case ROLE_SEQ_MAP:
  case ROLE_GLOBAL_MAP:
  case ROLE_WORKGROUP_MAP:
  case ROLE_LOCAL_MAP:
    /* C[[map]] makes a temporary in the memory around it (stage I); A[[map]] writes the output */
    if (pos.to_output) break;
    if (!temp_in_private(f, g))
      materialises = true;
    else if (nargs == 2)
      private_t = p->type->data;
    break;
  case ROLE_REDUCE:
    /* a mapLocal's accumulator is local (docs/language.md); a scalar one,
     * of no array and no row, passes every test of private_t below either
     * way: not looked for there (issue 35) */
    if (nargs == 3 &&
        (dt_resolve(args[1]->type->data)->kind == DT_SCALAR || !contains_prim(args[0], PRIM_MAP_LOCAL)))
      private_t = args[1]->type->data;
    break;
  case ROLE_REDUCE_RANGE:
    /* its accumulator is private (stage1.c, reduce_range) */
    if (nargs == 5) private_t = args[1]->type->data;
    break;
  case ROLE_SCAN:
    /* its result like a mapSeq's; its accumulator is private (stage1.c, scan_seq) */
    if (nargs != 3) break;
    if (!pos.to_output && !temp_in_private(f, g))
      materialises = true;
    private_t = !pos.to_output && temp_in_private(f, g) ? p->type->data : args[1]->type->data;
    break;
  case ROLE_WINDOW: {
    /* its result like a mapSeq's; its window, [s]a, the type its function
     * takes, is private (stage2.c, lower_slide_seq_i): of a constant size,
     * which the result in private memory must be too */
    if (nargs != 2) break;
    bool in_private = !pos.to_output && temp_in_private(f, g);
    if (!pos.to_output && !in_private) materialises = true;
    const DataType *window = args[0]->type->fst->data;
    private_t = in_private && has_symbolic_array(p->type->data) ? p->type->data : window;
    break;
  }
  /* a view map: no loop and no memory, its function only rearranges */
  case ROLE_VIEW_MAP:
  case ROLE_VIEW:
  case ROLE_PAD_VIEW:
  case ROLE_SCALAR:
  case ROLE_IMPERATIVE: break;
  }
  DPIA_EXHAUSTIVE_END
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
  /* a parallel map over a row-sized array inside a dependent map: its
   * work-items or groups would be as many as the row has elements, a
   * number that differs by row, where OpenCL launches one grid for all */
  bool parallel = role == ROLE_GLOBAL_MAP || role == ROLE_WORKGROUP_MAP || role == ROLE_LOCAL_MAP;
  const DataType *over = parallel && nargs == 2 && args[1]->type->kind == PT_EXP ? dt_resolve(args[1]->type->data) : NULL;
  for (const Frame *fr = f; over && over->kind == DT_ARRAY && fr; fr = fr->up) {
    if (!fr->row || !size_has_var(over->size, fr->row)) continue;
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_DEP_ROW_PARALLEL, head->span,
                 "'%s' maps %s, a row of the dependent map around it: its work-items would be as many as the row "
                 "has elements, which differs by row, and OpenCL launches one grid for all rows; map the row "
                 "with mapSeq",
                 construct_name(s->arena, prim, head->dim, head->span), dt_str(s->arena, over));
    break;
  }
  /* memory whose size uses a dependent map's row (docs/language.md
   * section 30): each row's would be of its own size, and dpia places
   * memory only of one size for all of them (a global temporary is
   * widened by the map's iterations, a private one has a constant size) */
  const DataType *kept = private_t ? private_t : materialises && p->type->kind == PT_EXP ? p->type->data : NULL;
  for (const Frame *fr = f; kept && fr; fr = fr->up) {
    if (!fr->row || !dt_has_size_var(kept, fr->row)) continue;
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_DEPENDENT_RESULT, head->span,
                 "'%s' keeps %s in memory, whose size uses the row of the dependent map around it: dpia gives no "
                 "memory a row's size yet; reduce each element where it is computed, inside the map's function",
                 construct_name(s->arena, prim, head->dim, head->span), dt_str(s->arena, kept));
    break;
  }
  /* a dependent array in memory (a dependent map's result read by a later
   * stage): its rows differ in size, and dpia places memory of one type;
   * depJoin writes them into an array (docs/language.md section 30.2).
   * Not after another error: a read of a depJoin (E0412) is what keeps
   * its argument in memory */
  if (kept && dt_has_deparray(kept) && s->ok) {
    s->ok = false;
    if (first_report(s, head->span))
      diag_error(s->diag, ERR_DEPENDENT_RESULT, head->span,
                 "'%s' keeps %s in memory, a dependent array, whose rows differ in size: dpia gives memory to no "
                 "dependent array; read its rows where they are computed, or store them packed with depJoin",
                 construct_name(s->arena, prim, head->dim, head->span), dt_str(s->arena, kept));
  }
  /* is_body_arg(prim, i) is i == 0 && computes: the primitive's part
   * asked once a spine, as whether its other arguments pass the acceptor
   * on (a call each per argument were a tenth of the walk, issue 35) */
  bool computes = prim_computes(prim);
  bool body_has_grid = nargs > 0 && computes && grid_below(s, f, args[0]);
  bool sequential_temp = materialises && !is_grid_map(role) && !body_has_grid;
  if (!g && sequential_temp && kernel_has_grid(s)) {
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
  bool result_in_private = !f && role == ROLE_TO_PRIVATE && pos.to_output; /* reported below */
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
    bool report = first_report(s, head->span);
    if (report && copies_array_literal(args[0])) {
      /* the toPrivate is the checker's, not the program's (check_lit.c,
       * elab_computed_array): the message names the literal written */
      diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                 "this array literal of computed elements is built in private memory (docs/language.md section 13), "
                 "but here it is written into the result of kernel '%s', in global memory (the output buffer): copy "
                 "it with a grid-level map (`mapGlobal (\\x -> x)`) or, if its elements compute nothing, write it "
                 "as a view of its positions (`indices n |> map (\\j -> c)`)",
                 s->kernel->name);
    } else if (report) {
      diag_error(s->diag, ERR_BAD_ADDRESS_SPACE, head->span,
                 "the result of kernel '%s' would be produced in private memory; a kernel's result is written to "
                 "global memory (the output buffer): remove this toPrivate",
                 s->kernel->name);
    }
  }
  Frame inner = {prim, role, head->dim, head->span, f, false, head->dep_index, false};
  bool through = pos.to_output && passes_acceptor(prim);
  for (int i = 0; i < nargs; i++) {
    if (i == 0 && computes) {
      bool grid = body_has_grid;
      inner.has_nested_grid = is_grid_map(role) && grid;
      inner.gridless = !grid;
      /* a misplaced toPrivate was reported: its body is not checked as
       * private code again (no cascade) */
      walk(s, args[i], result_in_private ? f : &inner, (Position){true, head->span, prim, head->prelude, NULL});
    } else {
      Position arg = {through, head->span, prim, head->prelude, NULL};
      if (prim == PRIM_MAP && i == 1)
        arg.reader_why = computing_fn(s->arena, args[0]) ? "it computes" : not_through_fn(s->arena, args[0]);
      walk(s, args[i], f, arg);
    }
  }
}

static void walk(Strategy *s, const Phrase *p, const Frame *f, Position pos) {
  if (s->not_as_is) return;
  s->nodes++;
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT: return;
  case PH_DEF: s->not_as_is = s->looking; return;
  case PH_PRIM:
  case PH_APP: walk_spine(s, p, f, pos); return;
  case PH_LAM: walk(s, p->body, f, pos); return;
  case PH_PROJ:
    if (s->looking && p->fst->kind == PH_PAIR) { /* a redex of the pair */
      s->not_as_is = true;
      return;
    }
    /* fall through */
  case PH_UNOP: walk(s, p->fst, f, (Position){false, p->span, PRIM_COUNT, p->prelude, NULL}); return;
  default:
    walk(s, p->fst, f, (Position){false, p->span, PRIM_COUNT, p->prelude, NULL});
    walk(s, p->snd, f, (Position){false, p->span, PRIM_COUNT, p->prelude, NULL});
    return;
  }
}

bool strategy_check_kernel(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body) {
  return strategy_check_high_level(a, diag, kernel, normal_body, false, NULL);
}

static bool check_high_level(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                             Span *unlowered, bool every_rule) {
  Strategy s = {a,           diag,       kernel, true,       every_rule ? contains_grid_map(normal_body) : -1,
                normal_body, every_rule, {0},    high_level, {0},
                false,       false,      0};
  walk(&s, normal_body, NULL, (Position){true, normal_body->span, PRIM_COUNT, NULL, NULL});
  if (unlowered) *unlowered = s.unlowered;
  return s.ok;
}

bool strategy_check_high_level(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                               Span *unlowered) {
  return check_high_level(a, diag, kernel, normal_body, high_level, unlowered, false);
}

bool strategy_check_every_rule(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                               Span *unlowered) {
  return check_high_level(a, diag, kernel, normal_body, high_level, unlowered, true);
}

Phrase *strategy_check_normal_as_is(Arena *a, TypeCtx *tc, const Diag *diag, DefInfo *kernel, bool high_level,
                                    Span *unlowered) {
  /* reported into a list of its own: a body found not normal on the way
   * is checked again after normalisation, whose messages are the ones */
  Diag quiet;
  diag_init(&quiet, a);
  quiet.depth_scale = diag->depth_scale;
  Phrase *body = kernel->body;
  Strategy s = {a, &quiet, kernel, true, -1, body, false, {0}, high_level, {0}, true, false, 0};
  walk(&s, body, NULL, (Position){true, body->span, PRIM_COUNT, NULL, NULL});
  /* already_normal's depth limit (levels = max_depth - 1 at the root),
   * which no path of fewer nodes than walked reaches */
  if (s.not_as_is || !s.ok || quiet.first || s.nodes >= diag_depth_limit(diag, DPIA_MAX_NORMAL_DEPTH)) return NULL;
  /* as normalize_def: a run of its own, the reach its walk would find
   * (a bound on the result's nodes) */
  tc->norm_runs++;
  tc->norm_reach = s.nodes;
  if (unlowered) *unlowered = s.unlowered;
  return body;
}
