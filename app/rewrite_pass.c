/* rewrite_pass.c: DPIA_REWRITE, the pass behind `dpia rewrite`
 * (docs/language.md section 21; the rules are dpia/rules.h).
 *
 * The program has passed the check passes with high-level kernels
 * accepted.  --list prints every position of the kernel's body with the
 * rules whose left side and side conditions hold there; --apply rewrites
 * one, prints the program again, and checks that text as `dpia check
 * --high-level` does: a rule whose result does not check is refused
 * (E1105), so what --apply gives always checks. */
#include <string.h>

#include "driver.h"
#include "driver_int.h"

static const Decl *kernel_decl(Ctx *c) {
  for (int i = 0; i < c->prog->ndecls; i++) {
    const Decl *d = c->prog->decls[i];
    if (d->is_kernel && strcmp(d->name, c->opt->kernel) == 0) return d;
  }
  return NULL;
}

/* the expression at a position, on one line, shortened for text */
static const char *node_text(Ctx *c, const Ast *e, size_t max) {
  Buf b;
  buf_init(&b, c->arena);
  ast_print(&b, e);
  if (max && b.len > max) {
    b.data[max - 3] = '\0';
    return arena_printf(c->arena, "%s...", b.data);
  }
  return b.data;
}

static void emit_param_json(Buf *out, RuleParam p) {
  const RuleParamInfo *pi = &rule_param_info[p];
  buf_puts(out, "{\"name\": ");
  emit_json_string(out, pi->name);
  emit(out, ", \"min\": %lld, \"max\": %lld, \"default\": ", pi->lo, pi->hi);
  if (pi->dflt >= 0) emit(out, "%lld", pi->dflt);
  else buf_puts(out, "null");
  buf_puts(out, ", \"doc\": ");
  emit_json_string(out, pi->doc);
  buf_putc(out, '}');
}

static int list_sites(Ctx *c, const Decl *k) {
  RewriteSite *sites;
  int n;
  rewrite_sites(c->arena, c->prog, k->body, &sites, &n);
  Buf *out = &c->out;
  if (!c->opt->rewrite->json) {
    for (int i = 0; i < n; i++) {
      emit(out, "%s  %s\n", sites[i].path, node_text(c, sites[i].node, 72));
      for (int r = 0; r < sites[i].nrules; r++) {
        const RuleInfo *ri = &rule_info[sites[i].rules[r]];
        const RuleParamInfo *pi = &rule_param_info[ri->param];
        emit(out, "    %s@%s", ri->name, sites[i].path);
        if (ri->param != RPARAM_NONE) emit(out, pi->dflt >= 0 ? " [--param %s=N]" : " --param %s=N", pi->name);
        emit(out, "    -- %s\n", ri->doc);
      }
    }
    return DPIA_OK;
  }
  buf_puts(out, "{\"kernel\": ");
  emit_json_string(out, k->name);
  buf_puts(out, ", \"positions\": [");
  for (int i = 0; i < n; i++) {
    buf_puts(out, i ? ",\n  {\"path\": " : "\n  {\"path\": ");
    emit_json_string(out, sites[i].path);
    buf_puts(out, ", \"expression\": ");
    emit_json_string(out, node_text(c, sites[i].node, 0));
    buf_puts(out, ", \"rules\": [");
    for (int r = 0; r < sites[i].nrules; r++) {
      const RuleInfo *ri = &rule_info[sites[i].rules[r]];
      buf_puts(out, r ? ", {\"rule\": " : "{\"rule\": ");
      emit_json_string(out, ri->name);
      buf_puts(out, ", \"params\": [");
      if (ri->param != RPARAM_NONE) emit_param_json(out, ri->param);
      buf_puts(out, "]}");
    }
    buf_puts(out, "]}");
  }
  buf_puts(out, "]}\n");
  return DPIA_OK;
}

/* RULE@PATH and the parameters into the rule, its path and its
 * parameter's value; false after an error */
