"""A waza smoke run (issue 29 point 3): the first N tasks of each suite, and the tables say
so; a suite run in full is labelled as before."""

from __future__ import annotations

from scievals.common.io import read_json
from scievals.common.jobs import ScoreJob
from scievals.waza.data import download_suites
from scievals.waza.predict import predict_job
from scievals.waza.score import score

BOOT = {"n_resamples": 0, "seed": 0}
CONFIG = {"source": "demo", "url": "", "sha256": "", "path": "", "allow_unverified": False,
          "download_timeout_s": 30, "max_download_mb": 200,
          "suites": ["grader-showcase", "code-explainer"]}


def test_a_limit_runs_the_first_tasks_of_each_suite_and_labels_the_dataset(tmp_path):
    download_suites(CONFIG, tmp_path / "suites", tmp_path / "source.json")
    config = {"waza": {"trials": None}, "models": {"waza_mock": {"provider": "baseline"}},
              "limit": 2}
    recorded = []
    for name in ("grader-showcase", "code-explainer"):
        out = tmp_path / "predictions" / f"{name}.json"
        predict_job(str(tmp_path / "suites" / name), "waza_mock", config, str(out))
        recorded.append(out)
    # grader-showcase has 6 tasks, code-explainer 4 (tests/waza/test_pipeline.py): 2 of each,
    # the first ones in the suite's order
    showcase = read_json(recorded[0])["tasks"]
    assert [t["test_id"] for t in showcase] == ["action-sequence-demo-001", "behavior-demo-001"]
    assert len(read_json(recorded[1])["tasks"]) == 2
    job = ScoreJob(benchmark="waza", model="waza_mock", predictions=recorded,
                   truth={"source": tmp_path / "source.json", "suites": tmp_path / "suites"},
                   outputs={"table": tmp_path / "t.csv", "per_case": tmp_path / "pc.csv",
                            "review": tmp_path / "review.md", "graded": tmp_path / "g.json"},
                   bootstrap=BOOT, config_hash="abc", settings={"seed": 0, "limit": 2})
    table = score(job)
    assert set(table["dataset"]) == {"grader-showcase-demo (limited to 2 items)",
                                     "code-explainer-demo (limited to 2 items)"}
    # the comparisons job reads the same labels from the graded file
    assert read_json(tmp_path / "g.json")["datasets"] == {
        "grader-showcase": "grader-showcase-demo (limited to 2 items)",
        "code-explainer": "code-explainer-demo (limited to 2 items)"}


def test_a_limit_above_a_suites_task_count_leaves_its_label_alone(tmp_path):
    download_suites({**CONFIG, "suites": ["code-explainer"]}, tmp_path / "suites",
                    tmp_path / "source.json")
    out = tmp_path / "code-explainer.json"
    predict_job(str(tmp_path / "suites" / "code-explainer"), "waza_mock",
                {"waza": {}, "models": {"waza_mock": {"provider": "baseline"}}, "limit": 50},
                str(out))
    job = ScoreJob(benchmark="waza", model="waza_mock", predictions=[out],
                   truth={"source": tmp_path / "source.json", "suites": tmp_path / "suites"},
                   outputs={"table": tmp_path / "t.csv", "per_case": tmp_path / "pc.csv",
                            "review": tmp_path / "review.md"},
                   bootstrap=BOOT, config_hash="abc", settings={"seed": 0, "limit": 50})
    assert set(score(job)["dataset"]) == {"code-explainer-demo"}  # all 4 tasks ran: a full run


def test_a_limit_cuts_trigger_prompts_too_and_such_a_suite_is_labelled(tmp_path):
    # code-explainer: 4 tasks and 16 trigger prompts (data/demo/waza/suites/code-explainer).
    # A limit of 4 keeps every task but sends 4 of the 16 prompts (issue 36 point 5: 37
    # prompts went out for --limit 2 before): the suite was cut, so it is labelled, and its
    # sha256 is no longer the full suite's.
    download_suites({**CONFIG, "suites": ["code-explainer"]}, tmp_path / "suites",
                    tmp_path / "source.json")
    out = tmp_path / "code-explainer.json"
    predict_job(str(tmp_path / "suites" / "code-explainer"), "waza_mock",
                {"waza": {}, "models": {"waza_mock": {"provider": "baseline"}}, "limit": 4},
                str(out))
    recorded = read_json(out)
    assert len(recorded["tasks"]) == 4
    assert len(recorded["trigger_results"]) == 4
    job = ScoreJob(benchmark="waza", model="waza_mock", predictions=[out],
                   truth={"source": tmp_path / "source.json", "suites": tmp_path / "suites"},
                   outputs={"table": tmp_path / "t.csv", "per_case": tmp_path / "pc.csv",
                            "review": tmp_path / "review.md"},
                   bootstrap=BOOT, config_hash="abc", settings={"seed": 0, "limit": 4})
    table = score(job)
    assert set(table["dataset"]) == {"code-explainer-demo (limited to 4 items)"}
    full_sha = read_json(tmp_path / "source.json")["suites"]["code-explainer"]["sha256"]
    assert len(full_sha) == 64 and set(table["dataset_sha256"]) != {full_sha}
    assert table["dataset_sha256"].str.len().eq(64).all()
