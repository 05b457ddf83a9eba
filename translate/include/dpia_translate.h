/* dpia_translate.h: the translation (stage I, stage II, hoisting) as the
 * layers above it see it (the one header of translate/ on their include
 * path; the top-level meson.build). */
#ifndef DPIA_TRANSLATE_LAYER_H
#define DPIA_TRANSLATE_LAYER_H

#include "../translate.h"

#endif
