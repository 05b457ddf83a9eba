/* bench_meta.c: reading dpia's metadata in the benchmark: a small JSON
 * reader (spec section 9's metadata) and its size expressions. */
#include "bench_meta.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void jws(JP *p) {
  while (isspace((unsigned char)*p->s)) p->s++;
}

static J *jnew(JKind k) {
  J *j = xmalloc(sizeof *j);
  memset(j, 0, sizeof *j);
  j->kind = k;
  return j;
}

static char *jstring(JP *p) {
  if (*p->s != '"') {
    p->bad = true;
    return NULL;
  }
  p->s++;
  size_t cap = 64, n = 0;
  char *out = xmalloc(cap);
  while (*p->s && *p->s != '"') {
    char c = *p->s++;
    if (c == '\\') {
      char e = *p->s++;
      switch (e) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u': { /* the metadata escapes only control characters */
        unsigned v = 0;
        for (int k = 0; k < 4 && *p->s; k++) {
          char h = *p->s++;
          v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
        }
        c = v < 128 ? (char)v : '?';
        break;
      }
      default: c = e; break;
      }
    }
    if (n + 2 > cap) {
      cap *= 2;
      char *grown = realloc(out, cap);
      if (!grown) die("out of memory");
      out = grown;
    }
    out[n++] = c;
  }
  if (*p->s != '"') p->bad = true;
  else p->s++;
  out[n] = 0;
  return out;
}

J *jvalue(JP *p) {
  jws(p);
  char c = *p->s;
  if (c == '{' || c == '[') {
    J *j = jnew(c == '{' ? J_OBJ : J_ARR);
    p->s++;
    int cap = 8;
    j->items = xmalloc(sizeof(J *) * (size_t)cap);
    j->keys = xmalloc(sizeof(char *) * (size_t)cap);
    jws(p);
    if (*p->s == (c == '{' ? '}' : ']')) {
      p->s++;
      return j;
    }
    for (;;) {
      if (j->n == cap) {
        cap *= 2;
        J **items = realloc(j->items, sizeof(J *) * (size_t)cap);
        char **keys = realloc(j->keys, sizeof(char *) * (size_t)cap);
        if (!items || !keys) die("out of memory");
        j->items = items;
        j->keys = keys;
      }
      jws(p);
      j->keys[j->n] = NULL;
      if (c == '{') {
        j->keys[j->n] = jstring(p);
        jws(p);
        if (*p->s++ != ':') p->bad = true;
      }
      j->items[j->n++] = jvalue(p);
      jws(p);
      if (*p->s == ',') {
        p->s++;
        continue;
      }
      if (*p->s == (c == '{' ? '}' : ']')) {
        p->s++;
        return j;
      }
      p->bad = true;
      return j;
    }
  }
  if (c == '"') {
    J *j = jnew(J_STR);
    j->str = jstring(p);
    return j;
  }
  if (!strncmp(p->s, "null", 4)) {
    p->s += 4;
    return jnew(J_NULL);
  }
  if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
    J *j = jnew(J_BOOL);
    j->num = *p->s == 't';
    p->s += *p->s == 't' ? 4 : 5;
    return j;
  }
  J *j = jnew(J_NUM);
  char *end;
  j->num = strtod(p->s, &end);
  if (end == p->s) p->bad = true;
  p->s = end;
  return j;
}

void jfree(J *j) {
  if (!j) return;
  for (int i = 0; i < j->n; i++) {
    jfree(j->items[i]);
    free(j->keys[i]);
  }
  free(j->items);
  free(j->keys);
  free(j->str);
  free(j);
}

J *jget(const J *o, const char *key) {
  if (!o || o->kind != J_OBJ) return NULL;
  for (int i = 0; i < o->n; i++)
    if (o->keys[i] && !strcmp(o->keys[i], key)) return o->items[i];
  return NULL;
}

const char *jstr(const J *o, const char *key) {
  J *v = jget(o, key);
  return v && v->kind == J_STR ? v->str : NULL;
}

/* ---- size expressions of the metadata: + - * / % ( ) over nat names ---- */


