"""Generation quality: the rule-based compiler scored on requests people wrote.

Every request of tests/data/generation/ (tuning.yaml and heldout.yaml) is compiled with the
real compiler (generator.pipeline.compile_request) and the framework is scored against the
labels (vocabulary and matching rules: tests/data/generation/capabilities.yaml):

  family   the top-level pattern belongs to one of the request's acceptable families
  roles    share of the roles the request names that appear in agent names, role ids or
           descriptions (via each role's synonyms)
  tools    share of the request's capability groups covered by the tools the agents hold,
           judged from tool names and descriptions only
  count    the number of agents lies in the labelled range
  hits     forbidden words (homonym traps) found in tool names or descriptions; `clean` is
           the share of builds without any
  kept     every one of the above holds: the build an engineer would keep

Text that echoes the request (4 or more consecutive words, or 8 CJK characters) is removed
from tool names, tool descriptions and agent descriptions before matching, so a pasted
request covers nothing. A refused or failed build fails every metric.

The tuning and held-out parts are reported separately, per language, per length bucket and
in total; --batch 2 scores only the second collection batch (cases with `batch: 2`), --batch 1
the first, --batch 3 to --batch 9 the third to the ninth. Individual held-out
cases are never printed: --verbose and --show-failures list tuning cases only.

Usage: python bench/generation_quality.py [--split both|tuning|heldout] [--json]
           [--show-failures] [--verbose] [--limit N] [--batch 1|2|3|4|5|6|7|8|9|all]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "generation"
SPLITS = ("tuning", "heldout")
LENGTHS = ("one-liner", "paragraph", "specification")
ECHO_WEIGHT = 4.0  # a run of this many words (a CJK character counts half) is an echo
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_POSSESSIVE = re.compile(r"(?<=[^\W_])['\u2019]s\b")


# ---------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Vocabulary:
    """Family groups (family -> pattern ids) and capability groups (name -> regexes)."""

    families: dict[str, frozenset[str]]
    capabilities: dict[str, tuple[re.Pattern[str], ...]]


@dataclass(frozen=True)
class Built:
    """What scoring needs of a compiled framework."""

    pattern: str
    agents: tuple[tuple[str, str, str], ...]  # (name, role id, description)
    tools: tuple[tuple[str, str], ...]  # (name, description) of tools some agent holds


@dataclass
class Verdict:
    """The score of one request."""

    id: str
    lang: str
    length: str
    error: str | None = None
    pattern: str | None = None
    family_ok: bool = False
    roles_found: int = 0
    roles_total: int = 0
    missing_roles: list[str] = field(default_factory=list)
    caps_covered: int = 0
    caps_total: int = 0
    missing_caps: list[str] = field(default_factory=list)
    agents: int = 0
    agents_range: tuple[int, int] = (0, 0)
    count_ok: bool = False
    hits: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """Built, and no tool contains a forbidden word."""
        return self.error is None and not self.hits

    @property
    def kept(self) -> bool:
        """Every metric holds."""
        return (self.family_ok and self.count_ok and self.clean
                and self.roles_found == self.roles_total
                and self.caps_covered == self.caps_total)


def load_vocabulary(path: Path = DATA / "capabilities.yaml") -> Vocabulary:
    """The label vocabulary with compiled capability patterns."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    families = {k: frozenset(v) for k, v in raw["families"].items()}
    caps = {k: tuple(re.compile(p) for p in v["patterns"])
            for k, v in raw["capabilities"].items()}
    return Vocabulary(families, caps)


def load_cases(split: str, batch: str = "all") -> list[dict[str, Any]]:
    """The cases of one split file, or of one collection batch of it ("1" to "9" or "all";
    a case without a `batch` field belongs to batch 1)."""
    raw = yaml.safe_load((DATA / f"{split}.yaml").read_text(encoding="utf-8"))
    cases = list(raw["cases"])
    return cases if batch == "all" else [c for c in cases if str(c.get("batch", 1)) == batch]


# ---------------------------------------------------------------------------- text


