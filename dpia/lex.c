/* lex.c: the tokens of .dpia source text (spec section 2; tokens in ast.h).
 *
 * The source is UTF-8.  Tokens are ASCII except `λ` (U+03BB), which is the
 * lambda token like `\`.  Anything the lexer cannot use (a stray character,
 * a NUL byte, bytes that are not UTF-8, a bad number suffix) is reported at
 * its position and skipped, so one bad byte never hides the rest of the
 * file.  Every read is bounds-checked against the source length: the text
 * need not be NUL-terminated.
 *
 * Decisions the spec leaves open:
 *  - keywords are only def kernel pipeline foreign let in true false; the type words (int,
 *    float, exp, acc, idx, nat, data, comm, ...) are identifiers, because
 *    `exp` and `idx` are also primitive names and the parser decides by
 *    context;
 *  - a decimal literal has a '.' followed by digits and/or an exponent
 *    (1.5, 1.5e3, 1.5e-3, 2e3); the `f` suffix is allowed only on decimal
 *    literals (1.5f, 2e3f), so `2f` is an error that suggests `2.0f`, as in
 *    C; any other letter or digit run glued to a number is an error too;
 *  - `.1` and `.2` are projections when the '.' is not part of a number and
 *    the digit is not followed by another digit (`x.12` is an error);
 *  - `.x` `.y` `.z` `.w` `.s0` ... `.sF`: a '.' followed by a letter is a
 *    vector lane (lex_lane);
 *  - `->p` is the passive arrow only when no identifier character follows
 *    the p, so `x ->pq` is `->` then `pq`;
 *  - a UTF-8 byte order mark at the very start is skipped;
 *  - decimal literals are converted with strtod, which assumes the "C"
 *    numeric locale (dpia never calls setlocale). */
#include "ast.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *const tok_spelling[TOK_COUNT] = {
#define X(id, s) [TOK_##id] = s,
    DPIA_TOKENS(X)
#undef X
};

/* ---- the reserved names ---- */

/* Every name an identifier's letters may spell that means something of
 * its own: the keywords, the primitives (those that take one with each
 * dimension suffix, mapGlobal1) and the prelude's defs, in one table
 * built once per process and only read after (as prims.c's index), so
 * that the lexer finds what an identifier is with one look-up, by the
 * hash it makes while scanning the letters, rather than a keyword table,
 * then the primitive index at the parser, then a scan of the whole text
 * for prelude names (translation throughput, issue 35). */
struct ReservedName {
  const char *text; /* NULL: an empty slot */
  uint32_t hash;    /* INTERN_HASH_* of text */
  uint8_t len;
  uint8_t kind; /* TOK_IDENT, or the keyword's token */
  uint8_t dim;  /* the dimension suffix, 0-2 */
  bool dim_written;
  uint16_t prim;  /* PRIM_COUNT: none */
  int8_t prelude; /* the prelude def (prelude_def_name), -1: none */
};

enum { RESERVED_SIZE = 512 }; /* a power of two, under half full */
static ReservedName reserved_names[RESERVED_SIZE];
static pthread_once_t reserved_once = PTHREAD_ONCE_INIT;

/* (a keyword is lexed as one whatever else its name is: first in the
 * table) */
static const struct {
  const char *word;
  TokKind kind;
} keywords[] = {
    {"def", TOK_KW_DEF},         {"kernel", TOK_KW_KERNEL}, {"let", TOK_KW_LET},           {"in", TOK_KW_IN},
    {"true", TOK_KW_TRUE},       {"false", TOK_KW_FALSE},   {"pipeline", TOK_KW_PIPELINE}, {"iterate", TOK_KW_ITERATE},
    {"foreign", TOK_KW_FOREIGN},
};

static uint32_t reserved_hash(const char *s, size_t n) {
  uint32_t h = INTERN_HASH_START;
  for (size_t i = 0; i < n; i++) h = intern_hash_step(h, (unsigned char)s[i]);
  return h;
}

/* The slot of the n bytes at s with hash h: theirs, or the empty one
 * where they would go. */
