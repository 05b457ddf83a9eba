/* header_common.h: the shared part of generated headers (header_common.c). */
#ifndef DPIA_HEADER_COMMON_H
#define DPIA_HEADER_COMMON_H

#include "dpia_front.h"

/* Writes to o the block every dpia header starts with, guarded so that it
 * is defined once per translation unit (DPIA_HEADER_COMMON). */
void header_emit_common(Buf *o);

#endif
