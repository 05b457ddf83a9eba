/* filecheck.c: dpia-filecheck, a small FileCheck for the test suites.
 *
 *   dpia-filecheck CHECKFILE [INPUT]        (INPUT absent: standard input)
 *
 * CHECKFILE holds directives, one a line, after any comment leader
 * (`// CHECK:` in C-like files, `-- CHECK:` inside .dpia files):
 *
 *   CHECK: pattern         found in order, after the end of the previous match
 *   CHECK-NEXT: pattern    found on the line right after the previous match's
 *   CHECK-NOT: pattern     absent between the previous match and the next
 *                          positive match (or the end of the input or block)
 *   CHECK-COUNT-n: pattern n CHECKs of the same pattern in a row, each after
 *                          the previous one (as LLVM's FileCheck)
 *   CHECK-LABEL: pattern   matched first, in order, splitting the input into
 *                          blocks; the directives between two labels match
 *                          inside the block between the two label matches
 *
 * A pattern is literal text except its {{regex}} parts, PCRE2 regular
 * expressions.  Leading and trailing blanks of a pattern are dropped and,
 * as in LLVM's FileCheck without --strict-whitespace, a run of spaces and
 * tabs in the literal text matches any run of one or more spaces and tabs.
 * `^` and `$` in a regex match at line boundaries.
 *
 * Exit status: 0 when every directive holds; 1 when one fails, with
 *   CHECKFILE:LINE: error: CHECK...: what went wrong
 *   <the directive's line, with a caret under the pattern>
 *   INPUT:LINE:COL: note: where it looked, with a few lines of the input
 * on standard error; 2 for a bad command line, an unreadable file or a bad
 * check file (no directive, an unknown CHECK-suffix, an invalid regex).
 *
 * This is a test tool, not library code: it allocates with malloc and
 * exits on failure. */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_MATCHED = 0, EXIT_MISMATCH = 1, EXIT_BAD_USAGE = 2 };

/* Lines of input shown after a "scanning from here" note. */
enum { CONTEXT_LINES_AFTER = 4 };

static void *xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q) {
    fputs("dpia-filecheck: out of memory\n", stderr);
    exit(EXIT_BAD_USAGE);
  }
  return q;
}

/* ---- growable strings ---- */

typedef struct Str {
  char *data;
  size_t len, cap;
} Str;

static void str_put(Str *s, const char *p, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    while (cap < s->len + n + 1) cap *= 2;
    s->data = xrealloc(s->data, cap);
    s->cap = cap;
  }
  memcpy(s->data + s->len, p, n);
  s->len += n;
  s->data[s->len] = '\0';
}

static void str_putc(Str *s, char c) { str_put(s, &c, 1); }
static void str_puts(Str *s, const char *p) { str_put(s, p, strlen(p)); }

/* ---- texts ---- */

/* A whole file in memory, NUL-terminated. */
typedef struct Text {
  const char *name;
  char *data;
  size_t len;
} Text;

static bool read_text(Text *t, const char *name, FILE *f) {
  Str s = {0};
  str_put(&s, "", 0);
  size_t chunk = 64 * 1024;
  for (;;) {
    if (s.len + chunk + 1 > s.cap) {
      s.cap = s.len + chunk + 1;
      s.data = xrealloc(s.data, s.cap);
    }
    size_t got = fread(s.data + s.len, 1, chunk, f);
    s.len += got;
    if (got < chunk) break;
  }
  s.data[s.len] = '\0';
  t->name = name;
  t->data = s.data;
  t->len = s.len;
  return !ferror(f);
}

static bool read_file(Text *t, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  bool ok = read_text(t, path, f);
  fclose(f);
  return ok;
}

/* 1-based line and column of offset at in t. */
static void text_position(const Text *t, size_t at, size_t *line, size_t *col) {
  size_t l = 1, start = 0;
  for (size_t i = 0; i < at && i < t->len; i++)
    if (t->data[i] == '\n') {
      l++;
      start = i + 1;
    }
  *line = l;
  *col = at - start + 1;
}