static ReservedName *reserved_slot(ReservedName *table, const char *s, size_t n, uint32_t h) {
  for (uint32_t i = h & (RESERVED_SIZE - 1);; i = (i + 1) & (RESERVED_SIZE - 1)) {
    ReservedName *r = &table[i];
    if (!r->text || (r->hash == h && r->len == n && memcmp(r->text, s, n) == 0)) return r;
  }
}

/* The slot of text (of the arena-less table: texts are the primitive
 * table's and these literals, or made once here), created empty. */
static ReservedName *reserved_add(const char *text, size_t n) {
  if (n > UINT8_MAX) INTERNAL("reserved name '%s' too long", text);
  uint32_t h = reserved_hash(text, n);
  ReservedName *r = reserved_slot(reserved_names, text, n, h);
  if (!r->text) {
    r->text = text;
    r->hash = h;
    r->len = (uint8_t)n;
    r->kind = TOK_IDENT;
    r->prim = PRIM_COUNT;
    r->prelude = -1;
  }
  return r;
}

static void build_reserved(void) {
  int used = 0;
  for (size_t i = 0; i < DPIA_COUNTOF(keywords); i++, used++)
    reserved_add(keywords[i].word, strlen(keywords[i].word))->kind = (uint8_t)keywords[i].kind;
  /* a name listed twice is its first row's, as prim_lookup finds it */
  static char suffixed[PRIM_COUNT][3][40];
  for (int p = 0; p < PRIM_COUNT; p++, used++) {
    ReservedName *r = reserved_add(prim_info[p].name, strlen(prim_info[p].name));
    if (r->kind == TOK_IDENT && r->prim == PRIM_COUNT) r->prim = (uint16_t)p;
  }
  /* mapGlobal0, mapGlobal1, mapGlobal2 (spec section 4), where the name
   * without the suffix is a primitive that takes one and the name with it
   * no primitive of its own (prim_lookup) */
  for (int p = 0; p < PRIM_COUNT; p++) {
    size_t n = strlen(prim_info[p].name);
    if (!(prim_info[p].flags & PF_DIM)) continue;
    const ReservedName *plain =
        reserved_slot(reserved_names, prim_info[p].name, n, reserved_hash(prim_info[p].name, n));
    if (plain->prim != p || plain->kind != TOK_IDENT) continue;
    if (n + 2 > sizeof suffixed[p][0]) INTERNAL("primitive name '%s' too long", prim_info[p].name);
    for (int d = 0; d < 3; d++, used++) {
      memcpy(suffixed[p][d], prim_info[p].name, n);
      suffixed[p][d][n] = (char)('0' + d);
      suffixed[p][d][n + 1] = 0;
      ReservedName *r = reserved_add(suffixed[p][d], n + 1);
      if (r->kind != TOK_IDENT || r->prim != PRIM_COUNT) continue;
      r->prim = (uint16_t)p;
      r->dim = (uint8_t)d;
      r->dim_written = true;
    }
  }
  for (int i = 0; i < prelude_def_count(); i++, used++)
    reserved_add(prelude_def_name(i), strlen(prelude_def_name(i)))->prelude = (int8_t)i;
  if (used * 2 > RESERVED_SIZE) INTERNAL("the reserved names' table is too small (%d names)", used);
}

/* What the identifier of n bytes at s, whose hash is h, is: NULL for an
 * ordinary name. */
static const ReservedName *reserved_find(const ReservedName *table, const char *s, size_t n, uint32_t h) {
  for (uint32_t i = h & (RESERVED_SIZE - 1);; i = (i + 1) & (RESERVED_SIZE - 1)) {
    const ReservedName *r = &table[i];
    if (!r->text) return NULL;
    if (r->hash == h && r->len == n && memcmp(r->text, s, n) == 0) return r;
  }
}

void lexer_init(Lexer *lx, const Source *src, Interner *in, Diag *diag) {
  pthread_once(&reserved_once, build_reserved);
  lx->reserved = reserved_names;
  lx->prelude_named = 0;
  lx->prelude_unsure = false;
  lx->src = src;
  lx->interner = in;
  lx->diag = diag;
  lx->pos = 0;
  lx->text = src->text;
  lx->len = src->len;
  const unsigned char *t = (const unsigned char *)src->text;
  if (src->len >= 3 && t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF) lx->pos = 3;
}

/* ---- character access (never past the end) ---- */

