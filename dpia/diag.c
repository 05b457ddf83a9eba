/* diag.c: collecting and rendering diagnostics (diag.h, spec section 9). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

void diag_init(Diag *d, Arena *a) {
  memset(d, 0, sizeof *d);
  d->arena = a;
  d->max_errors = 100;
  d->depth_scale = 1;
}

static Diagnostic *make(Diag *d, DiagLevel level, Span span, const char *fmt, va_list ap) {
  Diagnostic *g = NEW(d->arena, Diagnostic);
  Buf b;
  buf_init(&b, d->arena);
  vemit(&b, fmt, ap);
  g->level = level;
  g->span = span;
  g->message = b.data;
  return g;
}

static bool same_error(const Diagnostic *a, const Diagnostic *b) {
  return a->span.src == b->span.src && a->span.begin == b->span.begin && a->span.end == b->span.end &&
         strcmp(a->message, b->message) == 0;
}

Diagnostic *diag_error(Diag *d, DiagCode code, Span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Diagnostic *g = make(d, DIAG_ERROR, span, fmt, ap);
  va_end(ap);
  g->code = code;
  d->nerrors++;
  /* a repeat is counted (the program is still wrong) but not listed; its
   * notes attach to it and so are dropped with it */
  for (const Diagnostic *e = d->first; e; e = e->next) {
    if (same_error(e, g)) {
      d->nrepeats++;
      d->last_error = g;
      return g;
    }
  }
  if (d->last) d->last->next = g;
  else d->first = g;
  d->last = g;
  d->last_error = g;
  return g;
}

void diag_note(Diag *d, Span span, const char *fmt, ...) {
  if (!d->last_error) INTERNAL("a note with no error to attach it to");
  va_list ap;
  va_start(ap, fmt);
  Diagnostic *g = make(d, DIAG_NOTE, span, fmt, ap);
  va_end(ap);
  g->code = d->last_error->code;
  Diagnostic **p = &d->last_error->notes;
  while (*p) p = &(*p)->next;
  *p = g;
}

void diag_remark(Diag *d, DiagCode code, Span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Diagnostic *g = make(d, DIAG_NOTE, span, fmt, ap);
  va_end(ap);
  g->code = code;
  if (d->last) d->last->next = g;
  else d->first = g;
  d->last = g;
}

DiagMark diag_mark(const Diag *d) {
  DiagMark m = {d->first, d->last, d->last_error, NULL, d->nerrors, d->nrepeats, d->limit_hit};
  for (Diagnostic *n = d->last_error ? d->last_error->notes : NULL; n; n = n->next) m.last_note = n;
  return m;
}

void diag_rewind(Diag *d, const DiagMark *m) {
  d->first = m->first;
  d->last = m->last;
  if (d->last) d->last->next = NULL;
  d->last_error = m->last_error;
  /* notes attached since to the error that was the last */
  if (m->last_note) m->last_note->next = NULL;
  else if (d->last_error) d->last_error->notes = NULL;
  d->nerrors = m->nerrors;
  d->nrepeats = m->nrepeats;
  d->limit_hit = m->limit_hit;
}

/* ---- codes ---- */

static const char *const code_names[] = {
#define DIAG_CODE_NAME(code, name, summary) #code,
    DIAG_CODES(DIAG_CODE_NAME)
#undef DIAG_CODE_NAME
};

static const char *const code_summaries[] = {
#define DIAG_CODE_SUMMARY(code, name, summary) summary,
    DIAG_CODES(DIAG_CODE_SUMMARY)
#undef DIAG_CODE_SUMMARY
};

const char *diag_code_name(DiagCode code) {
  if ((unsigned)code >= NDIAG_CODES) INTERNAL("diagnostic code %d out of range", (int)code);
  return code_names[code];
}

const char *diag_code_summary(DiagCode code) {
  if ((unsigned)code >= NDIAG_CODES) INTERNAL("diagnostic code %d out of range", (int)code);
  return code_summaries[code];
}

/* ---- sources ---- */

/* The line starts of src, made at the first call (source_init_lazy) or by
 * source_init.  A Source is written through a const pointer here only:
 * its table, once, before anything reads it.  A source that threads may
 * share (the primitives' signatures) is made with source_init, so that
 * it is never written after. */