def words(text: str) -> float:
    """Word count as the length rule counts it: a CJK character is half a word."""
    cjk = len(_CJK.findall(text))
    return len(_WORD.findall(_CJK.sub(" ", text))) + cjk / 2


def length_bucket(text: str) -> str:
    """One-liner, paragraph or specification, by the rule in capabilities.yaml."""
    text = text.strip()
    lines = [line for line in text.splitlines() if line.strip()]
    n = words(text)
    if len(lines) == 1 and n <= 45:
        return "one-liner"
    items = sum(1 for line in lines if re.match(r"\s*([-*•●>|#]|\d+[.)、]|[├└│])", line))
    paragraphs = len([p for p in re.split(r"\n\s*\n", text) if p.strip()])
    if n >= 100 and (items >= 4 or paragraphs >= 3):
        return "specification"
    return "paragraph"


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; snake_case and camelCase split; each CJK character a token.

    A possessive 's is dropped, so "a customer's profile" reads as "a customer profile".
    """
    out: list[str] = []
    text = _POSSESSIVE.sub("", text)  # "a customer's profile" states a customer profile
    for word in _WORD.findall(_CAMEL.sub(" ", text).lower()):
        if not _CJK.search(word):
            out.append(word)
            continue
        for part in re.findall(_CJK.pattern + r"|[^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+",
                               word):
            out.append(part)
    return out


def _weight(toks: Sequence[str]) -> float:
    return sum(0.5 if _CJK.match(t) else 1.0 for t in toks)


def echo_grams(request: str, longest: int = 8) -> set[tuple[str, ...]]:
    """Every run of 4 to `longest` tokens of the request."""
    toks = tokens(request)
    return {tuple(toks[i:i + n]) for n in range(4, longest + 1) for i in range(len(toks) - n + 1)}


def strip_echo(text: str, grams: set[tuple[str, ...]], longest: int = 8) -> str:
    """`text` as tokens joined by spaces, without any run that echoes the request."""
    toks = tokens(text)
    masked = [False] * len(toks)
    for i in range(len(toks)):
        for n in range(min(longest, len(toks) - i), 3, -1):
            run = tuple(toks[i:i + n])
            if run in grams and _weight(run) >= ECHO_WEIGHT:
                masked[i:i + n] = [True] * n
                break
    return " ".join(t for t, m in zip(toks, masked, strict=True) if not m)


def term_matcher(term: str) -> Callable[[str], bool]:
    """Match a label term in token text: CJK as a substring, else at a word start."""
    norm = " ".join(tokens(term))
    if _CJK.search(norm):
        flat = norm.replace(" ", "")
        return lambda text: flat in text.replace(" ", "")
    pattern = re.compile(r"(?<![^\W_])" + re.escape(norm))
    return lambda text: bool(pattern.search(text))


# ---------------------------------------------------------------------------- scoring


def build(text: str) -> Built:
    """Compile `text` with the real compiler; raises what the compiler raises, and ValueError
    for a framework the validator rejects (an invalid build is a failed build)."""
    from a4a.generator.pipeline import compile_request

    compiled = compile_request(text)
    errors = sorted({i.code for i in compiled.issues if i.severity == "error"})
    if errors:
        raise ValueError(f"invalid framework: {', '.join(errors)}")
    spec = compiled.spec
    held = {name for agent in spec.agents for name in agent.tool_names()}
    described = {t.name: t.description for t in spec.tools}
    return Built(
        pattern=spec.pattern,
        agents=tuple((a.name, a.role, a.description) for a in spec.agents),
        tools=tuple((name, described.get(name, "")) for name in sorted(held)),
    )


def _roles(case: dict[str, Any], built: Built, grams: set[tuple[str, ...]]) -> list[str]:
    texts = [" ".join(tokens(f"{name} {role}")) + " " + strip_echo(desc, grams)
             for name, role, desc in built.agents]
    missing = []
    for role in case["roles"]:
        matchers = [term_matcher(t) for t in [role["name"], *role["synonyms"]]]
        if not any(m(t) for m in matchers for t in texts):
            missing.append(role["name"])
    return missing


def _capabilities(case: dict[str, Any], built: Built, vocab: Vocabulary,
                  grams: set[tuple[str, ...]]) -> list[str]:
    texts = [strip_echo(name, grams) + " " + strip_echo(desc, grams)
             for name, desc in built.tools]
    return [cap for cap in case["capabilities"]
            if not any(p.search(t) for p in vocab.capabilities[cap] for t in texts)]


def _hits(case: dict[str, Any], built: Built) -> list[str]:
    texts = [" ".join(tokens(f"{name} {desc}")) for name, desc in built.tools]
    return [term for term in case["forbidden"]
            if any(term_matcher(term)(t) for t in texts)]


def score(case: dict[str, Any], built: Built | Exception, vocab: Vocabulary) -> Verdict:
    """Score one compiled request (or the error its build raised) against its labels."""
    lo, hi = case["agents"]
    v = Verdict(case["id"], case["lang"], case["length"], agents_range=(lo, hi),
                roles_total=len(case["roles"]), caps_total=len(case["capabilities"]))
    if isinstance(built, Exception):
        v.error = str(getattr(built, "code", "") or type(built).__name__)
        v.missing_roles = [r["name"] for r in case["roles"]]
        v.missing_caps = list(case["capabilities"])
        return v
    grams = echo_grams(case["request"])
    allowed = set().union(*(vocab.families[f] for f in case["families"]))
    v.pattern, v.agents = built.pattern, len(built.agents)
    v.family_ok = built.pattern in allowed
    v.count_ok = lo <= v.agents <= hi
    v.missing_roles = _roles(case, built, grams)
    v.roles_found = v.roles_total - len(v.missing_roles)
    v.missing_caps = _capabilities(case, built, vocab, grams)
    v.caps_covered = v.caps_total - len(v.missing_caps)
    v.hits = _hits(case, built)
    return v


def run_case(case: dict[str, Any], vocab: Vocabulary) -> Verdict:
    """Build and score one case; a refused or failed build fails every metric."""
    try:
        built: Built | Exception = build(case["request"])
    except Exception as err:  # a refusal, a user error or a compiler crash: all count
        built = err
    return score(case, built, vocab)


# ---------------------------------------------------------------------------- aggregates


def _mean(values: Iterable[float]) -> float | None:
    vals = list(values)
    return round(100 * sum(vals) / len(vals), 1) if vals else None


def aggregate(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Percentages over a group of verdicts (roles and tools over the cases that have any)."""
    return {
        "n": len(verdicts),
        "family": _mean(v.family_ok for v in verdicts),
        "roles": _mean(v.roles_found / v.roles_total for v in verdicts if v.roles_total),
        "tools": _mean(v.caps_covered / v.caps_total for v in verdicts if v.caps_total),
        "count": _mean(v.count_ok for v in verdicts),
        "hits": sum(len(v.hits) for v in verdicts),
        "clean": _mean(v.clean for v in verdicts),
        "kept": _mean(v.kept for v in verdicts),
        "failed": sum(v.error is not None for v in verdicts),
    }