/* The byte at pos + ahead, or -1 past the end of the source. */
static int peek_at(const Lexer *lx, uint32_t ahead) {
  size_t at = (size_t)lx->pos + ahead;
  if (at >= lx->len) return -1;
  return (unsigned char)lx->text[at];
}

static int peek(const Lexer *lx) { return peek_at(lx, 0); }

static Span span_of(const Lexer *lx, uint32_t begin, uint32_t end) {
  Span s = {lx->src, begin, end};
  return s;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c) || c == '\''; }

/* Each byte's class, read from one table where the lexer looks at every
 * byte (blanks, identifiers), rather than tested by comparisons per byte
 * (translation throughput: a search translates hundreds of programs): the
 * same classes as is_ident_start, is_digit and is_ident_char above. */
enum { BYTE_BLANK = 1, BYTE_START = 2, BYTE_DIGIT = 4, BYTE_QUOTE = 8, BYTE_IDENT = BYTE_START | BYTE_DIGIT | BYTE_QUOTE };
#define BYTE_CLASS(c)                                                                                                \
  ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r'                 ? BYTE_BLANK                             \
   : ((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || (c) == '_' ? BYTE_START                             \
   : (c) >= '0' && (c) <= '9'                                              ? BYTE_DIGIT                             \
   : (c) == '\''                                                           ? BYTE_QUOTE                             \
                                                                           : 0)
#define BYTE_CLASS4(c) BYTE_CLASS(c), BYTE_CLASS((c) + 1), BYTE_CLASS((c) + 2), BYTE_CLASS((c) + 3)
#define BYTE_CLASS16(c) BYTE_CLASS4(c), BYTE_CLASS4((c) + 4), BYTE_CLASS4((c) + 8), BYTE_CLASS4((c) + 12)
#define BYTE_CLASS64(c) BYTE_CLASS16(c), BYTE_CLASS16((c) + 16), BYTE_CLASS16((c) + 32), BYTE_CLASS16((c) + 48)
static const unsigned char byte_class[256] = {BYTE_CLASS64(0), BYTE_CLASS64(64), BYTE_CLASS64(128),
                                              BYTE_CLASS64(192)};
#undef BYTE_CLASS64
#undef BYTE_CLASS16
#undef BYTE_CLASS4
#undef BYTE_CLASS

/* Length (2-4) of the well-formed UTF-8 sequence of a non-ASCII character
 * at pos, with its code point; 0 if the bytes there are not UTF-8 (overlong
 * forms, surrogates and code points above U+10FFFF are rejected, as RFC 3629
 * requires). */
static int utf8_sequence(const Lexer *lx, uint32_t *codepoint) {
  int lead = peek(lx);
  int len;
  uint32_t cp;
  int lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    cp = (uint32_t)lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    cp = (uint32_t)lead & 0x0F;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    cp = (uint32_t)lead & 0x07;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (int i = 1; i < len; i++) {
    int c = peek_at(lx, (uint32_t)i);
    if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF)) return 0;
    cp = (cp << 6) | ((uint32_t)c & 0x3F);
  }
  *codepoint = cp;
  return len;
}

/* Report a run of bytes that are not UTF-8 as one error naming the first,
 * and skip it. */
static void skip_invalid_utf8(Lexer *lx) {
  uint32_t begin = lx->pos;
  int first = peek(lx);
  uint32_t cp;
  do {
    lx->pos++;
  } while (peek(lx) >= 0x80 && utf8_sequence(lx, &cp) == 0);
  diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos), "invalid UTF-8 byte 0x%02x", (unsigned)first);
}

/* Report a run of NUL bytes (a binary file, usually) as one error. */
static void skip_nul_bytes(Lexer *lx) {
  uint32_t begin = lx->pos;
  while (peek(lx) == 0) lx->pos++;
  diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos), "unexpected NUL byte");
}

/* Skip a `--` comment to the end of the line.  Its text is free, but must
 * still be UTF-8 without NUL bytes: diagnostics quote source lines.  A
 * prelude def it names counts (prelude.c, mentions). */
