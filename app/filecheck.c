/* filecheck.c: a small FileCheck on PCRE2 (the engine of dpia-filecheck and
 * of the CHECK lines of `dpia test`).
 *
 * A check text holds directives, one a line, after any comment leader
 * (`// CHECK:` in C-like files, `-- CHECK:` inside .dpia files):
 *
 *   CHECK: pattern         found in order, after the end of the previous match
 *   CHECK-NEXT: pattern    found on the line right after the previous match's
 *   CHECK-SAME: pattern    found on the same line as the previous match, after it
 *   CHECK-NOT: pattern     absent between the previous match and the next
 *                          positive match (or the end of the input or block)
 *   CHECK-DAG: pattern     a run of CHECK-DAGs matches in any order after the
 *                          previous match, without two of them overlapping;
 *                          the next directive starts after the last of them
 *   CHECK-COUNT-n: pattern n CHECKs of the same pattern in a row, each after
 *                          the previous one (as LLVM's FileCheck)
 *   CHECK-LABEL: pattern   matched first, in order, splitting the input into
 *                          blocks; the directives between two labels match
 *                          inside the block between the two label matches
 *
 * A pattern is literal text except its {{regex}} parts, PCRE2 regular
 * expressions, and its variables: [[NAME:regex]] matches regex and binds
 * NAME to the text matched, [[NAME]] matches the text bound last (or, in the
 * pattern that binds it, the same text again).  Generated names shift from
 * one version to the next (acc_2, lid_3), so a test binds a name where it is
 * declared and uses it later.  A NAME is a letter or '_' then letters,
 * digits and '_' (at most 32: a PCRE2 group name); a variable is bound from
 * its binding's match to the end of the check text, labels cannot bind or
 * use one (they match before everything else), in "[[[" the first '[' is
 * literal (xs[[[I]]]), and a literal "[[" is written {{\[\[}}.  Leading
 * and trailing blanks of a pattern are dropped and, as in LLVM's
 * FileCheck without --strict-whitespace, a run of spaces and tabs in the
 * literal text matches any run of one or more spaces and tabs.  `^` and `$` in a regex match at line boundaries.
 *
 * On failure the report holds
 *   CHECKFILE:LINE: error: CHECK...: what went wrong
 *   <the directive's line, with a caret under the pattern>
 *   INPUT:LINE:COL: note: where it looked, with a few lines of the input
 *   INPUT:LINE:COL: note: possible intended match here (fuzzy_note), as
 *                         LLVM's FileCheck shows it.
 * A line without a directive whose first word before a ':' is within two
 * edits of one (CHEKC-NEXT:, CHECKNEXT:) is a bad check file, not a
 * comment skipped: a test that checks less than it says would pass.
 *
 * Patterns are compiled once when they use no variable, else at each use
 * with the variables' current values (escaped) in place. */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "filecheck.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

/* Lines of input shown after a "scanning from here" note. */
enum { CONTEXT_LINES_AFTER = 4 };

/* PCRE2's limit on a group name */
enum { MAX_VAR_NAME = 32 };

typedef enum Kind { CHECK, CHECK_NEXT, CHECK_SAME, CHECK_NOT, CHECK_DAG, CHECK_COUNT, CHECK_LABEL } Kind;

static const char *const kind_names[] = {"CHECK",     "CHECK-NEXT",  "CHECK-SAME", "CHECK-NOT",
                                         "CHECK-DAG", "CHECK-COUNT", "CHECK-LABEL"};

typedef struct Directive {
  Kind kind;
  long count;         /* CHECK-COUNT-n: n; 1 for the others */
  size_t line;        /* in the check text, 1-based */
  size_t line_begin;  /* offset of that line in the check text */
  size_t pattern_col; /* 0-based column of the pattern in that line */
  char *pattern;      /* as written, trimmed */
  bool uses_vars;     /* compiled again at each use */
  const char **binds; /* the names its [[NAME:regex]] parts bind */
  size_t nbinds;
  pcre2_code *regex;             /* without variable values (validity; the match if !uses_vars) */
  size_t match_begin, match_end; /* CHECK-LABEL: where pass one found it */
} Directive;

typedef struct Var {
  const char *name, *value;
  size_t len;
} Var;

typedef struct Checker {
  Arena *arena;
  Buf *out;
  FilecheckText checks, input;
  Directive *dirs;
  size_t ndirs, cap;
  Var *vars;
  size_t nvars, varcap;
  pcre2_code *scratch; /* a regex with variable values, freed after its use */
} Checker;

/* ---- positions ---- */

/* 1-based line and column of offset at in t. */
static void text_position(const FilecheckText *t, size_t at, size_t *line, size_t *col) {
  size_t l = 1, start = 0;
  for (size_t i = 0; i < at && i < t->len; i++)
    if (t->data[i] == '\n') {
      l++;
      start = i + 1;
    }
  *line = l;
  *col = at - start + 1;
}

static size_t line_start(const FilecheckText *t, size_t at) {
  while (at > 0 && t->data[at - 1] != '\n') at--;
  return at;
}

static size_t line_end(const FilecheckText *t, size_t at) {
  while (at < t->len && t->data[at] != '\n') at++;
  return at;
}

