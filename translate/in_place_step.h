/* in_place_step.h: whether a reduction's step may write its accumulator
 * in place (in_place_step.c), for stage I (stage1.c). */
#ifndef DPIA_IN_PLACE_STEP_H
#define DPIA_IN_PLACE_STEP_H

#include "translate.h"

#include "build.h"

typedef PhraseSpine Spine;

/* the most mapLocal levels a step may update an accumulator in place
 * through: nested levels have distinct dimensions, of which OpenCL has 3 */
enum { MAX_LOCAL_NEST = 3 };

/* The step of a reduction over the accumulator y may update it in place;
 * the mapLocal levels it does so through go to levels[] (*nlevels of
 * them, at most MAX_LOCAL_NEST; 0 when the step reads all of y before it
 * writes any of it) */
bool in_place_ok(Arena *a, const Phrase *step, const Binder *y, const Phrase **levels, int *nlevels);
/* the first use of primitive prim in p, or NULL */
const Phrase *find_prim(const Phrase *p, Prim prim);
/* a parallel map (mapGlobal, mapWorkgroup, mapLocal and their dependent
 * forms): its work spans work-items */
bool prim_spans_items(Prim p);
/* select c a b whose sides compute in one work-item: the choice is made
 * first, and only the chosen side runs (stage1.c, select_if) */
bool select_computes(const Spine *sp);
bool is_scalar_data(const DataType *t);

#endif
