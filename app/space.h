/* space.h: `--emit=space` (space.c), the search space of a kernel's tune
 * parameters as JSON. */
#ifndef DPIA_SPACE_H
#define DPIA_SPACE_H

#include "dpia.h"
#include "dpia_codegen.h"

/* the JSON object of one kernel (docs/language.md section 6.1), ending in
 * a newline */
void space_emit(Arena *a, const ImpKernel *k, Buf *out);

/* --emit=space of a program whose kernel does not check with its tune
 * parameters symbolic (a vector width must be a constant): the spaces of
 * the kernels specialised at each value of the fewest listed tune
 * parameters that make it translate, merged into out (docs/language.md
 * section 6.1).  False when that does not apply or does not help: the
 * caller then reports the symbolic errors. */
bool space_split(Arena *a, const Program *prog, const DpiaOptions *opt, Buf *out);

/* dpia check of such a program: it checks when the program specialised
 * at some values of the fewest listed tune parameters checks, as
 * space_split accepts it; with -v, out gets what each combination gives
 * (app/space.c).  False when that does not apply or does not help. */
bool check_split(Arena *a, const Program *prog, const DpiaOptions *opt, Buf *out);

#endif
