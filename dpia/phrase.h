/* phrase.h: elaborated DPIA phrases, the typed core language that the
 * checker produces and the translation consumes.
 *
 * A phrase is the paper's term language (Figure 3 plus the primitives of
 * Figure 4): identifiers, lambdas, applications, phrase pairs and
 * projections, and primitives with their implicit size and type arguments
 * made explicit (as the instantiated type of the primitive).  Functional
 * and imperative DPIA are one language, so one type serves both; the C-level
 * imperative IR of code generation is separate (codegen/).
 *
 * Surface sugar is gone: `x |> f` is an application, `let x = a in b` is
 * (\x -> b) a, `f >> g` is \x -> g (f x), `(a, b)` is pair a b.  Binary
 * operators stay as PH_BINOP for readability of the dumps.  Every phrase
 * carries its (zonked) type and the span of the source it came from. */
#ifndef DPIA_PHRASE_H
#define DPIA_PHRASE_H

#include "precond.h"
#include "types.h"

/* A binding occurrence: lambda parameter, def parameter or kernel input.
 * Identity is the pointer; the name is for printing. */
typedef struct Binder {
  Sym name;
  Span span;
  PhraseType *type;
  int id; /* unique within a translation, for deterministic renaming */
  /* the variables the translation's builder made of it (translate/build.c,
   * b_var): with exactly one, stage I applies a continuation \x -> body
   * by overwriting that one node, without copying body (stage1.c,
   * apply_k); copies of the binder start at 0 */
  int nuses;
  struct Phrase *sole_use;
  /* a kernel-scope local buffer made by allocation hoisting: the index
   * binders of the loops (parallel and sequential) its newLocal was moved
   * out of, where it was allocated afresh in every iteration (hoist.c;
   * code generation lets buffers whose lifetimes do not overlap share) */
  const struct Binder **hoisted_from;
  int nhoisted_from;
  /* while phrase_invariant_violation walks a def: the enclosing lambdas
   * (or the def's parameters) that bind it, 0 outside them and after the
   * walk (invariant.c; here, in what was padding) */
  int in_scope;
  /* a work-group's accumulator whose every access is a work-item's own
   * element: the dimensions of the nested parforLocals (outermost first,
   * nowned_by of them) through whose indices every read and write reaches
   * it (translate/stage2.c, scir_owned_by_items), so that code generation
   * may keep each work-item's element in its private memory
   * (codegen/locals.c); 0: none */
  const int *owned_by;
  int nowned_by;
  /* a kernel input declared a permutation (`permutation p`,
   * docs/language.md section 29): its elements are distinct, so the
   * acceptor view scatterAcc p is a bijection (scir.c) */
  bool permutation;
  /* the variable of a newLocal made by toLocalVolatile (docs/language.md
   * section 32): code generation declares its buffer volatile, and lets
   * it share a declaration only with buffers that are volatile too
   * (codegen/locals.c).  It changes no access and no barrier */
  bool volatile_local;
} Binder;

typedef struct Decl Decl;
typedef struct DefInfo DefInfo;

#define DPIA_PHRASE_TERM_KINDS(X)                                                 \
  X(VAR)    /* binder */                                                          \
  X(LIT)    /* lit_int or lit_float (lit_is_float), type exp[scalar or vector];  \
               an index exp[idx[n]]: lit_int, or lit_size (lit_is_size) */    \
  X(PRIM)   /* prim, dim, type = the instantiated type of the primitive */        \
  X(DEF)    /* def, subst: a use of a def, with its nat/data parameters */        \
  X(LAM)    /* binder, body; promoted: checked against a ->p type */              \
  X(APP)    /* fn, arg */                                                         \
  X(PAIR)   /* fst, snd: phrase pair {fst, snd} */                                \
  X(PROJ)   /* fst, index (1 or 2): fst.1, fst.2 */                               \
  X(SEQ)    /* fst; snd */                                                        \
  X(ASSIGN) /* fst := snd (scalar or vector data; compound is expanded later) */  \
  X(BINOP)  /* op, fst, snd */                                                    \
  X(UNOP)   /* unop ('-' or '!'), fst */

typedef enum PhraseTermKind {
#define X(id) PH_##id,
  DPIA_PHRASE_TERM_KINDS(X)
#undef X
  PH_COUNT
} PhraseTermKind;
extern const char *const phrase_kind_name[PH_COUNT];