static void skip_comment(Lexer *lx) {
  uint32_t begin = lx->pos;
  lx->pos += 2;
  for (;;) {
    int c = peek(lx);
    if (c < 0 || c == '\n') break;
    if (c == 0) {
      skip_nul_bytes(lx);
    } else if (c >= 0x80) {
      uint32_t cp;
      int n = utf8_sequence(lx, &cp);
      if (n == 0) skip_invalid_utf8(lx);
      else lx->pos += (uint32_t)n;
    } else {
      lx->pos++;
    }
  }
  prelude_words_in(lx->text + begin, lx->text + lx->pos, &lx->prelude_named);
}

/* A character no token starts with: report it and skip it. */
static DPIA_NOINLINE void skip_stray_character(Lexer *lx) {
  uint32_t begin = lx->pos;
  int c = peek(lx);
  if (c == 0) {
    skip_nul_bytes(lx);
    return;
  }
  if (c >= 0x80) {
    uint32_t cp;
    int n = utf8_sequence(lx, &cp);
    if (n == 0) {
      skip_invalid_utf8(lx);
      return;
    }
    lx->pos += (uint32_t)n;
    diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos), "unexpected character '%.*s' (U+%04X)", n,
               lx->text + begin, (unsigned)cp);
    return;
  }
  lx->pos++;
  if (c < 0x20 || c == 0x7F)
    diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos), "unexpected control character 0x%02x",
               (unsigned)c);
  else if (c == '.')
    diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos),
               "unexpected '.': a projection is written '.1' or '.2'");
  else
    diag_error(lx->diag, ERR_BAD_CHARACTER, span_of(lx, begin, lx->pos), "unexpected character '%c'", c);
}

/* ---- tokens ---- */

/* The tokens are written where the parser keeps its current one
 * (lexer_scan), rather than built and returned by value (each was copied
 * out of every function on the way), and only the fields every token has
 * are set here: a literal's value is set by its own lexer, and the parser
 * reads it for that kind only (translation throughput). */
static inline void make_token(const Lexer *lx, Token *t, TokKind kind, uint32_t begin) {
  t->kind = kind;
  t->span = span_of(lx, begin, lx->pos);
  t->ident = NULL;
  t->prim = PRIM_COUNT;
  t->dim = 0;
  t->dim_written = false;
}

/* The end of an identifier with a quote in it, from begin, and its hash
 * (*hash).  prelude.c's words are runs of letters, digits and '_': the
 * quotes split the identifier into several (mentions). */
static DPIA_NOINLINE size_t identifier_with_quote(Lexer *lx, size_t begin, uint32_t *hash) {
  const unsigned char *all = (const unsigned char *)lx->text;
  size_t at = begin;
  uint32_t h = INTERN_HASH_START;
  while (at < lx->len && (byte_class[all[at]] & BYTE_IDENT)) h = intern_hash_step(h, all[at++]);
  prelude_words_in(lx->text + begin, lx->text + at, &lx->prelude_named);
  *hash = h;
  return at;
}

/* An identifier, or the keyword it spells.  What its name is (a keyword,
 * a primitive, a prelude def) is found in the reserved names with the
 * interner's hash, made as the letters are scanned (no second pass). */
static DPIA_NOINLINE void lex_identifier(Lexer *lx, Token *t) {
  uint32_t begin = lx->pos;
  const unsigned char *all = (const unsigned char *)lx->text;
  size_t at = begin, end = lx->len;
  uint32_t hash = INTERN_HASH_START;
  /* most names are short: within the next 16 bytes, no test of the end
   * of the text per letter */
  if (end - at > 16) {
    size_t stop = at + 16;
    while (at < stop && (byte_class[all[at]] & (BYTE_START | BYTE_DIGIT))) hash = intern_hash_step(hash, all[at++]);
    if (at == stop)
      while (at < end && (byte_class[all[at]] & (BYTE_START | BYTE_DIGIT))) hash = intern_hash_step(hash, all[at++]);
  } else {
    while (at < end && (byte_class[all[at]] & (BYTE_START | BYTE_DIGIT))) hash = intern_hash_step(hash, all[at++]);
  }
  if (at < end && all[at] == '\'') {
    uint32_t quoted;
    at = identifier_with_quote(lx, begin, &quoted);
    hash = quoted;
  }
  lx->pos = (uint32_t)at;
  const char *text = lx->text + begin;
  size_t len = at - begin;
  const ReservedName *r = len <= UINT8_MAX ? reserved_find(lx->reserved, text, len, hash) : NULL;
  if (r && r->kind != TOK_IDENT) {
    make_token(lx, t, (TokKind)r->kind, begin);
    return;
  }
  make_token(lx, t, TOK_IDENT, begin);
  t->hash = hash;
  if (!r || r->prim == PRIM_COUNT) t->ident = intern_hashed(lx->interner, text, len, hash);
  if (!r) return;
  t->prim = r->prim;
  t->dim = r->dim;
  t->dim_written = r->dim_written;
  if (r->prelude >= 0) lx->prelude_named |= 1u << r->prelude;
}

