/* check_int.h: private interface between check.c (elaboration of the
 * surface tree; literals and operators in check_ops.c, array literals and
 * foreign functions in check_lit.c) and unify.c (metavariables,
 * unification, zonking, deferred constraints, requirements).  Not part of
 * the library's interface: only those files (and prim_type.c) include it. */
#ifndef DPIA_CHECK_INT_H
#define DPIA_CHECK_INT_H

#include "check.h"

typedef struct SizeMeta {
  Sym name; /* text: unique in the checker, not interned (fresh_size_meta) */
  int index; /* in the checker's size_metas */
  bool solved;
  Size value;
  /* value has no metavariable (solved from an equation whose other side
   * had none, unify_size): value is its own zonk, lasting */
  bool value_ground;
  Span origin;
  char text[16]; /* ?n<k> */
} SizeMeta;

/* A size that must be a natural number (kind NATURAL) or at least one
 * (POSITIVE), recorded where it arose. */
typedef enum ReqKind { REQ_NATURAL, REQ_POSITIVE } ReqKind;
typedef struct Requirement {
  ReqKind kind;
  Size size;
  Span span;
  const char *what; /* "split 3", for messages */
  bool ground;      /* size is known to have no metavariable: its own zonk */
} Requirement;

/* Deferred constraints between data metavariables (woken when one side is
 * known):  VECTOR_OF: vec = scalar<width>;  CONVERT: dst = target<width of
 * src>;  LANE: lane `width` of the vector a has type b (a's scalar), and a
 * has that lane (v.z, docs/language.md section 11). */
typedef enum DeferKind { DEFER_VECTOR_OF, DEFER_CONVERT, DEFER_LANE } DeferKind;
typedef struct Deferred {
  DeferKind kind;
  DataType *a, *b; /* VECTOR_OF: scalar, vector; CONVERT: src, dst; LANE: vector, lane */
  Size width;      /* VECTOR_OF; LANE: the lane */
  ScalarKind target;
  Span span;
  bool done;
} Deferred;

typedef struct Postponed {
  Size lhs, rhs;
  Span span;
} Postponed;

/* zonk_size's results by size, valid while no more metavariables are
 * solved: a direct-mapped cache (translation throughput, bench/check_bench: the
 * same sizes are zonked at every phrase that mentions them).  It lives
 * outside the Checker, which nested defs save and restore, so that its
 * stamp only grows. */
enum { ZONK_MEMO_SIZE = 512 };
/* the stamp of an entry whose zonk met no metavariable that was not
 * solved: it holds however many more are solved (unify.c, zonk_size) */
#define ZONK_LASTING (~0UL)
typedef struct ZonkMemo {
  unsigned long solved; /* metavariables solved so far: the stamp of valid entries */
  struct {
    const SizeTerm *terms;
    int nterms;
    unsigned long stamp;
    Size value;
  } entry[ZONK_MEMO_SIZE];
} ZonkMemo;


