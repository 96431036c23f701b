"""Issue 45's interop fixes: hostile values, unpaired reasons, one test per pair whatever
else is in the call, paths and --diff checked in one line.

The logs are inspect_ai 0.3.285's own ``b.json`` (data/inspect/, see
test_interop_import.py) with the changes each test names made by hand; expectations are
counted from those changes."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.interop.importing import read_log
from scievals.interop.paired_logs import compare_logs

DATA = Path(__file__).parent / "data" / "inspect"


def _log(tmp_path: Path, name: str, change=None, model: str | None = None,
         template: str = "b.json") -> Path:
    log = json.loads((DATA / template).read_text())
    if model:
        log["eval"]["model"] = model
    if change:
        change(log)
    path = tmp_path / name
    path.write_text(json.dumps(log))  # json.dumps writes NaN / Infinity as inspect's may
    return path


def _set(value, index: int = 0, scorer: str = "closeness"):
    def change(log):
        log["samples"][index]["scores"][scorer]["value"] = value
    return change


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1e308, 10**400])
def test_hostile_scores_are_counted_and_left_out(tmp_path, capsys, value):
    path = _log(tmp_path, "hostile.json", _set(value))
    run = read_log(path)
    closeness = run.rows[run.rows["metric"] == "closeness"]
    # b.json: 10 items x 2 epochs = 20 closeness scores; one is hostile
    assert len(closeness) == 19 and closeness["score"].abs().max() <= 1
    assert any("closeness: 1 score(s) NaN, infinite or beyond" in note for note in run.notes)
    assert main(["import", str(path), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "left out" in out.out


def test_compare_and_plan_on_hostile_logs_never_print_inf(tmp_path, capsys):
    a = _log(tmp_path, "a.json", _set(1e308), model="m/a")
    b = _log(tmp_path, "b.json", _set(float("nan"), 3), model="m/b")
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    for word in ("inf [", "[-inf", "inf]", " nan", "nan ["):
        assert word not in out, out
    # q01 epoch 1 of a and q04 epoch 1 of b left out: their other epochs still pair them,
    # each side on its own epochs, and the notes say what was left out
    assert "2 paired items scored in different epochs" in out
    assert "note: m/a: capitals closeness: 1 score(s) NaN, infinite or beyond" in out
    assert "note: m/b: capitals closeness: 1 score(s) NaN, infinite or beyond" in out
    assert main(["plan", "--from", str(a), str(b), "--diff", "0.5", "--metric",
                 "includes"]) == 0


def test_the_same_log_twice_is_said(tmp_path, capsys):
    copy_of = tmp_path / "copy.json"
    copy_of.write_bytes((DATA / "b.json").read_bytes())
    assert main(["compare", str(DATA / "b.json"), str(copy_of)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the same log as" in err[0] and "no (task, metric)" not in err[0]


def test_unpaired_items_say_they_errored_in_the_other_log(tmp_path, capsys):
    def errored(log):  # q01 and q02 (both epochs) errored: no scores, an error instead
        for sample in log["samples"]:
            if sample["id"] in ("q01", "q02"):
                sample["scores"] = {}
                sample["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}
    good = _log(tmp_path, "good.json", model="m/good")
    bad = _log(tmp_path, "bad.json", errored, model="m/bad")
    del_q03 = _log(tmp_path, "short.json", lambda log: log.update(samples=[
        s for s in log["samples"] if s["id"] != "q03"]), model="m/short")
    found = compare_logs([str(good), str(bad), str(del_q03)])
    rows = found.pairing[found.pairing["metric"] == "includes"].set_index(["arm_a", "arm_b"])
    row = rows.loc[("m/bad", "m/good")]
    assert (row["only_b"], row["errored_a"]) == (2, 2)
    assert main(["compare", str(good), str(bad), str(del_q03)]) == 0
    out = capsys.readouterr().out
    assert "2 only in m/good (2 errored in m/bad)" in out
    assert "1 only in m/good (1 not in m/short)" in out


def test_a_third_log_that_changes_the_test_is_said(tmp_path):
    # includes is pass/fail in a.json (C/I, the same in both epochs); a third log with a
    # partial "P" (0.5) makes the metric a mean for every pair: the note says so
    def first_item_wrong(log):
        for sample in log["samples"]:
            if sample["id"] == "q01":
                sample["scores"]["includes"]["value"] = "I"
    a = _log(tmp_path, "a.json", model="m/a", template="a.json")
    b = _log(tmp_path, "b.json", first_item_wrong, model="m/b", template="a.json")
    two = compare_logs([str(a), str(b)])
    row = two.result.comparisons.set_index("metric").loc["includes"]
    assert row["method"] == "exact McNemar"
    c = _log(tmp_path, "c.json", _set("P", 0, "includes"), model="m/c", template="a.json")
    three = compare_logs([str(a), str(b), str(c)])
    assert any("includes: pass/fail in m/a, m/b but graded in m/c" in n for n in three.notes)


def test_lm_eval_task_with_a_slash_is_read_where_lm_eval_writes_it(tmp_path, capsys):
    stamp = "2026-11-20T10-00-00.000001"
    results = {"results": {"mmlu/abstract_algebra": {"acc,none": 0.5, "sample_len": 2}},
               "higher_is_better": {"mmlu/abstract_algebra": {"acc": True}},
               "n-samples": {"mmlu/abstract_algebra": {"original": 2, "effective": 2}},
               "model_name": "org/m", "lm_eval_version": "0.4.9"}
    path = tmp_path / f"results_{stamp}.json"
    path.write_text(json.dumps(results))
    (tmp_path / "samples_mmlu").mkdir()  # lm-eval's joinpath: the '/' is a folder
    (tmp_path / "samples_mmlu" / f"abstract_algebra_{stamp}.jsonl").write_text("\n".join(
        json.dumps({"doc_id": d, "filter": "none", "metrics": ["acc"], "acc": a})
        for d, a in ((0, 1.0), (1, 0.0))) + "\n")
    run = read_log(path)
    assert sorted(run.rows["score"]) == [0.0, 1.0]
    assert "mmlu/abstract_algebra/acc,none" in run.reported
    assert not any("sample_len" in key for key in run.reported)  # a count, not a figure


def test_compare_csv_refuses_what_is_not_a_regular_file(tmp_path, capsys):
    a = _log(tmp_path, "a.json", model="m/a")
    b = _log(tmp_path, "b.json", _set("I", 0, "includes"), model="m/b")
    target = tmp_path / "real.csv"
    target.write_text("mine\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    for bad in (link, Path(os.devnull), tmp_path):
        assert main(["compare", str(a), str(b), "--csv", str(bad)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--csv names" in err[0], err
    assert link.is_symlink() and target.read_text() == "mine\n"
    assert main(["compare", str(a), str(b), "--csv", str(target)]) == 0  # a file: replaced
    assert target.read_text().startswith("benchmark,dataset,")


def test_export_eee_out_naming_a_file_is_one_line(tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text("x")
    assert main(["export", "eee", "--out", str(out), "--results", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "existing file" in err[0]


@pytest.mark.parametrize("diff, says", [("0", "not a positive"), ("-1", "not a positive"),
                                        ("nan", "not a finite"), ("2", "exceeds the whole")])
def test_plan_from_checks_the_difference(tmp_path, capsys, diff, says):
    a = _log(tmp_path, "a.json", model="m/a")
    b = _log(tmp_path, "b.json", _set("I", 0, "includes"), model="m/b")
    assert main(["plan", "--from", str(a), str(b), "--diff", diff]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "--diff" in err[0] and says in err[0], err
    assert "about" not in captured.out


# ---------------------------------------------------------------------------
# Zip bombs (item 1): refused in one line, memory bounded by a chunk, not by the entry
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["zstd-honest", "zstd-lying", "deflate"])
def test_a_zip_bomb_is_refused_in_one_line_without_expanding(tmp_path, capsys, monkeypatch,
                                                            kind):
    pytest.importorskip("zstandard")
    import tracemalloc

    from scievals.interop import inspect_logs
    from support.zip_bombs import write_bomb

    bomb = write_bomb(tmp_path / f"{kind}.eval", kind, 8_000_000)  # 8 MB in a few KB
    assert bomb.stat().st_size < 20_000
    monkeypatch.setattr(inspect_logs, "READ_CHUNK", 64 * 1024)
    monkeypatch.setattr(inspect_logs, "HOLD_BYTES", 256 * 1024)
    code = main(["import", str(bomb), "--out", str(tmp_path / "out"), "--max-entry-mb", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    assert "samples/q01_epoch_1.json" in err[0] and "more than the 2 MB" in err[0]
    assert ("declares 8,000,000 bytes" in err[0]) == (kind != "zstd-lying")
    # the 2 MB cap is never held: a 64 KB chunk and the first 256 KB at most
    monkeypatch.setattr(inspect_logs, "MAX_ENTRY_BYTES", 2_000_000)
    tracemalloc.start()
    with pytest.raises(inspect_logs.EntryTooLarge):
        read_log(bomb)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1_000_000, peak
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_an_entry_under_the_cap_but_past_the_hold_is_read_whole(tmp_path, monkeypatch):
    # a valid log whose samples are read through the measure-then-read path
    from scievals.interop import inspect_logs

    monkeypatch.setattr(inspect_logs, "HOLD_BYTES", 100)
    monkeypatch.setattr(inspect_logs, "READ_CHUNK", 64)
    run = read_log(DATA / "c.eval")
    assert run.rows.groupby("metric").size()["includes"] == 8  # c: q01..q08, one epoch


# ---------------------------------------------------------------------------
# import of a folder or a glob (item 7): samples files go with their results file
# ---------------------------------------------------------------------------

LM_EVAL = Path(__file__).parent / "data" / "lm_eval"


def test_import_of_an_lm_eval_glob_and_folder_pairs_the_samples_file(tmp_path, capsys):
    # lm-eval 0.4.13's own output folder: one results file and one samples file
    files = sorted(str(p) for p in (LM_EVAL / "a").iterdir())  # what out/model/* expands to
    assert len(files) == 2
    assert main(["import", *files, "--out", str(tmp_path / "glob")]) == 0
    captured = capsys.readouterr()
    assert "not JSON" not in captured.err and captured.err == ""
    assert "samples_tiny_sums_" in captured.out and "read with" in captured.out
    assert len(list((tmp_path / "glob").glob("*.csv"))) == 1
    output = tmp_path / "output"  # lm-eval's --output_path: a folder per model
    for model in ("a", "b"):
        shutil.copytree(LM_EVAL / model, output / model)
    assert main(["import", str(output), "--out", str(tmp_path / "folder")]) == 0
    assert len(list((tmp_path / "folder").glob("*.csv"))) == 2  # a and b
    # sample_len is a count lm-eval writes beside its metrics: not one of its figures
    assert "sample_len" not in capsys.readouterr().out


def test_a_samples_file_without_its_results_file_is_one_line(tmp_path, capsys):
    lone = tmp_path / "samples_tiny_sums_2026-11-28T06-01-20.220471.jsonl"
    lone.write_bytes(next((LM_EVAL / "a").glob("samples_*")).read_bytes())
    assert main(["import", str(lone), "--out", str(tmp_path / "out")]) == 1
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_waza_no_skill_runs_are_items_of_their_arm(tmp_path):
    # issue 45 item 5: the no-skill arm (waza's baseline_outcome) has items too
    from scievals.waza.samples import samples

    def run(number, score):
        return {"run_number": number, "status": "passed" if score == 1 else "failed",
                "final_output": "x", "validations": {"g": {"score": score, "weight": 1}}}
    graded = tmp_path / "results/waza/graded/agent.json"
    graded.parent.mkdir(parents=True)
    graded.write_text(json.dumps({"suites": {"s1": {
        "tasks": [{"test_id": "t1", "runs": [run(1, 1.0)]}],
        "baseline_outcome": {"tasks": [{"test_id": "t1", "runs": [run(1, 0.0),
                                                                   run(2, 0.5)]}]}}}}))
    found = [(s.item, s.condition, s.score) for s in samples(tmp_path, "agent")]
    assert found == [("s1/t1#1", "", 1.0), ("s1/t1#1", "no-skill", 0.0),
                     ("s1/t1#2", "no-skill", 0.5)]


# ---------------------------------------------------------------------------
# big valid logs (item 2): samples streamed, not the whole document parsed at once
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".eval"])
def test_a_big_log_is_read_sample_by_sample(tmp_path, suffix):
    import tracemalloc
    import zipfile

    pytest.importorskip("ijson")
    log = json.loads((DATA / "b.json").read_text())
    template = log.pop("samples")[0]  # a real sample: its events and messages make ~9 KB
    samples = [{**copy.deepcopy(template), "id": f"s{i}", "epoch": 1} for i in range(600)]
    path = tmp_path / f"big{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({**log, "samples": samples}))
    else:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("header.json", json.dumps(log))
            for sample in samples:
                archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
    expanded = len(json.dumps(samples))  # the samples' JSON text, about 5.5 MB
    tracemalloc.start()
    run = read_log(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert run.rows.groupby("metric").size().to_dict() == {
        "closeness": 600, "graded": 600, "includes": 600}
    # parsed whole, the samples' objects alone take several times their text; streamed,
    # one sample at a time plus the per-item table (1,800 rows)
    assert peak < expanded / 2, (peak, expanded)