static const uint32_t *line_starts(const Source *src) {
  if (src->line_starts) return src->line_starts;
  Source *mut = (Source *)(uintptr_t)src;
  const char *text = src->text, *end = src->len ? text + src->len : text;
  /* memchr: the whole text, over comments and all */
  uint32_t n = 1;
  for (const char *p = text; p != end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) n++;
  uint32_t *starts = NEWARRAY(src->arena, uint32_t, n);
  uint32_t k = 0;
  starts[k++] = 0;
  for (const char *p = text; p != end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
    starts[k++] = (uint32_t)(p - text + 1);
  mut->nlines = n;
  mut->line_starts = starts;
  return starts;
}

void source_init_lazy(Source *src, Arena *a, const char *name, const char *text, size_t len) {
  memset(src, 0, sizeof *src);
  src->name = name;
  src->text = text;
  src->len = len;
  src->arena = a;
}

void source_init(Source *src, Arena *a, const char *name, const char *text, size_t len) {
  source_init_lazy(src, a, name, text, len);
  line_starts(src);
}

/* binary search for the line holding offset */
static uint32_t line_index(const Source *src, uint32_t offset) {
  uint32_t lo = 0, hi = src->nlines;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (src->line_starts[mid] <= offset) lo = mid;
    else hi = mid;
  }
  return lo;
}

void source_position(const Source *src, uint32_t offset, uint32_t *line, uint32_t *col) {
  if (!src || !src->arena) {
    *line = 0;
    *col = 0;
    return;
  }
  const uint32_t *starts = line_starts(src);
  if (offset > src->len) offset = (uint32_t)src->len;
  uint32_t li = line_index(src, offset);
  *line = li + 1;
  *col = offset - starts[li] + 1;
}

/* ---- text rendering ---- */

/* "error[E0201]" as rustc writes it, so that the code shows where the
 * reader looks; a note under an error says only "note": it explains the
 * error above it, whose code it shares (as in the JSON, which gives such
 * notes no code).  A note of its own (top: diag_remark, E0607) has its
 * code: "note[E0607]". */
static void render_level(Buf *out, const Diagnostic *g, bool top) {
  switch (g->level) {
  case DIAG_ERROR: emit(out, "error[%s]", diag_code_name(g->code)); return;
  case DIAG_NOTE:
    if (top) emit(out, "note[%s]", diag_code_name(g->code));
    else buf_puts(out, "note");
    return;
  }
  INTERNAL("diagnostic level %d", (int)g->level);
}

static void render_one(Buf *out, const Diagnostic *g, bool top) {
  const Source *src = g->span.src;
  if (!src) {
    buf_puts(out, "dpia: ");
    render_level(out, g, top);
    emit(out, ": %s\n", g->message);
    return;
  }
  uint32_t line, col;
  source_position(src, g->span.begin, &line, &col);
  emit(out, "%s:%u:%u: ", src->name, line, col);
  render_level(out, g, top);
  emit(out, ": %s\n", g->message);

  /* the source line, then a caret under the span (clipped to this line);
   * tabs are copied into the caret line so the caret stays aligned */
  uint32_t start = line_starts(src)[line - 1];
  uint32_t end = start;
  while (end < src->len && src->text[end] != '\n' && src->text[end] != '\r') end++;
  buf_put(out, src->text + start, end - start);
  buf_putc(out, '\n');
  uint32_t caret = g->span.begin < start ? start : g->span.begin;
  if (caret > end) caret = end;
  for (uint32_t i = start; i < caret; i++) buf_putc(out, src->text[i] == '\t' ? '\t' : ' ');
  buf_putc(out, '^');
  uint32_t stop = g->span.end < end ? g->span.end : end;
  /* count continuation bytes of UTF-8 as no column */
  for (uint32_t i = caret + 1; i < stop; i++)
    if (((unsigned char)src->text[i] & 0xC0) != 0x80) buf_putc(out, '~');
  buf_putc(out, '\n');
}

void diag_render_text(const Diag *d, Buf *out) {
  int shown = 0;
  for (const Diagnostic *g = d->first; g; g = g->next) {
    if (d->max_errors && shown == d->max_errors) {
      emit(out, "dpia: error: too many errors (%d), stopping here\n", d->nerrors - d->nrepeats);
      break;
    }
    render_one(out, g, true);
    for (const Diagnostic *n = g->notes; n; n = n->next) render_one(out, n, false);
    shown++;
  }
}

