"""The request policy measured on corpora written apart from its rules (tests/data/policy).

Every hostile request goes through the real compiler. Refused counts as contained; built counts
as contained only when no tool of the framework carries one of the item's aim words in its name
or description (NFKC, case-folded), so a framework built without the tools the aim needs is
harmless. Benign requests that merely sound risky should all be built. Figures per language and
per category (per theme for the benign ones), for the tuning part, the held-out part and in total.

Each corpus has a second file of tuning paraphrases (hostile_tuning.yaml, benign_tuning.yaml)
that the tuning part also reads.

The fresh8 part (`--part fresh8`) reads only hostile_fresh8.yaml and benign_fresh8.yaml (and
the fresh9 part only hostile_fresh9.yaml and benign_fresh9.yaml, a second batch written the same
way to confirm the first's figures on the same rules): a batch
written after the policy, blind to its rules and never tuned on, every item measure-only. It is
not part of `all`, so the figures of the other parts stay comparable with earlier runs; its
items are never listed one by one, only counted per language, per category and per theme. (The
first such batch, measured twice at 94.0% / 4.0% and 95.0% / 4.0%, the second, measured once at
95.0% / 7.5%, the third, measured once at 97.5% / 8.0%, the fourth, measured twice at
98.5% / 5.0% and 97.5% / 5.0%, the fifth, measured once at 95.5% / 12.5%, the sixth,
measured once at 99.5% / 3.0%, and the seventh, measured once at 93.5% / 4.0%, were then moved
into the tuning files and their parts retired.)

The "(generic)" column counts harmless builds that fell back to the generic pack (items, notes,
checklists): the compiler did not recognise what the request is about, so those builds are
harmless by luck of the compiler's reach rather than by the policy.

Usage: python bench/policy_quality.py [--verbose] [--json]
       [--part tuning|heldout|all|fresh8|fresh9]
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from a4a.generator.pipeline import compile_request
from a4a.generator.policy import screen
from a4a.runtime.errors import A4AError, RefusedError
from a4a.runtime.ir.spec import FrameworkSpec

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "policy"
REAL = DATA.parent / "generation"  # requests people wrote about agent systems
LANGUAGES = ["en", "zh", "ja", "es", "de", "fr", "pt", "ru"]
PARTS = {"tuning": (False,), "heldout": (True,), "all": (False, True), "fresh8": (True,),
         "fresh9": (True,)}
CONTAINED = {"refused", "harmless", "failed"}
# The corpora, each with its tuning paraphrases (tuning only: the held-out third of the first
# file keeps the split its own rule gives it).
HOSTILE = ("hostile.yaml", "hostile_tuning.yaml")
BENIGN = ("benign_risky.yaml", "benign_tuning.yaml")
# The eighth measure-only batch, read by the fresh8 part alone (every item is held out).
FRESH8_HOSTILE = ("hostile_fresh8.yaml",)
FRESH8_BENIGN = ("benign_fresh8.yaml",)
# The ninth, read by the fresh9 part alone: the confirmation of the eighth.
FRESH9_HOSTILE = ("hostile_fresh9.yaml",)
FRESH9_BENIGN = ("benign_fresh9.yaml",)
# The measure-only parts, each with the files it reads (hostile, benign) and nothing else.
FRESH_PARTS = {"fresh8": (FRESH8_HOSTILE, FRESH8_BENIGN),
               "fresh9": (FRESH9_HOSTILE, FRESH9_BENIGN)}


@dataclass(frozen=True)
class Outcome:
    """What the compiler made of one corpus item.

    status: hostile items end refused, harmless (built, no tool serves the aim), served (built
    with such a tool) or failed (another error, nothing built); benign items end built, refused
    or failed. detail: the refusal code, the error, or the tools and aim words that matched.
    """

    text: str
    language: str
    group: str
    technique: str
    heldout: bool
    status: str
    detail: str


def fold(text: str) -> str:
    """The comparison form: NFKC, then case folding."""
    return unicodedata.normalize("NFKC", text).casefold()


def tool_texts(spec: FrameworkSpec) -> dict[str, str]:
    """Each tool the framework can call, by name, with the text that describes it."""
    texts = {t.name: f"{t.name} {t.description}" for t in spec.tools}
    for agent in spec.agents:
        for entry in agent.tools:
            name = entry if isinstance(entry, str) else entry.name
            texts.setdefault(name, name)
        for server in agent.mcp_servers:
            texts[server.name] = f"{server.name} {server.id or ''} {server.command or ''}"
    return texts


def carries(text: str, word: str) -> bool:
    """Whether `word` occurs in `text` at the start of a word (both already folded).

    "share_document" is in "bulk_share_document" but not in "unshare_document"; a word that
    starts with punctuation ("/etc", "../") is found anywhere.
    """
    start = text.find(word)
    while start >= 0:
        if start == 0 or not word[0].isalnum() or not text[start - 1].isalnum():
            return True
        start = text.find(word, start + 1)
    return False


def served_by(spec: FrameworkSpec, aim_words: Iterable[str]) -> list[str]:
    """The `tool(aim word)` pairs where a tool's name or description carries an aim word."""
    words = [fold(w) for w in aim_words]
    hits = []
    for name, text in tool_texts(spec).items():
        folded = fold(text)
        hits += [f"{name}({w})" for w in words if carries(folded, w)]
    return hits


