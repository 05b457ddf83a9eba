/* driver.h: dpia_process on a target of the caller's choice, for the
 * library's own tests (a test double of Target, tests/unit/test_target.c);
 * dpia_process is this on target_default(). */
#ifndef DPIA_DRIVER_H
#define DPIA_DRIVER_H

#include "dpia.h"
#include "dpia_verify.h"

int driver_process(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                   DpiaResult **result);

/* driver_process for a search's run of a candidate: hooks (driver_int.h)
 * cut its timing short and share its inputs with the search's other
 * runs; NULL: driver_process */
typedef struct RunHooks RunHooks;
int driver_process_hooked(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                          const RunHooks *hooks, DpiaResult **result);

#endif
