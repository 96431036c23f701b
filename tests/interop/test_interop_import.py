"""``import``, ``compare LOG_A LOG_B`` and ``plan --from`` on other tools' logs.

The inspect_ai logs under data/inspect/ are inspect_ai 0.3.285's own output (written by
tests/support/make_inspect_logs.py, whose ANSWERS table the expectations below are read
from). The lm-evaluation-harness files under data/lm_eval/ are lm-eval 0.4.13's own output
(written by tests/support/make_lm_eval_logs.py); the other lm-eval and the Every Eval Ever
files here are HAND-BUILT from the formats' documentation (docs/importing-logs.md) for the
cases real output does not show, and the Every Eval Ever records are checked against its
vendored 0.3.0 schemas."""

from __future__ import annotations

import difflib
import json
import shutil
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.interop import inspect_logs
from scievals.interop.eee_read import schema_problem
from scievals.interop.importing import read_log
from scievals.interop.paired_logs import compare_logs
from scievals.stats.api import compare
from scievals.stats.comparisons import COLUMNS

DATA = Path(__file__).parent / "data" / "inspect"
TARGETS = {"q01": "Paris", "q02": "Rome", "q03": "Madrid", "q04": "Lima", "q05": "Santiago",
           "q06": "Nairobi", "q07": "Tokyo", "q08": "Cairo", "q09": "Oslo", "q10": "Accra"}
# per (model, item): the replies of epoch 1 and 2 (make_inspect_logs.ANSWERS)
REPLIES = {
    "a": {**{q: [t, t] for q, t in TARGETS.items()}, "q10": ["Akra", "Akra"]},
    "b": {"q01": ["Paris"] * 2, "q02": ["Roma"] * 2, "q03": ["Madrid", "Seville"],
          "q04": ["Lima"] * 2, "q05": ["Valparaiso"] * 2, "q06": ["Mombasa"] * 2,
          "q07": ["Osaka"] * 2, "q08": ["Cairo"] * 2, "q09": ["Bergen"] * 2,
          "q10": ["Accra"] * 2},
}
# includes: 1 when the target is in the reply; per-item mean over the two epochs
INCLUDES_A = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0]          # Akra does not include Accra
INCLUDES_B = [1, 0, 0.5, 1, 0, 0, 0, 1, 0, 1]        # q03: Madrid, then Seville


def _ratio(reply: str, target: str) -> float:
    return round(difflib.SequenceMatcher(None, reply, target).ratio(), 6)


def _item_means(run, metric):
    rows = run.rows[run.rows["metric"] == metric]
    return rows.groupby("item")["score"].mean()


@pytest.fixture(autouse=True)
def _zstd():
    pytest.importorskip("zstandard", reason="the interop extra reads zstd .eval entries")


def test_inspect_eval_and_json_of_one_log_read_alike():
    zipped, plain = read_log(DATA / "a.eval"), read_log(DATA / "a.json")
    key = ["metric", "item", "sample"]
    pd.testing.assert_frame_equal(zipped.rows.sort_values(key).reset_index(drop=True),
                                  plain.rows.sort_values(key).reset_index(drop=True))
    assert zipped.model == "mockllm/model" and set(zipped.rows["dataset"]) == {"capitals"}
    assert set(zipped.rows["sample"]) == {1, 2}  # epochs are samples of one item
    assert json.loads((DATA / "VERSION.json").read_text())["inspect_ai"] == "0.3.285"


@pytest.mark.parametrize("name", ["a.eval", "a.json", "b.json", "c.eval"])
def test_every_score_is_read_as_inspect_reads_it(name):
    """inspect_values.json: inspect_ai's own read_eval_log + value_to_float of each file, per
    (id, epoch, scorer), written by inspect_ai when the fixtures were made."""
    expected = json.loads((DATA / "inspect_values.json").read_text())[name]
    run = read_log(DATA / name)
    got = sorted([i, s, m, v] for m, i, s, v in zip(run.rows["metric"], run.rows["item"],
                                                     run.rows["sample"], run.rows["score"]))
    assert got == [[i, e, m, pytest.approx(v)] for i, e, m, v in expected]


