/* json_test.c: the strict JSON parser of app/json.h: what it accepts and
 * how it decodes it, what it rejects and where it says the problem is, and
 * json_write's compact form (parse . write is the identity on values). */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "json.h"

#include "tests/test_check.h"

static Json *parse(Arena *a, const char *text, Buf *err) {
  buf_init(err, a);
  return json_parse(a, text, strlen(text), err);
}

/* text parses, and writes back as want (NULL: as text itself) */
static void accept(Arena *a, const char *text, const char *want) {
  Buf err;
  Json *v = parse(a, text, &err);
  CHECK(v != NULL, "rejected %s: %s", text, err.data);
  if (!v) return;
  Buf out;
  buf_init(&out, a);
  json_write(&out, v);
  CHECK(strcmp(out.data, want ? want : text) == 0, "%s wrote back as %s", text, out.data);
  /* the written form parses to the same written form */
  Json *again = parse(a, out.data, &err);
  Buf out2;
  buf_init(&out2, a);
  if (again) json_write(&out2, again);
  CHECK(again && strcmp(out.data, out2.data) == 0, "round trip of %s", out.data);
}

/* text is rejected with a message that contains want */
static void reject(Arena *a, const char *text, size_t len, const char *want) {
  Buf err;
  buf_init(&err, a);
  Json *v = json_parse(a, text, len, &err);
  CHECK(v == NULL, "accepted %s", text);
  CHECK(strstr(err.data, want) != NULL, "%s: message '%s' lacks '%s'", text, err.data, want);
}

