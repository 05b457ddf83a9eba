/* test_runner.h: `dpia test [--update] [-v] PATH...` (test_runner.c). */
#ifndef DPIA_TEST_RUNNER_H
#define DPIA_TEST_RUNNER_H

/* argv: the words after "test".  Returns the exit status: 0 all passed, 1
 * a test failed, 2 a bad command line. */
int dpia_test_command(int argc, char **argv);

#endif
