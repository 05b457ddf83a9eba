/* translate.h: the translation of a checked functional kernel into
 * imperative DPIA (spec sections 6 and 7, paper sections 4.1, 4.2, 6.4).
 *
 * Each stage returns an imperative def (codegen/kernel.h describes its
 * shape) that can be printed with def_print and checked again. */
#ifndef DPIA_TRANSLATE_H
#define DPIA_TRANSLATE_H

#include "dpia_front.h"

/* Stage I (Figure 5): A[[body]](output), with mapI/reduceI.  normal_body is
 * the kernel body after normalize_def.  The output acceptor is the def's
 * first parameter, named `output`, or output_2 ... when the kernel has a
 * parameter of that name (the program's own names are kept). */
DefInfo *translate_stage1(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel, Phrase *normal_body);
/* The same without its own walk of the result for a variable of a
 * continuation parameter it consumed (stage1.c, no_consumed_left), for a
 * caller that checks the result's invariants before reading it
 * (phrase_invariant_violation, which finds one): the driver in debug
 * builds (DPIA_CHECK_INVARIANTS; issue 35: the walk was a fifteenth of
 * the stage) */
DefInfo *translate_stage1_checked_after(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel,
                                        Phrase *normal_body);
/* The same by Figure 5's rules as written: every application of a user's
 * lambda (a map's function, a reduction's step) substitutes a new variable
 * for its parameter, where stage1.c takes the parameter as it is at the
 * first (open_fn), and every operand of a value, or of a map or
 * reduction, passes through a continuation of its own, where stage1.c
 * makes the value directly (passed_through, operand): for test stage1,
 * which compares the two */
DefInfo *translate_stage1_plain(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *kernel, Phrase *normal_body);
/* Stage II (section 4.2): mapI/reduceI replaced by parfor/for loops, then
 * beta-normalised. */
DefInfo *translate_stage2(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate);
/* The same, each lambda applied by a substitution into its rewritten body
 * (stage2.c substitutes in its rewrite walk, apply_in_walk): for test
 * stage2, which compares the two node for node */
DefInfo *translate_stage2_late(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate);
/* The same, every value rewritten where translate_stage2 gives back one
 * that its rewrite would give back as it is, no parameter being bound
 * (stage2.c, kept_value): for test stage2, which compares the two node
 * for node, marks and the bound on the nodes (TypeCtx.norm_reach)
 * included */
DefInfo *translate_stage2_rewritten(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *intermediate);
/* Hoisting (section 6.4, spec section 7): newGlobal to kernel parameters,
 * newLocal to kernel scope, widened across the parallel loops they leave. */
DefInfo *translate_hoist(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative);
/* The same by a walk of every phrase, values included, with a new binder
 * for every buffer moved (hoist.c skips a value that holds no use of a
 * hoisted variable, and keeps the binder of a buffer widened by no loop):
 * for test hoist, which compares the two */
DefInfo *translate_hoist_walked(Arena *a, TypeCtx *tc, Interner *in, Diag *diag, const DefInfo *imperative);

#endif
