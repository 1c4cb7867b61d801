"""The generation-quality corpus (tests/data/generation/): its shape, its fixed held-out split,
and the bench that scores the compiler on it (bench/generation_quality.py). Quality targets
are not asserted here."""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import DATA, load_data

ROOT = Path(__file__).resolve().parents[2]
LANGS = {"zh", "ja", "es", "de", "fr", "pt", "ru"}
FIELDS = {"id", "lang", "length", "request", "source", "note", "families", "roles",
          "capabilities", "agents", "forbidden"}
# Collection batches and the salt of each one's split rule; a case without `batch` is batch 1.
SPLIT_SALTS = {1: "a4a-generation-split-v1:", 2: "a4a-generation-split-v2:",
               3: "a4a-generation-split-v3:", 4: "a4a-generation-split-v4:",
               5: "a4a-generation-split-v5:", 6: "a4a-generation-split-v6:",
               7: "a4a-generation-split-v7:", 8: "a4a-generation-split-v8:",
               9: "a4a-generation-split-v9:"}


@pytest.fixture(scope="module")
def gq() -> ModuleType:
    """The bench module, imported from its file."""
    spec = importlib.util.spec_from_file_location("generation_quality",
                                                  ROOT / "bench" / "generation_quality.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["generation_quality"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def vocab() -> dict[str, Any]:
    return load_data("generation/capabilities.yaml")


@pytest.fixture(scope="module")
def splits() -> dict[str, list[dict[str, Any]]]:
    return {s: load_data(f"generation/{s}.yaml")["cases"] for s in ("tuning", "heldout")}


@pytest.fixture(scope="module")
def cases(splits: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return splits["tuning"] + splits["heldout"]


def test_counts_languages_and_lengths(cases: list[dict[str, Any]]) -> None:
    langs = collections.Counter(c["lang"] for c in cases)
    assert len(cases) >= 260
    assert set(langs) == LANGS | {"en"}
    assert sum(n for lang, n in langs.items() if lang != "en") >= 66
    assert min(langs[lang] for lang in LANGS) >= 7
    lengths = collections.Counter(c["length"] for c in cases)
    assert lengths["specification"] >= 60 and lengths["one-liner"] >= 70
    second = [c for c in cases if c.get("batch") == 2]
    assert len(second) >= 60 and sum(c["lang"] != "en" for c in second) >= 25
    third = [c for c in cases if c.get("batch") == 3]
    assert len(third) >= 60 and all(sum(c["lang"] == lang for c in third) >= 4 for lang in LANGS)
    fourth = [c for c in cases if c.get("batch") == 4]
    assert len(fourth) >= 45 and all(sum(c["lang"] == lang for c in fourth) >= 3 for lang in LANGS)
    for b in (5, 6, 7, 8, 9):
        later = [c for c in cases if c.get("batch") == b]
        assert len(later) >= 45 and all(sum(c["lang"] == lang for c in later) >= 3
                                        for lang in LANGS), b


def test_every_case_is_complete_and_sourced(cases: list[dict[str, Any]]) -> None:
    for c in cases:
        assert set(c) - {"batch"} == FIELDS, c["id"]
        assert c.get("batch", 1) in SPLIT_SALTS, c["id"]
        assert c["request"].strip() and c["note"].strip(), c["id"]
        src = c["source"]
        assert ("repo" in src and "path" in src) or str(src.get("url", "")).startswith("http"), c
        assert src.get("licence"), c["id"]
        lo, hi = c["agents"]
        assert 1 <= lo <= hi, c["id"]
        assert c["families"], c["id"]
        for role in c["roles"]:
            assert role["name"] and isinstance(role["synonyms"], list), c["id"]
    assert len({c["id"] for c in cases}) == len(cases)
    assert len({c["request"] for c in cases}) == len(cases)


def test_labels_use_only_the_vocabulary(cases: list[dict[str, Any]], vocab: dict[str, Any]) -> None:
    patterns = {p.stem for p in (ROOT / "templates" / "patterns").glob("*.yaml")}
    assert set().union(*vocab["families"].values()) == patterns
    for c in cases:
        assert set(c["families"]) <= set(vocab["families"]), c["id"]
        assert set(c["capabilities"]) <= set(vocab["capabilities"]), c["id"]
    used = {cap for c in cases for cap in c["capabilities"]}
    assert used == set(vocab["capabilities"]), "every capability group is used by some case"


def test_length_labels_follow_the_rule(cases: list[dict[str, Any]], gq: ModuleType) -> None:
    assert [c["id"] for c in cases if gq.length_bucket(c["request"]) != c["length"]] == []


def test_heldout_is_a_fixed_disjoint_third(splits: dict[str, list[dict[str, Any]]]) -> None:
    """Each batch is split on its own, per language, by the rule with that batch's salt."""
    tuning, heldout = ({c["id"] for c in splits[s]} for s in ("tuning", "heldout"))
    assert not tuning & heldout
    order = {"one-liner": 0, "paragraph": 1, "specification": 2}
    groups: dict[tuple[int, str], list[dict[str, Any]]] = collections.defaultdict(list)
    for c in splits["tuning"] + splits["heldout"]:
        groups[(c.get("batch", 1), c["lang"])].append(c)
    expected = set()
    for (batch, _), group in groups.items():
        group.sort(key=lambda c: (order[c["length"]], hashlib.sha256(
            f"{SPLIT_SALTS[batch]}{c['id']}".encode()).hexdigest()))
        expected |= {c["id"] for c in group[1::3]}
    assert heldout == expected
    assert {c["lang"] for c in splits["heldout"]} == LANGS | {"en"}
    assert 0.30 <= len(heldout) / (len(heldout) + len(tuning)) <= 0.37


def test_bench_scores_one_batch(gq: ModuleType,
                                splits: dict[str, list[dict[str, Any]]]) -> None:
    for split, cases in splits.items():
        later = {b: [c["id"] for c in cases if c.get("batch") == b] for b in range(2, 10)}
        for b, ids in later.items():
            assert ids and [c["id"] for c in gq.load_cases(split, str(b))] == ids
        assert len(gq.load_cases(split, "1")) + sum(map(len, later.values())) == len(cases)
    out = io.StringIO()
    with redirect_stdout(out):
        assert gq.main(["--batch", "2", "--limit", "2", "--json"]) == 0
    assert json.loads(out.getvalue())["splits"]["heldout"]["total"]["n"] == 2


def test_sources_file_lists_every_case(cases: list[dict[str, Any]]) -> None:
    text = (DATA / "generation" / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"`{c['id']}`" in text for c in cases)


def _built(gq: ModuleType, tools: list[tuple[str, str]], agents: int = 2) -> Any:
    return gq.Built("prompt_chaining", tuple((f"agent_{i}", "specialist", "") for i in
                                               range(agents)), tuple(tools))


def _case(**over: Any) -> dict[str, Any]:
    case = {"id": "x", "lang": "en", "length": "one-liner", "families": ["sequential"],
            "request": "a crew that analyzes a stock with the latest news and the 10-K filings",
            "roles": [{"name": "research analyst", "synonyms": ["research"]}],
            "capabilities": ["stock_quotes"], "agents": [2, 3], "forbidden": ["warehouse"]}
    return case | over


def test_a_tool_that_echoes_the_request_covers_nothing(gq: ModuleType) -> None:
    vocab = gq.load_vocabulary()
    echo = _built(gq, [("helper", "A crew that analyzes a stock with the latest news.")])
    real = _built(gq, [("get_stock_quote", "Latest price of a ticker.")])
    assert gq.score(_case(), echo, vocab).caps_covered == 0
    assert gq.score(_case(), real, vocab).caps_covered == 1


def test_a_possessive_reads_as_the_phrase_it_states(gq: ModuleType) -> None:
    vocab = gq.load_vocabulary()
    case = _case(capabilities=["crm"], request="A desk that answers customers.")
    stated = _built(gq, [("get_customer", "Read a customer's profile with plan and company.")])
    vague = _built(gq, [("get_customer", "Read a customer with plan and company.")])
    assert gq.score(case, stated, vocab).caps_covered == 1
    assert gq.score(case, vague, vocab).caps_covered == 0


def test_roles_count_and_homonyms_are_scored(gq: ModuleType) -> None:
    vocab = gq.load_vocabulary()
    built = gq.Built("prompt_chaining", (("researcher", "specialist", ""),
                                         ("writer", "specialist", "")),
                     (("check_warehouse_stock", "Units on hand in the warehouse."),))
    v = gq.score(_case(), built, vocab)
    assert (v.family_ok, v.count_ok, v.roles_found, v.hits) == (True, True, 1, ["warehouse"])
    assert not v.kept and not v.clean


def test_a_refused_build_fails_every_metric(gq: ModuleType) -> None:
    bad = load_data("requests_malicious.yaml")["requests"][0]["request"]
    v = gq.run_case(_case(request=bad), gq.load_vocabulary())
    assert v.error and not (v.family_ok or v.count_ok or v.clean or v.kept)
    assert v.roles_found == 0 and v.caps_covered == 0


def test_bench_runs_and_never_prints_heldout_cases(gq: ModuleType,
                                                   splits: dict[str, list[dict[str, Any]]]) -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert gq.main(["--limit", "3", "--json", "--show-failures"]) == 0
    data = json.loads(out.getvalue())
    for split in ("tuning", "heldout"):
        rep = data["splits"][split]
        assert rep["total"]["n"] == 3
        assert sum(row["n"] for row in rep["by_lang"].values()) == 3
        assert set(rep["total"]) >= {"family", "roles", "tools", "count", "hits", "kept"}
    shown = {c["id"] for c in data.get("tuning_cases", [])}
    assert shown <= {c["id"] for c in splits["tuning"][:3]}
    text = io.StringIO()
    with redirect_stdout(text):
        gq.main(["--limit", "3", "--verbose", "--show-failures"])
    assert not any(c["id"] in text.getvalue() for c in splits["heldout"])


# Floors about one point under the measured figures of the whole corpus, all batches
# (percent; hits are counts): a change that loses ground fails.
FLOORS = {"tuning": {"family": 92.5, "roles": 88.5, "tools": 82.0, "count": 94.5},
          "heldout": {"family": 74.5, "roles": 75.5, "tools": 73.5, "count": 72.0}}
MAX_HITS = {"tuning": 2, "heldout": 6}
# Failed builds (refusals, and frameworks the validator rejects): the held-out part's four
# are the policy's refusals of real requests.
MAX_FAILED = {"tuning": 0, "heldout": 4}
# The target is 10 points; batches 3 to 9 (new text, a few cases per other
# language) opened the gap again. The bound keeps it from growing while the tuning on them
# closes it.
MAX_GAP = 13.0


def test_the_compiler_holds_its_measured_quality(gq: ModuleType) -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert gq.main(["--json"]) == 0
    data = json.loads(out.getvalue())["splits"]
    for split, floors in FLOORS.items():
        total = data[split]["total"]
        for metric, floor in floors.items():
            assert total[metric] >= floor, (split, metric, total[metric])
        assert total["hits"] <= MAX_HITS[split], (split, total["hits"])
        assert total["failed"] <= MAX_FAILED[split], (split, total["failed"])
    # every language near English on the tuning part (family/roles/tools/count)
    assert data["tuning"]["gap_to_english"] <= MAX_GAP, data["tuning"]["gap_to_english"]
