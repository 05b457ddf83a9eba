/* placement.h: where a run's buffers start in their 4 KiB page, on a
 * device whose buffers are host memory (a CPU OpenCL device, the C
 * target).  docs/reference.md, "Timing", says why in the user's terms.
 *
 * A load whose address has the same low 12 bits as a store still in
 * flight waits for that store (4K aliasing: the core cannot tell them
 * apart and takes the load to depend on it).  Left to the allocator
 * (PoCL takes a buffer from malloc, aligned to 128 bytes), an output may
 * start at an input's offset in its page, or one power-of-two row from
 * it, depending on what the process allocated before; the same kernel then
 * ran 2 to 2.7 times slower in one process than in another (bench/
 * blas_bench.c, above placed_buffer, which places its own buffers too,
 * every input at a page's start).  So every buffer is given memory of its own: a whole number of
 * pages, the buffer starting at its place's offset in the first one:
 * the first input at the start of a page, the first output 256 bytes
 * in, the first temporary 128 bytes in, the first input a kernel updates
 * in place 384 bytes in, and each next buffer of a use 512 bytes after
 * the one before (modulo the page).  No two uses' offsets are a multiple
 * of 512 bytes apart, so a buffer that is written never has its rows at
 * another buffer's page offset when the rows are 128 floats or longer, a
 * power of two; and buffers of one use, several read side by side at one
 * index (adiRows' A, B and X rows, docs/tune.md "adi"), fall in
 * different sets of the L1 cache.
 *
 * An input updated in place is both read and written: placed as an
 * input (bench/blas_bench.c does so), it had the inputs' offset, and
 * adiRows' eight rows of A, B and X a work-item at R=8 ran 20 times
 * slower than at R=2 in `dpia tune` (BENCHMARKS.md's machine, loaded:
 * every stream at one page offset). */
#ifndef DPIA_PLACEMENT_H
#define DPIA_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

/* X(ID, offset of the first in the page, kernels only read it, what it holds) */
#define DPIA_BUFFER_USES(X)                                                   \
  X(INPUT, 0, true, "an input (the kernels only read it)")                  \
  X(UPDATED, 384, false, "an input a kernel updates in place")              \
  X(OUTPUT, 256, false, "an output")                                        \
  X(TEMP, 128, false, "a temporary (between a pipeline's kernels, or of one)")

typedef enum BufferUse {
#define X(id, offset, read_only, doc) BUF_##id,
  DPIA_BUFFER_USES(X)
#undef X
  BUF_USE_COUNT
} BufferUse;

/* a buffer's place: its use, and how many buffers of that use the run
 * made before it */
typedef struct BufferPlace {
  BufferUse use;
  int nth;
} BufferPlace;

enum { PLACE_PAGE = 4096, PLACE_SPREAD = 512 };

/* where a buffer starts in its page */
size_t place_offset(BufferPlace place);
/* the kernels only read a buffer of this use */
bool place_read_only(BufferUse use);

/* bytes of host memory (at least 1) starting place_offset(place) bytes
 * into a page, filled from init (NULL: zeros); *block is what place_free
 * takes.  NULL when there is not enough memory. */
void *place_alloc(size_t bytes, BufferPlace place, const void *init, void **block);
void place_free(void *block);

#endif