static void skip_digits(Lexer *lx) {
  while (is_digit(peek(lx))) lx->pos++;
}

static void lex_number_tail(Lexer *lx, Token *t, uint32_t begin, uint64_t value, bool overflow);

/* INT:   digits
 * FLOAT: digits '.' digits [exponent] ['f'] | digits exponent ['f']
 * exponent: ('e'|'E') ['+'|'-'] digits */
static DPIA_NOINLINE void lex_number(Lexer *lx, Token *t) {
  uint32_t begin = lx->pos;
  const unsigned char *all = (const unsigned char *)lx->text;
  size_t at = begin, end = lx->len;
  uint64_t value = 0;
  bool overflow = false;
  for (unsigned digit; at < end && (digit = (unsigned)(all[at] - '0')) < 10; at++) {
    if (value > UINT64_MAX / 10 || (value == UINT64_MAX / 10 && digit > UINT64_MAX % 10))
      overflow = true;
    else value = value * 10 + digit;
  }
  lx->pos = (uint32_t)at;
  /* most numbers are integers (sizes): done when nothing follows that
   * makes one a decimal or an error */
  if (at == end || (!(byte_class[all[at]] & BYTE_IDENT) && all[at] != '.')) {
    make_token(lx, t, TOK_INT, begin);
    t->int_value = overflow ? UINT64_MAX : value;
    t->int_overflow = overflow;
    return;
  }
  lex_number_tail(lx, t, begin, value, overflow);
}

/* The rest of a number whose digits from begin are read (value, or
 * overflow), pos at the byte after them, which is an identifier's byte or
 * a '.': a decimal, or an integer with an error. */
static DPIA_NOINLINE void lex_number_tail(Lexer *lx, Token *t, uint32_t begin, uint64_t value, bool overflow) {
  bool decimal = false;
  if (peek(lx) == '.' && is_digit(peek_at(lx, 1))) {
    decimal = true;
    lx->pos++;
    skip_digits(lx);
  }
  int e = peek(lx);
  if (e == 'e' || e == 'E') {
    int sign = peek_at(lx, 1);
    uint32_t digits_at = (sign == '+' || sign == '-') ? 2 : 1;
    if (is_digit(peek_at(lx, digits_at))) {
      decimal = true;
      lx->pos += digits_at;
      skip_digits(lx);
    }
  }
  uint32_t number_end = lx->pos;
  bool suffix_f = false;
  if (decimal && peek(lx) == 'f' && !is_ident_char(peek_at(lx, 1))) {
    suffix_f = true;
    lx->pos++;
  }
  if (is_ident_char(peek(lx))) {
    /* 2f, 12abc, 1.5x: one error for the whole glued suffix */
    uint32_t suffix_begin = lx->pos;
    while (is_ident_char(peek(lx))) lx->pos++;
    const char *suffix = lx->text + suffix_begin;
    int suffix_len = (int)(lx->pos - suffix_begin);
    Span suffix_span = span_of(lx, suffix_begin, lx->pos);
    if (!decimal && suffix_len == 1 && suffix[0] == 'f')
      diag_error(lx->diag, ERR_BAD_LITERAL, suffix_span,
                 "invalid suffix 'f' on integer literal: a decimal literal needs a '.' or an "
                 "exponent, as in %.*s.0f",
                 (int)(number_end - begin), lx->text + begin);
    else
      diag_error(lx->diag, ERR_BAD_LITERAL, suffix_span, "invalid suffix '%.*s' on %s literal", suffix_len, suffix,
                 decimal ? "decimal" : "integer");
  }
  if (!decimal) {
    make_token(lx, t, TOK_INT, begin);
    t->int_value = overflow ? UINT64_MAX : value;
    t->int_overflow = overflow;
    return;
  }
  make_token(lx, t, TOK_FLOAT, begin);
  t->float_suffix_f = suffix_f;
  /* strtod needs a terminated copy: the source text need not end in NUL */
  char *text = arena_strndup(lx->interner->arena, lx->text + begin, number_end - begin);
  double d = strtod(text, NULL);
  if (isinf(d)) {
    diag_error(lx->diag, ERR_BAD_LITERAL, span_of(lx, begin, number_end), "decimal literal too large");
    d = 0.0;
  }
  t->float_value = d;
}