def report(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Total, per language and per length bucket, plus the largest gap to English."""
    langs = sorted({v.lang for v in verdicts}, key=lambda lang: (lang != "en", lang))
    by_lang = {lang: aggregate([v for v in verdicts if v.lang == lang]) for lang in langs}
    by_length = {b: aggregate([v for v in verdicts if v.length == b])
                 for b in LENGTHS if any(v.length == b for v in verdicts)}
    return {"total": aggregate(verdicts), "by_lang": by_lang, "by_length": by_length,
            "gap_to_english": _gap(by_lang)}


def _gap(by_lang: dict[str, dict[str, Any]]) -> float | None:
    en = by_lang.get("en")
    if en is None:
        return None
    gaps = [en[m] - row[m] for lang, row in by_lang.items() if lang != "en"
            for m in ("family", "roles", "tools", "count")
            if en[m] is not None and row[m] is not None]
    return round(max(gaps), 1) if gaps else None


# ---------------------------------------------------------------------------- output

COLUMNS = ("n", "family", "roles", "tools", "count", "hits", "clean", "kept", "failed")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def table(title: str, rep: dict[str, Any]) -> str:
    """One split's figures as a text table (percentages but for n, hits and failed)."""
    head = f"{'':16}" + "".join(f"{c:>8}" for c in COLUMNS)
    rows = [f"{title}", head]
    groups = [("total", rep["total"])]
    groups += [(f"lang {k}", v) for k, v in rep["by_lang"].items()]
    groups += [(f"len {k}", v) for k, v in rep["by_length"].items()]
    for name, agg in groups:
        rows.append(f"{name:16}" + "".join(f"{_cell(agg[c]):>8}" for c in COLUMNS))
    rows.append(f"largest gap of a language to English (family/roles/tools/count): "
                f"{_cell(rep['gap_to_english'])} points")
    return "\n".join(rows)


def verdict_line(v: Verdict) -> str:
    """One tuning case on one line."""
    state = "KEPT" if v.kept else "miss"
    if v.error:
        return f"{state} {v.id} [{v.lang} {v.length}] build failed: {v.error}"
    lo, hi = v.agents_range
    return (f"{state} {v.id} [{v.lang} {v.length}] pattern={v.pattern}"
            f"{'' if v.family_ok else ' (family wrong)'} agents={v.agents} in [{lo},{hi}]"
            f"{'' if v.count_ok else ' (out of range)'} roles={v.roles_found}/{v.roles_total}"
            f" tools={v.caps_covered}/{v.caps_total} hits={len(v.hits)}")


def failure_detail(v: Verdict) -> str:
    """What a failing tuning case missed."""
    parts = [verdict_line(v)]
    if v.missing_roles:
        parts.append(f"    missing roles: {', '.join(v.missing_roles)}")
    if v.missing_caps:
        parts.append(f"    missing capabilities: {', '.join(v.missing_caps)}")
    if v.hits:
        parts.append(f"    forbidden words in tools: {', '.join(v.hits)}")
    return "\n".join(parts)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=("both", *SPLITS), default="both")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--show-failures", action="store_true",
                        help="list the tuning cases that were not kept, with what they missed")
    parser.add_argument("--verbose", action="store_true",
                        help="print a verdict for every tuning case")
    parser.add_argument("--limit", type=int, default=0, help="score only the first N of a split")
    parser.add_argument("--batch", choices=("1", "2", "3", "4", "5", "6", "7", "8", "9", "all"),
                        default="all",
                        help="score only the cases of one collection batch")
    return parser.parse_args(argv)


