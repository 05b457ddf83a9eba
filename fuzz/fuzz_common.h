/* fuzz_common.h: shared helpers of the libFuzzer targets (fuzz/README.md).
 *
 * Every target is a LLVMFuzzerTestOneInput over the raw bytes of a .dpia
 * program (fuzz_size: over a byte code of size expressions).  The library
 * is compiled with -fsanitize=fuzzer-no-link,address,undefined (meson
 * option -Dfuzz=true), so a crash, a sanitizer report, a leak, an internal
 * error (dpia exits 70: libFuzzer reports "fuzz target exited") or a broken
 * invariant checked here (abort) is a finding. */
#ifndef DPIA_FUZZ_COMMON_H
#define DPIA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed property: print it and abort, which libFuzzer reports as a
 * crash and saves the input. */
#define FUZZ_ASSERT(cond, ...)                                                                                    \
  do {                                                                                                           \
    if (!(cond)) {                                                                                               \
      fprintf(stderr, "fuzz: property failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                              \
      fputc('\n', stderr);                                                                                       \
      abort();                                                                                                   \
    }                                                                                                            \
  } while (0)

/* Arena blocks this small give every object of more than 4 bytes a block
 * (a malloc) of its own, so AddressSanitizer sees an access past the end
 * of one object instead of landing in its neighbour in a 64 KiB block. */
enum { FUZZ_ARENA_BLOCK = 16 };

/* A translation may use this much (DpiaOptions.memory_limit) before it
 * stops with "program too large": with AddressSanitizer's overhead on
 * 16-byte blocks, the default 1 GiB would pass libFuzzer's RSS limit, and
 * inputs of a few hundred bytes reach it (defs doubling in size). */
enum { FUZZ_MEMORY_LIMIT = 128 << 20 };

/* Run dpia_process on the input (copied to an exact-size heap buffer, so an
 * over-read of the source is caught too) and check the result's
 * invariants: a known status, diagnostics exactly when it failed, the
 * output only on success. */
static inline void fuzz_process(const uint8_t *data, size_t size, DpiaOptions *opt) {
  char *text = malloc(size ? size : 1);
  if (!text) abort();
  if (size) memcpy(text, data, size);
  opt->arena_block_size = FUZZ_ARENA_BLOCK;
  opt->memory_limit = FUZZ_MEMORY_LIMIT;
  DpiaResult *r = NULL;
  int status = dpia_process("fuzz.dpia", text, size, opt, &r);
  free(text);
  FUZZ_ASSERT(r != NULL, "no result");
  FUZZ_ASSERT(status == dpia_result_status(r), "status %d vs %d", status, dpia_result_status(r));
  FUZZ_ASSERT(status == DPIA_OK || status == DPIA_EUSER || status == DPIA_EUSAGE || status == DPIA_EVERIFY,
              "unexpected status %d", status);
  const char *diags = dpia_result_diagnostics(r);
  size_t len = 0;
  const char *out = dpia_result_output(r, &len);
  FUZZ_ASSERT(strlen(out) == len, "output has an embedded NUL (%zu vs %zu)", strlen(out), len);
  if (status == DPIA_OK) {
    FUZZ_ASSERT(dpia_result_error_count(r) == 0 && diags[0] == 0, "success with diagnostics:\n%s", diags);
  } else {
    FUZZ_ASSERT(dpia_result_error_count(r) > 0 && diags[0] != 0, "status %d without a diagnostic", status);
  }
  dpia_result_free(r);
}

#endif
