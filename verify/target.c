/* target.c: the targets dpia knows (target.h), a row of DPIA_TARGETS
 * (codegen/backend.h) each, target_NAME defined by verify/target_NAME.c. */
#include "target.h"

#include <string.h>

static const Target *const targets[TARGET_COUNT] = {
#define X(id, name) [TARGET_##id] = &target_##name,
    DPIA_TARGETS(X)
#undef X
};

const Target *target_of(TargetId id) { return (int)id >= 0 && id < TARGET_COUNT ? targets[id] : NULL; }

const Target *target_named(const char *name) {
  for (int i = 0; i < TARGET_COUNT; i++)
    if (strcmp(targets[i]->name, name) == 0) return targets[i];
  return NULL;
}

const Target *target_default(void) { return target_of(TARGET_OPENCL); }
