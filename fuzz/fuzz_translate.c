/* fuzz_translate.c: libFuzzer target for `dpia translate --no-verify`:
 * everything `check` does, then translation stages I and II, hoisting and
 * OpenCL code generation for every kernel.  Verification (libclang) is off:
 * it is slow and its findings would be libclang's. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_OPENCL;
  opt.verify = 0;
  fuzz_process(data, size, &opt);
  return 0;
}
