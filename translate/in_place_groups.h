/* in_place_groups.h: the work-groups of a kernel computing in place read
 * only their own part of the region and what no one writes
 * (in_place_groups.c, docs/language.md section 27). */
#ifndef DPIA_IN_PLACE_GROUPS_H
#define DPIA_IN_PLACE_GROUPS_H

#include "dpia_front.h"

/* k updates xs (k->updates), body its normalised functional body: true
 * when each group of its one mapWorkgroup reads xs only (a) outside the
 * region k updates or (b) inside the part of it its own element is
 * written to, shown from the views of xs the body reads and writes
 * through; false when that is not shown, *culprit then the span of the
 * first read of xs that is neither (no src: none is, the proof failed
 * elsewhere). */
bool in_place_groups_own(Arena *a, TypeCtx *tc, Interner *in, const DefInfo *k, const Phrase *body, Span *culprit);

#endif
