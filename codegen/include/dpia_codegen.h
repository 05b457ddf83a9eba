/* dpia_codegen.h: code generation as the layers above it see it (the one
 * header of codegen/ on their include path; the top-level meson.build): imperative
 * kernels, their OpenCL C, metadata and headers, and the Backend that
 * prints them. */
#ifndef DPIA_CODEGEN_LAYER_H
#define DPIA_CODEGEN_LAYER_H

#include "../kernel.h"
#include "../defs.h"
#include "../pipeline_emit.h"
#include "../backend.h"

#endif
