/* dpia_verify.h: verification and running as the layer above it sees it
 * (the one header of verify/ on its include path; the top-level meson.build): the
 * libclang re-parse, the reference interpreter, the semantic check, the
 * runtime and its limits, and the Target interface they run through. */
#ifndef DPIA_VERIFY_LAYER_H
#define DPIA_VERIFY_LAYER_H

#include "../clang_check.h"
#include "../foreign.h"
#include "../interp.h"
#include "../run_limits.h"
#include "../runtime.h"
#include "../pipe_run.h"
#include "../semantic.h"
#include "../race.h"
#include "../target.h"

#endif
