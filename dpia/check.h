/* check.h: type checking of a parsed program (spec sections 3-5).
 *
 * check_program elaborates every declaration into typed phrases
 * (phrase.h), inferring implicit size and data type arguments, then runs
 * the interference check (scir.c, paper Figure 3) and, on kernels, the
 * OpenCL strategy rules (strategy.c, spec section 5).  Errors go to diag;
 * a declaration with errors has ok == false. */
#ifndef DPIA_CHECK_H
#define DPIA_CHECK_H

#include "phrase.h"

typedef struct CheckedProgram {
  const Program *program;
  int ndefs;
  DefInfo **defs; /* one per declaration, in source order */
} CheckedProgram;

/* What the target language makes of the names a program keeps in the
 * generated code: a kernel's name, its nat parameters' (sizes in types
 * refer to them), a foreign function's and its parameters' (spec section
 * 8).  The front end knows no target's names: the driver passes its
 * backend's (codegen/backend.h), which also renames every other name away
 * from them. */
typedef struct TargetNames {
  const char *language; /* for messages: "OpenCL C" */
  /* what name is in the language, for a message ("an OpenCL C keyword"),
   * or NULL if it is free */
  const char *(*use)(const char *name);
  /* the same for a kernel's name, which the language may restrict more
   * (no OpenCL C kernel is called main) */
  const char *(*kernel_use)(const char *name);
} TargetNames;

/* check_program_for without a target: no name is refused for being the
 * target's (the tests of the front end, the re-check of an imperative
 * program whose names were checked already). */
CheckedProgram *check_program(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p);
/* names NULL: no target */
CheckedProgram *check_program_for(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p,
                                  const TargetNames *names);

/* Values of kernels' tune parameters (`--set WG=128`, docs/language.md section 6).  The
 * caller has checked each against its parameter's domain. */
typedef struct TuneSettings {
  int n;
  const char *const *names;
  const long long *values;
  const char *kernel; /* only in this kernel; NULL: every kernel */
  /* true: a tune parameter without a value stays symbolic even when it
   * declares a default (--emit=space lists it as declared); false: it
   * takes its default (docs/tune.md) */
  bool declared;
} TuneSettings;
/* check_program with each kernel's tune parameter named in set bound to
 * its value: the kernel is checked as if the program had the literal in
 * every place the parameter is written, and the parameter is no longer one
 * of its nat parameters (docs/language.md section 6). */
CheckedProgram *check_program_set(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, const Program *p,
                                  const TargetNames *names, const TuneSettings *set);

/* The type of primitive prim with the given static sizes and type argument
 * (NULL if it takes none), its implicit arguments fresh metavariables: the
 * table's signature instantiated outside a program (prim_type.c; the
 * prims-table unit test prints every row's).  NULL with an error in diag if
 * a static size is not one the primitive accepts. */
PhraseType *check_prim_instance(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, Prim prim, const Size *sizes,
                                DataType *type_arg);

/* Is the type p carries an instance of its primitive's signature, with
 * p's static arguments?  The translation builds the types of the
 * primitives it introduces by hand (translate/build.c, stage1.c,
 * stage2.c); test prim-instances checks them against the table on the
 * samples.  A conversion of an index (exp[idx[n]] -> exp[r]) is one
 * whose type is the conversion's of an int, as the checker gives it.  May
 * bind metavariables left in p's type. */
bool prim_type_is_instance(Arena *a, Interner *in, TypeCtx *tc, const Phrase *p);

/* scir.c: Syntactic Control of Interference with passivity over a checked
 * body (paper Figure 3).  Returns false after reporting errors. */
bool scir_check_def(Arena *a, Diag *diag, DefInfo *def);
/* the same by the walk alone, and whether scir_check_def spares it: no
 * identifier of the body is active, so nothing can interfere (scir.c;
 * tests/unit/test_scir.c compares the two) */
bool scir_check_def_walked(Arena *a, Diag *diag, DefInfo *def);
bool scir_body_uses_nothing_actively(const Phrase *body);
/* X, when p is parfor X.1 (\i o -> P) and P uses X only to read element
 * i of it, with no parallel loop inside (scir.c: the pointwise-read
 * extension); NULL otherwise */
const Binder *scir_pointwise_parfor(const Phrase *p);
/* the variables of binder x in p (phrase_uses), counted in a loop down
 * the longer operand: scir_pointwise_parfor's first question */
int scir_uses_in(const Phrase *p, const Binder *x);
/* every use of x (a variable) in p is a read or write of element
 * [i1]..[in] by iteration (i1, .., in) of nested parforLocals of
 * dimensions dims[0..n) (dpia/scir.c) */
bool scir_owned_by_items(const Phrase *p, const Binder *x, const int *dims, int n);
/* A sequential loop's variable below its bound: k < hi (forRange's, or
 * the positions a reduceRange reads). */