static size_t line_start(const Text *t, size_t at) {
  while (at > 0 && t->data[at - 1] != '\n') at--;
  return at;
}

static size_t line_end(const Text *t, size_t at) {
  while (at < t->len && t->data[at] != '\n') at++;
  return at;
}

static size_t count_newlines(const Text *t, size_t from, size_t to) {
  size_t n = 0;
  for (size_t i = from; i < to; i++) n += t->data[i] == '\n';
  return n;
}

/* ---- directives ---- */

typedef enum Kind { CHECK, CHECK_NEXT, CHECK_NOT, CHECK_COUNT, CHECK_LABEL } Kind;

static const char *const kind_names[] = {"CHECK", "CHECK-NEXT", "CHECK-NOT", "CHECK-COUNT", "CHECK-LABEL"};

typedef struct Directive {
  Kind kind;
  long count;         /* CHECK-COUNT-n: n; 1 for the others */
  size_t line;        /* in the check file, 1-based */
  size_t line_begin;  /* offset of that line in the check file */
  size_t pattern_col; /* 0-based column of the pattern in that line */
  char *pattern;      /* as written, trimmed */
  pcre2_code *regex;
  size_t match_begin, match_end; /* CHECK-LABEL: where pass one found it */
} Directive;

typedef struct Checker {
  Text checks, input;
  Directive *dirs;
  size_t ndirs, cap;
  pcre2_match_data *match;
} Checker;

/* The directive's name as the user wrote it (CHECK-COUNT-3). */
static void directive_name(Str *out, const Directive *d) {
  str_puts(out, kind_names[d->kind]);
  if (d->kind == CHECK_COUNT) {
    int n = snprintf(NULL, 0, "-%ld", d->count);
    char *digits = xrealloc(NULL, (size_t)n + 1);
    snprintf(digits, (size_t)n + 1, "-%ld", d->count);
    str_puts(out, digits);
    free(digits);
  }
}

/* The check file's line of d, with a caret under column col (0-based). */
static void show_check_line(const Checker *c, const Directive *d, size_t col) {
  size_t end = line_end(&c->checks, d->line_begin);
  fprintf(stderr, "%.*s\n", (int)(end - d->line_begin), c->checks.data + d->line_begin);
  for (size_t i = 0; i < col; i++) fputc(c->checks.data[d->line_begin + i] == '\t' ? '\t' : ' ', stderr);
  fputs("^\n", stderr);
}

/* CHECKFILE:LINE: error: NAME: message, then the directive's line. */
static void directive_error(const Checker *c, const Directive *d, size_t caret_col, const char *fmt, ...) {
  Str name = {0};
  directive_name(&name, d);
  fprintf(stderr, "%s:%zu: error: %s: ", c->checks.name, d->line, name.data);
  free(name.data);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  show_check_line(c, d, caret_col);
}

/* One input line with its number in a gutter. */
static void show_input_line(const Text *in, size_t begin, size_t number) {
  size_t end = line_end(in, begin);
  fprintf(stderr, "%6zu | %.*s\n", number, (int)(end - begin), in->data + begin);
}

/* INPUT:LINE:COL: note: message, the input line at `at` with a caret (and
 * tildes to mark_end on the same line), then `after` more lines. */
static void input_note(const Checker *c, size_t at, size_t mark_end, int after, const char *message) {
  const Text *in = &c->input;
  size_t line, col;
  text_position(in, at, &line, &col);
  fprintf(stderr, "%s:%zu:%zu: note: %s\n", in->name, line, col, message);
  size_t begin = line_start(in, at), end = line_end(in, at);
  show_input_line(in, begin, line);
  fputs("       | ", stderr);
  for (size_t i = begin; i < at; i++) fputc(in->data[i] == '\t' ? '\t' : ' ', stderr);
  fputc('^', stderr);
  for (size_t i = at + 1; i < mark_end && i < end; i++) fputc('~', stderr);
  fputc('\n', stderr);
  for (int k = 1; k <= after && end < in->len; k++) {
    begin = end + 1;
    end = line_end(in, begin);
    if (begin == in->len) break; /* the empty "line" after a final newline */
    show_input_line(in, begin, line + (size_t)k);
  }
}

