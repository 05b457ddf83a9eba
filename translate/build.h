/* build.h: constructing typed imperative phrases, for the translation
 * stages (stage1.c, stage2.c, hoist.c).
 *
 * Every constructor gives its result the type the paper's Figure 4 assigns,
 * instantiated with the sizes and data types it is given, so the result of
 * every stage is a well-typed phrase that can be printed, re-parsed and
 * checked again. */
#ifndef DPIA_BUILD_H
#define DPIA_BUILD_H

#include "dpia_front.h"

typedef struct Builder {
  Arena *arena;
  TypeCtx *tc;
  Interner *in;
  Span span; /* given to every phrase built: the source construct it comes from */
  /* the names b_binder interned, by the address they were given at: the
   * few a stage names its binders (a literal "o", a lambda's binder's
   * name) are given again and again, each interned once per stage
   * instead of hashed and probed at every binder (issue 35).  Keyed by
   * address, so it answers only for the very string it interned: a
   * literal or a name in the arena, neither changed nor freed while the
   * stage runs.  Zero: empty. */
  struct {
    const char *given;
    Sym interned;
  } names[16];
} Builder;

Binder *b_binder(Builder *b, const char *name, PhraseType *type);
Phrase *b_var(Builder *b, Binder *x);
Phrase *b_lam(Builder *b, Binder *x, Phrase *body, bool passive);
Phrase *b_app(Builder *b, Phrase *fn, Phrase *arg);
Phrase *b_app2(Builder *b, Phrase *fn, Phrase *a1, Phrase *a2);
/* b_app(b, fn, arg), or old itself when old is the very node b_app would
 * build: a pass rewriting a tree shares what it leaves as it was */
Phrase *b_app_as(Builder *b, Phrase *old, Phrase *fn, Phrase *arg);
Phrase *b_proj(Builder *b, Phrase *pair, int index);
Phrase *b_pair(Builder *b, Phrase *x, Phrase *y); /* phrase pair {x, y} */
Phrase *b_seq(Builder *b, Phrase *c1, Phrase *c2);
Phrase *b_skip(Builder *b);
/* a primitive with its instantiated type (the caller computes it) */
Phrase *b_prim(Builder *b, Prim p, int dim, PhraseType *type);

/* A :=d E for any data type d: the paper's generalised assignment
 * (section 4.1).  Arrays are copied by a sequential loop (mapISeq): a plain
 * parallel mapI has no OpenCL level, and a copy the program did not ask to
 * parallelise must not become parallel (strategy preservation). */
Phrase *b_assign(Builder *b, Phrase *acc, Phrase *exp);

/* views and indexing, typed from their arguments */
Phrase *b_idx(Builder *b, Phrase *array, Phrase *index);
/* idx of a dependent array [n](\i -> d) at the index of a loop that binds
 * the size variable row to it (Phrase.dep_index): its element d[row/i];
 * row NULL for an ordinary array (b_idx) */
Phrase *b_idx_row(Builder *b, Phrase *array, Phrase *index, Sym row);
Phrase *b_idx_acc(Builder *b, Phrase *array_acc, Phrase *index);
/* idxAcc of a dependent array's acceptor at a loop's index, as b_idx_row */
Phrase *b_idx_acc_row(Builder *b, Phrase *array_acc, Phrase *index, Sym row);
/* sliceAcc o m r A: elements o .. o+m-1 of the acceptor A, of o+m+r
 * elements.  All three sizes are written: the imperative re-check cannot
 * always infer A's size (A the acceptor of a parforWorkgroup over joinAcc
 * output, whose two sizes only their product fixes: seed 62 #947). */
Phrase *b_slice_acc(Builder *b, Phrase *acc, Size o, Size m);
/* take k E or drop k E (view PRIM_TAKE or PRIM_DROP): the first k
 * elements of the array E, or the others */
Phrase *b_take_drop(Builder *b, Prim view, Size k, Phrase *e);
/* the index k of an array of n elements, exp[idx[n]] (0 <= k < n, which
 * the caller knows): a literal, as the checker makes for `idx xs 2` */
Phrase *b_index(Builder *b, Size k, Size n);
Phrase *b_fst(Builder *b, Phrase *e);
Phrase *b_snd(Builder *b, Phrase *e);

/* new-like allocation: prim (new, newGlobal, newLocal, newPrivate) of data
 * type t; body receives the var. */
Phrase *b_new(Builder *b, Prim prim, DataType *t, Binder *v, Phrase *body);

/* the data type of an exp or acc phrase */
DataType *b_data(const Phrase *p);

#endif