def test_inspect_scores_map_as_value_to_float():
    b = read_log(DATA / "b.json")
    assert list(_item_means(b, "includes")) == INCLUDES_B
    # graded: "C" exact 1, "P" same first letter 0.5, "I" 0 - b's q02 "Roma" for Rome is P
    graded = _item_means(b, "graded")
    assert graded["q02"] == 0.5 and graded["q01"] == 1.0 and graded["q05"] == 0.0
    closeness = _item_means(b, "closeness")
    for item, replies in REPLIES["b"].items():
        expected = sum(_ratio(r, TARGETS[item]) for r in replies) / 2
        assert closeness[item] == pytest.approx(expected)
    assert b.metrics[("capitals", "includes")].kind == "pass_fail"
    assert b.metrics[("capitals", "closeness")].kind == "mean"
    # the tool's own ci() metric arrives as lower/upper and is kept as reported
    assert {"closeness/lower", "closeness/upper"} <= set(b.reported)


@pytest.mark.parametrize("value, expected", [("C", 1.0), ("P", 0.5), ("I", 0.0), ("N", 0.0),
                                             (True, 1.0), (False, 0.0), (0.25, 0.25),
                                             ("yes", 1.0), ("False", 0.0), ("0.75", 0.75),
                                             ("maybe", None), ([1, 0], None)])
def test_value_to_float(value, expected):
    assert inspect_logs.to_float(value) == expected