def evaluate(split: str, vocab: Vocabulary, limit: int = 0, batch: str = "all") -> list[Verdict]:
    """Build and score every case of one split (or its first `limit` cases)."""
    cases = load_cases(split, batch)
    return [run_case(c, vocab) for c in (cases[:limit] if limit else cases)]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    args = _parse(argv)
    try:
        vocab = load_vocabulary()
        splits = SPLITS if args.split == "both" else (args.split,)
        results = {s: evaluate(s, vocab, args.limit, args.batch) for s in splits}
    except (OSError, yaml.YAMLError, KeyError) as err:
        msg = f"cannot read the corpus under {DATA}: {err}"
        print(json.dumps({"error": msg}) if args.json else msg, file=sys.stdout if args.json
              else sys.stderr)
        return 1
    reports = {s: report(v) for s, v in results.items()}
    tuning = results.get("tuning", [])
    if args.json:
        out: dict[str, Any] = {"splits": reports}
        if args.verbose or args.show_failures:
            shown = tuning if args.verbose else [v for v in tuning if not v.kept]
            out["tuning_cases"] = [asdict(v) | {"kept": v.kept} for v in shown]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    for s, rep in reports.items():
        print(table(f"{s} ({rep['total']['n']} requests)", rep), end="\n\n")
    if args.verbose:
        print("\n".join(verdict_line(v) for v in tuning))
    if args.show_failures:
        print("\n".join(failure_detail(v) for v in tuning if not v.kept))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
