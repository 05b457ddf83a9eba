/* filecheck_main.c: dpia-filecheck, the installed command around the
 * FileCheck of filecheck.c, for tests outside `dpia test` (a build's own
 * kernels, hand-written OpenCL):
 *
 *   dpia-filecheck CHECKFILE [INPUT]        (INPUT absent: standard input)
 *
 * Exit status: 0 when every directive holds; 1 when one fails, with the
 * report on standard error; 2 for a bad command line, an unreadable file or
 * a bad check file (no directive, an unknown CHECK-suffix, an invalid
 * regex). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecheck.h"

/* The whole of f into the arena, NUL-terminated; false if reading failed. */
static bool read_all(Arena *a, FILE *f, FilecheckText *t) {
  Buf b;
  buf_init(&b, a);
  bool ok = buf_read(&b, f);
  t->data = b.data;
  t->len = b.len;
  return ok;
}

static bool read_path(Arena *a, const char *path, FilecheckText *t) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  t->name = path;
  bool ok = read_all(a, f, t);
  fclose(f);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || argv[1][0] == '-') {
    fputs("usage: dpia-filecheck CHECKFILE [INPUT]\n"
          "  checks INPUT (standard input if absent) against the CHECK, CHECK-NEXT, CHECK-SAME,\n"
          "  CHECK-NOT, CHECK-DAG, CHECK-COUNT-n and CHECK-LABEL directives of CHECKFILE\n",
          stderr);
    return FILECHECK_BAD;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fputs("dpia-filecheck: out of memory\n", stderr);
    return FILECHECK_BAD;
  }
  Arena arena;
  arena_init(&arena, &mem);
  FilecheckText checks = {0}, input = {"<stdin>", NULL, 0};
  Buf report;
  buf_init(&report, &arena);
  int status = FILECHECK_BAD;
  if (!read_path(&arena, argv[1], &checks)) {
    fprintf(stderr, "dpia-filecheck: cannot read check file %s\n", argv[1]);
  } else if (!(argc == 3 ? read_path(&arena, argv[2], &input) : read_all(&arena, stdin, &input))) {
    fprintf(stderr, "dpia-filecheck: cannot read input %s\n", argc == 3 ? argv[2] : "<stdin>");
  } else {
    status = filecheck_run(&arena, &checks, &input, &report);
    fwrite(report.data, 1, report.len, stderr);
  }
  arena_free(&arena);
  return status;
}
