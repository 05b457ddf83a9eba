/* layout.h: values of nat parameters, and the layout of data on the host
 * and in OpenCL buffers (spec sections 8, 9 and 11).
 *
 * Host layout.  A value of data type T is a flat array of doubles, laid out
 * like the C struct OpenCL uses, without padding:
 *   - a scalar is 1 double (int and bool values are exact integers; a bool
 *     is 0 or 1), a vector sN is N doubles (a 3-vector is 3 doubles);
 *   - [n]T is n values of T one after the other (row-major: the innermost
 *     index varies fastest);
 *   - (T1, T2) is T1's doubles followed by T2's (an array of pairs is an
 *     array of structs, as in OpenCL).
 * So a top-level pair of arrays is its first array followed by its second,
 * which is also the concatenation of the kernel's two output buffers.
 *
 * Device layout.  The same value in an OpenCL buffer (or a by-value kernel
 * argument): int and float 4 bytes, double 8, bool as an int (0 or 1);
 * vectors sN of N lanes, size and alignment N lanes (a 3-vector occupies 4
 * lanes, except as the element of arrays outside a struct, where it is
 * packed: 3 lanes, aligned as its scalar, read with vload3: codegen's
 * kparam_packed3); arrays without padding between elements; pairs as
 * struct { T1 x1; T2 x2; } with C alignment (the second field at the next
 * multiple of its alignment, the size a multiple of the largest alignment).
 * lay_pack and lay_unpack convert one value between the two layouts.
 *
 * Sizes are evaluated once, with the values of the nat parameters, when a
 * Lay is made. */
#ifndef DPIA_LAYOUT_H
#define DPIA_LAYOUT_H

#include "dpia_front.h"

/* Values of a kernel's nat parameters, matched by name. */
typedef struct NatValues {
  int n;
  const char *const *names;
  const int64_t *values;
} NatValues;

/* nats with one value more, the size variable a dependent map's loop
 * binds to its index (Phrase.dep_index, docs/language.md section 30):
 * the interpreters set *value at each iteration and look sizes up in
 * nats, where the row comes first */
typedef struct NatRow {
  NatValues nats;
  int64_t *value;
} NatRow;
NatRow nat_row(Arena *a, const NatValues *nats, Sym row);

/* A SizeLookup (size.h) over a NatValues (pass it as user). */
bool nat_lookup(void *user, Sym v, int64_t *value);

/* Evaluate a size; on failure a message naming the size goes to err. */
bool nat_eval_size(Size s, const NatValues *nats, int64_t *value, Buf *err);

typedef enum LayKind { LAY_NUM, LAY_ARRAY, LAY_PAIR } LayKind;

typedef struct Lay Lay;
struct Lay {
  LayKind kind;
  ScalarKind scalar; /* LAY_NUM */
  int width;         /* LAY_NUM: 1, or the vector width */
  int64_t bound;     /* LAY_NUM: an idx[bound] (an int in 0 <= v < bound);
                        0 for a number */
  int64_t n;         /* LAY_ARRAY: element count */
  const Lay *elem;   /* LAY_ARRAY */
  const Lay *fst, *snd; /* LAY_PAIR */
  int64_t flat;       /* doubles in the host layout */
  int64_t bytes;      /* sizeof in the device layout */
  int64_t align;      /* alignof in the device layout */
  int64_t snd_offset; /* LAY_PAIR: byte offset of the second field */
};

/* The layout of t with the sizes evaluated.  Returns NULL after a message
 * in err when a size cannot be evaluated (an unknown nat parameter, an
 * inexact division), is negative or makes the value too large, or when t
 * is not a concrete data type (a data parameter).  An idx[n] is an int. */
const Lay *lay_of(Arena *a, const DataType *t, const NatValues *nats, Buf *err);
/* The same for t as the element of a buffer's arrays (a 3-vector packed) */
const Lay *lay_of_buffer_element(Arena *a, const DataType *t, const NatValues *nats, Buf *err);

/* Host <-> device conversion of one value of layout l.  Float lanes are
 * rounded to float; int and bool lanes truncated towards zero and
 * saturated to the int range, and NaN becomes INT32_MIN, the poison value
 * of int lanes.  Padding bytes are written as zero.  lay_unpack reads
 * INT32_MIN in an int or bool lane back as NaN (a poisoned, unwritten
 * element). */
void lay_pack(const Lay *l, const double *src, unsigned char *dst);
/* a copy of l in a (lay_same compares it with another run's layouts) */
const Lay *lay_copy(Arena *a, const Lay *l);
/* l and m are the same layout: the same values packed the same way */
bool lay_same(const Lay *l, const Lay *m);
void lay_unpack(const Lay *l, const unsigned char *src, double *dst);

/* The value of layout l at vals (l->flat doubles), in place, as the device
 * holds it: each lane converted to its device type and back exactly as
 * lay_pack and lay_unpack do (float lanes rounded to float; int and bool
 * lanes truncated and saturated; NaN stays NaN).  lay_device_exact says
 * whether that changes nothing. */
void lay_round(const Lay *l, double *vals);
bool lay_device_exact(const Lay *l, const double *vals);

/* One lane of scalar type s as lay_round leaves it. */
double lay_round_lane(ScalarKind s, double v);

/* Does any lane of l have scalar type s? */
bool lay_has_scalar(const Lay *l, ScalarKind s);

#endif