def _compile(text: str) -> tuple[str, FrameworkSpec | None, str]:
    """('built', spec, '') or ('refused' | 'failed', None, why)."""
    try:
        return "built", compile_request(text).spec, ""
    except RefusedError as err:
        return "refused", None, err.code
    except A4AError as err:
        return "failed", None, f"{err.code}: {err.message}"
    except Exception as err:  # a crash on a hostile text is a finding, not a reason to stop
        return "failed", None, f"{type(err).__name__}: {err}"


def judge_hostile(item: dict[str, Any]) -> Outcome:
    """Compile one hostile request and say whether it was contained."""
    status, spec, detail = _compile(item["text"])
    if spec is not None:
        hits = served_by(spec, item["aim_words"])
        domains = "domains: " + ",".join(spec.environment.domains)
        status, detail = ("served", ", ".join(hits)) if hits else ("harmless", domains)
    return Outcome(item["text"], item["language"], item["category"], item["technique"],
                   bool(item["heldout"]), status, detail)


def judge_benign(item: dict[str, Any]) -> Outcome:
    """Compile one benign request; it should be built."""
    status, _, detail = _compile(item["text"])
    return Outcome(item["text"], item["language"], item["theme"], "",
                   bool(item["heldout"]), status, detail)


def load(name: str, part: str) -> list[dict[str, Any]]:
    """The items of one corpus file that belong to `part`."""
    items: list[dict[str, Any]] = yaml.safe_load((DATA / name).read_text())["requests"]
    return [i for i in items if bool(i["heldout"]) in PARTS[part]]


def load_all(names: Iterable[str], part: str) -> list[dict[str, Any]]:
    """The items of several corpus files that belong to `part`, in order."""
    return [i for name in names for i in load(name, part)]


def real_refusals() -> dict[str, Any]:
    """How many of the real requests (tests/data/generation) the policy refuses, per part.

    Only the tuning part's refused ids are listed.
    """
    out: dict[str, Any] = {}
    for part in ("tuning", "heldout"):
        cases = yaml.safe_load((REAL / f"{part}.yaml").read_text())["cases"]
        refused = [(c["id"], r[0]) for c in cases if (r := screen(c["request"]))]
        out[part] = {"n": len(cases), "refused": len(refused),
                     "refused_pct": _pct(len(refused), len(cases)),
                     **({"ids": refused} if part == "tuning" else {})}
    return out


def _pct(n: int, total: int) -> float:
    return round(100.0 * n / total, 1) if total else 0.0


def hostile_figures(outcomes: list[Outcome]) -> dict[str, Any]:
    """Counts and percentages of one group of hostile outcomes."""
    n = len(outcomes)
    count = {s: sum(o.status == s for o in outcomes)
             for s in ("refused", "harmless", "served", "failed")}
    contained = n - count["served"]
    generic = sum(o.status == "harmless" and o.detail == "domains: generic" for o in outcomes)
    return {"n": n, "contained": contained, "contained_pct": _pct(contained, n),
            "refused_pct": _pct(count["refused"], n),
            "built_harmless_pct": _pct(count["harmless"], n), **count,
            "harmless_generic": generic}


def benign_figures(outcomes: list[Outcome]) -> dict[str, Any]:
    """Counts and percentages of one group of benign outcomes."""
    n = len(outcomes)
    refused = sum(o.status == "refused" for o in outcomes)
    failed = sum(o.status == "failed" for o in outcomes)
    return {"n": n, "refused": refused, "refused_pct": _pct(refused, n), "failed": failed,
            "built_pct": _pct(n - refused - failed, n)}


def breakdown(outcomes: list[Outcome], figures: Callable[[list[Outcome]], dict[str, Any]],
              group_name: str) -> dict[str, Any]:
    """Figures in total, per language and per group (category or theme)."""
    by_lang: dict[str, list[Outcome]] = defaultdict(list)
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_lang[o.language].append(o)
        by_group[o.group].append(o)
    langs = [lang for lang in LANGUAGES if lang in by_lang]
    return {"total": figures(outcomes),
            "language": {lang: figures(by_lang[lang]) for lang in langs},
            group_name: {g: figures(by_group[g]) for g in sorted(by_group)}}


def parts(outcomes: list[Outcome], part: str) -> dict[str, list[Outcome]]:
    """The outcomes split into the tuning part, the held-out part and the total (or, for the
    measure-only fresh8 part, all of them under the part's name)."""
    if part in FRESH_PARTS:
        return {part: outcomes} if outcomes else {}
    split = {"tuning": [o for o in outcomes if not o.heldout],
             "held-out": [o for o in outcomes if o.heldout], "total": outcomes}
    wanted = {"all": split, "tuning": {"tuning"}, "heldout": {"held-out"}}[part]
    return {k: v for k, v in split.items() if v and k in wanted}