static void test_accept(Arena *a) {
  accept(a, "null", NULL);
  accept(a, "true", NULL);
  accept(a, " \t\r\n false \n", "false");
  accept(a, "0", NULL);
  accept(a, "-0", NULL);
  accept(a, "1.5e3", NULL);
  accept(a, "-12.25E-2", NULL);
  accept(a, "\"\"", NULL);
  accept(a, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"a\\\"b\\\\c/d\\u0008\\u000c\\n\\r\\t\"");
  accept(a, "\"\\u00e9\\u20ac\\ud83d\\ude00\"", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  accept(a, "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", NULL);
  accept(a, "\"nul\\u0000inside\"", "\"nul\\u0000inside\"");
  accept(a, "[]", NULL);
  accept(a, "{}", NULL);
  accept(a, "[1,2 , 3]", "[1, 2, 3]");
  accept(a, "{\"a\":{\"b\":[true,null,{}]},\"c\":\"d\"}", "{\"a\": {\"b\": [true, null, {}]}, \"c\": \"d\"}");

  /* decoding */
  Buf err;
  Json *v = parse(a, "{\"id\": 7, \"s\": \"x\\u0000y\", \"n\": -3, \"f\": 2.5, \"big\": 99999999999999999999}", &err);
  CHECK(v && v->kind == JSON_OBJECT && v->n == 5, "object of 5 members");
  const Json *s = json_get(v, "s");
  CHECK(s && s->kind == JSON_STRING && s->len == 3 && memcmp(s->str, "x\0y", 3) == 0, "string with a NUL");
  long long n;
  CHECK(json_integer(json_get(v, "id"), 0, 10, &n) && n == 7, "integer 7");
  CHECK(json_integer(json_get(v, "n"), -5, 5, &n) && n == -3, "integer -3");
  CHECK(!json_integer(json_get(v, "n"), 0, 5, &n), "-3 out of [0, 5]");
  CHECK(!json_integer(json_get(v, "f"), -5, 5, &n), "2.5 is not an integer");
  CHECK(!json_integer(json_get(v, "big"), 0, 1LL << 62, &n), "20 digits overflow");
  CHECK(!json_integer(json_get(v, "s"), 0, 5, &n), "a string is not an integer");
  CHECK(json_get(v, "missing") == NULL && json_get(s, "id") == NULL, "json_get misses");
  CHECK(strcmp(json_kind_name(JSON_OBJECT), "an object") == 0, "kind names");

  /* nesting up to the limit */
  char deep[2 * JSON_MAX_DEPTH + 3];
  size_t k = 0;
  for (int i = 0; i < JSON_MAX_DEPTH; i++) deep[k++] = '[';
  for (int i = 0; i < JSON_MAX_DEPTH; i++) deep[k++] = ']';
  deep[k] = 0;
  buf_init(&err, a);
  CHECK(json_parse(a, deep, k, &err) != NULL, "%d levels: %s", JSON_MAX_DEPTH, err.data);
}

static void test_reject(Arena *a) {
#define R(text, want) reject(a, text, sizeof text - 1, want)
  R("", "column 1: expected a JSON value, found the end of the input");
  R("   ", "column 4:");
  R("nul", "expected null");
  R("True", "expected a JSON value, found 'T'");
  R("01", "leading zero");
  R("-", "expected a digit");
  R("1.", "expected a digit after '.'");
  R("1e", "digit in the exponent");
  R(".5", "expected a JSON value");
  R("+1", "expected a JSON value");
  R("NaN", "expected a JSON value");
  R("1 2", "column 3: unexpected '2' after the JSON value");
  R("[1,]", "trailing comma");
  R("{\"a\":1,}", "trailing comma");
  R("[1 2]", "expected ',' or ']'");
  R("{\"a\" 1}", "expected ':'");
  R("{a:1}", "expected a member name");
  R("{\"a\":1 \"b\":2}", "expected ',' or '}'");
  R("{\"a\":1,\"a\":2}", "duplicate member name \"a\"");
  R("{\"a\\u0000\":1}", "cannot hold \\u0000");
  R("[", "found the end of the input");
  R("\"abc", "unterminated string");
  R("\"a\nb\"", "control character");
  R("\"a\tb\"", "control character");
  R("\"\\x\"", "invalid escape \\x");
  R("\"\\u12\"", "four hexadecimal digits");
  R("\"\\ud83d\"", "followed by a \\u low surrogate");
  R("\"\\ud83d\\u0041\"", "followed by a \\u low surrogate");
  R("\"\\ude00\"", "low surrogate without a high one");
  R("\"\xc3\"", "invalid UTF-8");
  R("\"\xc0\xaf\"", "invalid UTF-8");          /* overlong '/' */
  R("\"\xed\xa0\x80\"", "invalid UTF-8");      /* an encoded surrogate */
  R("\"\xf4\x90\x80\x80\"", "invalid UTF-8");  /* beyond U+10FFFF */
  R("\xef\xbb\xbfnull", "byte 0xef");          /* no byte order mark */
  R("// comment\nnull", "found '/'");
#undef R
  /* a NUL outside a string, with the length given */
  reject(a, "[1]\0", 4, "unexpected byte 0x00");
  /* one level too deep */
  char deep[2 * JSON_MAX_DEPTH + 5];
  size_t k = 0;
  for (int i = 0; i <= JSON_MAX_DEPTH + 1; i++) deep[k++] = '[';
  deep[k] = 0;
  reject(a, deep, k, "nested deeper than");
}

/* ---- the 8-bytes-at-a-time paths against byte-at-a-time references ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static unsigned rnd(unsigned n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}

/* A random valid UTF-8 text of n pieces, runs of plain letters long and
 * short between the characters that stop a run (quotes, backslashes,
 * control characters, multi-byte sequences) at every offset of a word;
 * NULs only if nul. */
static size_t random_text(char *t, int pieces, bool nul) {
  static const char *const specials[] = {"\"", "\\", "\n", "\t", "\r", "\x01", "\x1f", "\x7f", "/",
                                         "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " "};
  size_t n = 0;
  for (int i = 0; i < pieces; i++) {
    unsigned what = rnd(4);
    if (what < 2) {
      unsigned run = rnd(what ? 3 : 20);
      for (unsigned k = 0; k < run; k++) t[n++] = (char)('a' + rnd(26));
    } else if (what == 2 && nul && rnd(4) == 0) {
      t[n++] = 0;
    } else {
      const char *sp = specials[rnd(DPIA_COUNTOF(specials))];
      size_t len = strlen(sp);
      memcpy(t + n, sp, len);
      n += len;
    }
  }
  return n;
}

/* JSON for t[0, n), byte at a time: some characters as \u escapes (a
 * surrogate pair for the 4-byte one), '/' sometimes as \/ */
static void encode_by_hand(Buf *out, const char *t, size_t n) {
  buf_putc(out, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c == 0xF0 && rnd(2)) {
      buf_puts(out, "\\ud83d\\ude00");
      i += 3;
    } else if (c == 0xE2 && rnd(2)) {
      buf_puts(out, "\\u20AC");
      i += 2;
    } else if (c == '"' || c == '\\') {
      buf_putc(out, '\\');
      buf_putc(out, (char)c);
    } else if (c == '/' && rnd(2)) {
      buf_puts(out, "\\/");
    } else if (c == '\n' && rnd(2)) {
      buf_puts(out, "\\n");
    } else if (c < 0x20) {
      emit(out, "\\u%04x", c);
    } else if (c == 'q' && rnd(2)) {
      buf_puts(out, "\\u0071");
    } else {
      buf_putc(out, (char)c);
    }
  }
  buf_putc(out, '"');
}

/* emit_json_string, as it was written a byte at a time */
static void escape_by_hand(Buf *out, const char *s) {
  buf_putc(out, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"') buf_puts(out, "\\\"");
    else if (c == '\\') buf_puts(out, "\\\\");
    else if (c == '\n') buf_puts(out, "\\n");
    else if (c == '\t') buf_puts(out, "\\t");
    else if (c == '\r') buf_puts(out, "\\r");
    else if (c < 0x20) emit(out, "\\u%04x", c);
    else buf_putc(out, (char)c);
  }
  buf_putc(out, '"');
}

