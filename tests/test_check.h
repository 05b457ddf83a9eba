/* test_check.h: the CHECK macro of the C unit tests.  CHECK(cond, fmt, ...)
 * prints file:line and the message when cond is false and counts the
 * failure; main returns failures != 0.  One copy per test program (static). */
#ifndef DPIA_TEST_CHECK_H
#define DPIA_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(c, ...)                                 \
  do {                                                \
    if (!(c)) {                                       \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                   \
      fputc('\n', stderr);                            \
      failures++;                                     \
    }                                                 \
  } while (0)

#endif
