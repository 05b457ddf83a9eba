/* parse_decl.c: declarations of .dpia files (spec section 2, docs/
 * language.md sections 6 and 27): a def, kernel or pipeline's header (its
 * parameters, tune domains, result type, `updates` regions and
 * permutation inputs), then its body through parse_expr (parse.c).
 * Errors follow parse.c's rule: a syntax error abandons the declaration.
 */
#include "parse_int.h"

#include <string.h>

/* ---- declarations ---- */

/* Sizes are positive (a split by 0 divides by 0), and the values a search
 * driver may try must fit the generated code's int. */
enum { TUNE_MAX = 2147483647 };

/* tune ::= 'tune' '[' INT (',' INT)* ']' ['=' INT]
 *        | 'tune' '[' INT '..' INT ']' ['=' INT]
 * (docs/language.md section 6), after 'tune'.  Errors in the
 * values (0, a duplicate, an empty range) are reported without stopping the
 * parse; false after a syntax error. */
static bool parse_tune_domain(Parser *p, Param *into) {
  Span open = p->tok.span;
  if (!parser_expect(p, TOK_LBRACKET, "'tune' (its values are written 'tune [32, 64]' or 'tune [1 .. 4096]')")) return false;
  Vec values = {0};
  Span first_span = p->tok.span;
  for (;;) {
    if (!parser_at(p, TOK_INT)) {
      parser_expected(p, "a positive integer in the values of 'tune'");
      return false;
    }
    Span vs = p->tok.span;
    uint64_t v = parser_int_literal(p);
    if (v == 0 || v > TUNE_MAX)
      parser_report(p, ERR_BAD_TUNE_VALUES, vs,
             v == 0 ? "a tune value is a size and cannot be 0" : "a tune value must be at most 2147483647");
    for (int i = 0; i < values.len; i++)
      if (*(uint64_t *)values.items[i] == v)
        parser_report(p, ERR_BAD_TUNE_VALUES, vs, "duplicate value in the values of 'tune'");
    uint64_t *slot = NEW(p->arena, uint64_t);
    *slot = v;
    vec_push(p->arena, &values, slot);
    if (values.len == 1 && parser_at(p, TOK_DOTDOT)) {
      parser_advance(p);
      if (!parser_at(p, TOK_INT)) {
        parser_expected(p, "the last value of the range after '..'");
        return false;
      }
      Span hs = p->tok.span;
      uint64_t hi = parser_int_literal(p);
      if (hi > TUNE_MAX)
        parser_report(p, ERR_BAD_TUNE_VALUES, hs, "a tune value must be at most 2147483647");
      else if (hi < v && v != 0) {
        Span whole = first_span;
        whole.end = hs.end;
        parser_report(p, ERR_BAD_TUNE_VALUES, whole, "empty range: the first value of a tune range must not exceed the last");
      }
      into->tune_range = true;
      into->tune_lo = v;
      into->tune_hi = hi;
      break;
    }
    if (!parser_at(p, TOK_COMMA)) break;
    parser_advance(p);
  }
  if (!parser_expect_closer(p, TOK_RBRACKET, open, "the values of 'tune'")) return false;
  if (!into->tune_range) {
    into->ntune_values = values.len;
    into->tune_values = NEWARRAY(p->arena, uint64_t, values.len);
    for (int i = 0; i < values.len; i++) into->tune_values[i] = *(uint64_t *)values.items[i];
  }
  into->tune = true;
  /* '= INT': the default, one of the values */
  if (parser_at(p, TOK_EQ)) {
    parser_advance(p);
    if (!parser_at(p, TOK_INT)) {
      parser_expected(p, "the default value of the tune parameter after '='");
      return false;
    }
    Span ds = p->tok.span;
    into->tune_has_default = true;
    into->tune_default = parser_int_literal(p);
    if (!param_tune_allows(into, into->tune_default))
      parser_report(p, ERR_BAD_TUNE_VALUES, ds, "the default of a tune parameter must be one of its values");
  }
  return true;
}