typedef struct Checker {
  ZonkMemo *zonk_memo;
  const TargetNames *names; /* the target language's names (NULL: none) */
  Arena *arena;
  Interner *in;
  Diag *diag;
  TypeCtx *tc;
  const Program *prog;
  DefInfo **defs; /* by declaration index */
  int *state;     /* 0 unchecked, 1 in progress (a template: being
                     expanded), 2 done */
  const Ast **template_lambda; /* by declaration index: a template's
                                  \x y -> body, made at its first use */
  int *decl_slots; /* open addressing by name: declaration index + 1, 0
                      empty; the first declaration of each name */
  size_t decl_mask; /* slots - 1 (a power of two, at least twice ndecls) */
  Vec size_metas; /* SizeMeta* */
  Vec reqs;       /* Requirement* of the current declaration */
  Vec deferred;   /* Deferred* */
  Vec postponed;  /* Postponed* */
  Vec lits;       /* Phrase* literals of the current declaration (range check) */
  Span unify_span; /* where size equations found while unifying arose */
  int current;     /* index of the declaration being checked */
  int depth;
  int def_depth;
  bool failed; /* the current declaration has an error */
  /* the phrases of the current declaration given a row so far
   * (dep_row_given; 0 again after finish_decl, saved with the rest where
   * a def is checked at its first use): dep_scopes walks a body only if
   * there are any */
  int rows_given;
  const TuneSettings *set; /* tune parameters bound to constants; NULL: none */
  /* the lambda of an imperative loop being checked, whose index is a
   * size of its body too (check.c, row_loop) */
  const Ast *loop_lambda;
  const Ast *loop_sized; /* the last such lambda whose body did */
  /* the math primitive (ceil, sqrt, ...) whose float or double argument
   * is being checked, directly, not inside another application: an int
   * there gets a message saying what to write (unify.c, expect_type) */
  const Phrase *floating_arg_of;
  /* a view applied to an application the general path elaborates
   * (check_instance.c, check_view_of_app): the depth of that
   * application's elab_app (0: none), and where its apply_spine would
   * have unified its type with the view's parameter: the requirements
   * made until then (-1: it did not get there) and whether that type was
   * an array of a size known and of elements not known (want_mark_ok) */
  int mark_depth;
  int want_mark;
  bool want_mark_ok;
  Vec tried; /* const Ast*: what those took back (check_instance.c, tried_before) */
  /* how many of those are elaborating what they may take back: a
   * declaration is not checked at its first use meanwhile (elab_def_use,
   * foreign_use fail instead, and the general path checks it) */
  int speculating;
} Checker;

/* ---- check.c ---- */

/* Report an error at span and mark the current declaration as failed. */
void check_error(Checker *c, DiagCode code, Span span, const char *fmt, ...) DPIA_PRINTF(4, 5);

/* ---- check.c, for check_lit.c and check_ops.c ---- */

/* the names in scope, innermost first */
typedef enum EnvKind { ENV_BINDER, ENV_SIZE, ENV_DATA } EnvKind;
typedef struct Env Env;
struct Env {
  Sym name;
  EnvKind kind;
  Binder *binder; /* ENV_BINDER */
  /* ENV_SIZE: a tune parameter bound by --set stands for this constant
   * (check_program_set) */
  bool fixed;
  int64_t value;
  /* ENV_SIZE: the index of a dependent array, [n](\name -> ...), in its
   * element type; ENV_BINDER: the index of an imperative loop, a size of
   * its body too (docs/language.md section 30) */
  bool dep_index;
  bool used_as_size; /* ENV_BINDER with dep_index: a size names it */
  /* ENV_BINDER of `let x = 2.0 in ...`: the number literal (or its
   * negation) x stands for, elaborated afresh at each use (check.c,
   * elab_let; docs/language.md section 11), and how many uses there were */
  const Ast *literal;
  int literal_uses;
  Env *next;
};
Env *env_find(Env *env, Sym name);
Env *env_push(Checker *c, Env *env, Sym name, EnvKind kind, Binder *b);
/* a hint for a name not in scope, or "" (check.c) */
const char *unknown_name_hint(Checker *c, Env *env, Sym name, EnvKind kind);

/* written types and sizes (check_written.c); false or NULL after an error */
bool conv_size(Checker *c, Env *env, const SizeAst *s, Size *out);
DataType *conv_data(Checker *c, Env *env, const TypeAst *t);
PhraseType *conv_phrase(Checker *c, Env *env, const TypeAst *t);
/* The requirements made since first_req of an element whose sizes use
 * the index `index` of n rows (a dependent array's element type, a
 * dependent map's function): each that uses it, made again at its two
 * ends, 0 and n - 1 (it is linear in it, docs/language.md section 30);
 * false after reporting one that is not (E0409). */
bool dep_requirements(Checker *c, int first_req, Size n, Sym index);
/* [n](\written -> elem) for elem whose sizes name the index `index`:
 * the index renamed to its canonical name (dt_dep_index), or the
 * ordinary array [n]elem when elem does not use it */