/* ---- patterns ---- */

static bool is_blank(char ch) { return ch == ' ' || ch == '\t'; }

typedef struct RegexPart {
  size_t in_regex, in_pattern, len;
} RegexPart;

/* Translate a pattern into one PCRE2 regex: literal text escaped, blank runs
 * as [ \t]+, {{regex}} parts as (?:regex) groups.  Returns false (after an
 * error message) for an unterminated or empty regex part, or one PCRE2
 * rejects. */
static bool compile_pattern(Checker *c, Directive *d) {
  const char *p = d->pattern;
  size_t n = strlen(p);
  Str re = {0};
  str_put(&re, "", 0);
  /* where each regex part is in re and in the pattern, to point a compile
   * error at the right column */
  RegexPart *parts = NULL;
  size_t nparts = 0;
  for (size_t i = 0; i < n;) {
    if (p[i] == '{' && i + 1 < n && p[i + 1] == '{') {
      const char *close = strstr(p + i + 2, "}}");
      if (!close) {
        directive_error(c, d, d->pattern_col + i, "unterminated regex: no '}}' after '{{'");
        free(re.data);
        free(parts);
        return false;
      }
      size_t end = (size_t)(close - p);
      /* {{a{2}}}: the regex ends at the last brace pair of a run */
      while (end + 2 < n && p[end + 2] == '}') end++;
      if (end == i + 2) {
        directive_error(c, d, d->pattern_col + i, "empty regex '{{}}'");
        free(re.data);
        free(parts);
        return false;
      }
      str_puts(&re, "(?:");
      parts = xrealloc(parts, (nparts + 1) * sizeof *parts);
      parts[nparts++] = (RegexPart){.in_regex = re.len, .in_pattern = i + 2, .len = end - (i + 2)};
      str_put(&re, p + i + 2, end - (i + 2));
      str_putc(&re, ')');
      i = end + 2;
    } else if (is_blank(p[i])) {
      while (i < n && is_blank(p[i])) i++;
      str_puts(&re, "[ \\t]+");
    } else {
      /* a backslash before any ASCII punctuation makes it literal in
       * PCRE2; letters, digits and bytes above ASCII are literal as is */
      unsigned char ch = (unsigned char)p[i];
      if (ch < 0x80 && !isalnum(ch)) str_putc(&re, '\\');
      str_putc(&re, p[i]);
      i++;
    }
  }

  int code;
  PCRE2_SIZE offset;
  d->regex = pcre2_compile((PCRE2_SPTR)re.data, re.len, PCRE2_MULTILINE, &code, &offset, NULL);
  if (!d->regex) {
    size_t caret = d->pattern_col;
    for (size_t k = 0; k < nparts; k++) {
      if (offset < parts[k].in_regex) continue;
      size_t into = offset - parts[k].in_regex;
      caret = d->pattern_col + parts[k].in_pattern + (into < parts[k].len ? into : parts[k].len);
    }
    size_t size = 128;
    PCRE2_UCHAR *message = NULL;
    for (;;) {
      message = xrealloc(message, size);
      if (pcre2_get_error_message(code, message, size) != PCRE2_ERROR_NOMEMORY) break;
      size *= 2;
    }
    directive_error(c, d, caret, "invalid regex: %s", (const char *)message);
    free(message);
  }
  free(re.data);
  free(parts);
  return d->regex != NULL;
}

/* ---- reading the check file ---- */

static bool is_word_char(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '-'; }

/* CHECK counts as a directive unless it ends a longer word (MYCHECK:);
 * unlike LLVM a '-' may come right before it, so "--CHECK:" in a .dpia file
 * is not silently ignored. */