typedef struct Phrase Phrase;
struct Phrase {
  PhraseTermKind kind;
  int normal_run; /* the normalisation (TypeCtx.norm_runs) that made it or
                     found it normal, which then takes it as it is
                     (normalize.c); 0 for none */
  Span span;
  PhraseType *type;
  /* copied from the body of this prelude def, at a use whose span it
   * takes (normalize.c): messages about it name the def, not its parts */
  const struct DefInfo *prelude;
  union {
    Binder *binder;                     /* VAR */
    struct {                            /* LIT */
      int64_t lit_int;
      double lit_float;
      bool lit_is_float;                /* written with a '.' or exponent */
      bool lit_is_size;                 /* an index given by a size expression,
                                           lit_size (idx row (N - 1)) */
      Size lit_size;
      /* an array literal (docs/language.md section 13), type
       * exp[[n1]...[nk]s]: its lit_nelems = n1*...*nk scalar elements in
       * row-major order, each a scalar PH_LIT; lit_name the name the
       * program gave it (a let), for its constant array, or NULL */
      int lit_nelems;
      Phrase **lit_elems;
      Sym lit_name;
    };
    struct {                            /* PRIM */
      Prim prim;
      int dim;
      Size sizes[PRIM_MAX_SIZES];       /* static size arguments (split k) */
      DataType *type_arg;               /* new T */
      bool volatile_new;                /* newLocal volatile T (a program
                                           printed by the translation): its
                                           variable is volatile_local */
      const char *origin;               /* for: the source primitive the loop
                                           comes from (mapSeq, reduceSeq), for
                                           its comment; NULL when unknown.
                                           mapSeq, mapISeq: "array literal"
                                           when it fills a literal of computed
                                           elements (check.c) */
      bool fills_literal;               /* mapSeq, mapISeq, for: the loop fills
                                           an array literal of computed
                                           elements (check_lit.c), which code
                                           generation unrolls */
      bool copies_array;                /* for: the loop copies an array
                                           value into an acceptor, element by
                                           element (translate/build.c,
                                           b_assign), which code generation
                                           writes out when it is short */
      const DefInfo *foreign;           /* PRIM_FOREIGN: the foreign function's
                                           declaration (its name, parameters,
                                           body) */
      const Phrase *shared_by;          /* reduceI: the mapLocal primitive
                                           through which the work-items of a
                                           group write its accumulator, which
                                           is then newLocal (stage1.c) */
      const Phrase *const *shared_nest; /* reduceI updated in place through
                                           nested mapLocals (stage1.c,
                                           local_nest): their primitives,
                                           outermost first, which stage II
                                           initialises the accumulator with,
                                           each work-item its own element */
      int shared_depth;                 /* how many (0: none; else >= 2) */
      Sym dep_index;                    /* depMapSeq, depMapGlobal,
                                           depMapWorkgroup, and the mapI, for
                                           and parfor they become: the size
                                           variable that is the loop's index,
                                           which the types of its body use
                                           for the row's index (check.c,
                                           dep_map_type; docs/language.md
                                           section 30); idx of a dependent
                                           array: the row it takes; NULL
                                           otherwise */
    };
    struct {                            /* DEF */
      DefInfo *def;
      TypeSubst *subst;                 /* values of the def's nat/data params */
      int nsizes_given;                 /* the leading nat params written at
                                           this use (firstN 3 xs: 1) */
    };
    struct {                            /* LAM */
      Binder *lam_binder;
      Phrase *body;
      bool promoted;                    /* type is ->p: SCIR Promote applies */
      bool shares;                      /* applied to an argument that is
                                           evaluated once, into a private
                                           variable: a sharing let
                                           (normalize.c, docs/language.md) */
    };
    struct {                            /* APP PAIR PROJ SEQ ASSIGN BINOP UNOP */
      Phrase *fst, *snd;                /* APP: fn = fst, arg = snd */
      int index;                        /* PROJ */
      BinOp op;                         /* BINOP */
      char unop;                        /* UNOP: '-' or '!' */
    };
  };
};

/* The spine of an application f a1 ... an: its head f (no application)
 * and its arguments in order; a phrase that is no application is a head
 * with no arguments.  The passes that look at a primitive with its
 * arguments (strategy rules, stage I, stage II, code generation) take
 * applications apart with this one walk. */