DataType *dep_abstract(Checker *c, Size n, Sym index, Sym written, DataType *elem);
Phrase *check_mk(Checker *c, PhraseTermKind k, Span span, PhraseType *type);
Binder *check_binder(Checker *c, Sym name, Span span, PhraseType *type);
Phrase *check_infer(Checker *c, Env *env, const Ast *e);
/* p's data type, after reporting what needs a value if p is no expression */
DataType *check_exp_data(Checker *c, Phrase *p, const char *what);
/* a data type written in a declaration (no names in scope), or NULL */
DataType *check_data_type(Checker *c, const TypeAst *t);
/* fn applied to the n (at most 3) elaborated args, unified as written */
Phrase *check_apply(Checker *c, Env *env, Phrase *fn, Phrase **args, int n, Span span);
/* the application e elaborated as elab_app does (want NULL: inferred) */
Phrase *check_app(Checker *c, Env *env, const Ast *e, PhraseType *want);
/* the lambda e elaborated as elab_lambda does against want */
Phrase *check_lambda(Checker *c, Env *env, const Ast *e, PhraseType *want);

/* ---- check_notes.c, for check.c's apply_spine ---- */

/* "mapSeq's function", "the function given to 'f'" */
const char *check_function_role(Checker *c, const Phrase *fn);
/* a reduction or a scan: its function takes the element, then the accumulator */
bool check_is_reduction(const Phrase *fn);
/* after an error inside a reduction's function whose element and
 * accumulator types differ: a note on the order of its parameters */
void check_reduce_order_note(Checker *c, const Phrase *fn, const Ast *arg, const PhraseType *want);

/* ---- check_ops.c ---- */

/* an int, float or bool literal */
Phrase *check_literal(Checker *c, const Ast *e);
/* a binary operator (AST_BINOP) and '-' or '!' (AST_NEG, AST_NOT) */
Phrase *check_binop(Checker *c, Env *env, const Ast *e);
Phrase *check_unop(Checker *c, Env *env, const Ast *e);
/* select's type when its first argument, the elaborated mask, is an int
 * vector: exp[intN] -> exp[v] -> exp[v] -> exp[v], with N in *mask_width;
 * else NULL (select keeps its type in prims.h) and *mask_width 0 */
PhraseType *check_select_type(Checker *c, Phrase *mask, int *mask_width);
/* after select by a mask of width lanes was applied (p): v is a vector of
 * that many lanes, or deferred until it is known */
void check_vector_select(Checker *c, const Phrase *p, int width, Span span);

/* ---- check_lit.c ---- */

/* [e1, ..., en] (docs/language.md section 13) */
Phrase *elab_array(Checker *c, Env *env, const Ast *e);
/* a foreign declaration's type (section 14) into def */
void check_foreign(Checker *c, const Decl *d, DefInfo *def);
/* check.c: what name is in the target language (Checker.names), or NULL
 * if it is free or there is no target */
const char *check_name_use(const Checker *c, const char *name);
/* a use of foreign declaration index given nargs arguments */
Phrase *foreign_use(Checker *c, const Ast *e, int index, int nargs);

/* ---- check_instance.c ---- */

/* e (an application, want as elab_app has it) elaborated by the shortcut
 * when it is a view applied to views and variables of known types: true
 * and *out the phrase (NULL after an error of want), or false, with
 * nothing done, for elab_app's general path */
bool check_shortcut(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out);
/* fn applied to e's arguments where fn takes functions (a map, a
 * reduction, toLocal, ...) and its last value is a variable of known
 * type or such a view: fn's instance matched against it, a metavariable
 * for each data name it does not fix (the functions' results), that
 * argument elaborated (*ready, argument *at) and its requirements
 * recorded; NULL, with nothing done, for elab_app's general path */
Phrase *check_partial(Checker *c, Env *env, const Ast *e, PhraseType *want, int *at, Phrase **ready, Phrase **lam);
/* e, a view of one argument that is an application of a map or of such
 * a view, elaborated with that argument inferred first (want NULL) and
 * the view's instance matched against its type: true and *out (NULL
 * after an error of want), or false, with everything the argument's
 * elaboration did taken back, for elab_app's general path */