/* param ::= '(' IDENT+ ':' ('nat' | 'data' | 'tune' domain | ptype) ')'
 * Appends one Param per name to `params`; the names share one TypeAst. */
static void parse_param_group(Parser *p, Vec *params) {
  Span open = p->tok.span;
  parser_advance(p);
  int first = params->len;
  while (parser_at(p, TOK_IDENT)) {
    Param *param = NEW(p->arena, Param);
    param->name = parser_ident(p);
    param->span = p->tok.span;
    parser_check_binder(p);
    vec_push(p->arena, params, param);
    parser_advance(p);
  }
  if (params->len == first) {
    parser_expected(p, "a parameter name after '('");
    return;
  }
  if (!parser_expect(p, TOK_COLON, "the parameter names (a parameter is written '(x: type)')")) return;
  ParamKind kind = PARAM_PHRASE;
  TypeAst *type = NULL;
  Param tune = {0};
  if (parser_at(p, TOK_IDENT) && (parser_name_is(parser_ident(p), "nat") || parser_name_is(parser_ident(p), "data"))) {
    kind = parser_name_is(parser_ident(p), "nat") ? PARAM_NAT : PARAM_DATA;
    parser_advance(p);
  } else if (parser_at(p, TOK_IDENT) && parser_name_is(parser_ident(p), "tune")) {
    kind = PARAM_NAT;
    parser_advance(p);
    if (!parse_tune_domain(p, &tune)) return;
  } else {
    type = parse_ptype(p);
  }
  parser_expect_closer(p, TOK_RPAREN, open, "the parameter's type");
  for (int i = first; i < params->len; i++) {
    Param *param = params->items[i];
    param->kind = kind;
    param->type = type;
    param->tune = tune.tune;
    param->tune_range = tune.tune_range;
    param->ntune_values = tune.ntune_values;
    param->tune_values = tune.tune_values;
    param->tune_lo = tune.tune_lo;
    param->tune_hi = tune.tune_hi;
    param->tune_has_default = tune.tune_has_default;
    param->tune_default = tune.tune_default;
  }
}

/* region ::= ('[' size '..' size ']')+ */
static bool parse_region(Parser *p, RegionAst *r) {
  r->span = p->tok.span;
  while (parser_at(p, TOK_LBRACKET)) {
    Span open = p->tok.span;
    if (r->ndims == DECL_MAX_REGION) {
      parser_fail(p, ERR_BAD_UPDATES, "a region of 'updates' restricts at most the outer two dimensions");
      return false;
    }
    parser_advance(p);
    r->lo[r->ndims] = parse_size(p);
    if (!parser_expect(p, TOK_DOTDOT, "the first index of the region")) return false;
    r->hi[r->ndims] = parse_size(p);
    if (!parser_expect_closer(p, TOK_RBRACKET, open, "the last index of the region")) return false;
    r->ndims++;
  }
  r->span.end = p->prev.end;
  return true;
}

/* updates ::= 'updates' IDENT [region (',' region)*] | 'updates' IDENT (',' IDENT)+
 * (docs/language.md section 27; `updates` is a word only there, after a
 * kernel's parameters) */