static size_t count_newlines(const FilecheckText *t, size_t from, size_t to) {
  size_t n = 0;
  for (size_t i = from; i < to; i++) n += t->data[i] == '\n';
  return n;
}

/* ---- messages ---- */

/* The check text's line of d, with a caret under column col (0-based). */
static void show_check_line(const Checker *c, const Directive *d, size_t col) {
  size_t end = line_end(&c->checks, d->line_begin);
  buf_put(c->out, c->checks.data + d->line_begin, end - d->line_begin);
  buf_putc(c->out, '\n');
  for (size_t i = 0; i < col; i++) buf_putc(c->out, c->checks.data[d->line_begin + i] == '\t' ? '\t' : ' ');
  buf_puts(c->out, "^\n");
}

/* CHECKFILE:LINE: error: NAME: message, then the directive's line. */
DPIA_PRINTF(4, 5)
static void directive_error(const Checker *c, const Directive *d, size_t caret_col, const char *fmt, ...) {
  emit(c->out, "%s:%zu: error: %s", c->checks.name, d->line, kind_names[d->kind]);
  if (d->kind == CHECK_COUNT) emit(c->out, "-%ld", d->count);
  buf_puts(c->out, ": ");
  va_list ap;
  va_start(ap, fmt);
  vemit(c->out, fmt, ap);
  va_end(ap);
  buf_putc(c->out, '\n');
  show_check_line(c, d, caret_col);
}

/* One input line with its number in a gutter. */
static void show_input_line(const Checker *c, size_t begin, size_t number) {
  size_t end = line_end(&c->input, begin);
  emit(c->out, "%6zu | ", number);
  buf_put(c->out, c->input.data + begin, end - begin);
  buf_putc(c->out, '\n');
}

/* INPUT:LINE:COL: note: message, the input line at `at` with a caret (and
 * tildes to mark_end on the same line), then `after` more lines. */
static void input_note(const Checker *c, size_t at, size_t mark_end, int after, const char *message) {
  const FilecheckText *in = &c->input;
  size_t line, col;
  text_position(in, at, &line, &col);
  emit(c->out, "%s:%zu:%zu: note: %s\n", in->name, line, col, message);
  size_t begin = line_start(in, at), end = line_end(in, at);
  show_input_line(c, begin, line);
  buf_puts(c->out, "       | ");
  for (size_t i = begin; i < at; i++) buf_putc(c->out, in->data[i] == '\t' ? '\t' : ' ');
  buf_putc(c->out, '^');
  for (size_t i = at + 1; i < mark_end && i < end; i++) buf_putc(c->out, '~');
  buf_putc(c->out, '\n');
  for (int k = 1; k <= after && end < in->len; k++) {
    begin = end + 1;
    end = line_end(in, begin);
    if (begin == in->len) break; /* the empty "line" after a final newline */
    show_input_line(c, begin, line + (size_t)k);
  }
}

/* ---- arrays ---- */

/* items (n of them, room for *cap) with room for one more: a copy twice as
 * large in the arena when full */
static void *grow(Arena *a, void *items, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return items;
  *cap = *cap ? *cap * 2 : 8;
  void *bigger = arena_alloc(a, *cap * size);
  if (n) memcpy(bigger, items, n * size);
  return bigger;
}

/* ---- variables ---- */

static const Var *lookup_var(const Checker *c, const char *name, size_t n) {
  for (size_t i = c->nvars; i-- > 0;)
    if (strlen(c->vars[i].name) == n && memcmp(c->vars[i].name, name, n) == 0) return &c->vars[i];
  return NULL;
}

static void bind_var(Checker *c, const char *name, const char *value, size_t len) {
  for (size_t i = 0; i < c->nvars; i++)
    if (strcmp(c->vars[i].name, name) == 0) {
      c->vars[i].value = arena_strndup(c->arena, value, len);
      c->vars[i].len = len;
      return;
    }
  c->vars = grow(c->arena, c->vars, c->nvars, &c->varcap, sizeof *c->vars);
  c->vars[c->nvars++] = (Var){name, arena_strndup(c->arena, value, len), len};
}

/* ---- patterns ---- */

static bool is_blank(char ch) { return ch == ' ' || ch == '\t'; }

/* a backslash before any ASCII punctuation makes it literal in PCRE2;
 * letters, digits and bytes above ASCII are literal as is */
static void put_literal(Buf *re, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)p[i];
    if (ch < 0x80 && !isalnum(ch)) buf_putc(re, '\\');
    buf_putc(re, p[i]);
  }
}

/* The end of the regex of [[NAME:regex]] that starts at p[i]: the first
 * "]]" outside a character class; n if there is none. */
static size_t var_regex_end(const char *p, size_t i, size_t n) {
  int depth = 0;
  for (; i < n; i++) {
    if (p[i] == '\\') i++;
    else if (p[i] == '[') depth++;
    else if (p[i] == ']' && depth > 0) depth--;
    else if (p[i] == ']' && i + 1 < n && p[i + 1] == ']') return i;
  }
  return n;
}

typedef struct RegexPart {
  size_t in_regex, in_pattern, len;
} RegexPart;

typedef struct Translation {
  Buf re;
  RegexPart *parts;
  size_t nparts, cap;
  size_t nbound; /* the pattern's bindings translated so far */
} Translation;