static bool ends_word(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* Parse a directive in line [begin, end) of the check file into d; returns
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
      if (slen == 4 && memcmp(s, "NEXT", 4) == 0) {
        d->kind = CHECK_NEXT;
      } else if (slen == 3 && memcmp(s, "NOT", 3) == 0) {
        d->kind = CHECK_NOT;
      } else if (slen == 5 && memcmp(s, "LABEL", 5) == 0) {
        d->kind = CHECK_LABEL;
      } else if (slen > 6 && memcmp(s, "COUNT-", 6) == 0) {
        d->kind = CHECK_COUNT;
        long count = 0;
        bool digits = true;
        for (size_t k = 6; k < slen; k++) {
          if (!isdigit((unsigned char)s[k]) || count > 1000000) digits = false;
          else count = count * 10 + (s[k] - '0');
        }
        if (!digits || count < 1) {
          fprintf(stderr, "%s:%zu: error: invalid count in %.*s (a number from 1 up)\n", c->checks.name, line,
                  (int)(stop - at), text + at);
          show_check_line(c, d, at - begin);
          return -1;
        }
        d->count = count;
      } else {
        fprintf(stderr, "%s:%zu: error: unknown directive %.*s (known: CHECK, CHECK-NEXT, CHECK-NOT, "
                        "CHECK-COUNT-n, CHECK-LABEL)\n",
                c->checks.name, line, (int)(stop - at), text + at);
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
    d->pattern = xrealloc(NULL, to - from + 1);
    memcpy(d->pattern, text + from, to - from);
    d->pattern[to - from] = '\0';
    if (to == from) {
      directive_error(c, d, d->pattern_col, "empty pattern");
      free(d->pattern);
      return -1;
    }
    return 1;
  }
  return 0;
}

static bool parse_checks(Checker *c) {
  size_t line = 1;
  bool ok = true;
  bool positive_before = false; /* a CHECK-NEXT needs a previous match */
  for (size_t begin = 0; begin < c->checks.len; line++) {
    size_t end = line_end(&c->checks, begin);
    Directive d;
    int found = parse_directive(c, begin, end, line, &d);
    if (found < 0) ok = false;
    if (found > 0) {
      if (d.kind == CHECK_NEXT && !positive_before) {
        directive_error(c, &d, d.pattern_col, "no previous match to be on the line after (put a CHECK or "
                                              "CHECK-LABEL before it)");
        ok = false;
      }
      if (d.kind != CHECK_NOT) positive_before = true;
      if (!compile_pattern(c, &d)) ok = false;
      if (c->ndirs == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->dirs = xrealloc(c->dirs, c->cap * sizeof *c->dirs);
      }
      c->dirs[c->ndirs++] = d;
    }
    begin = end + 1;
  }
  if (ok && c->ndirs == 0) {
    fprintf(stderr, "%s: error: no CHECK directive found (write '// CHECK: text' or '-- CHECK: text')\n",
            c->checks.name);
    ok = false;
  }
  return ok;
}

/* ---- matching ---- */

/* The first match of d in input[from, limit): [*begin, *end). */
static bool find(Checker *c, const Directive *d, size_t from, size_t limit, size_t *begin, size_t *end) {
  if (from > limit) return false;
  int rc = pcre2_match(d->regex, (PCRE2_SPTR)c->input.data, limit, from, 0, c->match, NULL);
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
    fprintf(stderr, "dpia-filecheck: PCRE2 match error %d on the pattern of %s:%zu\n", rc, c->checks.name,
            d->line);
    exit(EXIT_BAD_USAGE);
  }
  if (rc < 0) return false;
  PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(c->match);
  *begin = ovector[0];
  *end = ovector[1];
  return true;
}

/* rep: how many matches of a CHECK-COUNT were found before this one */
static void not_found(Checker *c, const Directive *d, size_t from, long rep) {
  if (d->kind == CHECK_COUNT)
    directive_error(c, d, d->pattern_col, "expected string not found in input (match %ld of %ld)", rep + 1,
                    d->count);
  else
    directive_error(c, d, d->pattern_col, "expected string not found in input");
  input_note(c, from, from, CONTEXT_LINES_AFTER, "scanning from here");
}

