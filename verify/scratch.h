/* scratch.h: the scratch stack of the interpreters of verify/ (interp.c,
 * imp_interp.c).  Evaluation allocates small values all the time; they
 * live in chunks taken from an arena and reused: mark the stack before a
 * piece of work (an element of a map, a loop iteration) and release it
 * once what must outlive the work is stored elsewhere, so memory stays
 * proportional to the buffers, not to the work. */
#ifndef DPIA_SCRATCH_H
#define DPIA_SCRATCH_H

#include "dpia_front.h"

typedef struct ScratchChunk ScratchChunk;
struct ScratchChunk {
  ScratchChunk *next;
  size_t size, used;
  max_align_t data[];
};

typedef struct Scratch {
  Arena *arena;
  ScratchChunk *cur; /* the chunk being filled; later chunks are free */
} Scratch;

typedef struct ScratchMark {
  ScratchChunk *chunk;
  size_t used;
} ScratchMark;

/* an empty stack whose chunks come from a (out of memory: a's handler) */
void scratch_init(Scratch *s, Arena *a);

/* size bytes aligned for any type, not zeroed, valid until released */
void *scratch_alloc(Scratch *s, size_t size);

static inline ScratchMark scratch_mark(const Scratch *s) { return (ScratchMark){s->cur, s->cur->used}; }

/* free everything allocated since m */
static inline void scratch_release(Scratch *s, ScratchMark m) {
  s->cur = m.chunk;
  s->cur->used = m.used;
}

#endif
