/* backend_c.c: printing shared by the C-family backends (backend_c.h). */
#include "backend_c.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Without an exponent where a person writes none: 10.0f and 250000.0f,
 * not 1e+01f and 2.5e+05f (%g's choice for one or two digits). */
void cprint_float(Buf *out, double v, bool single) {
  Arena *a = out->arena;
  char *s = NULL;
  int digits = 17;
  for (int p = 1; p <= 17; p++) {
    s = arena_printf(a, "%.*g", p, v);
    double back = strtod(s, NULL); /* same locale as the printf: round trip */
    if (single ? (float)back == (float)v : back == v) {
      digits = p;
      break;
    }
  }
  const char *e = strchr(s, 'e');
  int exponent = e ? atoi(e + 1) : 0;
  if (e && exponent >= 0 && exponent <= 5 && isfinite(v)) /* the same digits, in full */
    s = arena_printf(a, "%.*f", digits - 1 > exponent ? digits - 1 - exponent : 0, v);
  for (char *c = s; *c; c++)
    if (*c == ',') *c = '.'; /* a host's locale must not leak into C source */
  /* inf: 1e999 */
  if (strchr(s, 'n')) {
    buf_puts(out, single ? "INFINITY" : "(double)INFINITY");
    return;
  }
  buf_puts(out, s);
  if (!strpbrk(s, ".e")) buf_puts(out, ".0");
  if (single) buf_putc(out, 'f');
}

void cprint_lit(Buf *out, KirLit l) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (l.scalar) {
  case SC_BOOL: buf_puts(out, l.i ? "true" : "false"); return;
  case SC_INT: emit(out, "%lld", (long long)l.i); return;
  case SC_FLOAT: cprint_float(out, l.f, true); return;
  case SC_DOUBLE: cprint_float(out, l.f, false); return;
  }
  DPIA_EXHAUSTIVE_END
}

void cprint_record_line(LineRec *rec, const Buf *out, const KirStmt *s) {
  if (!rec) return;
  for (; rec->scanned < out->len; rec->scanned++) rec->line += out->data[rec->scanned] == '\n';
  if (rec->stmts.len == rec->cap) {
    int cap = rec->cap ? rec->cap * 2 : 64;
    int *lines = NEWARRAY(rec->arena, int, cap);
    if (rec->cap) memcpy(lines, rec->lines, sizeof(int) * (size_t)rec->cap);
    rec->lines = lines;
    rec->cap = cap;
  }
  rec->lines[rec->stmts.len] = rec->line + (s->kind == KS_FOR && s->loop.unroll > 1); /* after its #pragma */
  vec_push(rec->arena, &rec->stmts, (void *)s);
}

int cprint_lines(LineRec *rec, const Buf *out, const KirStmt *const **stmts, const int **lines, const char **text) {
  *stmts = (const KirStmt *const *)rec->stmts.items;
  *lines = rec->lines;
  *text = out->data;
  return rec->stmts.len;
}

void cprint_table(Buf *out, const char *head_text, const char *name, const KirTable *t,
                  void (*print_expr)(Buf *out, const KirExpr *e)) {
  Buf head;
  buf_init(&head, out->arena);
  emit(&head, "%s %s[%d] = {", head_text, name, t->n);
  size_t indent = head.len;
  const char **vals = NEWARRAY(out->arena, const char *, t->n > 0 ? t->n : 1);
  size_t total = 0;
  for (int j = 0; j < t->n; j++) {
    Buf v;
    buf_init(&v, out->arena);
    print_expr(&v, t->values[j]);
    vals[j] = v.data ? v.data : "";
    total += strlen(vals[j]) + 2;
  }
  buf_put(out, head.data, head.len);
  size_t col = indent;
  for (int j = 0; j < t->n; j++) {
    size_t w = strlen(vals[j]) + 2; /* ", " or "};" */
    bool fits_row = indent + (size_t)t->per_row * w <= 100;
    bool wrap = j > 0 && indent + total > 100 && (t->per_row < t->n && fits_row ? j % t->per_row == 0 : col + w > 100);
    if (wrap) {
      buf_putc(out, '\n');
      for (size_t k = 0; k < indent; k++) buf_putc(out, ' ');
      col = indent;
    } else if (j > 0) {
      buf_putc(out, ' ');
    }
    emit(out, "%s%s", vals[j], j + 1 == t->n ? "};" : ",");
    col += w;
  }
  buf_putc(out, '\n');
}

void cprint_comment(Buf *out, const char *text) {
  buf_puts(out, "/* ");
  for (const char *c = text; *c; c++) {
    if (*c == '\n')
      buf_puts(out, "\n * ");
    else
      buf_putc(out, *c);
  }
  buf_puts(out, "\n */\n");
}

bool cprint_defined_before(NameSet *defined, const char *name) {
  if (!defined) return false;
  if (nameset_has(defined, name)) return true;
  nameset_add(defined, name);
  return false;
}