bool check_view_of_app(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out);
/* e, a map of a lambda alone (mapLocal (\zs -> body)), checked against
 * want, a function of a known array to a result not known (toLocal's
 * function): true and *out, the map's instance matched against that
 * array and the lambda's body checked first; false, with everything done
 * taken back, for elab_app's general path (asked after check_partial:
 * out of line, as elab_app's and check_partial's calls are hot) */
bool check_map_function(Checker *c, Env *env, const Ast *e, PhraseType *want, Phrase **out);
/* apply_spine at Checker.mark_depth, where it would unify its type t
 * with the one wanted: the mark check_view_of_app keeps */
void check_want_mark(Checker *c, const PhraseType *t);
/* the views it may match: those elab_app applies with no case of its own
 * (not idx, whose index is checked as a size, nor depJoin, whose result
 * is computed); inline, as elab_app asks at every application */
static inline bool check_shortcut_prim(Prim p) {
  const PrimInfo *info = &prim_info[p];
  return info->family == PFAM_VIEW && (info->flags & PF_FUNC) && !info->takes_type && p != PRIM_DEP_JOIN &&
         p != PRIM_LANE;
}

/* ---- check_dep.c ---- */

/* depMapSeq f xs and its levels (docs/language.md section 30), xs
 * elaborated first: fn's type made that of row k, a size variable of its
 * own (fn->dep_index); false after reporting a map of no dependent array
 * or one not given both arguments (E0333).  A function of two
 * parameters, \k row -> body, names the row: *f becomes \row -> body,
 * to be checked in *env, where k is that size */
bool dep_map_type(Checker *c, Env **env, Phrase *fn, Phrase *xs, int nargs, const Ast **f, Span span);
/* mapI f xs out of imperative DPIA (the intermediate program) over a
 * dependent array t: as dep_map_type, f being \x o -> body (or \k x o ->
 * body, naming the row) */
bool dep_map_i_type(Checker *c, Env **env, Phrase *fn, const DataType *t, const DataType *out_t, const Ast **f);
/* parfor out (\k o -> body), out elaborated first: when out is the
 * acceptor of a dependent array, fn's type made that of its rows, o the
 * row k (the loop's index, row_loop), and true; false otherwise */
bool dep_parfor_type(Checker *c, Phrase *fn, Phrase *out, Sym k);
/* the row of a dependent map whose function *f takes params parameters:
 * the name *f gives it first (\k x -> ..., then *f is \x -> ... and *env
 * has k as a size), else a fresh one; NULL after an error */
Sym row_name(Checker *c, Env **env, const Ast **f, const DataType *t, int params, const char *name);
/* after f was checked: the requirements made since first_req made again
 * at the rows' ends, and the map's result made of the rows' type b, the
 * dependent array [n](\k -> b) when b uses k (section 30.2) */
bool dep_map_result(Checker *c, Phrase *fn, int first_req, Span span);
/* after depJoin xs was applied: its result the rows of xs joined, a
 * count that is a size (dt_dep_join); false after reporting an argument
 * that is no dependent array of rows of one element type (E0411) */
bool dep_join_result(Checker *c, Phrase *fn, Span span);
/* idx xs i, xs elaborated first: for a dependent array, fn's type made
 * that of the row i, a loop's index (row_loop), else left as it is;
 * false after reporting any other index of a dependent array (E0336) */
bool dep_idx_type(Checker *c, Env *env, Phrase *fn, Phrase *xs, const Ast *index);
/* fn->dep_index = k, counted in c->rows_given: every phrase of a
 * declaration given a row (Phrase.dep_index) is given it here */
void dep_row_given(Checker *c, Phrase *fn, Sym k);
/* a checked and zonked body: no type outside a dependent map's function
 * names its row (E0335) */
void dep_scopes(Checker *c, const Phrase *body);

/* ---- prim_type.c ---- */

