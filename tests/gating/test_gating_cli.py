"""``python -m scievals gating ...`` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from scievals.cli import main
from scievals.gating.paths import OMIP_VERIFIED_DIR, REPO_DIR

TRUTH = str(OMIP_VERIFIED_DIR / "omip_008.json")


def test_score_prints_metrics_json(tmp_path, capsys):
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps({"name": "All Events", "children": [{"name": "Singlets", "children": [
        {"name": "Live", "children": [{"name": "CD3+", "children": [{"name": "CD4+"}, {"name": "CD38+"}]}]}]}]}))
    assert main(["gating", "score", "--pred", str(pred), "--truth", TRUTH]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("hierarchy_f1", "hierarchy_precision", "hierarchy_recall", "synonym_f1",
                "structure_accuracy", "critical_gate_recall", "hallucination_rate", "depth_accuracy"):
        assert 0.0 <= out[key] <= 1.0
    assert out["hallucination_rate"] == pytest.approx(1 / 6)  # CD38+ on a panel with CD3 only
    assert out["hallucination_rate_reference"] == 0.0
    assert out["hierarchy_precision"] == pytest.approx(3 / 6)
    assert out["parse_method"] == "tree_object" and out["parse_success"] is True


def test_score_parses_a_raw_reply(tmp_path, capsys):
    reply = tmp_path / "reply.txt"
    reply.write_text("Sure!\n- All Events\n  - Singlets\n    - Live cells\n      - CD3+ T cells\n")
    assert main(["gating", "score", "--pred", str(reply), "--truth", TRUTH, "--details"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parse_method"] == "markdown_list"
    assert "Live CD3+ T cells" in out["details"]["missing"]


def test_unparseable_reply_scores_zero(tmp_path, capsys):
    reply = tmp_path / "reply.txt"
    reply.write_text("Could you tell me which markers are being used?")
    assert main(["gating", "score", "--pred", str(reply), "--truth", TRUTH]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hierarchy_f1"] == 0.0 and out["hallucination_rate"] is None
    assert out["task_failure"] is True and out["task_failure_type"] == "meta_questions"


def test_bad_truth_is_one_line_error(tmp_path):
    bad = tmp_path / "case.json"
    bad.write_text(json.dumps({"test_case_id": "X"}))
    proc = subprocess.run([sys.executable, "-m", "scievals", "gating", "score", "--pred", TRUTH,  # noqa: PLW1510
                           "--truth", str(bad)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO_DIR / "scripts")))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "not a valid gating test case" in proc.stderr


def test_cases_list_and_validate(capsys):
    assert main(["gating", "cases", "--list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert len(listing["cases"]) == 14 and len(listing["rejected"]) == 14
    assert main(["gating", "check-cases", TRUTH]) == 0
    assert capsys.readouterr().out.strip().endswith(": valid")


def test_validate_checks_a_prediction_file_against_the_cases(tmp_path, capsys):
    """`gating validate` means what it means for every benchmark: a prediction file against
    its truth. A known case with a hierarchy passes; an unknown case id is named."""
    from scievals.gating.curate import build_cases

    cases = tmp_path / "cases.jsonl"
    build_cases([OMIP_VERIFIED_DIR], None, cases, tmp_path / "curation_report.json")
    case_id = json.loads(cases.read_text().splitlines()[0])["test_case_id"]
    good = tmp_path / "mine.jsonl"
    hierarchy = {"name": "All Events", "children": [
        {"name": "Lymphocytes", "markers": ["FSC-A", "SSC-A"],
         "children": [{"name": "T cells", "markers": ["CD3"]}]}]}
    good.write_text(json.dumps({"case_id": case_id, "hierarchy": hierarchy}) + "\n")
    assert main(["gating", "validate", str(good), "--cases", str(cases)]) == 0
    assert capsys.readouterr().out.strip() == f"{good}: valid (1 prediction(s))"
    # a 2-node tree is valid input but not a scorable hierarchy (at least 3 nodes): said
    del hierarchy["children"][0]["children"]
    good.write_text(json.dumps({"case_id": case_id, "hierarchy": hierarchy}) + "\n")
    assert main(["gating", "validate", str(good), "--cases", str(cases)]) == 0
    assert capsys.readouterr().out.strip().endswith(
        "(1 prediction(s), 1 of them not parseable: scored as failures)")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"case_id": "no_such_case", "hierarchy": hierarchy}) + "\n")
    assert main(["gating", "validate", str(bad), "--cases", str(cases)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{bad}:1: INVALID: unknown case_id 'no_such_case'")


def test_prompt_baseline_parse(tmp_path, capsys):
    assert main(["gating", "prompt", "--truth", TRUTH, "--context", "minimal", "--strategy", "cot"]) == 0
    assert "Markers: IL-2" in capsys.readouterr().out
    assert main(["gating", "baseline", "--truth", TRUTH, "--ascii"]) == 0
    assert capsys.readouterr().out.startswith("All Events\n└── Singlets")
    reply = tmp_path / "r.txt"
    reply.write_text("nothing here")
    assert main(["gating", "parse", str(reply)]) == 1