def report(hostile: list[Outcome], benign: list[Outcome], part: str) -> dict[str, Any]:
    """The whole result as one JSON-ready object."""
    return {
        "hostile": {k: breakdown(v, hostile_figures, "category")
                    for k, v in parts(hostile, part).items()},
        "benign": {k: breakdown(v, benign_figures, "theme")
                   for k, v in parts(benign, part).items()},
        # Only tuning items are listed one by one: the held-out part is read in figures alone.
        "uncontained": [asdict(o) for o in hostile if o.status == "served" and not o.heldout],
        "hostile_failed": [asdict(o) for o in hostile if o.status == "failed" and not o.heldout],
        "benign_not_built": [asdict(o) for o in benign if o.status != "built" and not o.heldout],
        "real_requests_refused": real_refusals() if part not in FRESH_PARTS else {},
    }


def _hostile_rows(title: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"  {title:<16}{'n':>5}{'contained':>11}{'refused':>9}{'harmless':>10}"
             f"{'(generic)':>10}{'served':>8}"]
    for key, f in rows.items():
        lines.append(f"  {key:<16}{f['n']:>5}{f['contained_pct']:>10.1f}%{f['refused_pct']:>8.1f}%"
                     f"{f['built_harmless_pct']:>9.1f}%{f['harmless_generic']:>10}{f['served']:>8}")
    return lines


def _benign_rows(title: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"  {title:<16}{'n':>5}{'refused':>9}{'failed':>8}"]
    for key, f in rows.items():
        lines.append(f"  {key:<16}{f['n']:>5}{f['refused_pct']:>8.1f}%{f['failed']:>8}")
    return lines


def _short(text: str, width: int = 110) -> str:
    flat = " ".join(text.split()).encode("unicode_escape").decode("ascii") \
        if any(unicodedata.category(c) == "Cf" for c in text) else " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def render(result: dict[str, Any], verbose: bool) -> str:
    """The text report: tables per part, then the listings."""
    lines: list[str] = []
    for name, b in result["hostile"].items():
        lines.append(f"hostile requests, {name}: {b['total']['n']}, "
                     f"contained {b['total']['contained_pct']:.1f}%")
        lines += _hostile_rows("language", {**b["language"], "all": b["total"]})
        lines += _hostile_rows("category", b["category"])
        if name in FRESH_PARTS:  # failed counts as contained; say how often it happened
            lines.append(f"  failed, nothing built: {b['total']['failed']}")
        lines.append("")
    for name, b in result["benign"].items():
        lines.append(f"benign requests that sound risky, {name}: {b['total']['n']}, "
                     f"refused {b['total']['refused_pct']:.1f}%")
        lines += _benign_rows("language", {**b["language"], "all": b["total"]})
        if name in FRESH_PARTS:  # which themes were not built, in counts only
            lines += _benign_rows("theme", {t: f for t, f in b["theme"].items()
                                            if f["refused"] or f["failed"]})
        lines.append("")
    lines.append(f"benign not built (tuning part): {len(result['benign_not_built'])}")
    lines += [f"  [{o['language']}/{o['group']}] {o['status']} {o['detail']}: {_short(o['text'])}"
              for o in result["benign_not_built"]]
    lines.append(f"hostile failed, nothing built (tuning part): {len(result['hostile_failed'])}")
    lines += [f"  [{o['language']}/{o['group']}] {o['detail']}: {_short(o['text'])}"
              for o in result["hostile_failed"]]
    for part, f in result["real_requests_refused"].items():
        lines.append(f"real requests (tests/data/generation, {part}) refused: {f['refused']}/"
                     f"{f['n']} ({f['refused_pct']:.1f}%) {f.get('ids', '')}")
    lines.append(f"hostile uncontained (tuning part): {len(result['uncontained'])}"
                 + ("" if verbose else " (--verbose lists them)"))
    if verbose:
        lines += [f"  [{o['language']}/{o['group']}/{o['technique']}] {_short(o['text'])}\n"
                  f"      tools: {o['detail']}" for o in result["uncontained"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every uncontained request")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--part", choices=sorted(PARTS), default="all",
                        help="tuning: leave the held-out third out entirely; "
                             "fresh8, fresh9: a measure-only batch alone")
    args = parser.parse_args(argv)
    hostile_files, benign_files = FRESH_PARTS.get(args.part, (HOSTILE, BENIGN))
    hostile = [judge_hostile(i) for i in load_all(hostile_files, args.part)]
    benign = [judge_benign(i) for i in load_all(benign_files, args.part)]
    result = report(hostile, benign, args.part)
    print(json.dumps(result, ensure_ascii=False, indent=1) if args.json
          else render(result, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
