/* dpia_front.h: the front end as the layers above it see it (the one
 * header of dpia/ on their include path; the top-level meson.build): parsing,
 * checking, normalisation, printing, and what they are made of (arena,
 * buffers, diagnostics, sizes, types, phrases).  The front end's other
 * headers are its own. */
#ifndef DPIA_FRONT_H
#define DPIA_FRONT_H

#include "../check.h"
#include "../pipeline.h"
#include "../rules.h"

#endif
