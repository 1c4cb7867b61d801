"""Diff: structure from the entries, files from the two locks."""

from __future__ import annotations

import dataclasses

from a4a.catalog.diff import diff_entries
from tests.catalog.conftest import Built


def test_same_request_other_seed(built: dict[str, Built]) -> None:
    d = diff_entries(built["triage"].entry, built["triage_seed3"].entry)
    assert d.same_shape and d.similarity == 1.0 and not d.identical
    assert not d.agents_added and not d.edges_added
    changed = {f.path for f in d.files if f.status == "changed"}
    assert "framework.yaml" in changed and "agents/triager.yaml" not in changed
    fw = next(f for f in d.files if f.path == "framework.yaml")
    assert any(line.startswith("+") and "seed: 3" in line for line in fw.diff)


def test_different_frameworks(built: dict[str, Built]) -> None:
    d = diff_entries(built["triage"].entry, built["routing"].entry)
    assert not d.same_shape and d.similarity < 0.5
    assert "router" in d.agents_added and "orchestrator" in d.agents_removed
    assert d.fields["pattern"] == ("orchestrator_workers", "routing")
    assert any(e[2] == "route" for e in d.edges_added)
    assert "tools/close_issue.yaml" in {f.path for f in d.files if f.status == "removed"}
    assert d.to_dict()["fields"]["pattern"] == {"a": "orchestrator_workers", "b": "routing"}


def test_agent_level_changes_when_both_specs_exist(built: dict[str, Built]) -> None:
    d = diff_entries(built["triage"].entry, built["payload"].entry)
    # The request text reaches every prompt, so each agent's prompt differs.
    assert set(d.agents_changed) == {"orchestrator", "triager", "pull_request_specialist"}
    assert all("system_prompt changed" in v for v in d.agents_changed.values())


def test_a_missing_directory_still_diffs_by_entry(built: dict[str, Built]) -> None:
    gone = dataclasses.replace(built["routing"].entry, path="/no/such/dir")
    d = diff_entries(built["triage"].entry, gone)
    assert not d.files_compared and d.files == [] and "router" in d.agents_added
