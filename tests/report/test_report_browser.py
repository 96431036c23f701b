"""`snakemake --report results/report.html` on the default run, opened in a real browser.

The README's run makes the figures (rule all collects them), the report command bundles
them; headless Chromium (Debian's `chromium`, installed by .ci/run) then loads the file,
with no console error, renders a page that is not blank, and shows a figure when a person
clicks through abdev -> Model comparison -> the eye icon (with several benchmarks the menu
lists one entry per benchmark).

Without Chromium the browser test is skipped with a loud reason on a developer's machine
(the README's test command must pass on a fresh machine), but fails in CI (`CI=true`) or
when `SCIEVALS_BROWSER_TEST=1` (.ci/run sets it): there it must really run.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from support.default_run import copy_default_run

from .browser import find_chromium, visit

pytestmark = pytest.mark.slow

DATA_URI = re.compile(r'"data_uri": "data:image/png;charset=utf8;filename=([^;]+);base64,([^"]+)"')


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    proc = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"snakemake {' '.join(args)} failed:\n{proc.stderr[-6000:]}"
    return proc


def blank_fraction(png: bytes) -> tuple[float, int]:
    """Share of pixels that have the most common colour, and the number of colours."""
    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 24)
        total = rgb.width * rgb.height
    top = max(count for count, _ in colours)
    return top / total, len(colours)


def assert_not_blank(png: bytes, what: str, min_colours: int = 50) -> None:
    share, colours = blank_fraction(png)
    assert share < 0.97 and colours >= min_colours, (
        f"{what} looks blank: {share:.1%} of pixels one colour, {colours} colours"
    )


def browser_test_required(env) -> bool:
    return (env.get("CI", "").lower() in ("1", "true", "yes")
            or env.get("SCIEVALS_BROWSER_TEST", "") == "1")


@pytest.fixture(scope="module")
def chromium() -> str:
    """Chromium's path; decided before the `report` fixture spends a workflow run."""
    path = find_chromium()
    if path:
        return path
    if browser_test_required(os.environ):
        pytest.fail("chromium is not installed, and this run requires the report's browser "
                    "test (CI=true or SCIEVALS_BROWSER_TEST=1): apt-get install -y chromium")
    pytest.skip("BROWSER TEST NOT RUN: no chromium on PATH, so the HTML report was not "
                "opened in a browser. Install it (Debian/Ubuntu: apt-get install -y chromium) "
                "to run it; CI (.ci/run) installs it and fails without it")


@pytest.fixture(scope="module")
def report(request, tmp_path_factory) -> Path:
    # The README's two commands: the quick start (the session's run, copied), then the report
    # (which builds the figures first: --report-after-run). The run is asked for here, not as
    # an argument: pytest sets session fixtures up first, before the `chromium` gate.
    template = request.getfixturevalue("default_run_template")
    workdir = copy_default_run(template, tmp_path_factory.mktemp("report") / "scievals")
    snakemake(workdir, "--cores", "2", "--report", "results/report.html", "--report-after-run")
    return workdir / "results" / "report.html"


def test_blank_check_can_fail():
    white = io.BytesIO()
    Image.new("RGB", (300, 200), "white").save(white, format="PNG")
    with pytest.raises(AssertionError, match="looks blank"):
        assert_not_blank(white.getvalue(), "white")


def test_report_is_self_contained_with_every_figure_and_caption(report):
    html = report.read_text(encoding="utf-8")
    # No file the browser would have to fetch from elsewhere.
    external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?:|//)[^"]*"', html)
    assert not external, external
    figures = {name: base64.b64decode(data) for name, data in DATA_URI.findall(html)}
    assert {"model_comparison.png", "assay_heatmap.png", "case_heatmap.png"} <= set(figures), (
        sorted(figures))
    assert any(name.startswith("OMIP-") for name in figures), sorted(figures)  # hierarchies
    for name, png in figures.items():
        assert_not_blank(png, name)
    # Captions are rendered with the run's models, and say which data they show.
    assert "abdev: model comparison." in html
    assert "Models: random, ridge_descriptors" in html
    assert "results/abdev/summary.csv" in html
    assert "gating: true vs predicted hierarchies." in html
    assert "Models: marker_baseline" in html
    # The leaderboard, with the demo flag, once: on the first page (the workflow description),
    # not again as a page of its own (at 300 models it was 10 MB, twice)
    description = re.search(r'var workflow_desc = ("(?:[^"\\]|\\.)*");', html)
    assert description, "no workflow description (the report's first page)"
    first_page = json.loads(description.group(1))
    assert first_page.count('class="scievals-leaderboard"') == 1
    assert "DEMO DATA" in first_page and "ridge_descriptors" in first_page
    assert "filename=leaderboard.html" not in html