typedef struct LoopBound {
  const Binder *k;
  const Phrase *hi;
} LoopBound;
/* e <= t + off for every value of its variables, t an index (never
 * negative), shown from e's form: t itself, a constant, toInt, clampIdx,
 * an element of indices n, plus or minus a constant, a variable of
 * bounds[0..nbounds) (dpia/scir.c, docs/language.md section 31) */
bool phrase_at_most(const Phrase *e, const Phrase *t, int64_t off, const LoopBound *bounds, int nbounds);

/* normalize.c: inline every def and beta-reduce, giving the first-order
 * program the translation works on (spec section 2: defs are inlined; let
 * is substitution).  Spans are kept so later messages point at the source. */
Phrase *normalize_def(Arena *a, TypeCtx *tc, Diag *diag, DefInfo *def);
/* beta-normalise any phrase (also used after translation stage II);
 * NULL after reporting that the program grew beyond the node limit */
Phrase *normalize_phrase(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p);
/* The same, *holds_map whether the result holds a plain map (PRIM_MAP),
 * found by the look for a phrase normal as it is: 1 or 0 where p is, -1
 * (not known) where norm walked it (test normalize checks it) */
Phrase *normalize_phrase_holding(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p, int *holds_map);
/* normalize_phrase by norm's walk alone, without its look for a phrase
 * normal as it is (already_normal): for test normalize, which compares
 * the two */
Phrase *normalize_phrase_walked(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p);
/* The same for p made from the result of the last normalisation (of this
 * tc) by a pass that copies what it changes (the copy unmarked) and shares
 * the rest, changing no phrase in place (hoisting): a phrase that run
 * marked normal is still normal and is not walked again (issue 35) */
Phrase *normalize_phrase_again(Arena *a, TypeCtx *tc, Diag *diag, Phrase *p);
/* copy with fresh binders (so a phrase can be used in two places) */
Phrase *phrase_copy(Arena *a, TypeCtx *tc, const Phrase *p);
/* p with its direct sub-phrases c replaced by f(ctx, c): the traversal
 * every rewriting pass shares (stage II, hoisting).  p itself when f gives
 * every child back as it was (a pass shares what it leaves unchanged; the
 * tree it returns stays a tree, each phrase in one place), else a copy.
 * Leaves (variables, literals, primitives, defs) are returned as they are. */
Phrase *phrase_map_children(Arena *a, const Phrase *p, Phrase *(*f)(void *ctx, Phrase *child), void *ctx);
/* body with every use of x replaced by (a fresh copy of) value */
Phrase *phrase_subst(Arena *a, TypeCtx *tc, const Phrase *body, const Binder *x, Phrase *value);
/* The same for a body its caller uses nowhere else (a rewriting pass's
 * own new tree, consumed here): only the path to each use of x is made
 * anew, the rest of body is shared, its binders kept (still bound once) */
Phrase *phrase_subst_shared(Arena *a, TypeCtx *tc, Phrase *body, const Binder *x, Phrase *value);
/* The same for count variables at once, xs[k] by values[k] (no value
 * holding a variable of another xs): one walk of body, not count.  With
 * keep_marks, each phrase made anew on a path keeps the mark of normality
 * of the one it replaces (Phrase.normal_run): for values the caller knows
 * normal and unable to make a redex where they go (stage II's).  With
 * share_values, a value that holds no lambda is put at each of its uses
 * as it is, not copied: the result is then a tree no more but a DAG, for
 * a caller whose later passes only read it (stage II's; normalisation
 * marks a node normal in place, which holds wherever the node is) */
Phrase *phrase_subst_shared_many(Arena *a, TypeCtx *tc, Phrase *body, int count, const Binder *const *xs,
                                 Phrase *const *values, bool keep_marks, bool share_values);

/* strategy.c: the OpenCL hierarchy and address space rules of spec
 * section 5 on a normalized kernel body. */
bool strategy_check_kernel(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body);
/* The same; with high_level, a plain `map` whose function computes is no
 * error (the kernel is a high-level program, docs/language.md section
 * 21): *unlowered (if not NULL) is the first such map's span, or has no
 * source when there is none. */
bool strategy_check_high_level(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                               Span *unlowered);
/* The same, every rule asked of every primitive where
 * strategy_check_high_level skips those that can find nothing (a view's
 * placement, strategy.c: anywhere), and whether the kernel holds a
 * grid-level map looked for first: for test strategy */
bool strategy_check_every_rule(Arena *a, Diag *diag, DefInfo *kernel, Phrase *normal_body, bool high_level,
                               Span *unlowered);
