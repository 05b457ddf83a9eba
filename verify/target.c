/* target.c: the targets dpia knows, by name (target.h).  Adding a target
 * is a row here and an instance file like target_opencl.c. */
#include "target.h"

#include <string.h>

static const Target *const targets[] = {&target_opencl};

const Target *target_named(const char *name) {
  for (size_t i = 0; i < DPIA_COUNTOF(targets); i++)
    if (strcmp(targets[i]->name, name) == 0) return targets[i];
  return NULL;
}

const Target *target_default(void) { return &target_opencl; }
