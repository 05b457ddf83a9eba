/* header_common.h: the shared part of generated headers (header_common.c). */
#ifndef DPIA_HEADER_COMMON_H
#define DPIA_HEADER_COMMON_H

#include "dpia_front.h"

/* The launchers' own error codes: X(NAME, VALUE, WHAT) */
#define DPIA_HEADER_ERRORS(X)                                                                                   \
  X(DPIA_ERROR_PRECONDITION, -9001,                                                                             \
    "a precondition of the kernel does not hold for the size arguments")                                      \
  X(DPIA_ERROR_SIZE, -9002,                                                                                     \
    "a size argument is negative, or a launch or buffer size computed from the size arguments overflows, "     \
    "divides by zero or does not fit a size_t")                                                                \
  X(DPIA_ERROR_BUFFER_SIZE, -9003,                                                                              \
    "a buffer argument is smaller (CL_MEM_SIZE) than the bytes the kernel reads or writes in it")               \
  X(DPIA_ERROR_DEVICE_LIMIT, -9004,                                                                             \
    "the kernel needs more local memory (CL_KERNEL_LOCAL_MEM_SIZE) than the device has "                       \
    "(CL_DEVICE_LOCAL_MEM_SIZE), or is launched with larger work-groups than the device runs it in "           \
    "(CL_KERNEL_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES)")                                           \
  X(DPIA_ERROR_ALIAS, -9005,                                                                                    \
    "an output buffer argument is the same buffer as another buffer argument, or they are sub-buffers "        \
    "of one buffer whose bytes the kernel touches overlap")

/* Writes to o the block every dpia header starts with, guarded so that it
 * is defined once per translation unit (DPIA_HEADER_COMMON). */
void header_emit_common(Buf *o);
/* parts of it that do not depend on OpenCL, for the other targets'
 * headers: the checked size arithmetic (dpia_add_ ... dpia_size_), the
 * thread's error message (dpia_last_error_message, dpia_error_in_,
 * dpia_fail_) */
void header_emit_arith(Buf *o);
void header_emit_messages(Buf *o);

#endif
