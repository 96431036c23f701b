"""The waza chain without Snakemake: suites (data source) -> curate -> mock runs ->
score rows, and bring-your-own results re-graded; expected numbers worked by hand."""

from __future__ import annotations

import json
import tarfile

import pandas as pd
import pytest
from scipy import stats
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, write_json
from scievals.waza.curate import curate
from scievals.common.jobs import ScoreJob
from scievals.waza.data import DEMO_SUITES_DIR, demo_suites, download_suites, tree_sha256
from scievals.waza.predict import import_predictions, run_suite
from scievals.waza.runs import grader_options
from scievals.waza.score import grade, score
from scievals.waza.suites import load_suite

BOOT = {"n_resamples": 200, "seed": 0}


def _cfg(**over):
    cfg = {"source": "demo", "url": "", "sha256": "", "path": "", "allow_unverified": False,
           "download_timeout_s": 30, "max_download_mb": 200,
           "suites": ["grader-showcase", "code-explainer"]}
    cfg.update(over)
    return cfg


def test_grader_showcase_under_mock_by_hand(run_and_grade):
    """Mock output, no tool calls, no skills, no workspace edits. Per task, mean grader score
    (global has_output = 1 and no_critical_errors = 1 in every task):
    action-sequence: expected_workflow F1 0                    -> (1+1+0)/3     = 0.6667
    behavior: 5 of 6 checks (required view missing)           -> (1+1+5/6)/3   = 0.9444
    code: output_validation 5/6 (no tool call), format 4/4    -> (1+1+5/6+1)/4 = 0.9583
    file: readme 1/6 (only must_not_exist passes)             -> (1+1+1/6)/3   = 0.7222
    regex: language_patterns 3/4 (no language named)          -> (1+1+3/4)/3   = 0.9167
    skill-invocation: three modes 0, mentions_deployment 1    -> (1+1+0+0+0+1)/6 = 0.5
    weighted = unweighted (no weights); mean over 6 tasks = 4.70833/6 = 0.784722."""
    outcome = run_and_grade(load_suite(demo_suites()["grader-showcase"]), "waza_mock")
    scores = {t["test_id"]: t["stats"]["avg_score"] for t in outcome["tasks"]}
    assert scores == pytest.approx({
        "action-sequence-demo-001": 2 / 3, "behavior-demo-001": (2 + 5 / 6) / 3,
        "code-demo-001": (3 + 5 / 6) / 4, "file-demo-001": (2 + 1 / 6) / 3,
        "regex-demo-001": (2 + 3 / 4) / 3, "skill-invocation-001": 0.5})
    assert outcome["summary"]["weighted_score"] == pytest.approx(4.708333333 / 6)
    assert outcome["summary"]["succeeded"] == 0 and outcome["summary"]["failed"] == 6