/* The CHECK-NOTs in nots must not match input[from, to). */
static bool check_nots(Checker *c, Directive **nots, size_t nnots, size_t from, size_t to) {
  for (size_t i = 0; i < nnots; i++) {
    size_t begin, end;
    if (find(c, nots[i], from, to, &begin, &end)) {
      directive_error(c, nots[i], nots[i]->pattern_col, "excluded string found in input");
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
    if (!find(c, d, pos, c->input.len, &d->match_begin, &d->match_end)) {
      not_found(c, d, pos, 0);
      return false;
    }
    pos = d->match_end;
  }
  return true;
}

/* Pass two: directives [first, last) inside input[from, limit).  from is
 * the end of the previous match (the block's label) or the start of the
 * input; parse_checks made sure a CHECK-NEXT is never first in the input. */
static bool match_block(Checker *c, size_t first, size_t last, size_t from, size_t limit) {
  Directive **nots = xrealloc(NULL, (last - first + 1) * sizeof *nots);
  size_t nnots = 0;
  size_t pos = from;
  bool ok = true;
  for (size_t i = first; i < last && ok; i++) {
    Directive *d = &c->dirs[i];
    if (d->kind == CHECK_NOT) {
      nots[nnots++] = d;
      continue;
    }
    for (long rep = 0; rep < d->count && ok; rep++) {
      size_t begin, end;
      if (!find(c, d, pos, limit, &begin, &end)) {
        not_found(c, d, pos, rep);
        ok = false;
        break;
      }
      if (d->kind == CHECK_NEXT) {
        size_t newlines = count_newlines(&c->input, pos, begin);
        if (newlines != 1) {
          directive_error(c, d, d->pattern_col,
                          newlines == 0 ? "is on the same line as the previous match"
                                        : "is not on the line after the previous match");
          input_note(c, begin, end, 0, "found here");
          input_note(c, pos, pos, 0, "previous match ended here");
          ok = false;
          break;
        }
      }
      if (!check_nots(c, nots, nnots, pos, begin)) {
        ok = false;
        break;
      }
      nnots = 0;
      pos = end;
    }
  }
  if (ok) ok = check_nots(c, nots, nnots, pos, limit);
  free(nots);
  return ok;
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

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || argv[1][0] == '-') {
    fputs("usage: dpia-filecheck CHECKFILE [INPUT]\n"
          "  checks INPUT (standard input if absent) against the CHECK, CHECK-NEXT, CHECK-NOT,\n"
          "  CHECK-COUNT-n and CHECK-LABEL directives of CHECKFILE\n",
          stderr);
    return EXIT_BAD_USAGE;
  }
  Checker c = {0};
  int status = EXIT_BAD_USAGE;
  if (!read_file(&c.checks, argv[1])) {
    fprintf(stderr, "dpia-filecheck: cannot read check file %s\n", argv[1]);
  } else if (!(argc == 3 ? read_file(&c.input, argv[2]) : read_text(&c.input, "<stdin>", stdin))) {
    fprintf(stderr, "dpia-filecheck: cannot read input %s\n", argc == 3 ? argv[2] : "<stdin>");
  } else if (parse_checks(&c)) {
    c.match = pcre2_match_data_create(1, NULL);
    if (!c.match) fputs("dpia-filecheck: out of memory\n", stderr);
    else status = run_checks(&c) ? EXIT_MATCHED : EXIT_MISMATCH;
    pcre2_match_data_free(c.match);
  }
  for (size_t i = 0; i < c.ndirs; i++) {
    pcre2_code_free(c.dirs[i].regex);
    free(c.dirs[i].pattern);
  }
  free(c.dirs);
  free(c.checks.data);
  free(c.input.data);
  return status;
}
