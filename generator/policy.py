"""Security policy: deny by default. Requests are screened before parsing; output after.

A refusal raises RefusedError whose code names the reason (secret_access, unrestricted_shell,
write_outside_workspace, arbitrary_network, deceptive, destructive, template_injection).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from a4a.runtime import knowledge
from a4a.runtime.errors import RefusedError, UserError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.loader.yamlio import load_yaml_text

MAX_REQUEST_CHARS = 20_000
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s"})
_WORDS = re.compile(r"[^\W\d_]{2,}")


@cache
def _rules() -> dict[str, tuple[re.Pattern[str], ...]]:
    text = resources.files("a4a.templates").joinpath("policy.yaml").read_text("utf-8")
    rules = load_yaml_text(text, "policy.yaml", trusted=True)["rules"]
    return {code: tuple(re.compile(p) for p in pats) for code, pats in rules.items()}


def check_request(text: object) -> None:
    """Raise UserError for unusable input and RefusedError for a denied request."""
    if not isinstance(text, str):
        raise UserError("request.type", "the request must be text", "Pass a string.")
    if len(text) > MAX_REQUEST_CHARS:
        raise UserError("request.too_long", f"the request has {len(text)} characters, over "
                        f"{MAX_REQUEST_CHARS}", "Describe the framework in fewer words.")
    if not _WORDS.search(text):
        raise UserError("request.empty", "the request has no words to build from",
                        'Describe the agents you want, e.g. "a team that triages GitHub issues".')
    reason = screen(text)
    if reason:
        code, fragment = reason
        raise RefusedError(code, f"refused ({code}): the request asks for something a4a "
                           f"never builds: {fragment!r}", "Remove that part of the request; "
                           "generated frameworks only act through their own tools.",
                           reason=code, match=fragment)


def screen(text: str) -> tuple[str, str] | None:
    """The first policy rule the request breaks, as (reason code, matched text)."""
    low = " ".join(text.lower().split())
    variants = (low, low.translate(_LEET))
    for code, patterns in _rules().items():
        for pat in patterns:
            for v in variants:
                m = pat.search(v)
                if m:
                    return code, m.group(0)[:80]
    return None


def check_output(spec: FrameworkSpec) -> list[Issue]:
    """Generated frameworks get no network, shell or unvetted tools, whatever the request."""
    out = []
    for i, t in enumerate(spec.tools):
        kind, _, ref = t.implementation.partition(":")
        if kind == "sandbox" or (kind == "builtin" and ref in knowledge.NETWORK_BUILTINS):
            out.append(Issue("policy.capability", f"tools[{i}]", f"generated tool {t.name!r} "
                             f"uses {t.implementation}, which generated frameworks may not have",
                             "Remove the tool."))
    return out
