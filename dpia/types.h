/* types.h: data types and phrase types (spec section 3, paper Figures 1, 2).
 *
 * Types are arena-allocated and mostly immutable.  During inference the
 * checker uses metavariables: DT_META for data types (a cell that is
 * solved at most once; follow it with dt_resolve) and size variables named
 * "?n..." inside Size values (solved in the checker's size table).  After a
 * declaration is checked, every type it carries is "zonked": no solved
 * metavariable remains (replaced in the type objects themselves, which
 * changes no type's meaning: unify.c, zonk_phrase_type_in_place); from
 * then on they are not changed. */
#ifndef DPIA_TYPES_H
#define DPIA_TYPES_H

#include "ast.h"
#include "size.h"

/* What an unsolved data metavariable may still become. */
typedef enum MetaClass {
  MC_ANY,      /* any data type (a lambda parameter nothing has fixed yet) */
  MC_NUMERIC,  /* int float double or a vector of them (an integer literal) */
  MC_FLOATING, /* float double or a vector of them (a decimal literal, fabs) */
} MetaClass;

typedef struct DataType DataType;
typedef struct DataMeta {
  int id;
  MetaClass cls;
  DataType *solution; /* NULL while unsolved */
  Span origin;        /* what introduced it, for "cannot infer" messages */
  /* set by the checker while it defaults literal types: a pending deferred
   * constraint (a conversion's result, a vector of a scalar) will solve it
   * once its other side is known, so it is not defaulted itself */
  bool awaited;
} DataMeta;

#define DPIA_DATA_KINDS(X)                                             \
  X(SCALAR) /* scalar, width: int float double bool, width 1 or a vector */ \
  X(ARRAY)  /* size, elem: [size]elem */                               \
  X(PAIR)   /* fst, snd: (fst, snd) */                                 \
  X(IDX)    /* size: idx[size] */                                      \
  X(DEPARRAY) /* size, index, name, elem: [size](\name -> elem), a       \
                 dependent array (docs/language.md section 30) */         \
  X(VAR)    /* name: a rigid `data` parameter of a def */              \
  X(META)   /* meta: an inference metavariable */

typedef enum DataKind {
#define X(id) DT_##id,
  DPIA_DATA_KINDS(X)
#undef X
} DataKind;

struct DataType {
  DataKind kind;
  ScalarKind scalar; /* DT_SCALAR */
  int width;         /* DT_SCALAR: 1 for a scalar, 2 3 4 8 16 for a vector */
  /* known to hold no metavariable, data or size, solved or not: the
   * checker's zonk returns it as it is without a walk (unify.c; set by
   * dt_scalar and dt_var, and on the zonk's results).  False says nothing.
   * A ground type is never changed, so it stays ground. */
  bool ground;
  Size size;         /* DT_ARRAY, DT_DEPARRAY, DT_IDX */
  DataType *elem;    /* DT_ARRAY, DT_DEPARRAY */
  DataType *fst, *snd; /* DT_PAIR */
  Sym name;          /* DT_VAR; DT_DEPARRAY: the index as written, for printing */
  Sym index;         /* DT_DEPARRAY: the index as elem's sizes name it (dt_deparray) */
  DataMeta *meta;    /* DT_META */
};

#define DPIA_PHRASE_KINDS(X)                                     \
  X(EXP)  /* data: exp[data] */                                  \
  X(ACC)  /* data: acc[data] */                                  \
  X(COMM) /* comm */                                             \
  X(WITH) /* fst, snd: fst & snd (var[d] = acc[d] & exp[d]) */   \
  X(FN)   /* fst -> snd */                                       \
  X(FN_P) /* fst ->p snd: a passive function */

typedef enum PhraseKind {
#define X(id) PT_##id,
  DPIA_PHRASE_KINDS(X)
#undef X
} PhraseKind;

typedef struct PhraseType PhraseType;
struct PhraseType {
  PhraseKind kind;
  bool ground; /* no metavariable in its data types (DataType.ground) */
  DataType *data;           /* PT_EXP, PT_ACC */
  PhraseType *fst, *snd;    /* PT_WITH, PT_FN, PT_FN_P */
};