def test_chain_demo_source_to_score_rows(tmp_path):
    record = download_suites(_cfg(), tmp_path / "suites", tmp_path / "source.json")
    assert record["suites"]["code-explainer"]["dataset"] == "code-explainer-demo"
    assert record["fallback_reason"] is None
    cases = curate(tmp_path / "source.json", tmp_path / "suites", tmp_path / "cases.jsonl",
                   tmp_path / "curation_report.json")
    assert len(cases) == 10  # 6 + 4 tasks
    recorded = []
    for name in ("grader-showcase", "code-explainer"):  # the predict stage: runs recorded
        recorded.append(tmp_path / "predictions" / f"{name}.json")
        write_json(recorded[-1], run_suite(load_suite(tmp_path / "suites" / name), "waza_mock"))
    table = score(_job(tmp_path, recorded))
    rows = table.set_index(["dataset", "metric"])
    assert rows.loc[("code-explainer-demo", "pass_rate"), "value"] == 1.0
    # every one of the 4 code-explainer tasks scored 1.0: not a zero-width interval but
    # Wilson's [1 - z^2 / (n + z^2), 1] with z = t(0.975, 5 (n - 1)) (issue 27)
    z2 = stats.t.ppf(0.975, 15) ** 2
    explainer = rows.loc[("code-explainer-demo", "weighted_score")]
    assert (explainer["ci_low"], explainer["ci_high"]) == pytest.approx((1 - z2 / (4 + z2), 1.0))
    # grader-showcase (1 trial per task): the effective-n Wilson interval over its 6 tasks
    # (issue 20: tasks are the items): Wilson's formula with n_eff = n m (1 - m) / s^2,
    # s^2 = (SS + m (1 - m)) / (n + 1), z = t(0.975, 5 (n - 1))
    tasks = pd.read_csv(tmp_path / "pc.csv").query("suite == 'grader-showcase'")
    scores = tasks["avg_weighted_score"].to_numpy()
    n, m = len(scores), scores.mean()
    neff = n * m * (1 - m) / ((((scores - m) ** 2).sum() + m * (1 - m)) / (n + 1))
    z = stats.t.ppf(0.975, 5 * (n - 1))
    centre = (m + z**2 / (2 * neff)) / (1 + z**2 / neff)
    half = z * (m * (1 - m) / neff + z**2 / (4 * neff**2)) ** 0.5 / (1 + z**2 / neff)
    showcase = rows.loc[("grader-showcase-demo", "weighted_score")]
    assert (showcase["ci_low"], showcase["ci_high"]) == pytest.approx((centre - half,
                                                                      centre + half))
    assert showcase["ci_method"] == "wilson-ess"
    # pass rate 0 of 6: Wilson upper bound z^2 / (n + z^2) = 3.841459 / 9.841459 = 0.390334
    pass_rate = rows.loc[("grader-showcase-demo", "pass_rate")]
    assert (pass_rate["ci_low"], pass_rate["ci_high"]) == pytest.approx((0.0, 0.390334), abs=1e-6)
    assert pass_rate["ci_method"] == "wilson"
    # 3 trials per code-explainer task, all passed: pass@3 = pass^3 = 1, spread 0
    assert rows.loc[("code-explainer-demo", "pass@3"), "value"] == 1.0
    assert rows.loc[("code-explainer-demo", "pass^3"), "value"] == 1.0
    assert rows.loc[("code-explainer-demo", "within_task_score_sd"), "value"] == 0.0
    assert ("grader-showcase-demo", "pass@1") not in rows.index  # one trial: no repeats
    assert rows.loc[("code-explainer-demo", "trigger_accuracy"), "n"] == 16
    review = (tmp_path / "review.md").read_text()
    assert "**file-demo-001** run 1 (failed)" in review
    assert "File must exist but not found: README.md" in review
    # the report's page: grader names as code, not Markdown's backticks shown literally
    page = (tmp_path / "review.html").read_text()
    assert "<strong>file-demo-001</strong> run 1 (failed)" in page
    assert "File must exist but not found: README.md" in page
    assert "`" not in page and page.count("<code>") == review.count("`") // 2 > 0
    per_case = pd.read_csv(tmp_path / "pc.csv")
    assert len(per_case) == 10


def _job(tmp_path, predictions, model="waza_mock", **settings) -> ScoreJob:
    return ScoreJob(benchmark="waza", model=model, predictions=predictions,
                    truth={"source": tmp_path / "source.json", "suites": tmp_path / "suites"},
                    outputs={"table": tmp_path / "t.csv", "per_case": tmp_path / "pc.csv",
                             "review": tmp_path / "review.md",
                             "review_page": tmp_path / "review.html"},
                    bootstrap=BOOT, config_hash="abc", settings=settings)


