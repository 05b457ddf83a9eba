/* clang_check.h: re-parse generated text with libclang (spec section 1,
 * step 6; exit code 3 of section 9 when it fails), as the language of a
 * target (ClangLanguage: for target_opencl, OpenCL C 1.2, clang_opencl in
 * target_opencl.c): in this process through
 * libclang's C API, or in the helper process dpia-clang-check, clang 15's
 * parser (the same release as libclang, from the same packages) linked
 * statically, which gives the same report and is what a command line call
 * uses (for speed: it starts in about a millisecond where loading libclang
 * takes 10-15).
 *
 * The generated text is parsed in memory with the language's arguments
 * (for OpenCL C 1.2: the OpenCL built-ins declared and a strict warning
 * set); any warning or error fails
 * the verification, and every diagnostic is reported against the generated
 * text:
 *   NAME:LINE:COL: warning: message [-Wflag]
 *   <the generated line>
 *   <caret under the column>
 * with clang's notes (if any) in the same form right after their diagnostic.
 *
 * A ClangVerifier owns one libclang index (or one helper process),
 * created once and reused for every kernel it checks, since creating it
 * is the expensive part that does not depend on the input.  A verifier is
 * not reentrant: use one per thread (two threads with two verifiers share
 * nothing). */
#ifndef DPIA_CLANG_CHECK_H
#define DPIA_CLANG_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "dpia_front.h"

typedef struct ClangVerifier ClangVerifier;

/* What clang is told about the text: the language, its version, the
 * target triple, the built-ins and the warnings (command-line arguments,
 * the same for libclang and the helper).  A target that re-parses with
 * clang defines one next to its Target. */
typedef struct ClangLanguage {
  const char *const *args;
  int nargs; /* at most CLANG_MAX_ARGS */
} ClangLanguage;
enum { CLANG_MAX_ARGS = 64 };

/* target_opencl.c: OpenCL C 1.2 */
extern const ClangLanguage clang_opencl;

/* A new verifier, or NULL if the system is out of memory or libclang cannot
 * be loaded or create an index.  It is allocated with malloc, not in a
 * translation's arena: it outlives translations, so one verifier serves
 * many of them.  It parses in this process, with libclang (loaded with
 * dlopen): each parse after the first costs a few milliseconds. */
ClangVerifier *clang_verifier_new(const ClangLanguage *lang);
void clang_verifier_free(ClangVerifier *verifier);

/* A verifier that parses in a helper process, dpia-clang-check (clang's
 * parser linked statically: no libclang to load, so it starts in a few
 * milliseconds; verify/clang_helper.cpp), started now so that its start
 * overlaps whatever comes before the first verification: the way for a
 * one-shot command line call.  It gives the same reports as
 * clang_verifier_new's.  path is the helper program; NULL looks for it
 * next to libdpia in the build tree, then where it is installed.  NULL if
 * there is no helper or it cannot be started.  If the helper stops
 * answering, the verifier goes on with libclang in this process.  Free it
 * with clang_verifier_free, which ends the helper. */
ClangVerifier *clang_verifier_new_helper(const ClangLanguage *lang, const char *path);

/* clang_verifier_free for a process that is about to exit: the helper is
 * told its input has ended but not waited for (it exits by itself, and is
 * reaped by whoever adopts it once this process is gone).  Saves the
 * helper's exit, about half a millisecond, from a command line call. */
void clang_verifier_free_at_exit(ClangVerifier *verifier);

/* Loading libclang (dlopen of libclang and libLLVM: most of a command line
 * call's time) started on a thread of its own, so that it overlaps the
 * translation that comes before the first verification.  Start it where a
 * verification will follow; clang_verifier_new then finds the library
 * loaded, or waits for the load in progress.  Finish waits for the load and
 * drops the preload's reference (the library stays for the verifiers that
 * use it).  Start returns NULL when no thread can be started: then nothing
 * is loaded early, and finish(NULL) does nothing. */
typedef struct ClangPreload ClangPreload;
ClangPreload *clang_preload_start(void);
void clang_preload_finish(ClangPreload *preload);

/* Parse source[0, len) (it need not be NUL-terminated) as the verifier's
 * language.
 * name is what the report calls the text (e.g. "dot.dpia:dotPartial").
 * Returns true when clang reports neither a warning nor an error; every
 * diagnostic, passing or not, is appended to report.  When libclang cannot
 * parse at all, that is reported as an error and false is returned. */
bool clang_verify(ClangVerifier *verifier, const char *name, const char *source, size_t len, Buf *report);

#endif
