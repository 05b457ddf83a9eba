/* placement.c: buffers placed in their page (placement.h). */
#include "placement.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dpia_front.h" /* INTERNAL (dpia/util.h) */

/* each use's first offset and whether kernels only read it, a row a use
 * in the order of the enum (both made from DPIA_BUFFER_USES) */
static const struct {
  size_t first_offset;
  bool read_only;
} uses[BUF_USE_COUNT] = {
#define X(id, offset, read_only, doc) [BUF_##id] = {offset, read_only},
    DPIA_BUFFER_USES(X)
#undef X
};

static void check_use(BufferUse use) {
  if ((unsigned)use >= BUF_USE_COUNT) INTERNAL("bad buffer use %d", (int)use);
}

size_t place_offset(BufferPlace place) {
  check_use(place.use);
  size_t nth = place.nth > 0 ? (size_t)place.nth : 0;
  return (uses[place.use].first_offset + nth % (PLACE_PAGE / PLACE_SPREAD) * PLACE_SPREAD) % PLACE_PAGE;
}

bool place_read_only(BufferUse use) {
  check_use(use);
  return uses[use].read_only;
}

void *place_alloc(size_t bytes, BufferPlace place, const void *init, void **block) {
  size_t offset = place_offset(place), want = bytes ? bytes : 1;
  *block = NULL;
  if (want > SIZE_MAX - offset - PLACE_PAGE) return NULL;
  /* whole pages: aligned_alloc wants a multiple of the alignment */
  size_t total = (offset + want + PLACE_PAGE - 1) / PLACE_PAGE * PLACE_PAGE;
  unsigned char *b = aligned_alloc(PLACE_PAGE, total);
  if (!b) return NULL;
  unsigned char *p = b + offset;
  if (init && bytes)
    memcpy(p, init, bytes);
  else
    memset(p, 0, want);
  *block = b;
  return p;
}

void place_free(void *block) { free(block); }