typedef struct TypeCtx {
  Arena *arena;
  SizeCtx sizes;
  int next_meta;
  Vec metas; /* every DataMeta made (dt_meta): the checker defaults literal
                types only when one could be (unify.c, finish_decl) */
  int metas_solved; /* metas[0..metas_solved) are solved, for good (a
                       solution is never undone): that check starts after
                       them, not at every declaration's first meta */
  int next_binder; /* ids of binders (phrase.h), unique per translation */
  int norm_runs;   /* normalisations so far (Phrase.normal_run) */
  long norm_reach; /* the last one's phrases walked and made: a bound on the
                      nodes under any phrase it marked (normalize.c) */
  int dep_rows;    /* dependent maps' rows named so far, each a name of its
                      own in the translation (check_dep.c) */
  bool program_scope; /* an array literal of constants or a foreign
                         function's use was made (check_lit.c): without one,
                         no kernel's body holds what code generation defines
                         before the kernel (the zeros a literal of computed
                         elements starts from are read as their value), and
                         none is walked for it (codegen/consts.c) */

  /* the checker elaborates no application by its shortcut
   * (check_instance.c; DpiaOptions.debug_no_shortcuts) */
  bool no_shortcuts;
  /* common types, made once per context */
  DataType *t_int, *t_float, *t_double, *t_bool;
  PhraseType *t_comm;
} TypeCtx;

void type_ctx_init(TypeCtx *tc, Arena *a);

DataType *dt_scalar(TypeCtx *tc, ScalarKind s, int width);
DataType *dt_array(TypeCtx *tc, Size n, DataType *elem);
DataType *dt_pair(TypeCtx *tc, DataType *a, DataType *b);
DataType *dt_idx(TypeCtx *tc, Size n);
/* A dependent array [n](\i -> elem): element k has type elem with k for
 * the index (docs/language.md section 30).  The index's name in elem's
 * sizes is canonical, so that types equal up to the names of their
 * indices are identical (dt_equal compares structure) and no substitution
 * captures: dt_dep_index(in, elem) is "#h", h the nesting depth of the
 * dependent arrays inside elem (the innermost index is #0, each enclosing
 * one a larger number); no program can write a name with '#'.  elem must
 * be built already (no unsolved metavariable that could become a
 * dependent array); `written` is the name the program gave the index. */
Sym dt_dep_index(Interner *in, const DataType *elem);
DataType *dt_deparray(TypeCtx *tc, Size n, Sym index, Sym written, DataType *elem);
/* Element k of a dependent array: its elem with size k for the index. */
DataType *dt_dep_elem(TypeCtx *tc, const DataType *dep, Size k);
/* depJoin (docs/language.md section 30.2): a dependent array whose rows
 * are arrays of one element type, [n](\i -> [a + b*i]t) with t not using
 * i, joined.  dt_dep_offset is the first element of row k in the joined
 * array, the rows before it: sum_{i<k} (a + b*i) = a*k + b*k*(k-1)/2, a
 * size (a and b are sizes without i, b a polynomial: the dependent
 * array's sizes are linear, check_written.c); false for any other type.
 * dt_dep_join is the joined array [offset(n)]t, or NULL. */
bool dt_dep_offset(TypeCtx *tc, const DataType *dep, Size k, Size *offset);
DataType *dt_dep_join(TypeCtx *tc, const DataType *dep);
/* does a size of t mention the variable v? */
bool dt_has_size_var(const DataType *t, Sym v);
/* does a size of a phrase type's data types mention v? */
bool pt_has_size_var(const PhraseType *t, Sym v);
/* does t have a dependent array anywhere in it? */
bool dt_has_deparray(const DataType *t);
DataType *dt_var(TypeCtx *tc, Sym name);
DataType *dt_meta(TypeCtx *tc, MetaClass cls, Span origin);
/* follow solved metavariables (not inside sub-terms) */
/* inline: the checker resolves at every step of its walks over types
 * (translation throughput) */
static inline DataType *dt_resolve(DataType *t) {
  while (t && t->kind == DT_META && t->meta->solution) t = t->meta->solution;
  return t;
}
bool dt_is_numeric(const DataType *t); /* resolved scalar int/float/double, any width */
bool dt_is_floating(const DataType *t);

