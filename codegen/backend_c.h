/* backend_c.h: what the printers of C-family languages share (OpenCL C,
 * CUDA C): literals, the header comment, where statements land in the
 * text, the definitions a program holds already, constant tables.  Only
 * the files codegen/backend_*.c include it. */
#ifndef DPIA_BACKEND_C_H
#define DPIA_BACKEND_C_H

#include "backend.h"

/* the shortest decimal that reads back as the same float (or double),
 * with a point or an exponent, and f for a float; infinity as the macro */
void cprint_float(Buf *out, double v, bool single);
/* a typed literal: true, 42, 0.5f, 0.5 */
void cprint_lit(Buf *out, KirLit l);
/* text as a block comment, a line of the comment per line of text */
void cprint_comment(Buf *out, const char *text);
/* does the program define name already?  (defined NULL: the kernel is a
 * program of its own); if not, it does from now on */
bool cprint_defined_before(NameSet *defined, const char *name);

/* Where statements land in the text (backend.h statement_lines): the
 * number of lines before out->len, counted as the text grows. */
typedef struct LineRec {
  Arena *arena;
  Vec stmts;
  int *lines;
  int cap;
  size_t scanned;
  int line; /* the line at scanned, from 1 */
} LineRec;
/* s begins at out->len (rec NULL: nothing recorded) */
void cprint_record_line(LineRec *rec, const Buf *out, const KirStmt *s);
/* the statements recorded, as statement_lines returns them */
int cprint_lines(LineRec *rec, const Buf *out, const KirStmt *const **stmts, const int **lines, const char **text);

/* head name[n] = {...}; (head: "constant float"): on one line if it fits
 * in 100 columns; else a row of a nested literal a line, or as many as
 * fit, aligned after the brace; values printed by print_expr */
void cprint_table(Buf *out, const char *head, const char *name, const KirTable *t,
                  void (*print_expr)(Buf *out, const KirExpr *e));

#endif
