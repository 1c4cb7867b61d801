"""The web UI in a real browser: Debian's chromium driven by Playwright (never a download).

Marked `browser`. Where chromium or playwright is missing these tests skip, except in CI
(CI=true), where a missing browser is a failure: `make test` installs chromium first.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a4a.catalog.store import Catalog
from a4a.catalog.web.server import serve_in_thread
from tests.catalog.conftest import PAYLOAD, Built

pytestmark = pytest.mark.browser
CHROMIUM = os.environ.get("A4A_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _unavailable() -> str | None:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    why = _unavailable()
    if why:
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def site(catalog: Catalog) -> Iterator[str]:
    server, url = serve_in_thread(catalog.path)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.dialogs = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda err: pg.errors.append(str(err)))
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    # The page may load nothing but what the local server serves.
    pg.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        "http://127.0.0.1:") else route.abort())
    yield pg
    context.close()


def test_search_then_open_a_framework(page: Any, site: str, built: dict[str, Built]) -> None:
    page.goto(site + "/")
    assert page.locator("#results tbody tr").count() == len(built)
    page.fill("#q", "support ticket")
    page.wait_for_selector("body[data-results='1']")
    link = page.locator("#results tbody a.name")
    assert link.count() == 1 and link.inner_text() == built["routing"].entry.name
    assert "q=support+ticket" in page.url
    link.click()
    page.wait_for_selector("#graph[data-ready='1'] svg")
    entry = built["routing"].entry
    assert page.locator("#graph g.node").count() == entry.agents
    assert page.locator("#graph path.edge").count() == entry.edges
    names = page.eval_on_selector_all("#graph g.node", "ns => ns.map(n => n.dataset.id)")
    assert sorted(names) == sorted(n for n, _ in entry.nodes)
    assert page.errors == []


def test_graph_is_interactive(page: Any, site: str, built: dict[str, Built]) -> None:
    page.goto(f"{site}/f/{built['routing'].entry.id}")
    page.wait_for_selector("#graph[data-ready='1'] svg")
    node = page.locator("#graph g.node[data-id='router']")
    node.hover()
    assert "focus" in (page.get_attribute("#graph svg", "class") or "")
    assert page.locator("#graph path.edge.hl").count() == 2  # its two routes
    before = node.bounding_box()
    page.mouse.down()
    page.mouse.move(before["x"] + 160, before["y"] + 90, steps=5)
    page.mouse.up()
    after = node.bounding_box()
    assert after["x"] > before["x"] + 50 and after["y"] > before["y"] + 30


def test_payloads_render_inert(page: Any, site: str, built: dict[str, Built]) -> None:
    fid = built["payload"].entry.id
    for target in ("/?q=script", f"/f/{fid}", f"/f/{fid}/file/README.md",
                   f"/diff?a={fid}&b={built['triage'].entry.id}"):
        page.goto(site + target)
        page.wait_for_load_state("networkidle")
        assert page.locator("img").count() == 0, target
        srcs = page.eval_on_selector_all("script", "ss => ss.map(s => s.src)")
        assert all(s.startswith(site + "/static/") for s in srcs), srcs
    page.goto(f"{site}/f/{fid}")
    page.wait_for_selector("#graph[data-ready='1'] svg")
    assert page.inner_text("#request") == PAYLOAD
    assert page.locator("#graph g.node").count() == built["payload"].entry.agents
    page.goto(site + "/")
    page.fill("#q", "onerror")
    page.wait_for_selector("body[data-results='1']")
    assert page.locator("img").count() == 0
    assert page.dialogs == [] and page.errors == []


def test_screenshot_artifact(page: Any, site: str, built: dict[str, Built]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{site}/f/{built['routing'].entry.id}")
    page.wait_for_selector("#graph[data-ready='1'] svg")
    shot = ARTIFACTS / "catalog-framework.png"
    page.screenshot(path=str(shot), full_page=True)
    page.goto(site + "/")
    page.screenshot(path=str(ARTIFACTS / "catalog-list.png"))
    assert shot.stat().st_size > 10_000
    print(f"screenshots: {ARTIFACTS}")