typedef struct EP {
  const char *s;
  const Nats *nats;
  bool bad;
} EP;

static long long e_sum(EP *p);

static void e_ws(EP *p) {
  while (*p->s == ' ') p->s++;
}

static long long e_atom(EP *p) {
  e_ws(p);
  if (*p->s == '(') {
    p->s++;
    long long v = e_sum(p);
    e_ws(p);
    if (*p->s++ != ')') p->bad = true;
    return v;
  }
  if (*p->s == '-') {
    p->s++;
    return -e_atom(p);
  }
  if (isdigit((unsigned char)*p->s)) return strtoll(p->s, (char **)&p->s, 10);
  const char *start = p->s;
  while (isalnum((unsigned char)*p->s) || *p->s == '_') p->s++;
  size_t len = (size_t)(p->s - start);
  for (int i = 0; i < p->nats->n; i++)
    if (strlen(p->nats->names[i]) == len && !strncmp(p->nats->names[i], start, len)) return p->nats->values[i];
  p->bad = true;
  return 0;
}

static long long e_product(EP *p) {
  long long v = e_atom(p);
  for (;;) {
    e_ws(p);
    char op = *p->s;
    if (op != '*' && op != '/' && op != '%') return v;
    p->s++;
    long long w = e_atom(p);
    if (op == '*') v *= w;
    else if (w == 0) p->bad = true;
    else v = op == '/' ? v / w : v % w;
  }
}

static long long e_sum(EP *p) {
  long long v = e_product(p);
  for (;;) {
    e_ws(p);
    char op = *p->s;
    if (op != '+' && op != '-') return v;
    p->s++;
    long long w = e_product(p);
    v = op == '+' ? v + w : v - w;
  }
}

long long eval_size(const char *s, const Nats *nats) {
  EP p = {s, nats, false};
  long long v = e_sum(&p);
  e_ws(&p);
  if (p.bad || *p.s) die("cannot evaluate the size expression '%s'", s);
  return v;
}

int int_arg(long long v, const char *what) {
  if (v < INT_MIN || v > INT_MAX)
    die("%s = %lld does not fit the int argument of the kernel (at most %d): the kernels index with int", what, v,
        INT_MAX);
  return (int)v;
}

/* a precondition such as "N % 262144 == 0" or "N >= 64" */
bool eval_precondition(const char *s, const Nats *nats) {
  const char *ops[] = {"==", ">=", "<=", "!=", ">", "<"};
  for (int i = 0; i < 6; i++) {
    const char *at = strstr(s, ops[i]);
    if (!at) continue;
    char *lhs = xmalloc((size_t)(at - s) + 1);
    memcpy(lhs, s, (size_t)(at - s));
    lhs[at - s] = 0;
    long long a = eval_size(lhs, nats), b = eval_size(at + strlen(ops[i]), nats);
    free(lhs);
    switch (i) {
    case 0: return a == b;
    case 1: return a >= b;
    case 2: return a <= b;
    case 3: return a != b;
    case 4: return a > b;
    default: return a < b;
    }
  }
  die("cannot read the precondition '%s'", s);
}

size_t type_bytes(const char *t) {
  if (*t == '(') { /* a pair "(float4, float4)": a struct of its two fields, no padding between vectors of one type */
    const char *comma = strchr(t, ',');
    if (!comma) die("element type %s is not supported by the benchmark", t);
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)(comma - t - 1), t + 1);
    const char *second = comma + 1;
    while (*second == ' ') second++;
    size_t a = type_bytes(first), b = type_bytes(second);
    if (a != b) die("element type %s is not supported by the benchmark (fields of two sizes)", t);
    return a + b;
  }
  size_t scalar = !strncmp(t, "float", 5) ? 4 : !strncmp(t, "int", 3) ? 4 : !strncmp(t, "double", 6) ? 8 : 0;
  if (!scalar) die("element type %s is not supported by the benchmark", t);
  const char *w = t;
  while (*w && !isdigit((unsigned char)*w)) w++;
  return scalar * (*w ? (size_t)atoi(w) : 1);
}
