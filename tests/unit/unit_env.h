/* unit_env.h: what a unit test of the library's internals starts from: an
 * arena on the default allocator (running out ends the test with a
 * message), an interner, a diagnostics list and a type context. */
#ifndef DPIA_UNIT_ENV_H
#define DPIA_UNIT_ENV_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct UnitEnv {
  DpiaMem mem;
  jmp_buf oom;
  Arena arena;
  Interner in;
  Diag diag;
  TypeCtx tc;
} UnitEnv;

/* A macro, not a function: the setjmp must be in the frame that uses the
 * environment.  env must not move afterwards (mem points into it). */
#define UNIT_ENV_INIT(env, test_name)                              \
  do {                                                             \
    dpia_mem_default(&(env)->mem);                                 \
    (env)->mem.on_oom = &(env)->oom;                               \
    arena_init(&(env)->arena, &(env)->mem);                        \
    if (setjmp((env)->oom)) {                                      \
      fprintf(stderr, "%s: out of memory\n", (test_name));         \
      exit(1);                                                     \
    }                                                              \
    intern_init(&(env)->in, &(env)->arena);                        \
    diag_init(&(env)->diag, &(env)->arena);                        \
    type_ctx_init(&(env)->tc, &(env)->arena);                      \
  } while (0)

/* the whole file at path, NUL-terminated, malloc'd, its length in *len;
 * NULL if it cannot be read (the tests that read the samples) */
static inline char *unit_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = n < 0 ? NULL : malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(text);
    return NULL;
  }
  fclose(f);
  text[n] = '\0';
  *len = (size_t)n;
  return text;
}

/* text parsed and checked in env (its Source in env's arena, which the
 * diagnostics point into); NULL when it does not parse */
static inline CheckedProgram *unit_check_text(UnitEnv *env, const char *name, const char *text, size_t len) {
  Source *src = arena_alloc(&env->arena, sizeof *src);
  source_init(src, &env->arena, name, text, len);
  Program *prog = parse_program(&env->arena, &env->in, &env->diag, src);
  return env->diag.nerrors ? NULL : check_program(&env->arena, &env->in, &env->diag, &env->tc, prog);
}

/* the file at path parsed and checked in env, its text kept in env's
 * arena; NULL when it cannot be read (the cause on stderr, *failed
 * counted) or does not check (counted too, with a line, where the test
 * wants every file to check: must_check) */
static inline CheckedProgram *unit_check_file(UnitEnv *env, const char *test_name, const char *path, bool must_check,
                                              int *failed) {
  size_t len;
  char *text = unit_slurp(path, &len);
  if (!text) {
    perror(path);
    ++*failed;
    return NULL;
  }
  char *kept = arena_alloc(&env->arena, len + 1);
  memcpy(kept, text, len + 1);
  free(text);
  CheckedProgram *cp = unit_check_text(env, path, kept, len);
  if (!cp && must_check) {
    fprintf(stderr, "%s: %s does not check\n", test_name, path);
    ++*failed;
  }
  return cp;
}

#endif
