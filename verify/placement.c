/* placement.c: buffers placed in their page (placement.h). */
#include "placement.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dpia_front.h" /* INTERNAL (dpia/util.h) */

static size_t first_offset(BufferUse use) {
  switch (use) {
#define X(id, offset, read_only, doc) \
  case BUF_##id: return offset;
    DPIA_BUFFER_USES(X)
#undef X
  case BUF_USE_COUNT: break;
  }
  INTERNAL("bad buffer use %d", (int)use);
}

size_t place_offset(BufferPlace place) {
  size_t nth = place.nth > 0 ? (size_t)place.nth : 0;
  return (first_offset(place.use) + nth % (PLACE_PAGE / PLACE_SPREAD) * PLACE_SPREAD) % PLACE_PAGE;
}

bool place_read_only(BufferUse use) {
  switch (use) {
#define X(id, offset, read_only, doc) \
  case BUF_##id: return read_only;
    DPIA_BUFFER_USES(X)
#undef X
  case BUF_USE_COUNT: break;
  }
  INTERNAL("bad buffer use %d", (int)use);
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