def test_two_models_pair_on_their_sample_ids(capsys):
    found = compare_logs([str(DATA / "a.eval"), str(DATA / "b.json")])
    pairs = found.result.comparisons.set_index("metric")
    # includes: differences a - b = 0 1 .5 0 1 1 1 0 1 -1, mean 4.5 / 10
    assert pairs.loc["includes", "diff"] == pytest.approx(0.45)
    assert pairs.loc["includes", "n"] == 10
    # the same numbers as the API on the hand-typed per-item table
    table = pd.DataFrame({"arm": ["A"] * 10 + ["B"] * 10,
                          "item": [f"q{i:02d}" for i in range(1, 11)] * 2,
                          "score": INCLUDES_A + INCLUDES_B, "kind": "mean"})
    by_hand = compare(table, (0.0, 1.0)).comparisons.iloc[0]
    for column in ("diff", "ci_low", "ci_high", "p_value", "p_holm", "mdd"):
        assert pairs.loc["includes", column] == pytest.approx(by_hand[column])
    assert found.pairing.set_index("metric").loc["includes", "only_a"] == 0
    assert main(["compare", str(DATA / "a.eval"), str(DATA / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "+0.45 [" in out and "all 10 items paired" in out and "tiers:" in out


def test_unpaired_items_and_epochs_are_counted(tmp_path, capsys):
    found = compare_logs([str(DATA / "a.eval"), str(DATA / "c.eval")])
    row = found.pairing.set_index("metric").loc["includes"]
    # c ran q01..q08 in one epoch: q09, q10 only in a; the 8 shared in different epochs
    assert (row["paired"], row["only_a"], row["only_b"], row["epochs_differ"]) == (8, 2, 0, 8)
    assert found.result.comparisons.set_index("metric").loc["includes", "n"] == 8
    out_csv = tmp_path / "pairs.csv"
    assert main(["compare", str(DATA / "a.eval"), str(DATA / "c.eval"), "--csv", str(out_csv),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"comparisons", "means", "tiers", "pairing", "notes"} <= set(data)
    assert list(pd.read_csv(out_csv).columns) == COLUMNS


def test_import_keeps_a_table_that_compares_like_the_log(tmp_path, capsys):
    out = tmp_path / "imported"
    assert main(["import", str(DATA / "a.eval"), str(DATA / "b.json"), "--out", str(out)]) == 0
    kept = sorted(out.glob("*.csv"))
    assert len(kept) == 2 and "-> " in capsys.readouterr().out
    direct = compare_logs([str(DATA / "a.eval"), str(DATA / "b.json")]).result.comparisons
    again = compare_logs([str(k) for k in kept]).result.comparisons
    for frame in (direct, again):
        frame.sort_values("metric", inplace=True, ignore_index=True)
    assert list(again["metric"]) == list(direct["metric"])
    for column in ("diff", "ci_low", "ci_high", "p_value", "p_holm", "n"):
        assert list(again[column]) == pytest.approx(list(direct[column]))


def test_a_log_without_header_is_read_from_its_journal(tmp_path):
    """A run that did not finish has no header.json: the eval spec comes from
    _journal/start.json. Rewritten with deflate (as older inspect_ai wrote .eval logs)."""
    running = tmp_path / "running.eval"
    with zipfile.ZipFile(DATA / "c.eval") as source, \
            zipfile.ZipFile(running, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            if name != "header.json":
                target.writestr(name, json.dumps(inspect_logs._entry(running, source, name)))
    run = read_log(running)
    assert any("status started" in note for note in run.notes)
    assert list(_item_means(run, "includes")) == [1, 1, 0, 1, 1, 1, 0, 1]  # c's replies


def test_logs_without_a_shared_item_say_so(tmp_path, capsys):
    log = json.loads((DATA / "b.json").read_text())
    for sample in log["samples"]:
        sample["id"] = f"other-{sample['id']}"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(log))
    assert main(["compare", str(DATA / "a.json"), str(other)]) == 0
    out = capsys.readouterr().out
    assert "nothing compared" in out and "0 items paired" in out


def test_compare_tells_logs_from_summaries(tmp_path, capsys):
    from scievals.results.history_cli import is_log

    out = tmp_path / "kept"
    assert main(["import", str(DATA / "a.eval"), "--out", str(out)]) == 0
    [kept] = out.glob("*.csv")
    summary = tmp_path / "summary.csv"
    summary.write_text("benchmark,dataset,model,condition,metric,value\n")
    assert is_log(str(kept)) and is_log("x.eval") and is_log("run.json")
    assert not is_log(str(summary)) and not is_log("@latest")
    capsys.readouterr()
    assert main(["compare", str(kept), str(DATA / "b.json")]) == 0
    assert "capitals / includes" in capsys.readouterr().out
    assert main(["compare", str(DATA / "a.eval"), str(DATA / "b.json"), "--tolerance",
                 "0.1"]) == 1
    assert "applies to result summaries" in capsys.readouterr().err


@pytest.mark.slow  # the sign-flip's detectable difference at each n tried (~10 s)
def test_plan_from_logs(capsys):
    assert main(["plan", "--from", str(DATA / "a.eval"), str(DATA / "b.json"), "--diff", "0.3",
                 "--metric", "includes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("capitals includes: about ") and "sign-flip" in out
    assert main(["plan", "--diff", "0.3"]) == 1


# ---------------------------------------------------------------------------
# Bad files: one line each, never a traceback
# ---------------------------------------------------------------------------


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {}
    raw = (DATA / "a.eval").read_bytes()
    files["cut zip"] = tmp_path / "cut.eval"
    files["cut zip"].write_bytes(raw[: len(raw) // 2])
    files["foreign zip"] = tmp_path / "photos.eval"
    with zipfile.ZipFile(files["foreign zip"], "w") as archive:
        archive.writestr("cat.txt", "meow")
    files["foreign json"] = tmp_path / "config.json"
    files["foreign json"].write_text(json.dumps({"name": "x", "values": [1, 2]}))
    files["empty"] = tmp_path / "empty.json"
    files["empty"].write_text("")
    files["cut json"] = tmp_path / "cut.json"
    files["cut json"].write_text((DATA / "b.json").read_text()[:5000])
    files["no samples"] = tmp_path / "header_only.json"
    log = json.loads((DATA / "b.json").read_text())
    del log["samples"]
    files["no samples"].write_text(json.dumps(log))
    files["garbage"] = tmp_path / "noise.jsonl"
    files["garbage"].write_bytes(bytes(range(256)) * 4)
    files["old schema"] = tmp_path / "old.json"
    files["old schema"].write_text(json.dumps({**log, "version": 1}))
    files["deep json"] = tmp_path / "deep.json"
    files["deep json"].write_text("[" * 100_000 + "]" * 100_000)
    files["not a score"] = tmp_path / "not_a_score.json"
    log = json.loads((DATA / "b.json").read_text())
    log["samples"][3]["scores"]["includes"] = "C"  # a bare value where a Score belongs
    files["not a score"].write_text(json.dumps(log))
    return files


def test_bad_files_get_one_line_each(tmp_path, capsys):
    files = _bad_files(tmp_path)
    assert main(["import", *map(str, files.values()), str(DATA / "c.eval"),
                 "--out", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == len(files) and "Traceback" not in captured.err
    for line, path in zip(lines, files.values()):
        assert line.startswith(f"error: {path}")
    # the good file is still imported
    assert "c.eval" in captured.out and len(list((tmp_path / "out").glob("*.csv"))) == 1
    assert main(["compare", str(files["cut zip"]), str(DATA / "a.eval")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_a_damaged_zstd_entry_is_said(tmp_path):
    raw = bytearray((DATA / "c.eval").read_bytes())
    with zipfile.ZipFile(DATA / "c.eval") as archive:
        info = archive.getinfo("samples/q03_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 8
    raw[start:start + 4] = bytes(4 - i for i in range(4))  # flip bytes inside the entry
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(bytes(raw))
    with pytest.raises(ScievalsError, match="damaged entry|not JSON"):
        read_log(damaged)


def test_without_zstandard_the_extra_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard -> ImportError
    monkeypatch.setattr(inspect_logs, "_stdlib_reads_zstd", lambda: False)
    assert main(["import", str(DATA / "c.eval"), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "zstandard package is not installed" in err and ".[interop]" in err
    assert err.count("\n") == 1


# ---------------------------------------------------------------------------
# lm-evaluation-harness (hand-built from its documented output)
# ---------------------------------------------------------------------------

STAMP = "2026-11-20T10-00-00.000001"
ACC = {"m1": [1, 1, 0, 1, 1, 1], "m2": [0, 1, 0, 0, 1, 0]}


def _lm_eval(folder: Path, model: str, docs: range = range(6)) -> Path:
    folder.mkdir(parents=True)
    acc = ACC[model]
    results = {
        "results": {"arc_easy": {"alias": "arc_easy", "acc,none": sum(acc) / 6,
                                 "acc_stderr,none": 0.1, "f1,none": 0.5}},
        "groups": {}, "configs": {"arc_easy": {"task": "arc_easy"}},
        "versions": {"arc_easy": 1.0}, "n-samples": {"arc_easy": {"original": 6,
                                                                 "effective": 6}},
        "higher_is_better": {"arc_easy": {"acc": True, "f1": True}},
        "config": {"model": "hf", "model_args": f"pretrained=org/{model},dtype=float16"},
        "model_name": f"org/{model}", "lm_eval_version": "0.4.9", "git_hash": "abc1234",
    }
    path = folder / f"results_{STAMP}.json"
    path.write_text(json.dumps(results))
    lines = [{"doc_id": d, "doc": {"q": f"question {d}"}, "target": "A", "arguments": [],
              "resps": [], "filtered_resps": [], "filter": "none", "metrics": ["acc", "f1"],
              "doc_hash": f"h{d}", "prompt_hash": "p", "target_hash": "t",
              "acc": float(acc[d]), "f1": ["A", "B"]} for d in docs]
    (folder / f"samples_arc_easy_{STAMP}.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_lm_eval_results_and_samples_pair(tmp_path, capsys):
    a = _lm_eval(tmp_path / "m1", "m1")
    b = _lm_eval(tmp_path / "m2", "m2", range(5))  # doc 5 not in m2's samples
    run = read_log(a)
    assert run.model == "org/m1" and list(_item_means(run, "acc")) == ACC["m1"]
    assert any("corpus-level" in note for note in run.notes)  # f1 keeps a pair per doc
    found = compare_logs([str(a), str(b)])
    [row] = found.result.comparisons.to_dict("records")
    # docs 0-4: m1 1 1 0 1 1, m2 0 1 0 0 1 -> n10 = 2, n01 = 0, McNemar p = 2 * 1/4 = 0.5
    assert (row["n"], row["method"]) == (5, "exact McNemar")
    assert row["diff"] == pytest.approx(2 / 5) and row["p_value"] == pytest.approx(0.5)
    assert found.pairing.iloc[0]["only_a"] == 1
    assert main(["compare", str(a), str(b)]) == 0
    assert "1 only in org/m1" in capsys.readouterr().out


REAL_LM_EVAL = Path(__file__).parent / "data" / "lm_eval"


def test_real_lm_eval_output_imports_with_its_per_sample_metric():
    # lm-eval 0.4.13's own files: each item's score is the sample line's exact_match, read
    # here with plain json, and the mean is the results file's own figure
    for name, mean in (("a", 0.9), ("b", 0.6)):
        results = next((REAL_LM_EVAL / name).glob("results_*.json"))
        samples = next((REAL_LM_EVAL / name).glob("samples_tiny_sums_*.jsonl"))
        expected = {str(line["doc_id"]): line["exact_match"]
                    for line in map(json.loads, samples.read_text().splitlines())}
        assert json.loads(results.read_text())["results"]["tiny_sums"][
            "exact_match,none"] == pytest.approx(mean)
        run = read_log(results)
        got = _item_means(run, "exact_match")
        assert {str(k): v for k, v in got.items()} == expected
        assert sum(expected.values()) / len(expected) == pytest.approx(mean)


def test_real_lm_eval_runs_pair_on_doc_id():
    # make_lm_eval_logs.py: model a is wrong on q3 only, b on q2, q3, q5, q7 (doc_id = the
    # number in the id). On the 10 documents: a right and b wrong on q2, q5, q7 (n10 = 3),
    # never the other way (n01 = 0): diff 3/10, exact McNemar p = 2 * (1/2)^3 = 0.25
    a, b = (next((REAL_LM_EVAL / n).glob("results_*.json")) for n in ("a", "b"))
    found = compare_logs([str(a), str(b)])
    [row] = found.result.comparisons.to_dict("records")
    assert (row["n"], row["method"]) == (10, "exact McNemar")
    assert row["diff"] == pytest.approx(0.3) and row["p_value"] == pytest.approx(0.25)
    assert found.pairing.iloc[0]["only_a"] == 0 and found.pairing.iloc[0]["only_b"] == 0


def test_a_truncated_real_lm_eval_results_file_is_one_line(tmp_path, capsys):
    source = next((REAL_LM_EVAL / "a").glob("results_*.json"))
    shutil.copytree(REAL_LM_EVAL / "a", tmp_path / "a")
    cut = tmp_path / "a" / source.name
    cut.write_text(source.read_text()[:500])
    assert main(["import", str(cut)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and source.name in err and "Traceback" not in err


def test_logs_of_different_tasks_are_not_compared(tmp_path, capsys):
    a = _lm_eval(tmp_path / "m1", "m1")
    assert main(["compare", str(DATA / "a.eval"), str(a)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no (task, metric) is in two of these logs" in err


def test_lm_eval_output_path_json_names_are_read(tmp_path):
    # `--output_path run.json` writes run_<timestamp>.json beside the samples files
    a = _lm_eval(tmp_path / "m1", "m1")
    renamed = a.rename(a.with_name(f"run_{STAMP}.json"))
    assert list(_item_means(read_log(renamed), "acc")) == ACC["m1"]
    plain = renamed.rename(renamed.with_name("results.json"))
    with pytest.raises(ScievalsError, match="does not end in the run's timestamp"):
        read_log(plain)


def test_lm_eval_without_samples_is_refused(tmp_path):
    a = _lm_eval(tmp_path / "m1", "m1")
    next(a.parent.glob("samples_*")).unlink()
    with pytest.raises(ScievalsError, match="no scored item.*--log_samples"):
        read_log(a)
    bad = _lm_eval(tmp_path / "m2", "m2")
    samples = next(bad.parent.glob("samples_*"))
    samples.write_text(samples.read_text()[:-40])  # cut inside the last line
    with pytest.raises(ScievalsError, match=r"jsonl:6: not valid JSON"):
        read_log(bad)


# ---------------------------------------------------------------------------
# Every Eval Ever (hand-built, checked against the vendored 0.3.0 schemas)
# ---------------------------------------------------------------------------

UUIDS = {"x": "0b3f3b1e-1111-4a2b-8c3d-000000000001",
         "y": "0b3f3b1e-2222-4a2b-8c3d-000000000002"}
SCORES = {"x": [0.9, 0.8, 0.7, 0.9, 1.0, 0.6], "y": [0.5, 0.6, 0.4, 0.7, 0.8, 0.3]}


def _eee(folder: Path, model: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    uid = UUIDS[model]
    record = {
        "schema_version": "0.3.0", "evaluation_id": f"demo/{model}/1",
        "retrieved_timestamp": "1795000000",
        "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "lab",
                            "evaluator_relationship": "third_party"},
        "model_info": {"name": model, "id": f"dev/{model}", "additional_details": {
            "deployment_type": "unknown", "model_availability": "unknown"}},
        "eval_library": {"name": "scievals", "version": "0.1.0"},
        "evaluation_results": [{
            "evaluation_name": "gating", "evaluation_result_id": "gating/f1",
            "source_data": {"dataset_name": "demo", "source_type": "other"},
            "metric_config": {"lower_is_better": False, "metric_id": "hierarchy_f1",
                              "min_score": 0, "max_score": 1, "score_type": "continuous"},
            "score_details": {"score": sum(SCORES[model]) / 6}}],
        "detailed_evaluation_results": {"format": "jsonl",
                                        "file_path": f"data/c/dev/{model}/{uid}_samples.jsonl"},
    }
    assert schema_problem(record, "eval.schema.json") is None
    rows = [{"schema_version": "0.3.0", "evaluation_id": f"demo/{model}/1",
             "model_id": f"dev/{model}", "evaluation_name": "gating",
             "evaluation_result_id": "gating/f1", "sample_id": f"case{i}",
             "interaction_type": "single_turn", "input": {"raw": "panel", "reference": ["t"]},
             "output": {"raw": ["tree"]}, "answer_attribution": [],
             "evaluation": {"score": s, "is_correct": s > 0.5}}
            for i, s in enumerate(SCORES[model])]
    for row in rows:
        assert schema_problem(row, "instance_level_eval.schema.json") is None
    path = folder / f"{uid}.json"
    path.write_text(json.dumps(record))
    (folder / f"{uid}_samples.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    return path


def test_every_eval_ever_records_pair(tmp_path):
    x, y = _eee(tmp_path / "x", "x"), _eee(tmp_path / "y", "y")
    found = compare_logs([str(x), str(y)])
    [row] = found.result.comparisons.to_dict("records")
    # the mean table of tests/stats/test_stats_api.py: p = 2 / 2^6 by enumeration
    assert row["metric"] == "hierarchy_f1" and row["dataset"] == "gating"
    assert row["diff"] == pytest.approx(1.6 / 6) and row["p_value"] == pytest.approx(2 / 64)


def test_invalid_or_lonely_every_eval_ever_records_are_refused(tmp_path):
    x = _eee(tmp_path / "x", "x")
    record = json.loads(x.read_text())
    record["source_metadata"]["source_type"] = "scraped"  # not one of the schema's values
    bad = tmp_path / "bad" / x.name
    bad.parent.mkdir()
    bad.write_text(json.dumps(record))
    shutil.copy(x.with_name(f"{x.stem}_samples.jsonl"), bad.parent)
    with pytest.raises(ScievalsError, match="not a valid Every Eval Ever 0.3.0 record"):
        read_log(bad)
    x.with_name(f"{x.stem}_samples.jsonl").unlink()
    with pytest.raises(ScievalsError, match="no instance rows beside it"):
        read_log(x)


def test_the_command_list_shows_import_and_compare(capsys):
    # every sub-command's help is %-formatted by argparse: a bare "%" broke `--help`
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "import" in out and "paired answers on" in out and "80 % power" in out