/* STRING: '"' ... '"', the body of a foreign function (docs/language.md
 * section 14).  It may span lines; \" is a quote and \\ a backslash, and
 * any other backslash is kept with the character after it, so that the C
 * text inside ('\0', "\n") reaches the OpenCL compiler as written. */
static DPIA_NOINLINE void lex_string(Lexer *lx, Token *t) {
  uint32_t begin = lx->pos;
  lx->pos++;
  Buf b;
  buf_init(&b, lx->interner->arena);
  for (;;) {
    int c = peek(lx);
    if (c < 0) {
      diag_error(lx->diag, ERR_UNTERMINATED_STRING, span_of(lx, begin, begin + 1),
                 "string literal without its closing '\"'");
      break;
    }
    lx->pos++;
    if (c == '"') break;
    if (c == '\\' && (peek(lx) == '"' || peek(lx) == '\\')) c = peek(lx), lx->pos++;
    buf_putc(&b, (char)c);
  }
  make_token(lx, t, TOK_STRING, begin);
  t->str_value = b.data ? b.data : "";
  /* a prelude def named in a string counts (prelude.c, mentions) */
  prelude_words_in(lx->text + begin, lx->text + lx->pos, &lx->prelude_named);
}

/* A vector lane, '.' then a letter (docs/language.md section 11): .x .y
 * .z .w (lanes 0-3) or .s0 to .sF (.sa to .sf too), as OpenCL C writes
 * them; the width is checked with the type.  Any other name (.q, .xy: no
 * swizzles) is an error at the name, and the token is lane 0 so that the
 * parse goes on. */
static DPIA_NOINLINE void lex_lane(Lexer *lx, Token *t) {
  uint32_t begin = lx->pos;
  lx->pos++;
  uint32_t name = lx->pos;
  while (is_ident_char(peek(lx))) lx->pos++;
  const char *text = lx->text + name;
  size_t len = lx->pos - name;
  static const char hex[] = "0123456789abcdef";
  int lane = -1;
  if (len == 1 && strchr("xyzw", text[0])) lane = text[0] == 'w' ? 3 : text[0] - 'x';
  if (len == 2 && text[0] == 's') {
    char d = text[1] >= 'A' && text[1] <= 'F' ? (char)(text[1] - 'A' + 'a') : text[1];
    const char *at = d ? strchr(hex, d) : NULL;
    if (at) lane = (int)(at - hex);
  }
  make_token(lx, t, TOK_LANE, begin);
  if (lane < 0) {
    diag_error(lx->diag, ERR_BAD_LANE_NAME, span_of(lx, begin, lx->pos),
               "'.%.*s' is not a vector lane: lanes are .x .y .z .w, or .s0 to .sF (one lane at a time)", (int)len,
               text);
    lane = 0;
  }
  t->int_value = (uint64_t)lane;
}

/* `c` was matched at pos: if the next byte is `second`, the token is the
 * two-byte `two`, else the one-byte `one`. */
static void one_or_two(Lexer *lx, Token *t, int second, TokKind two, TokKind one) {
  uint32_t begin = lx->pos;
  lx->pos += peek_at(lx, 1) == second ? 2 : 1;
  make_token(lx, t, lx->pos - begin == 2 ? two : one, begin);
}

/* A token of n bytes already recognised at pos. */
static void fixed(Lexer *lx, Token *t, TokKind kind, uint32_t n) {
  uint32_t begin = lx->pos;
  lx->pos += n;
  make_token(lx, t, kind, begin);
}

