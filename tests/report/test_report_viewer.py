"""The sample viewer: each benchmark's items (with expected answer and score) from its files,
and a page that is safe to open, sorts, links to one item and puts two models side by side.

The browser test on the page the workflow's report rule builds is in
test_report_browser.py; here pages built from hand-made items are opened in Chromium.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from scievals import registry
from scievals.autogkb.samples import annotations_text
from scievals.common.sample_links import compare_link, item_link
from scievals.common.samples import request_cost
from scievals.gating.samples import tree_text
from scievals.report.viewer import (
    DATA_CALLBACK,
    collect,
    embedded_json,
    viewer_files,
    write_viewer,
)
from scievals.waza.data import demo_suites
from scievals.waza.samples import expectations
from scievals.waza.suites import load_suite
from scievals.waza.workflow import SUITES_DIR

from .browser import find_chromium, visit

HOSTILE = "</script><script>document.title='owned'</script><!-- & \u2028 <b>bold</b>"
# Attribute breakers: a value written into HTML or an attribute unescaped would run these.
ATTRIBUTE = '"onerror="window.owned=1" x="<img src=x onerror=window.owned=1>'


def _item(**fields) -> dict:
    base = {"benchmark": "gating", "model": "m", "item": "case-1", "condition": "c1",
            "input": "panel", "reply": "reply", "parse_status": "ok", "outcome": "scored",
            "metrics": {"hierarchy_f1": 0.5}, "rationale": "", "expected": "truth",
            "score": 0.5, "score_name": "hierarchy_f1", "tokens_in": 10, "tokens_out": 2,
            "cost_usd": None, "latency_s": 0.1}
    return {**base, **fields}


def _groups(*items: dict) -> dict:
    groups: dict = {}
    for item in items:
        groups.setdefault((item["benchmark"], item["model"]), []).append(item)
    return groups


def _blocks(html: str) -> list[str]:
    return re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>', html,
                      re.DOTALL)


def test_embedded_json_cannot_end_the_script_and_round_trips():
    items = [_item(reply=HOSTILE, input="a > b && c < d", expected=ATTRIBUTE)]
    files = viewer_files(_groups(*items))
    html = files["samples.html"]
    index, data = _blocks(html)  # the index, then the one model's items (small: inline)
    for block in (index, data):
        assert "<" not in block and ">" not in block and "&" not in block
        assert "\u2028" not in block
    assert json.loads(data) == items  # \\u escapes decode back to the same text
    # The only script elements: the index, the data block and the page's own script.
    assert html.count("<script") == 3
    assert embedded_json({"a": "</script>"}) == '{"a": "\\u003c/script\\u003e"}'
    # The data file the page loads when the items are not inline calls the page's callback
    # with the model's key and the same JSON text.
    assert files["samples/gating/0000.js"] == f'{DATA_CALLBACK}("gating/m", {data});\n'


def test_links_encode_each_part_so_slashes_and_hashes_in_names_survive():
    assert item_link("abdev", "ridge_descriptors") == "samples.html#abdev/ridge_descriptors"
    assert (item_link("gating", "marker_baseline", "standard-direct", "OMIP-069")
            == "samples.html#gating/marker_baseline/standard-direct/OMIP-069")
    # "/" -> %2F and "#" -> %23 inside a part; waza's empty condition is an empty part.
    assert (item_link("waza", "org/agent", "", "suite/task#2")
            == "samples.html#waza/org%2Fagent//suite%2Ftask%232")
    assert compare_link("gating", "a", "b") == "samples.html#compare/gating/a/b"
    assert "compare" not in registry.NAMES  # the compare view's first part is no benchmark


def test_every_registered_benchmark_names_a_samples_function():
    for bench in registry.REGISTRY:
        assert bench.samples, bench.name
        assert callable(registry.resolve(bench.samples)), bench.samples


def test_gating_tree_text_draws_one_indented_line_per_gate():
    tree = {"root": {"name": "All", "is_critical": True, "children": [
        {"name": "Singlets", "markers": ["FSC-A", "FSC-H"], "children": [
            {"name": "T cells", "markers": ["CD3"]}]},
        {"name": "Debris"}]}}
    assert tree_text(tree) == ("All  (critical)\n"
                               "  Singlets  [FSC-A, FSC-H]\n"
                               "    T cells  [CD3]\n"
                               "  Debris")
    assert tree_text({"children": []}) == ""  # no named root: not a tree


def test_autogkb_expected_lists_the_compared_fields_of_each_curated_annotation():
    truth = [{"Gene": "CYP2C9", "Drug(s)": "fluvastatin", "Notes": "not compared",
              "Alleles": None}, {"Gene": "SLCO1B1"}]
    assert annotations_text(truth) == ("#1\n  Gene: CYP2C9\n  Drug(s): fluvastatin\n\n"
                                       "#2\n  Gene: SLCO1B1")


def _gating_root(tmp_path: Path) -> Path:
    root = tmp_path / "wf"
    (root / "results/gating/predictions").mkdir(parents=True)
    (root / "results/gating/scores").mkdir(parents=True)
    (root / "data/curated/gating").mkdir(parents=True)
    (root / "data/curated/gating/cases.jsonl").write_text(json.dumps(
        {"test_case_id": "OMIP-X", "gating_hierarchy": {"root": {
            "name": "All", "children": [{"name": "Live", "markers": ["L/D"]}]}},
         "panel": {"entries": []}, "context": {}}) + "\n")
    record = {"case_id": "OMIP-X", "condition": "minimal_direct", "sample_index": 0,
              "context": None, "strategy": None, "raw_text": "my raw reply {", "hierarchy": None,
              "parse_status": "failed", "parse_error": "no JSON object", "error": None,
              "tokens_in": 1000, "tokens_out": 200, "latency_s": 1.5}
    (root / "results/gating/predictions/gpt.jsonl").write_text(json.dumps(record) + "\n")
    (root / "results/gating/predictions/gpt.usage.json").write_text(json.dumps(
        {"total": {"model": "gpt", "provider": "openai", "price_in_per_mtok": 3.0,
                   "price_out_per_mtok": 15.0}, "conditions": {}}))
    pd.DataFrame([{"model": "gpt", "case_id": "OMIP-X", "condition": "minimal_direct",
                   "sample_index": 0, "hierarchy_f1": 0.25, "parse_success_rate": 0.0}]).to_csv(
        root / "results/gating/scores/gpt.per_case.csv", index=False)
    return root


def test_gating_items_carry_reply_expected_tree_score_and_cost(tmp_path):
    root = _gating_root(tmp_path)
    (item,) = collect(root, {"gating": ["gpt"]})
    assert (item["benchmark"], item["model"], item["item"]) == ("gating", "gpt", "OMIP-X")
    assert item["reply"] == "my raw reply {"
    assert item["expected"] == "All\n  Live  [L/D]"  # the case's true tree
    assert (item["parse_status"], item["outcome"]) == ("failed", "parse failed")
    assert item["rationale"] == "no JSON object"
    assert item["metrics"]["hierarchy_f1"] == 0.25 and item["metrics"]["parse_success_rate"] == 0
    assert (item["score"], item["score_name"]) == (0.25, "hierarchy_f1")
    assert item["metrics"]["depth_accuracy"] is None  # not in the table: missing, not 0
    # 1000 tokens in at $3/Mtok + 200 out at $15/Mtok = 0.003 + 0.003 = 0.006 USD
    assert item["cost_usd"] == pytest.approx(0.006)
    assert request_cost(1000, 200, {}) is None  # an unpriced model has no cost


def test_a_parsed_llm_reply_shows_its_tree_above_the_raw_json(tmp_path):
    # issue 36, point 7: the reply was raw JSON beside an indented expected tree
    root = _gating_root(tmp_path)
    path = root / "results/gating/predictions/gpt.jsonl"
    record = json.loads(path.read_text())
    raw = '{"name": "All", "children": [{"name": "Live", "markers": ["L/D"]}]}'
    record.update(raw_text=raw, hierarchy={"root": json.loads(raw)}, parse_status="ok")
    path.write_text(json.dumps(record) + "\n")
    (item,) = collect(root, {"gating": ["gpt"]})
    # the same drawing as the expected tree, then the raw reply unchanged
    assert item["reply"] == f"Parsed tree:\n{item['expected']}\n\nRaw reply:\n{raw}"


def test_abdev_fold_items_show_measured_values_and_the_mean_spearman(tmp_path):
    root = tmp_path / "wf"
    for folder in ("results/abdev/predictions", "results/abdev/scores", "data/raw/abdev"):
        (root / folder).mkdir(parents=True)
    fold = "hierarchical_cluster_IgG_isotype_stratified_fold"
    pd.DataFrame({"antibody_name": ["ab1", "ab2", "ab3"], fold: [0, 0, 1],
                  "HIC": [1.0, 2.0, 3.0]}).to_csv(
        root / "results/abdev/predictions/m.csv", index=False)
    pd.DataFrame({"antibody_name": ["ab2", "ab1", "ab3"], "HIC": [2.5, 1.25, None],
                  "Titer": [100.0, 200.0, 300.0]}).to_csv(root / "data/raw/abdev/GDPa1.csv",
                                                          index=False)
    pd.DataFrame({"condition": ["fold=0"] * 3, "metric": ["HIC:spearman", "Titer:spearman",
                                                          "HIC:top_10_recall"],
                  "value": [0.5, -0.25, 1.0]}).to_csv(root / "results/abdev/scores/m.csv",
                                                       index=False)
    first, second = collect(root, {"abdev": ["m"]})
    assert first["item"] == "fold=0"
    # the fold's antibodies in prediction order, their measured HIC and Titer
    assert first["expected"] == ("antibody_name\tHIC\tTiter\n"
                                 "ab1\t1.25\t200\nab2\t2.5\t100")
    # mean Spearman over the assays the fold has: (0.5 + -0.25) / 2 = 0.125
    assert first["score"] == pytest.approx(0.125)
    assert first["score_name"] == "mean Spearman (5 assays)"
    assert second["expected"] == "antibody_name\tHIC\tTiter\nab3\t-\t300"
    assert second["score"] is None  # fold 1 has no score rows


def _waza_run(validations: dict) -> dict:
    return {"run_number": 2, "status": "failed", "final_output": "done", "duration_ms": 1500,
            "transcript": [{"type": "user.message", "data": {"content": "do it"}},
                           {"type": "assistant.usage", "data": {"input_tokens": 40,
                                                                "output_tokens": 5}},
                           {"type": "assistant.usage", "data": {"input_tokens": 60,
                                                                "output_tokens": 7}}],
            "validations": validations}


def test_waza_items_are_task_runs_with_grader_feedback_and_weighted_score(tmp_path):
    root = tmp_path / "wf"
    folder = root / "results/waza/predictions/agent"
    folder.mkdir(parents=True)
    run = _waza_run({"judge": {"score": 0.25, "weight": 1, "feedback": "missed the edge case"},
                     "regex": {"score": 1.0, "weight": 3, "feedback": "ok"}})
    (folder / "s1.json").write_text(json.dumps(
        {"skill": "s1", "tasks": [{"test_id": "t1", "display_name": "T", "runs": [run]}]}))
    (item,) = collect(root, {"waza": ["agent"]})
    assert item["item"] == "s1/t1#2" and item["outcome"] == "failed"
    assert item["metrics"] == {"judge": 0.25, "regex": 1.0}
    assert item["rationale"] == "judge: missed the edge case\nregex: ok"
    # weighted: (0.25 * 1 + 1.0 * 3) / (1 + 3) = 3.25 / 4 = 0.8125
    assert item["score"] == pytest.approx(0.8125)
    assert (item["tokens_in"], item["tokens_out"]) == (40 + 60, 5 + 7)
    assert item["latency_s"] == 1.5
    assert "[user.message] do it" in item["reply"]
    assert item["expected"] == f"(task s1/t1 is not in {SUITES_DIR})"  # no suite copied


def test_waza_expected_answer_is_what_the_suites_graders_check(tmp_path):
    root = tmp_path / "wf"
    shutil.copytree(demo_suites()["grader-showcase"].parent,
                    root / SUITES_DIR / "grader-showcase")
    folder = root / "results/waza/predictions/agent"
    folder.mkdir(parents=True)
    (folder / "grader-showcase.json").write_text(json.dumps(
        {"skill": "grader-showcase", "tasks": [{"test_id": "regex-demo-001", "runs": [
            _waza_run({})]}]}))
    (item,) = collect(root, {"waza": ["agent"]})
    expected = item["expected"]
    # tasks/regex-task.yaml: the text grader's patterns, and expected.output_contains
    assert "language_patterns (text" in expected
    assert "(?i)COBOL|Fortran" in expected
    assert '"Python"' in expected and '"JavaScript"' in expected
    assert item["score"] is None  # no grader ran


def test_waza_items_are_named_by_suite_folder_and_show_every_turn(tmp_path):
    # issue 36, point 7: items were named by skill (general-coding-assistant, py-refactor)
    # while the leaderboard names suites by folder; a multi-turn task showed its first turn
    root = tmp_path / "wf"
    for name in ("grader-showcase", "multi-turn-refactor"):
        shutil.copytree(demo_suites()[name].parent, root / SUITES_DIR / name)
    graded = root / "results/waza/graded/agent.json"
    graded.parent.mkdir(parents=True)
    graded.write_text(json.dumps({"suites": {
        "grader-showcase": {"skill": "general-coding-assistant", "tasks": [
            {"test_id": "regex-demo-001", "runs": [_waza_run({})]}]},
        "multi-turn-refactor": {"skill": "py-refactor", "tasks": [
            {"test_id": "refactor-then-test", "runs": [_waza_run({})]}]}}}))
    showcase, refactor = collect(root, {"waza": ["agent"]})
    assert showcase["item"] == "grader-showcase/regex-demo-001#2"
    assert not showcase["expected"].startswith("(task")  # its graders found by that name
    assert refactor["item"] == "multi-turn-refactor/refactor-then-test#2"
    # tasks/refactor.yaml: the prompt, then its two follow_up_prompts
    turns = refactor["input"].split("\n\n")
    assert [t.split(":", 1)[0] for t in turns] == ["turn 1", "turn 2", "turn 3"]
    assert turns[0].startswith("turn 1: Refactor legacy.py")
    assert turns[1:] == ["turn 2: Now explain the helpers you introduced",
                         "turn 3: Finally add pytest tests for them"]


def test_waza_suite_notes_said_at_curation_are_not_repeated_by_the_viewer(tmp_path, caplog):
    root = tmp_path / "wf"
    suite = root / SUITES_DIR / "csv-explainer"
    shutil.copytree(demo_suites()["csv-explainer"].parent, suite)
    spec = suite / "eval.yaml"  # a key waza ignores with a warning in a 1.x suite
    spec.write_text(spec.read_text().replace("\nconfig:", "\nnot_a_waza_key: 1\nconfig:", 1))
    with caplog.at_level(logging.WARNING):
        load_suite(suite)
    assert "not_a_waza_key" in caplog.text  # the warning the viewer must not repeat
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        found = expectations(root)
    assert found and caplog.text == ""
    with caplog.at_level(logging.WARNING):
        load_suite(suite)
    assert "not_a_waza_key" in caplog.text  # the logger is left as it was


def test_write_viewer_keeps_the_page_small_and_removes_stale_data_files(tmp_path):
    root = _gating_root(tmp_path)
    out = tmp_path / "report" / "samples.html"
    stale = out.parent / "samples" / "gating" / "0007.js"
    stale.parent.mkdir(parents=True)
    stale.write_text("old")
    assert write_viewer(out, {"gating": ["gpt"]}, root=root, inline_limit=0) == 1
    html = out.read_text(encoding="utf-8")
    assert len(_blocks(html)) == 1  # over the limit: the index only, items in the file
    assert "my raw reply" not in html
    data = (out.parent / "samples/gating/0000.js").read_text(encoding="utf-8")
    assert data.startswith(f'{DATA_CALLBACK}("gating/gpt", ') and "my raw reply" in data
    assert not stale.exists()
    write_viewer(out, {"gating": ["gpt"]}, root=root)  # under the default limit: inline too
    assert "my raw reply" in out.read_text(encoding="utf-8")


# --- in Chromium ---------------------------------------------------------------------------

def _chromium() -> None:
    if find_chromium():
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes") or \
            os.environ.get("SCIEVALS_BROWSER_TEST") == "1":
        pytest.fail("chromium is not installed: apt-get install -y chromium")
    pytest.skip("no chromium on PATH (test_report_browser.py says how to install it)")


def _page(tmp_path: Path, items: list[dict], inline_limit: int = 0) -> Path:
    """The viewer of ``items`` in tmp_path/report/, with data in files (not inline) unless
    ``inline_limit`` says otherwise: the on-demand loading is what is tested."""
    folder = tmp_path / "report"
    for relative, text in viewer_files(_groups(*items), inline_limit=inline_limit).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    return folder / "samples.html"


def _select(name: str, value: str) -> str:
    return (f"js:(() => {{ const s = document.getElementById({json.dumps(name)});"
            f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change'));"
            f" return s.value === {json.dumps(value)}; }})()")


ROWS = "[...document.querySelectorAll('#items tbody tr')].map(r => [...r.cells].map(c => c.textContent))"


@pytest.mark.slow
def test_hostile_names_and_replies_are_shown_as_text_in_both_views(tmp_path):
    _chromium()
    evil_model = "m<script>window.owned=1</script>"
    items = [_item(item="evil" + ATTRIBUTE, model=evil_model, condition=HOSTILE,
                   reply=HOSTILE, expected=ATTRIBUTE, input=ATTRIBUTE, rationale=HOSTILE,
                   metrics={ATTRIBUTE: 1.0}, score_name=ATTRIBUTE),
             _item(item="evil" + ATTRIBUTE, model="m2", condition=HOSTILE, reply=ATTRIBUTE,
                   score=0.25)]
    page = _page(tmp_path, items)
    fragment = item_link("gating", evil_model, HOSTILE, "evil" + ATTRIBUTE).split("#", 1)[1]
    compare = compare_link("gating", evil_model, "m2").split("#", 1)[1]
    probe = ("[document.title, window.owned === undefined, document.querySelectorAll('img')"
             ".length, document.getElementById('count').textContent,"
             " document.getElementById('detail').innerText]")
    visited = visit(page.as_uri() + "#" + fragment, tmp_path / "p1", settle_s=1.0, probe=probe)
    assert not visited.errors, visited.errors
    title, safe, images, count, detail = visited.probe
    assert (title, safe, images) == ("scievals sample viewer", True, 0)  # nothing ran
    assert count == "1 of 1 items"
    for text in (HOSTILE, ATTRIBUTE, evil_model):
        assert text.replace("\u2028", "") in detail.replace("\u2028", ""), text
    visited = visit(page.as_uri() + "#" + compare, tmp_path / "p2", settle_s=1.0,
                    clicks=("css:#items tbody tr",), probe=probe)
    assert not visited.errors, visited.errors
    title, safe, images, count, detail = visited.probe
    assert (title, safe, images) == ("scievals sample viewer", True, 0)
    # B - A = 0.25 - 0.5 = -0.25 on the one paired item
    assert count.startswith("1 of 1 paired items; mean B - A -0.2500"), count
    assert HOSTILE.replace("\u2028", "") in detail.replace("\u2028", "")
    assert ATTRIBUTE in detail and evil_model in detail


@pytest.mark.slow
def test_sort_by_score_open_an_item_and_compare_two_models(tmp_path):
    _chromium()
    scores_a = {"c1": 0.9, "c2": 0.2, "c3": None, "c4": 0.6}
    scores_b = {"c1": 0.5, "c2": 0.7, "c3": 0.4, "c4": 0.6}
    items = [_item(model="a", item=k, score=v, reply=f"A says {k}", expected=f"truth of {k}")
             for k, v in scores_a.items()]
    items += [_item(model="b", item=k, score=v, reply=f"B says {k}", expected=f"truth of {k}")
              for k, v in scores_b.items()]
    items.append(_item(model="b", item="only-b", score=1.0))  # not paired: not compared
    page = _page(tmp_path, items)
    # Items of model a, sorted by score: the first click sorts descending, missing last.
    visited = visit(page.as_uri() + "#gating/a", tmp_path / "p1", settle_s=1.0,
                    clicks=("css:#items th[data-key=score]", "css:#items th[data-key=score]",
                            "c2"),
                    probe=f"[{ROWS}, location.hash, document.getElementById('detail').innerText]")
    assert not visited.errors, visited.errors
    rows, link, detail = visited.probe
    # ascending after the second click: 0.2, 0.6, 0.9, then the item without a score
    assert [r[0] for r in rows] == ["c2", "c4", "c1", "c3"]
    assert [r[3] for r in rows] == ["0.2000", "0.6000", "0.9000", "-"]
    assert link == "#gating/a/c1/c2"  # the clicked item's own link
    assert "truth of c2" in detail and "A says c2" in detail
    # That link, opened fresh, shows the item with its expected answer.
    visited = visit(page.as_uri() + link, tmp_path / "p2", settle_s=1.0,
                    probe="document.getElementById('detail').innerText")
    assert not visited.errors, visited.errors
    assert "gating / a / c2" in visited.probe and "truth of c2" in visited.probe
    # A vs B: per-item B - A, sorted by it (descending first), one item side by side.
    visited = visit(page.as_uri() + "#compare/gating/a/b", tmp_path / "p3", settle_s=1.0,
                    clicks=("css:#items th[data-key=diff]", "c2"),
                    probe=f"[{ROWS}, document.getElementById('count').textContent,"
                          " document.getElementById('detail').innerText, location.hash]")
    assert not visited.errors, visited.errors
    rows, count, detail, link = visited.probe
    # B - A: c2 0.7-0.2 = 0.5, c4 0, c1 0.5-0.9 = -0.4, c3 no score for A (last)
    assert [(r[0], r[4]) for r in rows] == [("c2", "0.5000"), ("c4", "0.0000"),
                                            ("c1", "-0.4000"), ("c3", "-")]
    # mean over the 3 differences: (0.5 + 0 - 0.4) / 3 = 0.0333; B higher on 1, lower on 1
    assert count == "4 of 4 paired items; mean B - A 0.0333 (B higher on 1, lower on 1)"
    assert "A says c2" in detail and "B says c2" in detail and "truth of c2" in detail
    # The side by side of that one item has its own link; opened fresh, it shows the pair.
    assert link == "#compare/gating/a/b/c1/c2" == "#" + compare_link(
        "gating", "a", "b", "c1", "c2").split("#", 1)[1]
    visited = visit(page.as_uri() + link, tmp_path / "p4", settle_s=1.0,
                    probe="document.getElementById('detail').innerText")
    assert not visited.errors, visited.errors
    assert "gating / c2: a (A) vs b (B)" in visited.probe
    assert "A says c2" in visited.probe and "B says c2" in visited.probe


@pytest.mark.slow
def test_a_leaderboard_row_link_opens_that_models_items(tmp_path):
    _chromium()
    items = [_item(model="a", item="x1"), _item(model="b", item="y1"),
             _item(model="b", item="y2", condition="c2"),
             _item(benchmark="abdev", model="b", item="fold=0", condition="fold=0")]
    page = _page(tmp_path, items)
    board = page.parent / "leaderboard.html"
    board.write_text(f'<table><tr><td><a href="{item_link("gating", "b", "c2")}">b</a></td>'
                     "</tr></table>", encoding="utf-8")
    visited = visit(board.as_uri(), tmp_path / "p", settle_s=1.0, clicks=("b",),
                    probe=f"[location.pathname.split('/').pop(), location.hash, {ROWS},"
                          " ['filter-benchmark', 'filter-model', 'filter-condition']"
                          ".map(id => document.getElementById(id).value)]")
    assert not visited.errors, visited.errors
    name, link, rows, selected = visited.probe
    assert (name, link) == ("samples.html", "#gating/b/c2")
    assert selected == ["gating", "b", "c2"]
    assert [r[0] for r in rows] == ["y2"]  # model b's items of condition c2 only


@pytest.mark.slow
def test_a_baseline_pairs_with_each_condition_of_an_llm(tmp_path):
    # issue 36, point 3: #compare/gating/marker_baseline/<llm> showed "0 of 0 paired items":
    # the baseline's condition is "baseline", the LLM's are prompt conditions
    _chromium()
    items = [_item(model="marker_baseline", condition="baseline", item=k, score=0.5)
             for k in ("c1", "c2")]
    items += [_item(model="llm", condition=cond, item=k, score=score)
              for cond, score in (("minimal_direct", 0.75), ("rich_cot", 0.25))
              for k in ("c1", "c2")]
    page = _page(tmp_path, items)
    probe = f"[{ROWS}, document.getElementById('count').textContent]"
    visited = visit(page.as_uri() + "#compare/gating/marker_baseline/llm", tmp_path / "p1",
                    settle_s=1.0, probe=probe)
    assert not visited.errors, visited.errors
    rows, count = visited.probe
    # 2 items x 2 LLM conditions, each against the baseline's 0.5: B - A = +0.25 (minimal_direct)
    # and -0.25 (rich_cot), mean 0
    assert sorted((r[0], r[1], r[4]) for r in rows) == [
        ("c1", "minimal_direct", "0.2500"), ("c1", "rich_cot", "-0.2500"),
        ("c2", "minimal_direct", "0.2500"), ("c2", "rich_cot", "-0.2500")]
    assert count == ("4 of 4 paired items (A has one condition, baseline, paired with each "
                     "condition of B); mean B - A 0.0000 (B higher on 2, lower on 2)"), count
    # the other way round: B is the single-condition arm, and the differences change sign
    visited = visit(page.as_uri() + "#compare/gating/llm/marker_baseline", tmp_path / "p2",
                    settle_s=1.0, probe=probe)
    rows, count = visited.probe
    assert sorted((r[1], r[4]) for r in rows)[0] == ("minimal_direct", "-0.2500")
    assert "(B has one condition, baseline, paired with each condition of A)" in count


@pytest.mark.slow
def test_unknown_links_back_conditions_and_tree_indentation(tmp_path):
    # issue 36, point 7
    _chromium()
    items = [_item(model=m, item="g-item", condition="c1", expected="All\n  Live  [L/D]",
                   reply=f"{m} says") for m in ("a", "b")]
    items.append(_item(benchmark="autogkb", model="x", item="k-item", condition="evidence",
                       expected="autogkb truth", reply="x says"))
    page = _page(tmp_path, items)
    detail = "document.getElementById('detail').innerText"
    # a link to a model the page lacks says so, instead of showing another model's items
    visited = visit(page.as_uri() + "#gating/nosuch", tmp_path / "p1", settle_s=1.0,
                    probe=f"[{ROWS}, document.getElementById('status').textContent, {detail}]")
    assert not visited.errors, visited.errors
    rows, status, shown = visited.probe
    assert rows == [] and "a says" not in shown
    assert status == "no model nosuch of gating in this viewer (its models: a, b)"
    # an autogkb item, then gating's list: the autogkb item goes; Back brings it again
    visited = visit(page.as_uri() + "#autogkb/x", tmp_path / "p2", settle_s=1.0,
                    clicks=("k-item", "js:(location.hash = '#gating/a', true)",
                            "js:(history.back(), true)"), probe=detail)
    assert not visited.errors, visited.errors
    (_, opened), (_, gating_list), (_, back) = visited.after_clicks
    assert "autogkb truth" in opened
    assert "autogkb truth" not in gating_list and "g-item" in gating_list
    assert "autogkb truth" in visited.probe  # Back: the item of that address again
    # the side by side names the condition; the expected tree keeps its indentation
    visited = visit(page.as_uri() + "#compare/gating/a/b/c1/g-item", tmp_path / "p3",
                    settle_s=1.0, probe="[document.querySelector('#detail h2').textContent,"
                    " [...document.querySelector('#detail pre').children]"
                    ".map(d => d.textContent)]")
    assert not visited.errors, visited.errors
    title, tree = visited.probe
    assert title.startswith("gating / g-item: a (A) vs b (B), condition c1")
    assert tree == ["All", "  Live  [L/D]"]


# Per pane: [its width, its content's width, per line [its text, the left edge of each
# screen line it takes, from the pane's left]]: what a person sees.
PANES = """[...document.querySelectorAll('#detail pre')].map(p => [p.clientWidth, p.scrollWidth,
  [...p.children].map(d => { const r = document.createRange(); const t = d.firstChild;
    r.setStart(t, Math.max(0, t.data.search(/\\S/))); r.setEnd(t, t.length);  // the words
    const left = p.getBoundingClientRect().left;
    const tops = new Map();  // one rect per screen line (spaces may add rects on a line)
    for (const b of r.getClientRects()) if (b.width > 0 && !tops.has(Math.round(b.top)))
      tops.set(Math.round(b.top), b.left - left);
    return [d.textContent, [...tops.values()]]; })])"""


@pytest.mark.slow
def test_long_lines_wrap_in_every_pane_and_keep_their_indentation(tmp_path):
    """issue 46 item 7: the Expected panes cut long lines at the right; reply A wrapped and
    lost the tree's indentation."""
    _chromium()
    long_gate = "    " + "CD45RA+CCR7+ naive T cells " * 6  # far wider than a pane
    tree = f"All\n  T cells  [CD3]\n{long_gate}\n  B cells"
    items = [_item(model=m, item="g", condition="c", expected=tree, reply=tree)
             for m in ("a", "b")]
    page = _page(tmp_path, items)
    visited = visit(page.as_uri() + "#compare/gating/a/b/c/g", tmp_path / "p", settle_s=1.0,
                    probe=PANES)
    assert not visited.errors, visited.errors
    panes = visited.probe
    assert len(panes) >= 3  # Expected, Reply A, Reply B (then input, rationales)
    for client_width, scroll_width, lines in panes[:3]:
        assert scroll_width <= client_width  # nothing hidden past the right edge
        assert [line[0] for line in lines] == tree.split("\n")  # leading spaces kept
        (_, [all_x]), (_, [t_x]), (_, long_x), (_, [b_x]) = lines
        step = (t_x - all_x) / 2  # one space of indentation, in pixels
        assert step > 3 and b_x == pytest.approx(t_x, abs=1)
        # the long line starts at its own indentation (4 spaces), wraps onto more screen
        # lines, and each wrapped part starts 2 spaces further in: its level stays visible
        assert long_x[0] == pytest.approx(all_x + 4 * step, abs=1.5)
        assert len(long_x) >= 2
        assert all(x == pytest.approx(all_x + 6 * step, abs=1.5) for x in long_x[1:])
    screenshot = tmp_path / "wrapped.png"
    screenshot.write_bytes(visited.screenshot)


def test_an_autogkb_reply_shows_its_fields_in_the_expected_order_and_form():
    """issue 46 item 7: a field list beside raw JSON in another field order."""
    from scievals.autogkb.samples import reply_text

    annotations = [{"Drug(s)": "fluvastatin", "Gene": "CYP2C9"}]  # the model's own order
    same_form = "#1\n  Gene: CYP2C9\n  Drug(s): fluvastatin"  # FIELDS' order, as expected
    assert annotations_text(annotations) == same_form
    # a baseline (no raw text): its annotations as the expected ones are drawn
    assert reply_text({"annotations": annotations, "raw_text": None}) == same_form
    # an LLM: what it parses to, then its raw reply unchanged
    raw = '[{"Drug(s)": "fluvastatin", "Gene": "CYP2C9"}]'
    assert reply_text({"annotations": annotations, "raw_text": raw}) == (
        f"Parsed annotations:\n{same_form}\n\nRaw reply:\n{raw}")
    # nothing parsed: the raw reply alone
    assert reply_text({"annotations": None, "raw_text": "no JSON here"}) == "no JSON here"
