/* json.h: a small, strict JSON parser (RFC 8259) for `dpia batch`.
 *
 * Strict: one value with optional whitespace around it; no comments, no
 * trailing commas, no leading zeros, no NaN; strings are valid UTF-8 with
 * no raw control characters and valid escapes (a \u surrogate must be
 * paired); an object's keys are distinct and hold no NUL; nesting is at most JSON_MAX_DEPTH
 * deep.  Everything lives in the arena.  Errors are one message with the
 * column (byte offset + 1) where the parse stopped:
 *   column 14: expected ',' or '}' after an object member
 *
 * Usage:
 *   Json *v = json_parse(arena, text, len, &err);
 *   const Json *src = json_get(v, "source");
 *   if (src && src->kind == JSON_STRING) ... src->str, src->len ...
 *   json_write(&buf, v);  // compact, on one line */
#ifndef DPIA_JSON_H
#define DPIA_JSON_H

#include "dpia_front.h"

#define JSON_MAX_DEPTH 200

#define DPIA_JSON_KINDS(X) \
  X(NULL, "null")          \
  X(BOOL, "a boolean")     \
  X(NUMBER, "a number")    \
  X(STRING, "a string")    \
  X(ARRAY, "an array")     \
  X(OBJECT, "an object")

typedef enum JsonKind {
#define X(id, s) JSON_##id,
  DPIA_JSON_KINDS(X)
#undef X
} JsonKind;

/* "null", "a boolean", ... for messages */
const char *json_kind_name(JsonKind k);

typedef struct Json Json;
struct Json {
  JsonKind kind;
  bool boolean;       /* BOOL */
  const char *str;    /* STRING: the decoded UTF-8 (NUL-terminated; may hold NULs: see len);
                         NUMBER: the number's text as written */
  size_t len;         /* STRING, NUMBER: bytes of str */
  int n;              /* ARRAY, OBJECT: number of items */
  Json **items;       /* ARRAY, OBJECT: the values in order */
  const char **keys;  /* OBJECT: the keys (decoded; never holding a NUL) */
};

/* Parse text[0, len).  NULL after a message in err if it is not exactly one
 * valid JSON value. */
Json *json_parse(Arena *a, const char *text, size_t len, Buf *err);

/* The member of an object with this key, or NULL (also for a non-object). */
const Json *json_get(const Json *object, const char *key);

/* A NUMBER that is an integer (no fraction or exponent) in [lo, hi]. */
bool json_integer(const Json *v, long long lo, long long hi, long long *out);

/* Write v as compact JSON on one line (strings escaped as emit_json_string
 * does; numbers as written). */
void json_write(Buf *out, const Json *v);

#endif
