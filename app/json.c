/* json.c: the strict JSON parser of json.h, recursive descent over the
 * grammar of RFC 8259 section 2-7. */
#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpia_front.h"

static const char *const kind_names[] = {
#define X(id, s) s,
    DPIA_JSON_KINDS(X)
#undef X
};

const char *json_kind_name(JsonKind k) { return kind_names[k]; }

typedef struct Parser {
  Arena *a;
  const char *s;
  size_t len, pos;
  Buf *err;
  bool failed;
  char *decoded; /* the strings' decoding area (parse_string), NULL until the first */
} Parser;

static bool fail(Parser *p, const char *fmt, const char *arg) {
  if (!p->failed) {
    emit(p->err, "column %zu: ", p->pos + 1);
    emit(p->err, fmt, arg);
  }
  p->failed = true;
  return false;
}

static int peek(const Parser *p) { return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1; }

static void skip_ws(Parser *p) {
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

/* what is at the current position, for messages */
static const char *found(Parser *p) {
  int c = peek(p);
  if (c < 0) return "the end of the input";
  if (c < 0x20 || c >= 0x7f) return arena_printf(p->a, "byte 0x%02x", (unsigned)c);
  return arena_printf(p->a, "'%c'", c);
}

static Json *new_value(Parser *p, JsonKind k) {
  Json *v = NEW(p->a, Json);
  v->kind = k;
  return v;
}

static bool literal(Parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return fail(p, "expected %s", word);
  p->pos += n;
  return true;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static Json *parse_number(Parser *p) {
  size_t start = p->pos;
  if (peek(p) == '-') p->pos++;
  if (peek(p) == '0') {
    p->pos++;
    if (is_digit(peek(p))) {
      fail(p, "%s", "a number cannot have a leading zero");
      return NULL;
    }
  } else if (is_digit(peek(p))) {
    while (is_digit(peek(p))) p->pos++;
  } else {
    fail(p, "expected a digit, found %s", found(p));
    return NULL;
  }
  if (peek(p) == '.') {
    p->pos++;
    if (!is_digit(peek(p))) {
      fail(p, "expected a digit after '.', found %s", found(p));
      return NULL;
    }
    while (is_digit(peek(p))) p->pos++;
  }
  if (peek(p) == 'e' || peek(p) == 'E') {
    p->pos++;
    if (peek(p) == '+' || peek(p) == '-') p->pos++;
    if (!is_digit(peek(p))) {
      fail(p, "expected a digit in the exponent, found %s", found(p));
      return NULL;
    }
    while (is_digit(peek(p))) p->pos++;
  }
  Json *v = new_value(p, JSON_NUMBER);
  v->len = p->pos - start;
  v->str = arena_strndup(p->a, p->s + start, v->len);
  return v;
}

static int hex4(Parser *p) {
  if (p->len - p->pos < 4) return -1;
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p->s[p->pos + (size_t)i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  p->pos += 4;
  return v;
}

/* cp's UTF-8 bytes at out (at most 4, from a \\u escape of 6 or 12 bytes):
 * how many */
static size_t put_utf8(char *out, unsigned cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* the length of the valid UTF-8 sequence at s[0, n) (RFC 3629: shortest
 * form, no surrogates, at most U+10FFFF), or 0 */
static size_t utf8_length(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t k;
  unsigned cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) k = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) k = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) k = 4, cp = c & 0x07;
  else return 0;
  if (n < k) return 0;
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return k;
}

/* A string after its opening quote, decoded to out; false after a
 * message.  No string decodes to more bytes than it is written with (an
 * escape of 2 bytes is 1, \\u escapes of 6 or 12 are at most 4), so out
 * may be the string's own place in the decoding area (parse_string): its
 * NUL lands before the closing quote's place. */
static bool parse_string_body(Parser *p, char *out, size_t *len) {
  size_t n = 0;
  for (;;) {
    /* a run of ASCII characters with no escape, copied as it is found, a
     * block at a time (json_block_stop; a request's program text is most
     * of a batch request: issue 35).  A block's store stays in the
     * decoding area: out + n is at most the place of the text at pos, and
     * a block is read only where JSON_BLOCK bytes are left; what it
     * writes past the run is this string's own place, or a later one's,
     * decoded over after. */
    if (p->len - p->pos >= JSON_BLOCK) {
      unsigned k = json_block_stop(p->s + p->pos, true);
      memcpy(out + n, p->s + p->pos, JSON_BLOCK);
      n += k;
      p->pos += k;
      if (k == JSON_BLOCK) continue;
    } else {
      size_t run = json_plain_run(p->s + p->pos, p->len - p->pos, true);
      memcpy(out + n, p->s + p->pos, run);
      n += run;
      p->pos += run;
    }
    int c = peek(p);
    if (c < 0) return fail(p, "%s", "unterminated string");
    if (c == '"') {
      p->pos++;
      out[n] = 0;
      *len = n;
      return true;
    }
    if (c < 0x20) return fail(p, "a string cannot hold the control character %s (escape it)", found(p));
    if (c == '\\') {
      p->pos++;
      int e = peek(p);
      p->pos++;
      switch (e) {
      case '"': out[n++] = '"'; break;
      case '\\': out[n++] = '\\'; break;
      case '/': out[n++] = '/'; break;
      case 'b': out[n++] = '\b'; break;
      case 'f': out[n++] = '\f'; break;
      case 'n': out[n++] = '\n'; break;
      case 'r': out[n++] = '\r'; break;
      case 't': out[n++] = '\t'; break;
      case 'u': {
        int u = hex4(p);
        if (u < 0) return fail(p, "%s", "\\u needs four hexadecimal digits");
        unsigned cp = (unsigned)u;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(p, "%s", "a \\u low surrogate without a high one");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail(p, "%s", "a \\u high surrogate must be followed by a \\u low surrogate");
          p->pos += 2;
          int lo = hex4(p);
          if (lo < 0xDC00 || lo > 0xDFFF) return fail(p, "%s", "a \\u high surrogate must be followed by a \\u low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
        }
        n += put_utf8(out + n, cp);
        break;
      }
      default:
        p->pos--;
        return fail(p, "invalid escape \\%s", e < 0 ? "at the end" : arena_printf(p->a, "%c", e));
      }
      continue;
    }
    /* a byte of 0x80 or above: a whole UTF-8 sequence */
    size_t k = utf8_length((const unsigned char *)p->s + p->pos, p->len - p->pos);
    if (!k) return fail(p, "%s", "invalid UTF-8 in a string");
    memcpy(out + n, p->s + p->pos, k);
    n += k;
    p->pos += k;
  }
}

/* Every string of the text is decoded into one area as long as the text,
 * each at the place of its opening quote (parse_string_body says why
 * they fit), made at the first string: no buffer grown and copied per
 * string. */
static Json *parse_string(Parser *p) {
  /* nothing of it is read before a string is decoded there */
  if (!p->decoded) p->decoded = arena_alloc_unzeroed(p->a, p->len + 1);
  char *out = p->decoded + p->pos;
  p->pos++; /* the opening quote */
  size_t len;
  if (!parse_string_body(p, out, &len)) return NULL;
  Json *v = new_value(p, JSON_STRING);
  v->str = out;
  v->len = len;
  return v;
}

static Json *parse_value(Parser *p, int depth);

/* items of an array or members of an object, after the opening bracket */
static Json *parse_container(Parser *p, int depth, bool object) {
  char close = object ? '}' : ']';
  p->pos++;
  Vec items = {0}, keys = {0};
  skip_ws(p);
  if (peek(p) == close) {
    p->pos++;
  } else {
    for (;;) {
      skip_ws(p);
      if (object) {
        if (peek(p) != '"') {
          fail(p, "expected a member name (a string), found %s", found(p));
          return NULL;
        }
        Json *key = parse_string(p);
        if (!key) return NULL;
        if (strlen(key->str) != key->len) {
          fail(p, "%s", "a member name cannot hold \\u0000");
          return NULL;
        }
        for (int i = 0; i < keys.len; i++)
            if (strcmp(keys.items[i], key->str) == 0) {
              fail(p, "duplicate member name \"%s\"", key->str);
              return NULL;
            }
        vec_push(p->a, &keys, (void *)key->str);
        skip_ws(p);
        if (peek(p) != ':') {
          fail(p, "expected ':' after a member name, found %s", found(p));
          return NULL;
        }
        p->pos++;
      }
      Json *v = parse_value(p, depth + 1);
      if (!v) return NULL;
      vec_push(p->a, &items, v);
      skip_ws(p);
      int c = peek(p);
      if (c == ',') {
        p->pos++;
        skip_ws(p);
        if (peek(p) == close) {
          fail(p, "%s", "a trailing comma is not JSON");
          return NULL;
        }
        continue;
      }
      if (c == close) {
        p->pos++;
        break;
      }
      fail(p, object ? "expected ',' or '}' after an object member, found %s"
                     : "expected ',' or ']' after an array item, found %s",
           found(p));
      return NULL;
    }
  }
  Json *v = new_value(p, object ? JSON_OBJECT : JSON_ARRAY);
  v->n = items.len;
  v->items = (Json **)items.items;
  v->keys = (const char **)keys.items;
  return v;
}

static Json *parse_value(Parser *p, int depth) {
  if (depth > JSON_MAX_DEPTH) {
    fail(p, "nested deeper than %s levels", arena_printf(p->a, "%d", JSON_MAX_DEPTH));
    return NULL;
  }
  skip_ws(p);
  Json *v;
  switch (peek(p)) {
  case '{': return parse_container(p, depth, true);
  case '[': return parse_container(p, depth, false);
  case '"': return parse_string(p);
  case 't':
  case 'f':
    v = new_value(p, JSON_BOOL);
    v->boolean = peek(p) == 't';
    return literal(p, v->boolean ? "true" : "false") ? v : NULL;
  case 'n': return literal(p, "null") ? new_value(p, JSON_NULL) : NULL;
  default:
    if (peek(p) == '-' || is_digit(peek(p))) return parse_number(p);
    fail(p, "expected a JSON value, found %s", found(p));
    return NULL;
  }
}

Json *json_parse(Arena *a, const char *text, size_t len, Buf *err) {
  Parser p = {a, text, len, 0, err, false, NULL};
  Json *v = parse_value(&p, 0);
  if (!v) return NULL;
  skip_ws(&p);
  if (p.pos != len) {
    fail(&p, "unexpected %s after the JSON value", found(&p));
    return NULL;
  }
  return v;
}

const Json *json_get(const Json *object, const char *key) {
  if (!object || object->kind != JSON_OBJECT) return NULL;
  for (int i = 0; i < object->n; i++)
    if (strcmp(object->keys[i], key) == 0) return object->items[i];
  return NULL;
}

bool json_integer(const Json *v, long long lo, long long hi, long long *out) {
  if (!v || v->kind != JSON_NUMBER || strpbrk(v->str, ".eE")) return false;
  errno = 0;
  char *end;
  long long n = strtoll(v->str, &end, 10);
  if (errno || *end || n < lo || n > hi) return false;
  *out = n;
  return true;
}

/* a string with its length (it may hold NULs, written as \u0000) */
static void write_string(Buf *out, const char *s, size_t len) {
  buf_putc(out, '"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': buf_puts(out, "\\\""); break;
    case '\\': buf_puts(out, "\\\\"); break;
    case '\n': buf_puts(out, "\\n"); break;
    case '\t': buf_puts(out, "\\t"); break;
    case '\r': buf_puts(out, "\\r"); break;
    default:
      if (c < 0x20) emit(out, "\\u%04x", c);
      else buf_putc(out, (char)c);
    }
  }
  buf_putc(out, '"');
}

void json_write(Buf *out, const Json *v) {
  switch (v->kind) {
  case JSON_NULL: buf_puts(out, "null"); return;
  case JSON_BOOL: buf_puts(out, v->boolean ? "true" : "false"); return;
  case JSON_NUMBER: buf_put(out, v->str, v->len); return;
  case JSON_STRING: write_string(out, v->str, v->len); return;
  case JSON_ARRAY:
  case JSON_OBJECT:
    buf_putc(out, v->kind == JSON_ARRAY ? '[' : '{');
    for (int i = 0; i < v->n; i++) {
      if (i) buf_puts(out, ", ");
      if (v->kind == JSON_OBJECT) {
        write_string(out, v->keys[i], strlen(v->keys[i]));
        buf_puts(out, ": ");
      }
      json_write(out, v->items[i]);
    }
    buf_putc(out, v->kind == JSON_ARRAY ? ']' : '}');
    return;
  }
}