static bool read_request(Ctx *c, RuleId *rule, const char **path, long long *param) {
  const DpiaRewrite *rw = c->opt->rewrite;
  const char *at = strrchr(rw->apply, '@');
  if (!at) {
    diag_error(&c->diag, ERR_REWRITE_BAD_PATH, (Span){0},
               "--apply %s: expected RULE@PATH (a path of --list, '.' for the whole body)", rw->apply);
    return false;
  }
  const char *name = arena_strndup(c->arena, rw->apply, (size_t)(at - rw->apply));
  *path = at + 1;
  *rule = rule_lookup(name);
  if (*rule == RULE_COUNT) {
    Buf names;
    buf_init(&names, c->arena);
    for (int r = 0; r < RULE_COUNT; r++) emit(&names, "%s%s", r ? ", " : "", rule_info[r].name);
    diag_error(&c->diag, ERR_REWRITE_UNKNOWN_RULE, (Span){0}, "--apply %s: there is no rule '%s'; the rules: %s",
               rw->apply, name, names.data);
    return false;
  }
  RuleParam p = rule_info[*rule].param;
  const RuleParamInfo *pi = &rule_param_info[p];
  bool given = false;
  for (int i = 0; i < rw->nparams; i++) {
    if (p == RPARAM_NONE || strcmp(rw->param_names[i], pi->name) != 0) {
      diag_error(&c->diag, ERR_REWRITE_BAD_PARAM, (Span){0}, "--param %s: rule '%s' takes %s", rw->param_names[i],
                 rule_info[*rule].name,
                 p == RPARAM_NONE ? "no parameter" : arena_printf(c->arena, "one parameter, %s", pi->name));
      return false;
    }
    if (!rule_param_allows(p, rw->param_values[i])) {
      diag_error(&c->diag, ERR_REWRITE_BAD_PARAM, (Span){0}, "--param %s=%lld: rule '%s' needs %s",
                 rw->param_names[i], rw->param_values[i], rule_info[*rule].name, pi->doc);
      return false;
    }
    given = true;
    *param = rw->param_values[i];
  }
  if (!given && p != RPARAM_NONE) {
    if (pi->dflt < 0) {
      diag_error(&c->diag, ERR_REWRITE_BAD_PARAM, (Span){0}, "rule '%s' needs --param %s=N: %s",
                 rule_info[*rule].name, pi->name, pi->doc);
      return false;
    }
    *param = pi->dflt;
  }
  return true;
}

/* the rewritten program's text must check as `dpia check --high-level`
 * does (only kernel k translated); else the rule is refused */
static bool result_checks(Ctx *c, const Decl *k, const char *rule, const char *path, const char *text) {
  DpiaOptions o;
  dpia_options_init(&o);
  o.action = DPIA_CHECK;
  o.high_level = 1;
  o.kernel = k->name;
  o.verifier = c->opt->verifier;
  o.local_size[0] = c->opt->local_size[0];
  DpiaResult *r = NULL;
  const char *name = arena_printf(c->arena, "<%s rewritten by %s@%s>", c->src.name, rule, path);
  int status = driver_process(c->target, name, text, strlen(text), &o, &r);
  if (status == DPIA_OK) {
    dpia_result_free(r);
    return true;
  }
  const char *why = arena_printf(c->arena, "%s", dpia_result_diagnostics(r));
  dpia_result_free(r);
  diag_error(&c->diag, ERR_REWRITE_RESULT_REJECTED, k->name_span,
             "%s@%s: the rewritten program does not check, so the rule is refused here:\n%s", rule, path, why);
  return false;
}

static int apply_rule(Ctx *c, const Decl *k) {
  RuleId rule;
  const char *path;
  long long param = 0;
  if (!read_request(c, &rule, &path, &param)) return DPIA_EUSER;
  Buf why;
  buf_init(&why, c->arena);
  if (!rewrite_node_at(c->arena, k->body, path, &why)) {
    diag_error(&c->diag, ERR_REWRITE_BAD_PATH, k->name_span, "--apply %s: no position %s in kernel '%s': %s",
               c->opt->rewrite->apply, path, k->name, why.data);
    return DPIA_EUSER;
  }
  Ast *body = rewrite_apply(c->arena, &c->in, c->prog, k->body, rule, path, param, &why);
  if (!body) {
    diag_error(&c->diag, ERR_REWRITE_NOT_APPLICABLE, k->name_span, "rule '%s' (%s) does not apply at %s: %s",
               rule_info[rule].name, rule_info[rule].doc, path, why.data);
    return DPIA_EUSER;
  }
  /* the program with the kernel's body replaced */
  Program *prog = NEW(c->arena, Program);
  *prog = *c->prog;
  prog->decls = NEWARRAY(c->arena, Decl *, prog->ndecls);
  for (int i = 0; i < prog->ndecls; i++) {
    prog->decls[i] = c->prog->decls[i];
    if (prog->decls[i] != k) continue;
    Decl *d = NEW(c->arena, Decl);
    *d = *k;
    d->body = body;
    prog->decls[i] = d;
  }
  Buf text;
  buf_init(&text, c->arena);
  program_print(&text, prog);
  if (!result_checks(c, k, rule_info[rule].name, path, text.data)) return DPIA_EUSER;
  buf_puts(&c->out, text.data);
  return DPIA_OK;
}

int pass_rewrite(Ctx *c) {
  if (!c->opt->rewrite || (!c->opt->rewrite->list && !c->opt->rewrite->apply)) {
    diag_error(&c->diag, ERR_BAD_REQUEST, (Span){0}, "a rewrite needs --list or --apply RULE@PATH");
    return DPIA_EUSAGE;
  }
  const Decl *k = c->opt->kernel ? kernel_decl(c) : NULL;
  if (!k) {
    diag_error(&c->diag, ERR_NO_SUCH_KERNEL, (Span){0}, "dpia rewrite works on one kernel: name it with -k; %s",
               kernel_names(c));
    return DPIA_EUSER;
  }
  return c->opt->rewrite->list ? list_sites(c, k) : apply_rule(c, k);
}
