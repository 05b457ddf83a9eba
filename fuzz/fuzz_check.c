/* fuzz_check.c: libFuzzer target for `dpia check -v`: parse, type check
 * (sizes, SCIR), inline and normalise the kernels, strategy rules, and
 * print every declaration's type. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_CHECK;
  opt.verbose = 1;
  fuzz_process(data, size, &opt);
  return 0;
}
