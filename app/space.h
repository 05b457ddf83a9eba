/* space.h: `--emit=space` (space.c), the search space of a kernel's tune
 * parameters as JSON. */
#ifndef DPIA_SPACE_H
#define DPIA_SPACE_H

#include "dpia_codegen.h"

/* the JSON object of one kernel (docs/language.md section 6.1), ending in
 * a newline */
void space_emit(Arena *a, const ImpKernel *k, Buf *out);

/* Does name occur in the C expression expr as a whole identifier (N in
 * "N % 64", not in "NB")? */
bool expr_mentions(const char *expr, const char *name);

#endif