static void add_part(Checker *c, Translation *t, size_t in_pattern, size_t len) {
  t->parts = grow(c->arena, t->parts, t->nparts, &t->cap, sizeof *t->parts);
  t->parts[t->nparts++] = (RegexPart){t->re.len, in_pattern, len};
}

/* [[NAME]] or [[NAME:regex]] at p[i] into t; returns the offset after it,
 * or 0 after an error message.  with_values: a use becomes the variable's
 * value (an error if unbound), else an empty group (compiling only to check
 * the syntax); first_pass: record the bindings in d. */
static size_t translate_var(Checker *c, Directive *d, Translation *t, size_t i, bool with_values,
                            bool first_pass) {
  const char *p = d->pattern;
  size_t n = strlen(p), name = i + 2, k = name;
  if (d->kind == CHECK_LABEL) {
    directive_error(c, d, d->pattern_col + i, "a label cannot bind or use a variable (labels match first)");
    return 0;
  }
  if (k < n && (isalpha((unsigned char)p[k]) || p[k] == '_'))
    while (k < n && (isalnum((unsigned char)p[k]) || p[k] == '_')) k++;
  size_t nlen = k - name;
  bool use = k + 1 < n && p[k] == ']' && p[k + 1] == ']';
  if (nlen == 0 || nlen > MAX_VAR_NAME || (!use && (k >= n || p[k] != ':'))) {
    directive_error(c, d, d->pattern_col + i,
                    "bad variable: write [[NAME:regex]] to bind or [[NAME]] to use one (NAME a letter or '_' "
                    "then letters, digits, '_'; at most 32); a literal '[[' is {{\\[\\[}}");
    return 0;
  }
  /* bound earlier in this pattern: a back reference */
  bool bound_here = false;
  for (size_t b = 0; b < t->nbound; b++)
    bound_here |= strlen(d->binds[b]) == nlen && memcmp(d->binds[b], p + name, nlen) == 0;
  if (use) {
    if (bound_here) {
      emit(&t->re, "\\k<%.*s>", (int)nlen, p + name);
    } else if (with_values) {
      const Var *v = lookup_var(c, p + name, nlen);
      if (!v) {
        directive_error(c, d, d->pattern_col + i, "variable %.*s is not bound (no [[%.*s:regex]] matched before)",
                        (int)nlen, p + name, (int)nlen, p + name);
        return 0;
      }
      put_literal(&t->re, v->value, v->len);
    } else {
      buf_puts(&t->re, "(?:)");
      d->uses_vars = true;
    }
    return k + 2;
  }
  size_t rbegin = k + 1, rend = var_regex_end(p, rbegin, n);
  if (rend >= n || rend == rbegin) {
    directive_error(c, d, d->pattern_col + i, rend >= n ? "unterminated variable: no ']]' after '[['"
                                                        : "empty regex in [[NAME:]]");
    return 0;
  }
  if (first_pass) {
    const char **binds = NEWARRAY(c->arena, const char *, d->nbinds + 1);
    if (d->nbinds) memcpy(binds, d->binds, d->nbinds * sizeof *binds);
    binds[d->nbinds++] = arena_strndup(c->arena, p + name, nlen);
    d->binds = binds;
  }
  t->nbound++;
  emit(&t->re, "(?<%.*s>", (int)nlen, p + name);
  add_part(c, t, rbegin, rend - rbegin);
  buf_put(&t->re, p + rbegin, rend - rbegin);
  buf_putc(&t->re, ')');
  return rend + 2;
}

/* Translate d's pattern into one PCRE2 regex: literal text escaped, blank
 * runs as [ \t]+, {{regex}} parts as (?:regex) groups, variables as above.
 * Returns NULL after an error message. */
static pcre2_code *compile_pattern(Checker *c, Directive *d, bool with_values, bool first_pass) {
  const char *p = d->pattern;
  size_t n = strlen(p);
  Translation t = {{0}, NULL, 0, 0, 0};
  buf_init(&t.re, c->arena);
  /* where each regex part is in re and in the pattern, to point a compile
   * error at the right column */
  for (size_t i = 0; i < n;) {
    if (p[i] == '{' && i + 1 < n && p[i + 1] == '{') {
      const char *close = strstr(p + i + 2, "}}");
      if (!close) {
        directive_error(c, d, d->pattern_col + i, "unterminated regex: no '}}' after '{{'");
        return NULL;
      }
      size_t end = (size_t)(close - p);
      /* {{a{2}}}: the regex ends at the last brace pair of a run */
      while (end + 2 < n && p[end + 2] == '}') end++;
      if (end == i + 2) {
        directive_error(c, d, d->pattern_col + i, "empty regex '{{}}'");
        return NULL;
      }
      buf_puts(&t.re, "(?:");
      add_part(c, &t, i + 2, end - (i + 2));
      buf_put(&t.re, p + i + 2, end - (i + 2));
      buf_putc(&t.re, ')');
      i = end + 2;
    } else if (p[i] == '[' && i + 1 < n && p[i + 1] == '[' && (i + 2 >= n || p[i + 2] != '[')) {
      /* in "[[[" the first '[' is literal text: xs[[[I]]] indexes xs */
      i = translate_var(c, d, &t, i, with_values, first_pass);
      if (i == 0) return NULL;
    } else if (is_blank(p[i])) {
      while (i < n && is_blank(p[i])) i++;
      buf_puts(&t.re, "[ \\t]+");
    } else {
      put_literal(&t.re, p + i, 1);
      i++;
    }
  }

  int code;
  PCRE2_SIZE offset;
  pcre2_code *regex = pcre2_compile((PCRE2_SPTR)t.re.data, t.re.len, PCRE2_MULTILINE, &code, &offset, NULL);
  if (!regex) {
    size_t caret = d->pattern_col;
    for (size_t k = 0; k < t.nparts; k++) {
      if (offset < t.parts[k].in_regex) continue;
      size_t into = offset - t.parts[k].in_regex;
      caret = d->pattern_col + t.parts[k].in_pattern + (into < t.parts[k].len ? into : t.parts[k].len);
    }
    Buf message;
    buf_init(&message, c->arena);
    for (size_t size = 128;; size *= 2) {
      buf_clear(&message);
      char *room = arena_alloc(c->arena, size);
      if (pcre2_get_error_message(code, (PCRE2_UCHAR *)room, size) != PCRE2_ERROR_NOMEMORY) {
        buf_puts(&message, room);
        break;
      }
    }
    directive_error(c, d, caret, "invalid regex: %s", message.data);
  }
  return regex;
}

