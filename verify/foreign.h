/* foreign.h: foreign functions evaluated for real by the reference
 * interpreters (docs/language.md section 14).
 *
 * A foreign function's body is OpenCL C of a scalar function.  The
 * interpreters run it as C on the host: the first call of a function
 * compiles its definition, after a small header that gives the OpenCL C
 * built-ins of scalar code their C meaning (sqrt, exp, fabs, min, max,
 * clamp, mad, native_*, ...), with the host's C compiler ($CC, else cc) into
 * a shared object in a fresh temporary directory, which is loaded and then
 * removed.  Floating-point contraction is off on both sides (the kernel's
 * text turns it off around foreign functions, opencl.c), so + - * / and
 * comparisons round as on the device.
 *
 * A ForeignFns belongs to one interpreter run: no global state.  Free it
 * with foreign_fns_close, which unloads what it loaded. */
#ifndef DPIA_VERIFY_FOREIGN_H
#define DPIA_VERIFY_FOREIGN_H

#include "dpia_front.h"

enum { FOREIGN_MAX_PARAMS = FOREIGN_MAX_ARGS };

/* Every failure foreign_fns_call reports starts with this, so that a
 * caller can tell it (the host cannot run the program's own C: no
 * compiler, a body C rejects) from a fault of the interpreter. */
#define FOREIGN_FAILURE "cannot run foreign function"

typedef struct ForeignFns ForeignFns;

ForeignFns *foreign_fns_new(Arena *a);
/* f (a foreign DefInfo) applied to args (each its parameter's scalar as a
 * double): true with *result, or false with the reason in err (no
 * compiler, a compile error: the compiler's messages). */
bool foreign_fns_call(ForeignFns *F, const DefInfo *f, const double *args, double *result, Buf *err);
void foreign_fns_close(ForeignFns *F);

#endif
