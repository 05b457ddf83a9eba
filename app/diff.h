/* diff.h: a unified line diff of two texts, for the failures `dpia test`
 * reports. */
#ifndef DPIA_DIFF_H
#define DPIA_DIFF_H

#include "dpia_front.h"

/* Append to out the unified diff (3 lines of context) turning text a (named
 * name_a on its --- line) into b; nothing when they are equal. */
void diff_unified(Arena *arena, const char *name_a, const char *a, size_t alen, const char *name_b, const char *b,
                  size_t blen, Buf *out);

#endif
