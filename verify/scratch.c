/* scratch.c: the interpreters' scratch stack (scratch.h). */
#include "scratch.h"

enum { CHUNK_SIZE = 256 * 1024 };

static size_t align_size(size_t n) {
  size_t al = _Alignof(max_align_t);
  return (n + al - 1) & ~(al - 1);
}

static ScratchChunk *new_chunk(Scratch *s, size_t size) {
  size_t want = size > CHUNK_SIZE ? size : CHUNK_SIZE;
  ScratchChunk *c = arena_alloc(s->arena, sizeof(ScratchChunk) + want);
  c->size = want;
  c->used = 0;
  c->next = NULL;
  return c;
}

void scratch_init(Scratch *s, Arena *a) {
  s->arena = a;
  s->cur = new_chunk(s, CHUNK_SIZE);
}

void *scratch_alloc(Scratch *s, size_t size) {
  size = align_size(size ? size : 1);
  ScratchChunk *c = s->cur;
  if (c->size - c->used < size) {
    if (c->next && c->next->size >= size) {
      c = c->next;
    } else {
      ScratchChunk *fresh = new_chunk(s, size);
      fresh->next = c->next;
      c->next = fresh;
      c = fresh;
    }
    c->used = 0;
    s->cur = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += size;
  return p;
}