static bool parse_updates(Parser *p, Decl *d) {
  uint32_t begin = p->tok.span.begin;
  parser_advance(p);
  if (!parser_at(p, TOK_IDENT)) {
    parser_expected(p, "the name of the input that kernel '%s' updates after 'updates'", d->name);
    return false;
  }
  d->updates = parser_ident(p);
  d->updated[d->nupdated++] = parser_ident(p);
  parser_advance(p);
  while (parser_at(p, TOK_COMMA)) { /* several inputs, each updated as a whole */
    parser_advance(p);
    if (!parser_at(p, TOK_IDENT)) {
      parser_expected(p, "the name of another input that kernel '%s' updates after ','", d->name);
      return false;
    }
    if (d->nupdated == DECL_MAX_UPDATED) {
      parser_fail(p, ERR_BAD_UPDATES, "'updates' names at most 4 inputs");
      return false;
    }
    d->updated[d->nupdated++] = parser_ident(p);
    parser_advance(p);
    if (parser_at(p, TOK_LBRACKET)) {
      parser_fail(p, ERR_BAD_UPDATES, "'updates' of several inputs updates each as a whole: no region");
      return false;
    }
  }
  if (d->nupdated == 1 && parser_at(p, TOK_LBRACKET)) {
    for (;;) {
      if (d->nregions == DECL_MAX_REGIONS) {
        parser_fail(p, ERR_BAD_UPDATES, "'updates' gives at most 4 regions");
        return false;
      }
      if (!parse_region(p, &d->regions[d->nregions++])) return false;
      if (!parser_at(p, TOK_COMMA)) break;
      parser_advance(p);
      if (!parser_at(p, TOK_LBRACKET)) {
        parser_expected(p, "a region '[lo .. hi]' after ',' in 'updates %s'", d->updates);
        return false;
      }
    }
  }
  d->updates_span = p->prev;
  d->updates_span.begin = begin;
  return true;
}

/* permutation ::= 'permutation' IDENT+   (docs/language.md section 29;
 * `permutation` is a word only there, after a kernel's parameters, and the
 * names end at `updates`, ':' or '=') */
static bool parse_permutation(Parser *p, Decl *d) {
  parser_advance(p);
  Vec names = {0}, spans = {0};
  while (parser_at(p, TOK_IDENT) && strcmp(parser_ident(p), "updates") != 0) {
    vec_push(p->arena, &names, (void *)parser_ident(p));
    Span *sp = NEW(p->arena, Span);
    *sp = p->tok.span;
    vec_push(p->arena, &spans, sp);
    parser_advance(p);
  }
  if (!names.len) {
    parser_expected(p, "the names of the inputs that kernel '%s' declares permutations after 'permutation'", d->name);
    return false;
  }
  d->nperms = names.len;
  d->perms = NEWARRAY(p->arena, Sym, names.len);
  d->perm_spans = NEWARRAY(p->arena, Span, names.len);
  for (int i = 0; i < names.len; i++) {
    d->perms[i] = names.items[i];
    d->perm_spans[i] = *(Span *)spans.items[i];
  }
  return true;
}

/* decl ::= ('def' | 'kernel' | 'pipeline') IDENT param* [permutation] [updates] [':' ptype] '=' expr
 *        | 'def' IDENT IDENT+ [':' ptype] '=' expr        (a template)
 *        | 'foreign' IDENT param* ':' type '=' STRING   (docs/language.md section 14) */
