"""dpia.rewrite: the rewrite rules of `dpia rewrite` (docs/language.md
section 21) from Python, returning objects: a driver derives a strategy
from a high-level program by paths and rule names, never by editing dpia
source.

    listing = positions(src, "dotHL")          # raises DpiaError if refused
    for pos in listing:                        # Position: path, expression, rules
        for rule in pos.rules:                 # Rule: name, params, path
            ...
    r = apply(src, "dotHL", "vectorise", "1", n=4)   # a Result
    r.program                                  # the rewritten source, or None
    r.diagnostics[0].code                      # E1101-E1105 when refused

Each call is one dpia_process with the action DPIA_REWRITE (include/dpia.h).
"""
import json

from . import _process

__all__ = ["positions", "apply", "Position", "Rule", "Param"]


class Param:
    """A rule's parameter: name ("n", "dim"), min, max, default (None when
    it must be given) and doc."""

    def __init__(self, d):
        self.name = d["name"]
        self.min = d["min"]
        self.max = d["max"]
        self.default = d["default"]
        self.doc = d["doc"]

    def __repr__(self):
        return "<Param %s in [%d, %d]%s>" % (self.name, self.min, self.max,
                                             "" if self.default is None else ", default %d" % self.default)


class Rule:
    """A rule that applies at a position: name, params (Param objects) and
    the path of its position; apply(src, kernel, **params) applies it."""

    def __init__(self, d, path):
        self.name = d["rule"]
        self.params = [Param(p) for p in d["params"]]
        self.path = path

    def apply(self, src, kernel, name="<python>", **params):
        return apply(src, kernel, self.name, self.path, name=name, **params)

    def __repr__(self):
        return "<Rule %s@%s%s>" % (self.name, self.path, "".join(" %s=N" % p.name for p in self.params))


class Position:
    """A node of the kernel's body at which rules apply: path ("1.0.1",
    "." the root), expression (its source text, on one line), rules."""

    def __init__(self, d):
        self.path = d["path"]
        self.expression = d["expression"]
        self.rules = [Rule(r, self.path) for r in d["rules"]]

    def rule(self, name):
        """the rule of that name here, or None"""
        return next((r for r in self.rules if r.name == name), None)

    def __repr__(self):
        return "<Position %s: %s>" % (self.path, ", ".join(r.name for r in self.rules))


def positions(src, kernel, name="<python>"):
    """Every position of kernel's body with the rules that apply there, in
    preorder (dpia rewrite --list --json), as Position objects; raises
    DpiaError when the program does not check or has no such kernel."""
    r = _process(src, "rewrite", kernel=kernel, emit=(), name=name, rewrite=(True, None, None)).raise_for_status()
    return [Position(p) for p in json.loads(r.text)["positions"]]


def apply(src, kernel, rule, path, name="<python>", **params):
    """The program src with rule applied at path of kernel's body, its
    parameters as keywords (n=64, dim=1): a Result whose program is the
    rewritten source (checked as dpia check --high-level) when ok, None
    when refused (its diagnostics' codes say why: E1101 no such rule, E1102
    no such path, E1103 a bad parameter, E1104 the rule does not apply
    there, E1105 the result does not check)."""
    r = _process(src, "rewrite", kernel=kernel, emit=(), name=name, rewrite=(False, "%s@%s" % (rule, path), params))
    r.program = r.text if r.ok else None
    return r