/* The tokens of one byte whatever follows it, by byte (TOK_EOF: none):
 * read at once by lexer_scan, as the identifiers are. */
_Static_assert(TOK_EOF == 0, "a byte that is no token of its own is 0 in single_tokens");
static const unsigned char single_tokens[256] = {
    ['('] = TOK_LPAREN, [')'] = TOK_RPAREN, ['['] = TOK_LBRACKET, [']'] = TOK_RBRACKET, ['{'] = TOK_LBRACE,
    ['}'] = TOK_RBRACE, [','] = TOK_COMMA,  [';'] = TOK_SEMI,     ['\\'] = TOK_LAMBDA,  ['+'] = TOK_PLUS,
    ['*'] = TOK_STAR,   ['/'] = TOK_SLASH,  ['%'] = TOK_PERCENT,
};

/* The token at pos, c, that is no blank, identifier or single_tokens':
 * false if none was made (a comment or a stray character skipped).  Out
 * of line, so that lexer_scan's own path (blanks, names, brackets) keeps
 * its few registers. */
static DPIA_NOINLINE bool lex_other(Lexer *lx, Token *t, int c) {
  if (is_digit(c)) {
    lex_number(lx, t);
    return true;
  }
  switch (c) {
  case '"': lex_string(lx, t); return true;
  case ':': one_or_two(lx, t, '=', TOK_ASSIGN, TOK_COLON); return true;
  case '=': one_or_two(lx, t, '=', TOK_EQEQ, TOK_EQ); return true;
  case '<': one_or_two(lx, t, '=', TOK_LE, TOK_LT); return true;
  case '!': one_or_two(lx, t, '=', TOK_NE, TOK_BANG); return true;
  case '&': one_or_two(lx, t, '&', TOK_ANDAND, TOK_AMP); return true;
  case '>':
    if (peek_at(lx, 1) == '>')
      fixed(lx, t, TOK_COMPOSE, 2);
    else
      one_or_two(lx, t, '=', TOK_GE, TOK_GT);
    return true;
  case '|':
    if (peek_at(lx, 1) == '>') {
      fixed(lx, t, TOK_PIPE, 2);
      return true;
    }
    if (peek_at(lx, 1) == '|') {
      fixed(lx, t, TOK_OROR, 2);
      return true;
    }
    break; /* a lone '|' is a stray character */
  case '-':
    if (peek_at(lx, 1) == '-') {
      skip_comment(lx);
      return false;
    }
    if (peek_at(lx, 1) == '>') {
      if (peek_at(lx, 2) == 'p' && !is_ident_char(peek_at(lx, 3)))
        fixed(lx, t, TOK_ARROW_P, 3);
      else
        fixed(lx, t, TOK_ARROW, 2);
      return true;
    }
    fixed(lx, t, TOK_MINUS, 1);
    return true;
  case '.': {
    int digit = peek_at(lx, 1);
    if (digit == '.') { /* a tune range, [1 .. 4096] */
      fixed(lx, t, TOK_DOTDOT, 2);
      return true;
    }
    if ((digit == '1' || digit == '2') && !is_digit(peek_at(lx, 2))) {
      fixed(lx, t, digit == '1' ? TOK_PROJ1 : TOK_PROJ2, 2);
      /* a word of prelude.c glued to the digit (`x.1slide2D`) is longer
       * than the identifier after it, the one token an identifier follows
       * with no blank between that ends in a digit (a number glued to
       * letters is an error): only the scan of the text says */
      if (is_ident_start(peek(lx))) lx->prelude_unsure = true;
      return true;
    }
    if (is_ident_start(digit)) {
      lex_lane(lx, t);
      return true;
    }
    break;
  }
  case 0xCE:
    if (peek_at(lx, 1) == 0xBB) { /* λ, U+03BB */
      fixed(lx, t, TOK_LAMBDA, 2);
      return true;
    }
    break;
  default: break;
  }
  skip_stray_character(lx);
  return false;
}

/* The token after any comments and stray characters from pos: lexer_scan's
 * slow path, with the loop it needs. */
