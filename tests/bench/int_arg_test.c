/* int_arg_test.c: the benchmark's host code passes a size to a kernel's
 * int argument only when it fits (bench/bench_meta.c, int_arg): sizes and
 * indices are 64-bit on the host, and a size of 2^31 elements or more is
 * refused with a message naming it instead of wrapping into a negative or
 * small int and a launch over the wrong range.  The benchmark itself needs
 * OpenCL and is built only with -Dbench=true; this links bench_meta.c
 * alone, with a die() that exits as blas_bench's does. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_meta.h"

_Noreturn void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static int failures;

static void check(int ok, const char *what) {
  if (!ok) {
    failures++;
    printf("FAIL %s\n", what);
  } else {
    printf("PASS %s\n", what);
  }
}

/* int_arg(v) in a child: its exit status and what it wrote to stderr */
static int refused(long long v, const char *what, const char *text) {
  int fds[2];
  fflush(stdout); /* the child inherits no line printed already */
  if (pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    printf("%d\n", int_arg(v, what)); /* not reached when refused */
    exit(0);
  }
  close(fds[1]);
  char buf[512] = {0};
  size_t got = 0;
  ssize_t r;
  while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)r;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1 && strstr(buf, text) != NULL;
}

int main(void) {
  check(int_arg(INT_MAX, "N") == INT_MAX && int_arg(0, "N") == 0 && int_arg(1 << 24, "N") == 1 << 24,
        "sizes that fit an int pass unchanged");
  /* the sizes of the metadata are evaluated in 64 bits: M*N at 65536 x
   * 32768 is 2^31, which an (int) cast made INT_MIN */
  Nats nats = {2, {"M", "N"}, {65536, 32768}};
  long long mn = eval_size("M*N", &nats);
  check(mn == 1LL << 31, "eval_size: M*N = 2^31 in 64 bits");
  check(refused(mn, "M*N", "M*N = 2147483648 does not fit the int argument of the kernel"),
        "a size of 2^31 elements is refused, named");
  check(refused(1LL << 32, "N", "N = 4294967296 does not fit"), "2^32 (an (int) cast gives 0) is refused");
  check(refused(-1LL - INT_MAX - 1, "K", "K = -2147483649 does not fit"), "below INT_MIN is refused");
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