PhraseType *pt_exp(TypeCtx *tc, DataType *d);
PhraseType *pt_acc(TypeCtx *tc, DataType *d);
PhraseType *pt_var(TypeCtx *tc, DataType *d); /* acc[d] & exp[d] */
PhraseType *pt_with(TypeCtx *tc, PhraseType *a, PhraseType *b);
PhraseType *pt_fn(TypeCtx *tc, PhraseType *a, PhraseType *b);
PhraseType *pt_fn_p(TypeCtx *tc, PhraseType *a, PhraseType *b);

/* Passive phrase types, paper Figure 2: exp[d]; phi1 & phi2; theta -> phi;
 * theta ->p theta'. */
bool pt_is_passive(const PhraseType *t);

/* Printing in the surface syntax of spec section 2/3 ([N]float, (float, int),
 * exp[[N]float] -> acc[float] ->p comm).  Unsolved metavariables print as
 * ?1, ?2 (only ever in error messages). */
void dt_print(Buf *out, const DataType *t);
void pt_print(Buf *out, const PhraseType *t);
const char *dt_str(Arena *a, const DataType *t);
const char *pt_str(Arena *a, const PhraseType *t);
const char *scalar_name(ScalarKind s);

/* ---- types in diagnostics ----
 *
 * Every type a user-facing message shows goes through a TypeNamer, which
 * prints types as the user writes them:
 *  - a value of data type d is d, not exp[d], unless the type also has an
 *    acceptor or a command in it (an imperative phrase, where the
 *    distinction matters);
 *  - an unknown size is n, m, k, ... and an unknown data type a, b, c, ...:
 *    letters that no identifier of the declaration uses (avoid), the same
 *    letter for the same unknown within one message (one namer per message);
 *  - an unknown number type is "a number" in words, or float (a decimal
 *    literal's default) inside a type; never the internal ?n2, ?3, _, num
 *    or real.
 * The describe functions say what a type is in words when it has unknown
 * parts ("an array of pairs", "a function"), and print it otherwise. */
typedef struct TypeNamer {
  Arena *arena;
  const char *avoid; /* text whose identifiers are not given to unknowns */
  size_t avoid_len;
  Vec size_keys, size_names; /* a size metavariable's text ?n<k>, its name */
  Vec data_keys, data_names; /* a DataMeta*, its name */
  int next_size, next_data;
} TypeNamer;

void tn_init(TypeNamer *tn, Arena *a, const char *avoid, size_t avoid_len);
/* the name of size metavariable m (a Sym "?n<k>") */
const char *tn_size_meta(TypeNamer *tn, Sym m);
const char *tn_size(TypeNamer *tn, Size s);
const char *tn_data(TypeNamer *tn, const DataType *t);
const char *tn_phrase(TypeNamer *tn, const PhraseType *t);
/* words for a type with unknown parts ("a pair", "an array of arrays",
 * "a number", "a function"), else the type as tn_data/tn_phrase print it;
 * describe_phrase says what kind of phrase a non-expression is ("a
 * function of type float -> float", "an acceptor acc[float]") */
const char *tn_describe_data(TypeNamer *tn, const DataType *t);
const char *tn_describe_phrase(TypeNamer *tn, const PhraseType *t);
/* does the type have unknown parts (unsolved metavariables)? */
bool dt_has_unknowns(const DataType *t);
/* is it an array, or a pair with an array in it (unzip's result)? */
bool dt_holds_array(const DataType *t);
bool pt_has_unknowns(const PhraseType *t);
/* is it a phrase type with an acceptor or command in it? */
bool pt_is_imperative(const PhraseType *t);

/* Structural equality of zonked types (sizes compared by canonical form). */
bool dt_equal(const DataType *a, const DataType *b);
bool pt_equal(const PhraseType *a, const PhraseType *b);

/* Substitution of rigid variables (a def's nat and data parameters) by
 * values, used when a def is inlined.  Sizes are substituted with
 * size_subst. */
typedef struct TypeSubst {
  int n;
  Sym *names;
  bool *is_size;     /* true: sizes[i] replaces name; false: datas[i] */
  Size *sizes;
  DataType **datas;
} TypeSubst;
DataType *dt_subst(TypeCtx *tc, const TypeSubst *s, DataType *t);
/* the sizes of s in n, all at once (size_subst_many); false when a
 * variable with a negative exponent gets a value that is no monomial */
bool size_subst_type(TypeCtx *tc, const TypeSubst *s, Size n, Size *out);
PhraseType *pt_subst(TypeCtx *tc, const TypeSubst *s, PhraseType *t);

#endif