static inline void lex_skipping_to(Lexer *lx, Token *t) {
  const unsigned char *text = (const unsigned char *)lx->text;
  for (;;) {
    size_t at = lx->pos, end = lx->len;
    while (at < end && byte_class[text[at]] == BYTE_BLANK) at++;
    lx->pos = (uint32_t)at;
    if (at >= end) {
      make_token(lx, t, TOK_EOF, (uint32_t)at);
      return;
    }
    unsigned c = text[at];
    if (byte_class[c] == BYTE_START) {
      lex_identifier(lx, t);
      return;
    }
    if (single_tokens[c]) {
      lx->pos++;
      make_token(lx, t, (TokKind)single_tokens[c], (uint32_t)at);
      return;
    }
    if (lex_other(lx, t, (int)c)) return;
  }
}

/* A number (lexer_scan, at a digit), and whether it reported errors:
 * straight to lex_number, not through lex_skipping's loop and lex_other's
 * switch (a variant of a search writes its sizes as numbers: issue 35). */
static DPIA_NOINLINE bool lex_number_checked(Lexer *lx, Token *t) {
  /* up to 19 digits (below 10^19: no overflow) without lex_number's test
   * per digit; an integer that neither an identifier's byte nor a '.'
   * follows (a variant's sizes: issue 35) is done here without its call;
   * a decimal or a glued suffix goes on from the byte after the digits,
   * and only a longer number is read again by lex_number */
  const unsigned char *all = (const unsigned char *)lx->text;
  size_t begin = lx->pos, at = begin, end = lx->len;
  size_t stop = end - at > 19 ? at + 19 : end;
  uint64_t value = 0;
  for (unsigned digit; at < stop && (digit = (unsigned)(all[at] - '0')) < 10; at++) value = value * 10 + digit;
  if (at == end || (at < stop && !(byte_class[all[at]] & BYTE_IDENT) && all[at] != '.')) {
    lx->pos = (uint32_t)at;
    make_token(lx, t, TOK_INT, (uint32_t)begin);
    t->int_value = value;
    t->int_overflow = false;
    return false;
  }
  int errors_before = lx->diag->nerrors;
  if (at < stop) {
    lx->pos = (uint32_t)at;
    lex_number_tail(lx, t, (uint32_t)begin, value, false);
  } else {
    lex_number(lx, t);
  }
  return lx->diag->nerrors != errors_before;
}

/* lex_skipping_to, and whether it reported errors (lexer_scan): out of
 * line, so that lexer_scan's own path saves no registers */
static DPIA_NOINLINE bool lex_skipping(Lexer *lx, Token *t) {
  int errors_before = lx->diag->nerrors;
  lex_skipping_to(lx, t);
  return lx->diag->nerrors != errors_before;
}

/* The blanks, then the token that follows: a name or a bracket here, any
 * other in lex_skipping (translation throughput: most tokens are names
 * and brackets), the only path that reports errors. */
bool lexer_scan(Lexer *lx, Token *t) {
  const unsigned char *text = (const unsigned char *)lx->text;
  size_t at = lx->pos, end = lx->len;
  while (at < end && byte_class[text[at]] == BYTE_BLANK) at++;
  lx->pos = (uint32_t)at;
  if (at < end) {
    unsigned c = text[at];
    if (byte_class[c] == BYTE_START) {
      lex_identifier(lx, t);
      return false;
    }
    if (single_tokens[c]) {
      lx->pos++;
      make_token(lx, t, (TokKind)single_tokens[c], (uint32_t)at);
      return false;
    }
    /* the pipe and the arrow (not `->p`, lex_other's) */
    if ((c == '|' || c == '-') && end - at >= 3 && text[at + 1] == '>' && (c == '|' || text[at + 2] != 'p')) {
      lx->pos += 2;
      make_token(lx, t, c == '|' ? TOK_PIPE : TOK_ARROW, (uint32_t)at);
      return false;
    }
    if (byte_class[c] == BYTE_DIGIT) return lex_number_checked(lx, t);
  }
  return lex_skipping(lx, t);
}

Sym lexer_ident(Lexer *lx, Token *t) {
  if (!t->ident && t->kind == TOK_IDENT)
    t->ident = intern_hashed(lx->interner, lx->text + t->span.begin, t->span.end - t->span.begin, t->hash);
  return t->ident;
}

Token lexer_next(Lexer *lx) {
  Token t;
  lexer_scan(lx, &t);
  return t;
}