typedef struct PhraseSpine {
  Phrase *head;
  int nargs;
  Phrase **args; /* args[0..nargs): in few_args, or in the arena when more */
  /* most spines are a primitive and its few arguments: no allocation */
  Phrase *few_args[6];
} PhraseSpine;
/* Fills s with p's spine; there is no limit on the number of arguments.
 * s->args may point into s itself: use s, not a copy of it.  Like strchr,
 * it gives p's own phrases whatever p's constness: a pass that must not
 * change them reads them through const pointers. */
void phrase_spine(Arena *a, const Phrase *p, PhraseSpine *s);
/* the variables of binder x in p */
int phrase_uses(const Phrase *p, const Binder *x);
/* a and b are the same phrase up to the names of their bound variables
 * (a copy, phrase_copy: normalize.c copies a let's value into each use) */
bool phrase_alpha_equal(const Phrase *a, const Phrase *b);
/* a primitive for which pred holds anywhere in p */
bool phrase_has_prim(const Phrase *p, bool (*pred)(Prim));
/* a map, reduction or materialisation anywhere in p (prim_computes) */
bool phrase_computes(const Phrase *p);
/* p is an expression or an acceptor: a value, which holds no command.
 * Every primitive that takes a command (or a function giving one) gives a
 * command itself (prims.h: new*, for, parfor, if and the intermediate
 * combinators), and the translation applies no lambda to a command, so
 * no command is below a phrase of type exp[d] or acc[d].  A pass that
 * rewrites commands only (stage II's own_condition, hoisting's
 * allocations) need not walk a value, which stage II shares at each of
 * its uses: a DAG walked as a tree (issue 35).  Test prims-table checks
 * the primitives' side, phrase_invariant_violation the rest between the
 * stages (no value applies anything to a command). */
static inline bool phrase_is_value(const Phrase *p) {
  return p->type && (p->type->kind == PT_EXP || p->type->kind == PT_ACC);
}
/* t is a command, or a function or pair with one in its type: what
 * phrase_is_value's argument says no value holds (invariant.c checks the
 * phrases, test prims-table the primitives) */
static inline bool phrase_type_holds_comm(const PhraseType *t) {
  switch (t->kind) {
  case PT_EXP:
  case PT_ACC: return false;
  case PT_COMM: return true;
  case PT_WITH:
  case PT_FN:
  case PT_FN_P: return phrase_type_holds_comm(t->fst) || phrase_type_holds_comm(t->snd);
  }
  return true;
}
/* literal p holds the size k: its constant when k is one, else k itself
 * (lit_is_size: an index or int whose value is a size, `idx row (N - 1)`) */
void phrase_set_size_literal(Phrase *p, Size k);

/* The translation stages whose output phrase_invariant_violation checks */
typedef enum PhraseStage {
  PHRASE_INTERMEDIATE, /* after stage I: mapI, reduceI */
  PHRASE_IMPERATIVE,   /* after stage II: for, parfor */
  PHRASE_HOISTED,      /* after hoisting */
} PhraseStage;

/* The most parameters a foreign function may have (the interpreters call
 * it with an array of its arguments). */
enum { FOREIGN_MAX_ARGS = 8 };

/* A checked declaration. */
/* one region of an in-place kernel, checked (DefInfo.regions) */
typedef struct Region {
  int ndims;
  Size lo[DECL_MAX_REGION], len[DECL_MAX_REGION], rest[DECL_MAX_REGION];
} Region;