/* The type of primitive p (its sizes and type argument converted) at one
 * use, from its signature in prims.h; NULL after reporting an error at span. */
PhraseType *prim_type(Checker *c, const Phrase *p, Span span);
/* prim_type by the walk of the signature's type alone, without its recipe
 * (the same steps written once per process): for test recipes, which
 * compares the two; and whether p's signature has a recipe */
PhraseType *prim_type_walked(Checker *c, const Phrase *p, Span span);
bool prim_type_has_recipe(Prim prim);

/* The shortcut (check_instance.c): a primitive's instance matched against
 * its arguments' types where they are known (no metavariable in them),
 * instead of made of fresh metavariables and unified with them.  What the
 * general path leaves behind is made the same: the metavariables it would
 * make are counted (so that those made after are numbered as before), the
 * requirements it would record are recorded in its order (a positive
 * static size at the instance, each implicit size natural where the
 * argument fixes it), and the type is the general path's zonk.  Each step
 * answers false, with nothing recorded but what the caller takes back
 * (requirements, metavariables counted), where the general path would
 * do anything else: an error, a size equation it postpones, a constraint
 * left pending. */
enum { INSTANCE_MAX_ARGS = 4, INSTANCE_MAX_SLOTS = 12 };
struct Recipe;
struct PrimSig;
typedef struct InstanceMatch {
  const struct PrimSig *sig;
  const struct Recipe *recipe;
  bool partial; /* set by the caller: a primitive that takes functions */
  Span span;
  int nslots, nargs;
  int base_meta, nclass; /* the data metavariables' numbers before it, its class ones */
  Size size[INSTANCE_MAX_SLOTS];
  DataType *data[INSTANCE_MAX_SLOTS];
  bool solved[INSTANCE_MAX_SLOTS];
  MetaClass cls[INSTANCE_MAX_SLOTS];
} InstanceMatch;
/* prim with its static sizes, applied to nargs arguments, at span (the
 * primitive's): false if the shortcut does not cover it, else its
 * metavariables counted and its instance's requirements recorded */
bool instance_begin(Checker *c, Prim prim, const Size *sizes, int nargs, Span span, InstanceMatch *m);
/* whether instance_begin could cover prim applied to nargs arguments
 * (its static sizes aside) */
bool instance_covers(Prim prim, int nargs);
/* A partial instance (InstanceMatch.partial): prim takes functions, late[i]
 * says which of its nargs parameters (returns nargs; 0 where it is not
 * covered); instance_arg_at matches value parameter i, and instance_end
 * (args[i] NULL for a value not matched, its type made of the names)
 * makes a metavariable for each data name not fixed (an unfixed size
 * fails) */
int instance_partial(Prim prim, int nargs, bool *late);
bool instance_arg_at(Checker *c, InstanceMatch *m, int i, DataType *arg);
/* A map's function checked before the map's instance is made (check_partial):
 * the late parameter i as a lambda is checked against it, exp[d] -> its
 * body inferred (d made of the names known, its result one data name not
 * known); NULL where the parameter is not so */
PhraseType *instance_late_param(Checker *c, const InstanceMatch *m, int i);
/* that data name read off the body's known type t */
bool instance_late_result(Checker *c, InstanceMatch *m, int i, DataType *t);
/* the instance's result's outermost size, when it is an array's whose
 * names are known */
bool instance_result_size(Checker *c, const InstanceMatch *m, Size *out);
/* whether the first parameter's outermost size is an array's whose names
 * are not all known yet (before its argument was matched) */
bool instance_outer_unknown(const InstanceMatch *m);
/* whether each size of the first parameter is one the match could meet
 * (known, a name not known, or a constant times one): not a sum with one
 * not known, which unify_size solves its own way */
bool instance_param_solvable(const InstanceMatch *m);
/* whether the next parameter matches the known type arg, recording the
 * requirements its sizes make */
bool instance_arg(Checker *c, InstanceMatch *m, DataType *arg);
/* the instance's type, the parameters the arguments' types: NULL where a
 * constraint would not settle */
