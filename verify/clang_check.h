/* clang_check.h: re-parse generated OpenCL C with libclang (spec section 1,
 * step 6; exit code 3 of section 9 when it fails).
 *
 * The generated text is parsed in memory as OpenCL C 1.2 with the OpenCL
 * built-ins declared and a strict warning set; any warning or error fails
 * the verification, and every diagnostic is reported against the generated
 * text:
 *   NAME:LINE:COL: warning: message [-Wflag]
 *   <the generated line>
 *   <caret under the column>
 * with clang's notes (if any) in the same form right after their diagnostic.
 *
 * An OpenclVerifier owns one libclang index, created once and reused for
 * every kernel it checks, since creating an index is the expensive part
 * that does not depend on the input.  A verifier is not reentrant: use one
 * per thread (two threads with two verifiers share nothing). */
#ifndef DPIA_CLANG_CHECK_H
#define DPIA_CLANG_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct OpenclVerifier OpenclVerifier;

/* A new verifier, or NULL if the system is out of memory or libclang cannot
 * create an index.  It is allocated with malloc, not in a translation's
 * arena: it outlives translations, so one verifier serves many of them. */
OpenclVerifier *opencl_verifier_new(void);
void opencl_verifier_free(OpenclVerifier *verifier);

/* Parse source[0, len) (it need not be NUL-terminated) as OpenCL C 1.2.
 * name is what the report calls the text (e.g. "dot.dpia:dotPartial").
 * Returns true when clang reports neither a warning nor an error; every
 * diagnostic, passing or not, is appended to report.  When libclang cannot
 * parse at all, that is reported as an error and false is returned. */
bool opencl_verify(OpenclVerifier *verifier, const char *name, const char *source, size_t len, Buf *report);

/* The command-line arguments the verifier passes to libclang, for reports
 * and tests: argv[0..*count). */
const char *const *opencl_verifier_args(int *count);

#endif