/* ---- reading the check text ---- */

static bool is_word_char(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '-'; }

/* CHECK counts as a directive unless it ends a longer word (MYCHECK:);
 * unlike LLVM a '-' may come right before it, so "--CHECK:" in a .dpia file
 * is not silently ignored. */
static bool ends_word(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

typedef struct Suffix {
  const char *name;
  Kind kind;
} Suffix;

static const Suffix suffixes[] = {
    {"NEXT", CHECK_NEXT}, {"SAME", CHECK_SAME}, {"NOT", CHECK_NOT}, {"DAG", CHECK_DAG}, {"LABEL", CHECK_LABEL},
};

/* The directives' names, for misspellings (CHECK-COUNT without its -n). */
static const char *const directive_names[] = {"CHECK",     "CHECK-NEXT",  "CHECK-SAME", "CHECK-NOT",
                                              "CHECK-DAG", "CHECK-COUNT", "CHECK-LABEL"};

/* The optimal string alignment distance of a[0, n) and b[0, m) (edits and
 * swaps of two neighbours: CHEKC is one from CHECK), for short words. */
static size_t word_distance(const char *a, size_t n, const char *b, size_t m) {
  enum { MAX = 24 };
  if (n >= MAX || m >= MAX) return MAX;
  size_t d[MAX + 1][MAX + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = i;
  for (size_t j = 0; j <= m; j++) d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* The directive w[0, n) (a word before a ':') is probably a misspelling of,
 * or NULL: one within two edits or swaps of a directive's name (for
 * CHECK-COUNT-n, without the -n).  A word ending in a directive's name
 * after a letter, digit or '_' is another tool's prefix (MYCHECK), not a
 * misspelling. */
static const char *misspelt_name(const char *w, size_t n) {
  for (size_t k = 0; k < DPIA_COUNTOF(directive_names); k++) {
    size_t len = strlen(directive_names[k]);
    if (n > len && memcmp(w + n - len, directive_names[k], len) == 0 && ends_word(w[n - len - 1])) return NULL;
  }
  size_t stem = n;
  while (stem > 0 && isdigit((unsigned char)w[stem - 1])) stem--;
  if (stem < n && stem > 0 && w[stem - 1] == '-') stem--;
  else stem = n;
  const char *best = NULL;
  size_t best_dist = 3;
  for (size_t k = 0; k < DPIA_COUNTOF(directive_names); k++) {
    const char *name = directive_names[k];
    bool count = strcmp(name, "CHECK-COUNT") == 0;
    size_t dist = word_distance(w, count ? stem : n, name, strlen(name));
    if (dist < best_dist) best = name, best_dist = dist;
  }
  return best;
}

/* What to suggest for the misspelt word w[0, n): the directive's name,
 * CHECK-COUNT with the word's count (CHECK-CONT-2: CHECK-COUNT-2) or -n. */
static const char *suggestion(Arena *a, const char *w, size_t n, const char *name) {
  if (strcmp(name, "CHECK-COUNT") != 0) return name;
  size_t k = n;
  while (k > 0 && isdigit((unsigned char)w[k - 1])) k--;
  return k < n && k > 0 && w[k - 1] == '-' ? arena_printf(a, "%s%.*s", name, (int)(n - k + 1), w + k - 1)
                                           : "CHECK-COUNT-n";
}

/* A line of the check text with no directive whose first word is followed
 * by ':' and is a misspelt directive (`// CHEKC-NEXT: x`, `-- CHECKNEXT:`):
 * an error, since FileCheck would otherwise skip the line and the test
 * check less than it says.  Returns -1 after the message, else 0. */
static const char *line_misspelt(const char *text, size_t begin, size_t end, size_t *at, size_t *stop) {
  *at = begin;
  while (*at < end && !isalnum((unsigned char)text[*at]) && text[*at] != '_') ++*at; /* blanks, comment leader */
  *stop = *at;
  while (*stop < end && is_word_char(text[*stop])) ++*stop;
  if (*stop == *at || *stop >= end || text[*stop] != ':') return NULL;
  return misspelt_name(text + *at, *stop - *at);
}

static int misspelt_directive(Checker *c, size_t begin, size_t end, size_t line) {
  const char *text = c->checks.data;
  size_t at, stop;
  const char *name = line_misspelt(text, begin, end, &at, &stop);
  if (!name) return 0;
  emit(c->out, "%s:%zu: error: %.*s looks like a misspelt %s: write it as one, or reword the line (known: CHECK, "
       "CHECK-NEXT, CHECK-SAME, CHECK-NOT, CHECK-DAG, CHECK-COUNT-n, CHECK-LABEL)\n",
       c->checks.name, line, (int)(stop - at), text + at, suggestion(c->arena, text + at, stop - at, name));
  Directive d = {0};
  d.line_begin = begin;
  show_check_line(c, &d, at - begin);
  return -1;
}

/* Parse a directive in line [begin, end) of the check text into d; returns
 * 1 if there is one, 0 if not, -1 (after an error message) if malformed. */
static int parse_directive(Checker *c, size_t begin, size_t end, size_t line, Directive *d) {
  const char *text = c->checks.data;
  static const char prefix[] = "CHECK";
  const size_t plen = sizeof prefix - 1;
  for (size_t at = begin; at + plen <= end; at++) {
    if (memcmp(text + at, prefix, plen) != 0) continue;
    if (at > begin && ends_word(text[at - 1])) continue;
    size_t after = at + plen;
    memset(d, 0, sizeof *d);
    d->line = line;
    d->line_begin = begin;
    d->count = 1;
    if (after < end && text[after] == ':') {
      d->kind = CHECK;
    } else if (after < end && text[after] == '-') {
      size_t suffix = after + 1, stop = suffix;
      while (stop < end && is_word_char(text[stop])) stop++;
      if (stop >= end || text[stop] != ':') continue; /* prose, not a directive */
      size_t slen = stop - suffix;
      const char *s = text + suffix;
      bool known = false;
      for (size_t k = 0; k < DPIA_COUNTOF(suffixes) && !known; k++)
        if (strlen(suffixes[k].name) == slen && memcmp(s, suffixes[k].name, slen) == 0) {
          d->kind = suffixes[k].kind;
          known = true;
        }
      if (!known && slen > 6 && memcmp(s, "COUNT-", 6) == 0) {
        d->kind = CHECK_COUNT;
        long count = 0;
        bool digits = true;
        for (size_t k = 6; k < slen; k++) {
          if (!isdigit((unsigned char)s[k]) || count > 1000000) digits = false;
          else count = count * 10 + (s[k] - '0');
        }
        if (!digits || count < 1) {
          emit(c->out, "%s:%zu: error: invalid count in %.*s (a number from 1 up)\n", c->checks.name, line,
               (int)(stop - at), text + at);
          show_check_line(c, d, at - begin);
          return -1;
        }
        d->count = count;
      } else if (!known) {
        const char *meant = misspelt_name(text + at, stop - at);
        if (meant) meant = suggestion(c->arena, text + at, stop - at, meant);
        emit(c->out,
             "%s:%zu: error: unknown directive %.*s%s%s%s (known: CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT, "
             "CHECK-DAG, CHECK-COUNT-n, CHECK-LABEL)\n",
             c->checks.name, line, (int)(stop - at), text + at, meant ? "; did you mean " : "", meant ? meant : "",
             meant ? "?" : "");
        show_check_line(c, d, at - begin);
        return -1;
      }
      after = stop;
    } else {
      continue;
    }
    /* the pattern: what follows the colon, without surrounding blanks */
    size_t from = after + 1, to = end;
    while (from < to && is_blank(text[from])) from++;
    while (to > from && (is_blank(text[to - 1]) || text[to - 1] == '\r')) to--;
    d->pattern_col = from - begin;
    d->pattern = arena_strndup(c->arena, text + from, to - from);
    if (to == from) {
      directive_error(c, d, d->pattern_col, "empty pattern");
      return -1;
    }
    return 1;
  }
  return misspelt_directive(c, begin, end, line);
}

static void free_regexes(Checker *c) {
  for (size_t i = 0; i < c->ndirs; i++) pcre2_code_free(c->dirs[i].regex);
  pcre2_code_free(c->scratch);
  c->scratch = NULL;
}

static bool parse_checks(Checker *c) {
  size_t line = 1;
  bool ok = true;
  bool positive_before = false; /* a CHECK-NEXT or CHECK-SAME needs a previous match */
  for (size_t begin = 0; begin < c->checks.len; line++) {
    size_t end = line_end(&c->checks, begin);
    Directive d;
    int found = parse_directive(c, begin, end, line, &d);
    if (found < 0) ok = false;
    if (found > 0) {
      if ((d.kind == CHECK_NEXT || d.kind == CHECK_SAME) && !positive_before) {
        directive_error(c, &d, d.pattern_col, "no previous match to be on %s (put a CHECK or CHECK-LABEL before it)",
                        d.kind == CHECK_NEXT ? "the line after" : "the same line as");
        ok = false;
      }
      if (d.kind != CHECK_NOT) positive_before = true;
      d.regex = compile_pattern(c, &d, false, true);
      if (!d.regex) ok = false;
      c->dirs = grow(c->arena, c->dirs, c->ndirs, &c->cap, sizeof *c->dirs);
      c->dirs[c->ndirs++] = d;
    }
    begin = end + 1;
  }
  if (ok && c->ndirs == 0) {
    emit(c->out, "%s: error: no CHECK directive found (write '// CHECK: text' or '-- CHECK: text')\n",
         c->checks.name);
    ok = false;
  }
  return ok;
}

/* ---- matching ---- */

/* The first match of d in input[from, limit): [*begin, *end); binds d's
 * variables when bind.  Returns 1 found, 0 not found, -1 after an error
 * message (an unbound variable, a PCRE2 failure). */
static int find(Checker *c, const Directive *d, size_t from, size_t limit, bool bind, size_t *begin, size_t *end) {
  if (from > limit) return 0;
  pcre2_code *regex = d->regex;
  if (d->uses_vars) {
    pcre2_code_free(c->scratch);
    c->scratch = regex = compile_pattern(c, (Directive *)d, true, false);
    if (!regex) return -1;
  }
  pcre2_match_data *match = pcre2_match_data_create_from_pattern(regex, NULL);
  if (!match) {
    buf_puts(c->out, "filecheck: out of memory\n");
    return -1;
  }
  int rc = pcre2_match(regex, (PCRE2_SPTR)c->input.data, limit, from, 0, match, NULL);
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
    directive_error(c, d, d->pattern_col, "PCRE2 match error %d", rc);
  if (rc >= 0) {
    PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match);
    *begin = ovector[0];
    *end = ovector[1];
    for (size_t i = 0; bind && i < d->nbinds; i++) {
      int group = pcre2_substring_number_from_name(regex, (PCRE2_SPTR)d->binds[i]);
      if (group > 0 && ovector[2 * group] != PCRE2_UNSET)
        bind_var(c, d->binds[i], c->input.data + ovector[2 * group], ovector[2 * group + 1] - ovector[2 * group]);
    }
  }
  pcre2_match_data_free(match);
  return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* For a failing directive that uses variables: each one's value, since
 * that (not the pattern as written) is what was looked for. */
static void var_notes(Checker *c, const Directive *d) {
  if (!d->uses_vars) return;
  const char *p = d->pattern;
  for (const char *at = strstr(p, "[["); at; at = strstr(at + 2, "[[")) {
    if (at[2] == '[') continue;
    size_t n = 0;
    while (isalnum((unsigned char)at[2 + n]) || at[2 + n] == '_') n++;
    if (at[2 + n] != ']' || at[3 + n] != ']') continue;
    const Var *v = lookup_var(c, at + 2, n);
    const char *first = strstr(p, arena_strndup(c->arena, at, n + 4));
    if (!v || first != at) continue; /* unbound, or noted already */
    emit(c->out, "%s:%zu: note: [[%.*s]] is \"", c->checks.name, d->line, (int)n, at + 2);
    buf_put(c->out, v->value, v->len);
    buf_puts(c->out, "\"\n");
  }
}

/* ---- a possible intended match ---- */

/* The bytes searched for a possible intended match (as LLVM's FileCheck)
 * and the longest stretch of a pattern compared. */
enum { FUZZY_WINDOW = 4096, FUZZY_PATTERN = 256 };

/* The text d's pattern matches in the simplest case, to compare the input
 * with: its literal text (a run of blanks as one space), a {{regex}} as its
 * source, [[NAME]] as its value (nothing if unbound), [[NAME:regex]] as
 * the regex. */
static void example_text(Checker *c, const Directive *d, Buf *out) {
  const char *p = d->pattern;
  size_t n = strlen(p);
  for (size_t i = 0; i < n && out->len < FUZZY_PATTERN;) {
    if (p[i] == '{' && i + 1 < n && p[i + 1] == '{') {
      const char *close = strstr(p + i + 2, "}}");
      size_t end = close ? (size_t)(close - p) : n;
      buf_put(out, p + i + 2, end - (i + 2));
      i = close ? end + 2 : n;
    } else if (p[i] == '[' && i + 1 < n && p[i + 1] == '[' && (i + 2 >= n || p[i + 2] != '[')) {
      size_t k = i + 2;
      while (k < n && (isalnum((unsigned char)p[k]) || p[k] == '_')) k++;
      if (k + 1 < n && p[k] == ']' && p[k + 1] == ']') {
        const Var *v = lookup_var(c, p + i + 2, k - (i + 2));
        if (v) buf_put(out, v->value, v->len);
        i = k + 2;
      } else if (k < n && p[k] == ':') {
        size_t end = var_regex_end(p, k + 1, n);
        buf_put(out, p + k + 1, (end < n ? end : n) - (k + 1));
        i = end < n ? end + 2 : n;
      } else {
        buf_putc(out, p[i++]);
      }
    } else if (is_blank(p[i])) {
      while (i < n && is_blank(p[i])) i++;
      buf_putc(out, ' ');
    } else {
      buf_putc(out, p[i++]);
    }
  }
  if (out->len > FUZZY_PATTERN) out->len = FUZZY_PATTERN;
}

/* How well the pattern's example text p[0, m) matches at the start of
 * in[0, n): the least edit distance (insertions, deletions, substitutions)
 * between p and a prefix of in, whose length goes to *len; more than bound
 * when it is (rows: room for 2 (n + 1)). */
static size_t prefix_distance(const char *p, size_t m, const char *in, size_t n, size_t bound, size_t *rows,
                              size_t *len) {
  size_t *prev = rows, *cur = rows + n + 1;
  for (size_t j = 0; j <= n; j++) prev[j] = j;
  for (size_t i = 1; i <= m; i++) {
    cur[0] = i;
    size_t least = cur[0];
    for (size_t j = 1; j <= n; j++) {
      size_t best = prev[j - 1] + (p[i - 1] != in[j - 1]);
      if (prev[j] + 1 < best) best = prev[j] + 1;
      if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
      cur[j] = best;
      if (best < least) least = best;
    }
    if (least > bound) return bound + 1;
    size_t *t = prev;
    prev = cur;
    cur = t;
  }
  size_t best = prev[0];
  *len = 0;
  for (size_t j = 1; j <= n; j++)
    if (prev[j] < best) best = prev[j], *len = j;
  return best;
}

/* After "scanning from here": where the pattern d was probably meant to
 * match in input[from, limit), as LLVM's FileCheck shows it.  At each
 * non-blank byte of the first FUZZY_WINDOW bytes, how far the pattern's
 * example text is from what the line holds from there (prefix_distance),
 * plus a hundredth per line further on; the best place is shown if it is
 * not where the scan began and fewer than half of the pattern's characters
 * differ there (an unrelated line is no hint). */
static void fuzzy_note(Checker *c, const Directive *d, size_t from, size_t limit) {
  Buf ex;
  buf_init(&ex, c->arena);
  example_text(c, d, &ex);
  size_t m = ex.len;
  if (m == 0 || from >= limit || limit > c->input.len) return;
  /* a prefix longer than m + m / 2 is more than half the pattern away */
  size_t most = m + m / 2;
  size_t *rows = NEWARRAY(c->arena, size_t, 2 * (most + 1));
  size_t stop = limit - from > FUZZY_WINDOW ? from + FUZZY_WINDOW : limit;
  size_t best = 0, best_len = 0, lines = 0;
  double best_quality = 0;
  bool found = false;
  for (size_t i = from; i < stop; i++) {
    char ch = c->input.data[i];
    if (ch == '\n') lines++;
    if (is_blank(ch) || ch == '\n' || ch == '\r') continue;
    size_t end = i;
    while (end < limit && end - i < most && c->input.data[end] != '\n') end++;
    /* a distance above the best so far (or than half the pattern) cannot win */
    size_t bound = (m - 1) / 2, len = 0;
    if (found && best_quality < (double)bound) bound = (size_t)best_quality;
    size_t dist = prefix_distance(ex.data, m, c->input.data + i, end - i, bound, rows, &len);
    if (2 * dist >= m) continue;
    double quality = (double)dist + (double)lines / 100.0;
    if (!found || quality < best_quality) {
      found = true;
      best = i;
      best_len = len;
      best_quality = quality;
    }
  }
  if (found && best != from) input_note(c, best, best + best_len, 0, "possible intended match here");
}

/* rep: how many matches of a CHECK-COUNT were found before this one;
 * input[from, limit) is where it was looked for */
static void not_found(Checker *c, const Directive *d, size_t from, size_t limit, long rep) {
  if (d->kind == CHECK_COUNT)
    directive_error(c, d, d->pattern_col, "expected string not found in input (match %ld of %ld)", rep + 1,
                    d->count);
  else if (d->kind == CHECK_SAME)
    directive_error(c, d, d->pattern_col, "expected string not found on the line of the previous match");
  else
    directive_error(c, d, d->pattern_col, "expected string not found in input");
  var_notes(c, d);
  input_note(c, from, from, CONTEXT_LINES_AFTER, "scanning from here");
  fuzzy_note(c, d, from, limit);
}

/* The CHECK-NOTs in nots must not match input[from, to). */
static bool check_nots(Checker *c, Directive **nots, size_t nnots, size_t from, size_t to) {
  for (size_t i = 0; i < nnots; i++) {
    size_t begin, end;
    int found = find(c, nots[i], from, to, false, &begin, &end);
    if (found < 0) return false;
    if (found) {
      directive_error(c, nots[i], nots[i]->pattern_col, "excluded string found in input");
      var_notes(c, nots[i]);
      input_note(c, begin, end, 0, "found here");
      return false;
    }
  }
  return true;
}

/* Pass one: the labels, in order, each after the previous one. */
static bool match_labels(Checker *c) {
  size_t pos = 0;
  for (size_t i = 0; i < c->ndirs; i++) {
    Directive *d = &c->dirs[i];
    if (d->kind != CHECK_LABEL) continue;
    int found = find(c, d, pos, c->input.len, false, &d->match_begin, &d->match_end);
    if (found <= 0) {
      if (found == 0) not_found(c, d, pos, c->input.len, 0);
      return false;
    }
    pos = d->match_end;
  }
  return true;
}

/* The run of CHECK-DAGs [first, last) after pos: each at its first match
 * that overlaps none of the others' (searching on past an overlap).  Sets
 * [*group_begin, *group_end) to the span of their matches. */
static bool match_dags(Checker *c, size_t first, size_t last, size_t pos, size_t limit, size_t *group_begin,
                       size_t *group_end) {
  size_t *spans = NEWARRAY(c->arena, size_t, 2 * (last - first));
  *group_begin = limit;
  *group_end = pos;
  for (size_t i = first; i < last; i++) {
    const Directive *d = &c->dirs[i];
    size_t from = pos, begin = 0, end = 0;
    for (;;) {
      int found = find(c, d, from, limit, true, &begin, &end);
      if (found < 0) return false;
      if (found == 0) {
        not_found(c, d, pos, limit, 0);
        return false;
      }
      size_t past = 0; /* the end of a match it overlaps, if any */
      for (size_t k = 0; k < i - first; k++) {
        size_t b = spans[2 * k], e = spans[2 * k + 1];
        if ((begin < e && b < end) || (begin == b && end == e)) past = e > past ? e : past;
      }
      if (!past) break;
      from = past > begin ? past : begin + 1;
    }
    spans[2 * (i - first)] = begin;
    spans[2 * (i - first) + 1] = end;
    if (begin < *group_begin) *group_begin = begin;
    if (end > *group_end) *group_end = end;
  }
  return true;
}

/* One positive directive's match at [begin, end), after the previous one
 * ending at pos: CHECK-NEXT must be on the next line. */
static bool placed_right(Checker *c, const Directive *d, size_t pos, size_t begin, size_t end) {
  if (d->kind != CHECK_NEXT) return true;
  size_t newlines = count_newlines(&c->input, pos, begin);
  if (newlines == 1) return true;
  directive_error(c, d, d->pattern_col,
                  newlines == 0 ? "is on the same line as the previous match"
                                : "is not on the line after the previous match");
  input_note(c, begin, end, 0, "found here");
  input_note(c, pos, pos, 0, "previous match ended here");
  return false;
}

/* Pass two: directives [first, last) inside input[from, limit).  from is
 * the end of the previous match (the block's label) or the start of the
 * input; parse_checks made sure a CHECK-NEXT or CHECK-SAME is never first
 * in the input. */
static bool match_block(Checker *c, size_t first, size_t last, size_t from, size_t limit) {
  Directive **nots = NEWARRAY(c->arena, Directive *, last - first + 1);
  size_t nnots = 0;
  size_t pos = from;
  for (size_t i = first; i < last; i++) {
    Directive *d = &c->dirs[i];
    if (d->kind == CHECK_NOT) {
      nots[nnots++] = d;
      continue;
    }
    if (d->kind == CHECK_DAG) {
      size_t j = i;
      while (j < last && c->dirs[j].kind == CHECK_DAG) j++;
      size_t begin, end;
      if (!match_dags(c, i, j, pos, limit, &begin, &end) || !check_nots(c, nots, nnots, pos, begin)) return false;
      nnots = 0;
      pos = end;
      i = j - 1;
      continue;
    }
    for (long rep = 0; rep < d->count; rep++) {
      size_t begin, end;
      size_t stop = d->kind == CHECK_SAME ? line_end(&c->input, pos) : limit;
      int found = find(c, d, pos, stop < limit ? stop : limit, true, &begin, &end);
      if (found == 0) not_found(c, d, pos, stop < limit ? stop : limit, rep);
      if (found <= 0 || !placed_right(c, d, pos, begin, end) || !check_nots(c, nots, nnots, pos, begin))
        return false;
      nnots = 0;
      pos = end;
    }
  }
  return check_nots(c, nots, nnots, pos, limit);
}

static bool run_checks(Checker *c) {
  if (!match_labels(c)) return false;
  size_t first = 0, from = 0;
  for (size_t i = 0; i <= c->ndirs; i++) {
    if (i < c->ndirs && c->dirs[i].kind != CHECK_LABEL) continue;
    size_t limit = i < c->ndirs ? c->dirs[i].match_begin : c->input.len;
    if (!match_block(c, first, i, from, limit)) return false;
    if (i < c->ndirs) {
      first = i + 1;
      from = c->dirs[i].match_end;
    }
  }
  return true;
}

int filecheck_run(Arena *arena, const FilecheckText *checks, const FilecheckText *input, Buf *report) {
  Checker c;
  memset(&c, 0, sizeof c);
  c.arena = arena;
  c.out = report;
  c.checks = *checks;
  c.input = *input;
  int status = FILECHECK_BAD;
  if (parse_checks(&c)) status = run_checks(&c) ? FILECHECK_MATCHED : FILECHECK_MISMATCH;
  free_regexes(&c);
  return status;
}

bool filecheck_has_directives(const char *text, size_t len) {
  /* as parse_directive: CHECK or CHECK-SUFFIX then ':', not ending a
   * longer word; a malformed or misspelt one counts, so that filecheck_run
   * reports it */
  for (size_t begin = 0; begin < len;) {
    size_t end = begin, at, stop;
    while (end < len && text[end] != '\n') end++;
    if (line_misspelt(text, begin, end, &at, &stop)) return true;
    begin = end + 1;
  }
  for (size_t at = 0; at + 6 <= len; at++) {
    if (memcmp(text + at, "CHECK", 5) != 0 || (at > 0 && ends_word(text[at - 1]))) continue;
    size_t k = at + 5;
    if (text[k] == ':') return true;
    if (text[k] != '-') continue;
    k++;
    while (k < len && is_word_char(text[k])) k++;
    if (k < len && text[k] == ':') return true;
  }
  return false;
}
