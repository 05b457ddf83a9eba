/* filecheck.h: a small FileCheck (PCRE2), shared by `dpia test` (the
 * `-- CHECK:` lines of a .dpia against its generated OpenCL) and the
 * installed dpia-filecheck command.  The directives and the pattern syntax
 * are described in filecheck.c. */
#ifndef DPIA_FILECHECK_H
#define DPIA_FILECHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "dpia_front.h"

/* The status of a run, also dpia-filecheck's exit status. */
enum {
  FILECHECK_MATCHED = 0,  /* every directive holds */
  FILECHECK_MISMATCH = 1, /* one fails: why is in the report */
  FILECHECK_BAD = 2,      /* bad check file: no directive, an unknown one, a bad regex */
};

/* A text and the name messages give it. */
typedef struct FilecheckText {
  const char *name;
  const char *data; /* NUL-terminated */
  size_t len;
} FilecheckText;

/* Run the directives of checks against input.  Messages (with the check
 * file's line and a caret, then where in the input it looked) are appended
 * to report.  Everything is allocated in arena except PCRE2's own objects,
 * freed before returning (an allocation failure of the arena longjmps to
 * its on_oom as usual). */
int filecheck_run(Arena *arena, const FilecheckText *checks, const FilecheckText *input, Buf *report);

/* Does text hold at least one directive (well-formed or not)?  A .dpia
 * without one has nothing for filecheck_run to do. */
bool filecheck_has_directives(const char *text, size_t len);

#endif