Decl *parse_decl(Parser *p) {
  uint32_t begin = p->tok.span.begin;
  Decl *d = NEW(p->arena, Decl);
  d->is_kernel = parser_at(p, TOK_KW_KERNEL);
  d->is_pipeline = parser_at(p, TOK_KW_PIPELINE);
  d->is_foreign = parser_at(p, TOK_KW_FOREIGN);
  const char *keyword = d->is_kernel ? "kernel" : d->is_pipeline ? "pipeline" : d->is_foreign ? "foreign" : "def";
  parser_advance(p);
  if (!parser_at(p, TOK_IDENT)) {
    parser_expected(p, "a name after '%s'", keyword);
    return NULL;
  }
  d->name = parser_ident(p);
  d->name_span = p->tok.span;
  /* a kernel named float4 is reported by the checker as an OpenCL C type
   * name, as it was before float4 was also a primitive */
  if (!(d->is_kernel && prim_builds_vector((Prim)p->tok.prim))) parser_check_binder(p);
  parser_advance(p);
  Vec params = {0};
  int untyped = 0;
  while (parser_at(p, TOK_LPAREN) || (!d->is_kernel && !d->is_pipeline && !d->is_foreign && parser_at(p, TOK_IDENT))) {
    if (parser_at(p, TOK_LPAREN)) {
      parse_param_group(p, &params);
      continue;
    }
    /* after typed parameters, the clause of an imperative program's
     * permutations (def_print), not a template parameter */
    if (!untyped && params.len && strcmp(parser_ident(p), "permutation") == 0) break;
    /* def square x = x * x: a template parameter (ast.h, PARAM_UNTYPED) */
    Param *param = NEW(p->arena, Param);
    param->name = parser_ident(p);
    param->span = p->tok.span;
    param->kind = PARAM_UNTYPED;
    parser_check_binder(p);
    vec_push(p->arena, &params, param);
    untyped++;
    parser_advance(p);
  }
  if (untyped && untyped != params.len) {
    for (int i = 0; i < params.len; i++) {
      const Param *pa = params.items[i];
      if (pa->kind == PARAM_UNTYPED) continue;
      Buf msg;
      buf_init(&msg, p->arena);
      emit(&msg,
           "'%s' is declared with a type, but other parameters of '%s' are not: write the types of all of a "
           "def's parameters, or of none (then the def is checked at each use, like a lambda)",
           pa->name, d->name);
      parser_fail_at(p, ERR_BAD_PARAMETERS, pa->span, msg.data);
      return NULL;
    }
  }
  d->nparams = params.len;
  d->params = NEWARRAY(p->arena, Param, params.len);
  for (int i = 0; i < params.len; i++) d->params[i] = *(Param *)params.items[i];
  if (!d->is_pipeline && !d->is_foreign && parser_at(p, TOK_IDENT) && strcmp(parser_ident(p), "permutation") == 0 &&
      !parse_permutation(p, d))
    return NULL;
  if (d->is_kernel && parser_at(p, TOK_IDENT) && strcmp(parser_ident(p), "updates") == 0 && !parse_updates(p, d))
    return NULL;
  if (parser_at(p, TOK_COLON)) {
    parser_advance(p);
    d->result = parse_ptype(p);
  } else if (parser_at(p, TOK_IDENT)) {
    /* a kernel parameter lacks its parentheses */
    parser_expected(p, "'=' after the parameters of '%s' (a parameter is written '(%s: type)')", d->name,
                    parser_ident(p));
    return NULL;
  }
  if (d->is_foreign && !d->result) {
    parser_expected(p, "': type' after the parameters of foreign function '%s' (its result type)", d->name);
    return NULL;
  }
  bool has_eq = d->result ? parser_expect(p, TOK_EQ, "the result type of '%s'", d->name)
                          : parser_expect(p, TOK_EQ, "the parameters of '%s'", d->name);
  if (!has_eq) return NULL;
  if (d->is_foreign) {
    /* foreign NAME params : type = "OpenCL C body" */
    if (!parser_at(p, TOK_STRING)) {
      parser_expected(p, "the body of foreign function '%s' as a string literal, \"{ return ...; }\"", d->name);
      return NULL;
    }
    d->foreign_body = p->tok.str_value;
    d->foreign_body_span = p->tok.span;
    parser_advance(p);
  } else {
    d->body = parse_expr(p);
  }
  if (p->failed) return NULL;
  switch (p->tok.kind) {
  case TOK_EOF:
  case TOK_KW_DEF:
  case TOK_KW_KERNEL:
  case TOK_KW_FOREIGN:
  case TOK_KW_PIPELINE: break;
  case TOK_RPAREN:
  case TOK_RBRACKET:
  case TOK_RBRACE:
    parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected '%s' with no matching opening bracket",
                 tok_spelling[p->tok.kind]);
    return NULL;
  case TOK_EQ:
    parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected '=': comparison is written '==' and assignment ':='");
    return NULL;
  case TOK_KW_IN: parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected 'in' without a 'let'"); return NULL;
  case TOK_COLON:
    parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected ':': a type ascription is written in parentheses, (e : type)");
    return NULL;
  case TOK_COMMA:
    parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected ',': a pair is written in parentheses, (a, b)");
    return NULL;
  default:
    parser_syntax_error(p, ERR_UNEXPECTED_TOKEN, "unexpected '%.*s' after the body of '%s'", parser_length_of(p->tok.span),
                 parser_text_of(p, p->tok.span), d->name);
    return NULL;
  }
  d->span = parser_span_from(p, begin);
  return d;
}