struct DefInfo {
  const Decl *decl;
  Sym name;
  bool is_kernel;
  bool is_pipeline;        /* a pipeline (pipeline.h); never also is_kernel */
  bool is_foreign;         /* a foreign function: decl->foreign_body, no body */
  struct Pipeline *pipeline; /* a pipeline checked without errors: its launches */
  bool ok;                 /* checked without errors */
  int nsize_params, ndata_params;
  Sym *size_params;        /* the def's (N: nat) parameters, in order */
  Sym *data_params;        /* the def's (d: data) parameters */
  int nparams;             /* phrase parameters */
  Binder **params;
  PhraseType *type;        /* full type: params -> result */
  PhraseType *result;
  Phrase *body;            /* checked body; params bound by params[] */
  /* kernels: preconditions over the nat params (precond.h), deduped, in
   * the order they arose, each with the construct requiring it (spec
   * section 3, metadata "preconditions") */
  int nprecond;
  const Precond *preconds;
  /* the same requirements as sizes over the nat parameters, instantiated at
   * every use of a def (positive: >= 1; else: a natural number) */
  int nreqs;
  Size *req_sizes;
  bool *req_positive;
  /* a kernel computing in place (`updates xs`, docs/language.md section
   * 27): the parameter whose buffer the output is, NULL for none; with
   * regions, region k's value fills elements lo[d] to lo[d] + len[d] - 1
   * of its dimensions d < ndims, rest[d] elements after them (the sizes
   * of sliceAcc o m r, translate/stage1.c); with several, the result is
   * the tuple of the regions' values (pairs nested to the right), the
   * regions pairwise disjoint (check_clauses.c) */
  Binder *updates;
  /* `updates x, b` (docs/language.md section 27): every input updated,
   * updated[0] == updates; the result is the tuple of their new values
   * (pairs nested to the right), no regions */
  int nupdated;
  Binder *updated[DECL_MAX_UPDATED];
  /* with several work-groups, each group reads xs before its barrier only
   * where no other group writes (translate/in_place_groups.c): the staged
   * rule of codegen/in_place.c then holds across groups */
  bool groups_own;
  /* when groups_own is not shown: the read of xs that breaks it (a view
   * of xs neither outside the region nor in the part the reading group
   * writes), for E0705 to name; no src when no read is at fault (the
   * result is not written through views the proof follows) */
  Span groups_culprit;
  int nregions;
  Region regions[DECL_MAX_REGIONS];
};

/* the tuple of the types of the inputs `updates x, b` names, pairs nested
 * to the right (xs's type for one): the result's type without regions */
static inline DataType *def_updated_type(TypeCtx *tc, const DefInfo *def) {
  DataType *t = dt_resolve(def->updated[def->nupdated - 1]->type->data);
  for (int k = def->nupdated - 2; k >= 0; k--) t = dt_pair(tc, dt_resolve(def->updated[k]->type->data), t);
  return t;
}

/* invariant.c: what is wrong with def, the output of stage, or NULL when
 * its invariants hold: every phrase has a type, a lambda's is a function
 * type, a command's is comm, every variable is in the scope of its binder
 * (an enclosing lambda or a parameter of def) and none is of a
 * continuation parameter stage I consumed (Binder.nuses -1: its one
 * variable overwritten, translate/stage1.c apply_k), no value is applied
 * to a command (phrase_is_value), and no primitive that the
 * stages so far translate away is left (functional maps, reductions and
 * toX after stage I, mapI and reduceI after stage II, newGlobal after
 * hoisting).  The driver checks it between the passes in debug builds
 * (DPIA_CHECK_INVARIANTS). */
const char *phrase_invariant_violation(Arena *a, const DefInfo *def, PhraseStage stage);
/* The same for def, the output of stage made from before, the output of
 * before_stage whose invariants hold: where the stage gave back before's
 * very body and parameters (hoisting where there is no memory to hoist),
 * only the primitives the stage should have removed are looked for, the
 * rest holding as it held for before (issue 35: a second walk of the
 * whole program).  Hoisting's output is walked together with before's
 * (invariant.c, walk_both): a phrase of before given back as it is, under
 * at least the binders that bound it there, is looked into for those
 * primitives only, the paths hoisting made anew in full.  Else
 * phrase_invariant_violation. */
const char *phrase_invariant_violation_after(Arena *a, const DefInfo *def, PhraseStage stage, const DefInfo *before,
                                             PhraseStage before_stage);
/* a primitive the stages up to stage translate away (invariant.c) */
bool phrase_left_over(Prim prim, PhraseStage stage);
/* What the check of a program met besides a violation, for the check of
 * the next stage's output: known where it walked every phrase (not where
 * it took before's very phrases, walk_left_over), then whether a
 * newGlobal is among them */
typedef struct PhraseFound {
  bool known;
  bool new_global;
} PhraseFound;
/* phrase_invariant_violation_after, with what the check of before found
 * (in_before, or NULL: not known), and what this one finds (found, if not
 * NULL): where before holds no newGlobal, a phrase of before hoisting
 * gives back as it is is not looked into for one, the one primitive
 * hoisting removes (issue 35: a walk of most of the program, found
 * already by the walk of stage II's output) */
const char *phrase_invariant_violation_noting(Arena *a, const DefInfo *def, PhraseStage stage, const DefInfo *before,
                                              PhraseStage before_stage, const PhraseFound *in_before,
                                              PhraseFound *found);

#endif