/* Both at once where they can be: kernel's checked body when it is what
 * normalize_def gives back as it is (no def, no lambda or def applied, no
 * projection of a pair, within the depth limit: normalize.c's
 * already_normal; and no plain map, which the write-through may move)
 * and strategy_check_high_level accepts it reporting nothing, seen in
 * one walk of it where the two made two (issue 35), TypeCtx.norm_runs
 * and norm_reach as normalize_def leaves them (its marks of normality
 * not set: the later passes trust only their own runs'); else NULL,
 * with nothing reported, for the caller to normalise and check as
 * before.  diag gives only the depth limit. */
Phrase *strategy_check_normal_as_is(Arena *a, TypeCtx *tc, const Diag *diag, DefInfo *kernel, bool high_level,
                                    Span *unlowered);
/* A kernel's normal body with each view map in output position that reads
 * a grid map moved inside that map's function, where it writes through:
 * map f (mapGlobal g xs) = mapGlobal (\x -> f (g x)) xs, for f a view
 * function whose views have acceptor forms (docs/language.md section 16);
 * normalize_def applies it to kernels.  The same phrase when none is. */
Phrase *strategy_write_through(Arena *a, TypeCtx *tc, Phrase *normal_body);
/* The same where whether normal_body holds a plain map is known
 * (normalize_phrase_holding: 1 or 0; -1, not known: looked for) */
Phrase *strategy_write_through_known(Arena *a, TypeCtx *tc, Phrase *normal_body, int holds_map);
/* e computes nothing: variables and literals under views and view maps of
 * view functions (docs/language.md section 9) */
bool phrase_is_view(Arena *a, const Phrase *e);
/* p is pair (V1 (fst y)) (V2 (snd y)), V1 and V2 chains of views with
 * acceptor twins, y the same phrase on both sides up to its bound names
 * (a let's value copied into both by normalize.c): y, else NULL.  The result of a kernel updating several
 * regions written so is y written once, through the pair of the regions'
 * acceptors seen through V1 and V2 (translate/stage1.c, docs/language.md
 * section 27). */
const Phrase *phrase_pair_of_parts(Arena *a, const Phrase *p);


/* Most phrase nodes a declaration may grow to by inlining (tests/limits). */
enum { DPIA_MAX_NORMAL_NODES = 4000000 };
/* Deepest a kernel body may nest after inlining (tests/limits): normalisation
 * and the later stages recurse on the phrase tree, and this keeps them
 * well within an 8 MiB stack, even with AddressSanitizer's larger frames
 * (tests/limits). */
enum { DPIA_MAX_NORMAL_DEPTH = 10000 };

/* printing of phrases in the surface syntax (phrase_print.c), so that every
 * stage's dump can be checked again (spec section 9, Library).  The output
 * parses and checks back to the same phrases, types and layout: printing a
 * re-checked printout gives the same text.  phrase_print continues the
 * current line of out; indent is that line's indentation level (2 spaces
 * a level), relative to which continuation lines are indented. */
void phrase_print(Buf *out, const Phrase *p, int indent);
/* A whole declaration, ending in a newline:
 *   kernel|def NAME (N M: nat) (d: data) (xs ys: exp[[N]float]) ... [: RESULT] =
 *     body
 * nat, then data, then phrase parameters (consecutive ones of equal type in
 * one group); the result type only when the body is a function or a phrase
 * pair.  name_override (if not NULL) replaces def->name. */
void def_print(Buf *out, const DefInfo *def, Sym name_override);
/* def_print, with every joinAcc X written (joinAcc X : acc[[n][m]a]).
 * joinAcc is the one acceptor view whose result's sizes its argument does
 * not give (acc[[n*m]a] -> acc[[n][m]a]); the rest of the imperative
 * program gives them when it reads the input through the loops' indices,
 * but not when no read is left (a map of a constant function, whose
 * `split 64 xs` translation dropped): then the re-check cannot infer n
 * and m (E0303).  The driver prints this way the defs that need it
 * (app/driver.c, imperative_text), so that every other printout stays as
 * it was. */
void def_print_ascribing_joins(Buf *out, const DefInfo *def, Sym name_override, bool ascribe_joins);
/* The declarations of the foreign functions that defs[0..n) (NULL entries
 * skipped) call, each once, in the order they are first called, each
 * followed by a blank line: what a printed def needs before it to check
 * again (docs/language.md section 14). */
void foreign_decls_print(Buf *out, DefInfo *const *defs, int n);
/* A foreign function's definition in C (OpenCL C and the host's alike):
 * storage ("" or "static "), RESULT NAME(T1 p1, ...), then the body as
 * written (made a block if it has no braces), ending in a newline. */
void foreign_c_definition(Buf *out, const DefInfo *f, const char *storage);
/* does f take or give a double (cl_khr_fp64)? */
bool foreign_uses_double(const DefInfo *f);

#endif
