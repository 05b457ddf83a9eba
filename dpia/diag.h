/* diag.h: the one diagnostics module (spec section 9).
 *
 * User errors are collected here and printed as
 *   file:line:col: error[E0201]: message
 *   <source line>
 *   <caret under the span>
 * (E0201: the error's code, diag_codes.h, docs/errors.md) followed by
 * attached notes (`file:line:col: note: message`, no code: a note explains
 * its error); or as JSON with --diagnostics=json.
 * Internal bugs do not come here: they abort through INTERNAL (exit 70). */
#ifndef DPIA_DIAG_H
#define DPIA_DIAG_H

#include "diag_codes.h"
#include "util.h"

/* One source text.  Line starts are computed on first use (a diagnostic's
 * position), in arena: a translation that reports nothing never reads
 * them (translation throughput). */
typedef struct Source {
  const char *name; /* as given on the command line, or "<input>" */
  const char *text;
  size_t len;
  Arena *arena;          /* of line_starts; NULL: no positions (line 0) */
  uint32_t *line_starts; /* NULL until first used */
  uint32_t nlines;
} Source;

/* A half-open byte range [begin, end) of one source. */
typedef struct Span {
  const Source *src;
  uint32_t begin, end;
} Span;

typedef enum DiagLevel { DIAG_ERROR, DIAG_NOTE } DiagLevel;

typedef struct Diagnostic Diagnostic;
struct Diagnostic {
  DiagLevel level;
  DiagCode code; /* of an error (diag_codes.h); a note has its error's */
  Span span;
  char *message;
  Diagnostic *notes; /* notes attached to an error, in order */
  Diagnostic *next;  /* next error, or next note of the same error */
};

typedef struct Diag {
  Arena *arena;
  Diagnostic *first, *last; /* errors (and remarks) in the order reported */
  Diagnostic *last_error;   /* where diag_note attaches */
  int nerrors;     /* errors reported, repeats included: 0 means usable */
  int nrepeats;    /* of which repeats of an earlier error (same place, same
                      message: a def or let body checked once per use),
                      shown once */
  int max_errors; /* stop collecting past this many (0: no limit) */
  bool limit_hit; /* an error was a nesting limit (tests/limits), not a fault of the text */
  /* The nesting limits of the recursive passes are their base values times
   * this: 1 on the caller's stack (the bases keep every pass within 8 MiB,
   * AddressSanitizer included), DPIA_DEEP_SCALE when dpia_process retries a
   * program that hit one on a thread with a stack that many times larger
   * (driver.c). */
  int depth_scale;
} Diag;

/* A nesting limit as the passes enforce it (see Diag.depth_scale). */
static inline int diag_depth_limit(const Diag *d, int base) { return base * d->depth_scale; }

void diag_init(Diag *d, Arena *a);
/* Report an error of the kind code; returns it so notes can be attached. */
Diagnostic *diag_error(Diag *d, DiagCode code, Span span, const char *fmt, ...) DPIA_PRINTF(4, 5);
/* Attach a note to the most recent error. */
void diag_note(Diag *d, Span span, const char *fmt, ...) DPIA_PRINTF(3, 4);
/* A note of its own, with a code, that is no error (nerrors unchanged):
 * what `dpia check --high-level` says of a kernel that needs a strategy
 * (E0607).  Listed among the errors in the order reported; notes attached
 * after it still go to the last error. */
void diag_remark(Diag *d, DiagCode code, Span span, const char *fmt, ...) DPIA_PRINTF(4, 5);

/* What has been reported so far, to take back what is reported after it
 * (the checker's shortcut that elaborates first and falls back to the
 * general path when that fails: check_instance.c, check_view_of_app). */
typedef struct DiagMark {
  Diagnostic *first, *last, *last_error, *last_note;
  int nerrors, nrepeats;
  bool limit_hit;
} DiagMark;
DiagMark diag_mark(const Diag *d);
void diag_rewind(Diag *d, const DiagMark *m);

/* Line and column (both 1-based, column counted in bytes) of an offset. */
void source_position(const Source *src, uint32_t offset, uint32_t *line, uint32_t *col);
void source_init(Source *src, Arena *a, const char *name, const char *text, size_t len);
/* The same, the line starts made at the first diagnostic's position: for
 * a source one translation reads alone (the program, the prelude), which
 * most often has nothing to report. */
void source_init_lazy(Source *src, Arena *a, const char *name, const char *text, size_t len);

/* Render every diagnostic as text (with source lines and carets) or as one
 * JSON array. */
void diag_render_text(const Diag *d, Buf *out);
void diag_render_json(const Diag *d, Buf *out);
/* JSON string literal with escapes. */
void emit_json_string(Buf *out, const char *s);
/* the same with s's length known to be at most n, s[n] being NUL (a
 * Buf's text and length: a kernel's, not measured again; a NUL before n
 * ends s there, as strlen would) */
void emit_json_text(Buf *out, const char *s, size_t n);

static inline Span span_join(Span a, Span b) {
  Span s = a;
  if (b.src == a.src) {
    if (b.begin < s.begin) s.begin = b.begin;
    if (b.end > s.end) s.end = b.end;
  }
  return s;
}

#endif
