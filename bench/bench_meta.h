/* bench_meta.h: reading dpia's metadata in the benchmark (bench_meta.c): a
 * small JSON reader and the size expressions of the metadata. */
#ifndef DPIA_BENCH_META_H
#define DPIA_BENCH_META_H

#include <stdbool.h>
#include <stddef.h>

typedef enum JKind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JKind;
typedef struct J J;
struct J {
  JKind kind;
  double num;
  char *str;
  int n;
  J **items;
  char **keys; /* J_OBJ */
};

typedef struct JP {
  const char *s;
  bool bad;
} JP;

typedef struct Nats {
  int n;
  const char *names[12];
  long long values[12];
} Nats;

J *jvalue(JP *p);
void jfree(J *j);
J *jget(const J *o, const char *key);
const char *jstr(const J *o, const char *key);
/* the value of a size expression (+ - * / % and parentheses over the nat names) */
long long eval_size(const char *s, const Nats *nats);
/* v as the int argument `what` of a kernel (a nat of a dpia kernel, a
 * size of a hand-written one: both take int): the host computes sizes and
 * indices in 64 bits, and a value past int, 2^31 elements or more, is
 * refused (die) rather than truncated into a wrong launch */
int int_arg(long long v, const char *what);
bool eval_precondition(const char *s, const Nats *nats);
/* bytes of one element of an OpenCL type name (float, int4, double) */
size_t type_bytes(const char *t);

/* blas_bench.c: report and exit */
_Noreturn void die(const char *fmt, ...);
void *xmalloc(size_t n);

#endif