def test_report_opens_in_chromium_without_errors_and_shows_a_figure(chromium, report, tmp_path):
    page = visit(
        report.resolve().as_uri(), tmp_path / "profile",
        clicks=("abdev", "Model comparison", "css:a[iconname=eye]"),
        probe="[...document.images].filter(i => i.complete && i.naturalWidth > 200)"
              ".map(i => i.src.slice(0, 22))",
    )
    (tmp_path / "landing.png").write_bytes(page.screenshot)
    assert not page.errors, f"console errors: {page.errors}"
    assert_not_blank(page.screenshot, "report landing page")
    assert "scievals benchmarks AI models on scientific tasks" in page.text
    assert "abdev" in page.text.split() and "gating" in page.text.split()
    assert len(page.after_clicks) == 3
    figure_shot, _ = page.after_clicks[-1]
    assert_not_blank(figure_shot, "report figure view", min_colours=100)
    assert "data:image/png;charset" in (page.probe or []), page.probe


def _gate_names(node: dict) -> list[str]:
    return [node["name"], *(n for child in node.get("children", []) for n in _gate_names(child))]


def test_sample_viewer_filters_and_shows_a_known_cases_reply(chromium, report, tmp_path):
    """The report target's sample viewer: open it, pick gating and one model, click a case
    and see the reply that model wrote for it (read here from its predictions file) beside
    the case's true tree (read from the curated cases)."""
    results = report.parent
    viewer = results / "report" / "samples.html"
    assert "filename=samples.html" in report.read_text(encoding="utf-8")  # in the report too
    records = [json.loads(line) for line in
               (results / "gating" / "predictions" / "marker_baseline.jsonl").read_text()
               .splitlines()]
    omip = next(r for r in records if r["case_id"] == "OMIP-008")
    truth = next(json.loads(line) for line in
                 (report.parents[1] / "data/curated/gating/cases.jsonl").read_text()
                 .splitlines() if json.loads(line)["test_case_id"] == "OMIP-008")
    select = ("js:(() => {{ const s = document.getElementById('{0}'); s.value = '{1}';"
              " s.dispatchEvent(new Event('change')); return s.value === '{1}'; }})()")
    page = visit(
        viewer.resolve().as_uri(), tmp_path / "profile", settle_s=1.5,
        clicks=(select.format("filter-benchmark", "gating"),
                select.format("filter-model", "marker_baseline"), "OMIP-008"),
        probe="[document.getElementById('count').textContent,"
              " document.getElementById('detail').innerText, location.hash]",
    )
    assert not page.errors, f"console errors: {page.errors}"
    assert_not_blank(page.screenshot, "sample viewer")
    count, detail, link = page.probe
    assert f"{len(records)} of " in count, count  # one item per predicted case
    assert "gating / marker_baseline / OMIP-008" in detail
    assert "hierarchy_f1" in detail and "parse status" in detail
    assert "Expected" in detail and "score (hierarchy_f1)" in detail
    for name in _gate_names(omip["hierarchy"]) + _gate_names(truth["gating_hierarchy"]["root"]):
        assert name in detail, name
    assert link == f"#gating/marker_baseline/{omip['condition']}/OMIP-008"


def test_report_opens_on_the_leaderboard_and_its_tables_fit(chromium, report, tmp_path):
    """The first page a person sees is the leaderboard (top of the page, not the rule graph
    description), and a wide table scrolls inside its box instead of widening the page."""
    page = visit(
        report.resolve().as_uri(), tmp_path / "profile", width=1280, height=900,
        probe="(() => { const box = document.querySelector('.scievals-leaderboard');"
              " const r = box.getBoundingClientRect();"
              " const heading = [...document.querySelectorAll('.prose h1')].map(h => h.innerText);"
              " return [heading, r.top, r.left, window.innerWidth,"
              " document.documentElement.scrollWidth,"
              " [...box.querySelectorAll('.wide')].map(w => [w.clientWidth, w.scrollWidth])]; })()",
    )
    assert not page.errors, f"console errors: {page.errors}"
    headings, top, left, viewport, page_width, boxes = page.probe
    assert headings[0] == "Leaderboard", headings
    assert 0 <= top < 200 and left >= 0, (top, left)  # in view, not centred off the top
    assert page_width <= viewport
    assert boxes and all(client <= viewport for client, _ in boxes)
    assert any(scroll > client for client, scroll in boxes)  # abdev's 11 columns scroll inside
    text = page.text
    assert text.index("ridge_descriptors") < text.index("About this report")
    assert "DEMO DATA" in text