static void test_fast_paths(Arena *a) {
  enum { ROUNDS = 20000, PIECES = 24 };
  char t[3][PIECES * 20 + 1];
  size_t n[3];
  for (int round = 0; round < ROUNDS; round++) {
    /* decoding: three strings in one text (they share its decoding area),
     * a value and a key among them */
    Buf text;
    buf_init(&text, a);
    for (int i = 0; i < 3; i++) n[i] = random_text(t[i], (int)rnd(PIECES) + 1, i != 1);
    buf_puts(&text, "[");
    encode_by_hand(&text, t[0], n[0]);
    buf_puts(&text, ", {");
    encode_by_hand(&text, t[1], n[1]);
    buf_puts(&text, ": ");
    encode_by_hand(&text, t[2], n[2]);
    buf_puts(&text, "}]");
    Buf err;
    buf_init(&err, a);
    Json *v = json_parse(a, text.data, text.len, &err);
    CHECK(v && v->n == 2 && v->items[1]->n == 1, "rejected %s: %s", text.data, err.data);
    if (!v || v->n != 2 || v->items[1]->n != 1) continue;
    const Json *s0 = v->items[0], *s2 = v->items[1]->items[0];
    const char *key = v->items[1]->keys[0];
    CHECK(s0->len == n[0] && memcmp(s0->str, t[0], n[0]) == 0 && s0->str[n[0]] == 0, "decoded %s wrongly",
          text.data);
    CHECK(strlen(key) == n[1] && memcmp(key, t[1], n[1]) == 0, "decoded the key of %s wrongly", text.data);
    CHECK(s2->len == n[2] && memcmp(s2->str, t[2], n[2]) == 0 && s2->str[n[2]] == 0, "decoded %s wrongly",
          text.data);
    /* escaping: as a byte at a time does, after text of any length */
    t[1][n[1]] = 0;
    Buf fast, slow;
    buf_init(&fast, a);
    buf_init(&slow, a);
    for (unsigned k = rnd(12); k > 0; k--) buf_putc(&fast, 'x'), buf_putc(&slow, 'x');
    emit_json_string(&fast, t[1]);
    escape_by_hand(&slow, t[1]);
    CHECK(fast.len == slow.len && memcmp(fast.data, slow.data, fast.len) == 0, "escaped %s as %s, not %s", t[1],
          fast.data, slow.data);
  }
}

/* Escaping text that grows most (control characters, 6 bytes each, among
 * quotes and letters) after text of any length in the buffer: the room
 * emit_json_string keeps for a block's store past the text is grown at
 * escapes, so the buffer ends with its NUL inside its capacity and the
 * bytes are a byte at a time's. */
static void test_escape_growth(Arena *a) {
  static const char pieces[] = "\x01\x02\x1f\"\\\nab\x7f";
  for (int round = 0; round < 3000; round++) {
    char t[300];
    size_t n = rnd(sizeof t - 1);
    for (size_t i = 0; i < n; i++) t[i] = pieces[rnd(sizeof pieces - 1)];
    t[n] = 0;
    Buf fast, slow;
    buf_init(&fast, a);
    buf_init(&slow, a);
    for (unsigned k = rnd(70); k > 0; k--) buf_putc(&fast, 'x'), buf_putc(&slow, 'x');
    emit_json_string(&fast, t);
    escape_by_hand(&slow, t);
    CHECK(fast.len < fast.cap && fast.data[fast.len] == 0 && fast.len == slow.len &&
              memcmp(fast.data, slow.data, fast.len) == 0,
          "escaped %zu bytes as %s, not %s", n, fast.data, slow.data);
  }
}

/* emit_json_text, with the length known (a Buf's: batch's outputs), as
 * emit_json_string of the same text: the text is what strlen finds, so a
 * NUL anywhere before the length given ends it there, in a block or in
 * the bytes after the last. */
static void test_known_length(Arena *a) {
  static const char pieces[] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnop\n\"\\\x01";
  for (int round = 0; round < 20000; round++) {
    char t[300];
    size_t n = rnd(sizeof t - 1);
    for (size_t i = 0; i < n; i++) t[i] = pieces[rnd(sizeof pieces - 1)];
    t[n] = 0;
    if (n && rnd(2)) t[rnd((unsigned)n)] = 0; /* an early end */
    Buf fast, slow;
    buf_init(&fast, a);
    buf_init(&slow, a);
    for (unsigned k = rnd(70); k > 0; k--) buf_putc(&fast, 'x'), buf_putc(&slow, 'x');
    emit_json_text(&fast, t, n);
    emit_json_string(&slow, t);
    CHECK(fast.len < fast.cap && fast.data[fast.len] == 0 && fast.len == slow.len &&
              memcmp(fast.data, slow.data, fast.len) == 0,
          "escaped %zu bytes (strlen %zu) as %s, not %s", n, strlen(t), fast.data, slow.data);
  }
}

int main(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  Arena a;
  arena_init(&a, &mem);
  test_accept(&a);
  test_reject(&a);
  test_fast_paths(&a);
  test_escape_growth(&a);
  test_known_length(&a);
  arena_free(&a);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