PhraseType *instance_end(Checker *c, InstanceMatch *m, DataType *const *args);
/* does prim's signature defer a constraint that its own application
 * settles (asVector's vector)? */
bool instance_defers(Prim prim);

/* ---- unify.c ---- */

/* A namer for the types of one message (types.h), avoiding the names of
 * the declaration being checked. */
void check_namer(Checker *c, TypeNamer *tn);
/* what a phrase of type t is, for a message of its own: its type, or
 * words where a part is unknown (zonked first) */
const char *check_describe(Checker *c, PhraseType *t);

/* A fresh size metavariable ?n<k>, introduced at origin. */
Sym fresh_size_meta(Checker *c, Span origin);
/* false (after reporting it at span) if size arithmetic overflowed */
bool check_overflow(Checker *c, Span span);
bool unify_data(Checker *c, DataType *a, DataType *b);
/* a == b as phrase types (-> and ->p alike), solving metavariables */
bool unify_phrase_types(Checker *c, PhraseType *a, PhraseType *b);
/* a == b as sizes, solving metavariables (unify.c) */
bool unify_sizes(Checker *c, Size a, Size b, Span span);
/* Unify want with have; report a mismatch at span (ctx, if not NULL,
 * names the context). */
bool expect_type(Checker *c, Span span, PhraseType *want, PhraseType *have, const char *ctx);
/* t with solved metavariables replaced: a new type where t has any */
PhraseType *zonk_phrase_type(Checker *c, PhraseType *t);
/* the same of a data type */
DataType *zonk_data_type(Checker *c, DataType *t);
/* the same of a size */
Size zonk_size(Checker *c, Size s);
/* the same replaced in t itself, and t returned (a copy only after a size
 * overflowed): the final zonk of a checked declaration (finish_decl),
 * whose types are no longer unified; for tests/unit test_zonk, which
 * compares the two */
PhraseType *zonk_phrase_type_in_place(Checker *c, PhraseType *t);
void defer(Checker *c, DeferKind kind, DataType *a, DataType *b, Size width, ScalarKind target, Span span);
bool wake_deferred(Checker *c);
/* Settle a checked declaration: deferred constraints, postponed size
 * equations, literal defaults, zonking, literal ranges, requirements. */
void finish_decl(Checker *c, DefInfo *def);

/* Record that size s must be a natural number or positive (spec section 3). */
void require(Checker *c, ReqKind kind, Size s, Span span, const char *what);
/* require, ground: s is known to have no metavariable (Requirement.ground) */
void require_known(Checker *c, ReqKind kind, Size s, Span span, const char *what, bool ground);
/* a requirement's size zonked: a ground one is its own zonk (the very
 * Size: zonk_size replaces nothing in it), taken without the memo's
 * lookup, or a miss and a scan where the memo has it not (translation
 * throughput; zonked all the same with DpiaOptions.debug_no_shortcuts,
 * which test check-shortcuts compares) */
static inline Size requirement_size(Checker *c, const Requirement *r) {
  return r->ground && !c->tc->no_shortcuts ? r->size : zonk_size(c, r->size);
}

/* check_preconds.c, for finish_decl (settle_requirements): requirement r,
 * the i-th of c->reqs, its size zonked s, settled: its errors reported,
 * its preconditions added to pre */
void settle_requirement(Checker *c, Vec *pre, const Requirement *r, int i, Size s);
/* the preconditions pre made def's: the implied ones dropped,
 * contradictory bounds reported */
void finish_preconds(Checker *c, DefInfo *def, Vec *pre);
/* s as a message prints it */
const char *check_size_str(Checker *c, Size s);

/* check_clauses.c, for check_decl: the kernel's `updates` clause (its
 * parameter and region, with the region's requirements), its
 * `permutation` clauses, and the result against the updated input */
void check_updates_region(Checker *c, Env *env, const Decl *d, DefInfo *def);
void check_permutation_params(Checker *c, const Decl *d, DefInfo *def);
void check_updates_result(Checker *c, const Decl *d, DefInfo *def);

#endif