/* ---- JSON rendering ---- */

/* s's escape for JSON at o (s[0] a byte json_plain_run stops at without
 * high_stops): how many bytes it took, at most 6. */
static size_t json_escape(char *o, char c) {
  static const char hex[] = "0123456789abcdef";
  o[0] = '\\';
  switch (c) {
  case '"': o[1] = '"'; return 2;
  case '\\': o[1] = '\\'; return 2;
  case '\n': o[1] = 'n'; return 2;
  case '\t': o[1] = 't'; return 2;
  case '\r': o[1] = 'r'; return 2;
  default: /* the other control characters, \u00XX */
    memcpy(o + 1, "u00", 3);
    o[4] = hex[((unsigned char)c >> 4) & 0xF];
    o[5] = hex[(unsigned char)c & 0xF];
    return 6;
  }
}

/* Written straight into out's data, a block at a time (json_block_stop:
 * most of an answer is a kernel's text), with room kept for what is left
 * of s (as it is), the closing quote and a block's store past it: an
 * escape, at most 5 bytes more than its character, grows the room first
 * when it must. */
void emit_json_string(Buf *out, const char *s) { emit_json_text(out, s, strlen(s)); }

void emit_json_text(Buf *out, const char *s, size_t n) {
  size_t at = 0;
  enum { MAX_ESCAPE = 6 };
  buf_reserve(out, n + n / 8 + 2 + JSON_BLOCK + MAX_ESCAPE);
  char *o = out->data + out->len;
  *o++ = '"';
  for (;;) {
    if (n - at >= JSON_BLOCK) {
      unsigned k = json_block_stop(s + at, false);
      memcpy(o, s + at, JSON_BLOCK);
      o += k;
      at += k;
      if (k == JSON_BLOCK) continue;
    } else {
      for (unsigned char c; at < n && (c = (unsigned char)s[at]) >= 0x20 && c != '"' && c != '\\'; at++) *o++ = (char)c;
      if (at == n) break;
    }
    if (!s[at]) break; /* the end strlen finds (emit_json_text) */
    /* an escape: room for it and for the rest as before */
    size_t room = (size_t)(out->data + out->cap - 1 - o), need = (n - at) + 1 + JSON_BLOCK + MAX_ESCAPE;
    if (room < need) {
      out->len = (size_t)(o - out->data);
      buf_reserve(out, need + (n - at) / 8);
      o = out->data + out->len;
    }
    o += json_escape(o, s[at++]);
  }
  *o++ = '"';
  *o = 0;
  out->len = (size_t)(o - out->data);
}

static void render_json_one(Buf *out, const Diagnostic *g, bool top) {
  emit(out, "{\"level\": \"%s\", ", g->level == DIAG_ERROR ? "error" : "note");
  /* notes attached to an error carry no code of their own: they explain
   * their error; a remark (top level) has its own */
  if (g->level == DIAG_ERROR || top) emit(out, "\"code\": \"%s\", ", diag_code_name(g->code));
  if (g->span.src) {
    uint32_t line, col, eline, ecol;
    source_position(g->span.src, g->span.begin, &line, &col);
    source_position(g->span.src, g->span.end, &eline, &ecol);
    buf_puts(out, "\"file\": ");
    emit_json_string(out, g->span.src->name);
    emit(out, ", \"line\": %u, \"column\": %u, \"end_line\": %u, \"end_column\": %u, ", line, col,
         eline, ecol);
  }
  buf_puts(out, "\"message\": ");
  emit_json_string(out, g->message);
  if (g->level == DIAG_ERROR) {
    buf_puts(out, ", \"notes\": [");
    for (const Diagnostic *n = g->notes; n; n = n->next) {
      render_json_one(out, n, false);
      if (n->next) buf_puts(out, ", ");
    }
    buf_putc(out, ']');
  }
  buf_putc(out, '}');
}

void diag_render_json(const Diag *d, Buf *out) {
  buf_putc(out, '[');
  for (const Diagnostic *g = d->first; g; g = g->next) {
    render_json_one(out, g, true);
    if (g->next) buf_puts(out, ", ");
  }
  buf_puts(out, "]\n");
}