def test_file_source_folder_needs_its_checksum(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    import shutil
    shutil.copytree(DEMO_SUITES_DIR / "code-explainer", folder / "code-explainer")
    digest = tree_sha256(folder)
    cfg = _cfg(source="file", path=str(folder), suites=["code-explainer"])
    with pytest.raises(ScievalsError, match=f"set sha256: {digest}"):
        download_suites(cfg, tmp_path / "out", tmp_path / "source.json")
    record = download_suites({**cfg, "sha256": digest}, tmp_path / "out",
                             tmp_path / "source.json")
    assert record["suites"]["code-explainer"]["dataset"] == "code-explainer"  # not demo
    with pytest.raises(ScievalsError, match="differs|not "):
        download_suites({**cfg, "sha256": "0" * 64}, tmp_path / "out", tmp_path / "source.json")


def test_archive_source_and_auto_fallback(tmp_path, monkeypatch):
    archive = tmp_path / "suites.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.add(DEMO_SUITES_DIR / "code-explainer", arcname="pack/code-explainer")
    from scievals.common.download import file_digest

    cfg = _cfg(source="remote", url=str(archive), sha256=file_digest(archive),
               suites=["code-explainer"])
    monkeypatch.chdir(tmp_path)  # the verified store lives under data/raw/waza/verified
    record = download_suites(cfg, tmp_path / "out", tmp_path / "source.json")
    assert record["archive_sha256"] == file_digest(archive)
    assert (tmp_path / "out" / "code-explainer" / "eval.yaml").is_file()
    auto = download_suites(_cfg(source="auto", suites=["code-explainer"]), tmp_path / "o2",
                           tmp_path / "s2.json")
    assert "no url configured" in auto["fallback_reason"]
    assert auto["suites"]["code-explainer"]["dataset"] == "code-explainer-demo"
    with pytest.raises(ScievalsError, match="no suite folder named"):
        download_suites(_cfg(suites=["nope"]), tmp_path / "o3", tmp_path / "s3.json")


def test_bring_your_own_results_are_regraded(tmp_path):
    download_suites(_cfg(), tmp_path / "suites", tmp_path / "source.json")
    mine = run_suite(load_suite(tmp_path / "suites" / "code-explainer"), "waza_mock", trials=1)
    mine["tasks"][0]["runs"][0]["final_output"] = "tiny"  # fails has_explanation (> 10 chars)
    user = tmp_path / "my-agent.json"
    write_json(user, [mine])
    import_predictions(user, tmp_path / "suites", ["grader-showcase", "code-explainer"],
                       tmp_path / "imported.json")
    assert list(read_json(tmp_path / "imported.json")["suites"]) == ["code-explainer"]
    graded = grade(_job(tmp_path, [tmp_path / "imported.json"], model="my-agent"))
    assert list(graded) == ["code-explainer"]
    assert graded["code-explainer"]["summary"]["succeeded"] == 3
    write_json(user, {**mine, "eval_name": "other-suite"})
    with pytest.raises(ScievalsError, match="'other-suite' names no configured suite"):
        import_predictions(user, tmp_path / "suites", ["code-explainer"], tmp_path / "x.json")
    user.write_text(json.dumps({"tasks": []}))
    with pytest.raises(ScievalsError, match="needs keys skill and tasks"):
        import_predictions(user, tmp_path / "suites", ["code-explainer"], tmp_path / "x.json")


def test_prompt_grader_judge_comes_from_the_registry(tmp_path, run_and_grade):
    suite_dir = tmp_path / "suite"
    (suite_dir / "tasks").mkdir(parents=True)
    (suite_dir / "eval.yaml").write_text("name: s\nskill: s\ntasks: [tasks/*.yaml]\n")
    (suite_dir / "tasks" / "t.yaml").write_text(
        "id: t\nname: t\ninputs: {prompt: go}\ngraders:\n"
        "  - {name: judged, type: prompt, config: {prompt: 'Is the answer helpful?'}}\n")
    verdict = {"grades": [{"verdict": "pass", "description": "helpful", "reason": "yes"}]}
    config = {"models": {"judge": {"provider": "mock", "responses": {"*": json.dumps(verdict)}}},
              "llm": {"cache_dir": str(tmp_path / "cache"), "cache_mode": "off"},
              "waza": {"judge_model": "judge"}}
    suite = load_suite(suite_dir)
    outcome = run_and_grade(suite, "waza_mock", options=grader_options(config, suite))
    run = outcome["tasks"][0]["runs"][0]
    assert run["status"] == "passed", run
    assert run["validations"]["judged"]["score"] == 1.0
    # no judge configured: the prompt grader cannot grade, the run is an error
    alone = run_and_grade(suite, "waza_mock")["tasks"][0]["runs"][0]
    assert alone["status"] == "error" and "no judge model configured" in alone["error_msg"]
    with pytest.raises(ScievalsError, match="waza.judge_model"):
        grader_options({**config, "waza": {"judge_model": "missing"}}, suite)
