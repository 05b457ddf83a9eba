/* backend.c: the backends by target (backend.h): DPIA_TARGETS's rows,
 * each backend_NAME defined by its codegen/backend_NAME.c. */
#include "backend.h"

#include <string.h>

#define X(id, name) extern const Backend backend_##name;
DPIA_TARGETS(X)
#undef X

static const Backend *const backends[TARGET_COUNT] = {
#define X(id, name) [TARGET_##id] = &backend_##name,
    DPIA_TARGETS(X)
#undef X
};

const Backend *backend_of(TargetId id) { return (int)id >= 0 && id < TARGET_COUNT ? backends[id] : NULL; }

const Backend *backend_named(const char *name) {
  for (int i = 0; i < TARGET_COUNT; i++)
    if (strcmp(backends[i]->name, name) == 0) return backends[i];
  return NULL;
}

const char *backend_names(Arena *a) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < TARGET_COUNT; i++) emit(&b, "%s%s", i ? ", " : "", backends[i]->name);
  return b.data;
}
