"""Issue 45's two halves together: ``import``, ``compare`` and ``leaderboard`` read folders
and globs the same way (importing.read_logs); a failed request in our exported records
(``scored: false``) is left out, never scored 0, in all three and in kept-run compare;
hostile values and the zip cap reach the leaderboard too; identical arms are said in words.

The logs are lm-eval 0.4.13's and inspect_ai 0.3.285's own (data/, see
test_interop_import.py); kept runs are written by the keeping code
(tests/support/kept_runs.py). Expected figures are worked by hand in the comments."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.interop import inspect_logs, item_details
from scievals.interop.importing import read_log
from scipy.stats import binomtest
from support.kept_runs import AFTER, BEFORE, NEW, OLD, kept

DATA = Path(__file__).parent / "data"


def _lm_eval_output(tmp_path: Path) -> Path:
    """lm-eval's --output_path (a folder per run) with what else lies in such folders: a
    JSON file that is no log and a README."""
    out = tmp_path / "output"
    for run in ("a", "b"):
        shutil.copytree(DATA / "lm_eval" / run, out / run)
    (out / "a" / "notes.json").write_text('{"who": "me"}')
    (out / "README.md").write_text("runs of tiny_sums\n")
    return out


def _exact_match(run: str) -> dict:
    [samples] = (DATA / "lm_eval" / run).glob("samples_tiny_sums_*.jsonl")
    return {json.loads(line)["doc_id"]: json.loads(line)["exact_match"]
            for line in samples.read_text().splitlines() if line.strip()}


def test_folders_and_globs_read_alike_in_import_compare_and_leaderboard(tmp_path, capsys):
    out = _lm_eval_output(tmp_path)
    passed = f"{out / 'a'}: 1 JSON file(s) that are no log passed over"
    # import: both runs kept, the stray JSON passed over with a note, the README not read
    assert main(["import", str(out), "--out", str(tmp_path / "kept")]) == 0
    said = capsys.readouterr()
    assert len(list((tmp_path / "kept").glob("*.csv"))) == 2 and said.err == ""
    assert f"{out}: 1 JSON file(s) that are no log passed over" in said.out
    # compare of the two folders, and of the two globs (out/a/* out/b/*: results and
    # samples files): exact McNemar on the discordant docs, counted here from the samples
    a, b = _exact_match("a"), _exact_match("b")
    only_a = sum(a[d] == 1 and b[d] == 0 for d in a)
    only_b = sum(a[d] == 0 and b[d] == 1 for d in a)
    expected = binomtest(only_a, only_a + only_b).pvalue
    globs = [str(p) for run in ("a", "b") for p in sorted((out / run).iterdir())
             if p.name != "notes.json"]  # what out/*/*_* expands to
    for arguments in ([str(out / "a"), str(out / "b")], globs):
        assert main(["compare", *arguments, "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        [pair] = [r for r in found["comparisons"] if r["metric"] == "exact_match"]
        assert pair["p_value"] == pytest.approx(expected) and pair["n"] == len(a)
        if arguments == globs:  # each samples file named: read with its results file
            assert sum("read with" in n for n in found["notes"]) == 2
        else:
            assert passed in found["notes"]
    # leaderboard: the same two arms and means from the folder, the folders, the globs
    means = {}
    for arguments in ([str(out)], [str(out / "a"), str(out / "b")], globs):
        assert main(["leaderboard", *arguments, "--format", "json"]) == 0
        board = json.loads(capsys.readouterr().out)
        means[len(arguments)] = sorted(r["value"] for r in board["tables"]
                                       if r["metric"] == "exact_match")
    assert means[1] == means[2] == means[len(globs)] == sorted([sum(a.values()) / len(a),
                                                               sum(b.values()) / len(b)])


def test_a_file_that_is_no_log_named_on_its_own_is_refused_everywhere(tmp_path, capsys):
    out = _lm_eval_output(tmp_path)
    stray = str(out / "a" / "notes.json")
    logs = [str(out / "a"), str(out / "b")]
    for command in (["import", *logs, stray, "--out", str(tmp_path / "kept")],
                    ["compare", *logs, stray], ["leaderboard", *logs, stray]):
        assert main(command) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and stray in err[0], (command[0], err)
        assert "JSON that is no log this reads" in err[0]


def test_a_folder_without_a_log_is_one_line_everywhere(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.json").write_text("{}")
    for command in (["import", str(empty), "--out", str(tmp_path / "kept")],
                    ["leaderboard", str(empty)], ["compare", str(empty), str(empty)]):
        assert main(command) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert err and all("a folder without an inspect_ai, lm-eval or Every Eval Ever log"
                           in line for line in err), err


@pytest.fixture
def failed_runs(tmp_path) -> Path:
    """OLD as in kept_runs; NEW with gpt's case0 a failed request (scored: false)."""
    folder = tmp_path / "runs"
    kept(folder, OLD, BEFORE)
    kept(folder, NEW, {**AFTER, "gpt": [None, *AFTER["gpt"][1:]]})
    return folder


def test_a_failed_request_is_left_out_of_kept_compare_not_scored_0(failed_runs, capsys):
    assert main(["compare", OLD, NEW, "--runs-dir", str(failed_runs), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    [gpt] = [r for r in found["comparisons"] if r["metric"] == "hierarchy_f1"
             and r["arm_a"].startswith("gpt")]
    # cases 1-5 pair: new - old = 0.2, 0.3, 0.2, 0.2, 0.3 -> mean 1.2 / 5 = 0.24, all one
    # way: exact sign-flip p = 2 / 2^5. (Scored 0, case0 would pair at 0 - 0.5.)
    assert gpt["n"] == 5 and gpt["diff"] == pytest.approx(0.24)
    assert gpt["p_value"] == pytest.approx(2 / 32)
    [pairing] = [r for r in found["pairing"] if r["metric"] == "hierarchy_f1"
                 and r["arm_a"].startswith("gpt")]
    # case0: only in the old run, and errored (not missing) in the new one
    assert pairing["paired"] == 5 and pairing["only_a"] + pairing["only_b"] == 1
    assert pairing["errored_a"] + pairing["errored_b"] == 1
    assert any("1 item(s) marked scored: false" in n for n in found["notes"])


def test_a_failed_request_is_left_out_of_leaderboard_and_import(failed_runs, tmp_path,
                                                                  capsys):
    assert main(["leaderboard", NEW, "--runs-dir", str(failed_runs), "--format",
                 "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
    gpt = {r["metric"]: r for r in rows if r["arm"].startswith("gpt")}
    # cases 1-5: (0.8 + 0.7 + 0.9 + 1.0 + 0.6) / 5 = 0.8 (with case0 as 0: 4.0 / 6)
    assert gpt["hierarchy_f1"]["n"] == 5
    assert gpt["hierarchy_f1"]["value"] == pytest.approx(0.8)
    assert gpt["structure_accuracy"]["value"] == pytest.approx(0.2)
    export = tmp_path / "eee"
    assert main(["export", "eee", "--run", NEW, "--runs-dir", str(failed_runs), "--out",
                 str(export)]) == 0
    capsys.readouterr()
    [record] = [p for p in export.rglob("*.json") if "gpt" in str(p)]
    run = read_log(record)
    assert len(run.rows) == 5 and run.rows["score"].mean() == pytest.approx(0.8)
    assert run.errored == {("gating/OMIP", "case0")}
    # the exported folder as a leaderboard: the same 0.8 over 5 items
    assert main(["leaderboard", str(export), "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    [row] = [r for r in board["tables"] if r["arm"].startswith("openai/gpt-4o-mini")
             and r["metric"] == "hierarchy_f1"]
    assert row["n"] == 5 and row["value"] == pytest.approx(0.8)
    # ... and compare of the exported record with the kept old run's: case0 errored
    assert main(["compare", str(record), OLD, "--runs-dir", str(failed_runs), "--json"]) == 0


def _inspect_json(tmp_path: Path, name: str, value, model: str) -> Path:
    log = json.loads((DATA / "inspect" / "b.json").read_text())
    log["eval"]["model"] = model
    log["samples"][0]["scores"]["closeness"]["value"] = value
    path = tmp_path / name
    path.write_text(json.dumps(log))  # json.dumps writes NaN / Infinity
    return path


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10**400])
def test_hostile_values_get_the_import_note_in_the_leaderboard(tmp_path, capsys, value):
    hostile = _inspect_json(tmp_path, "hostile.json", value, "m/a")
    other = _inspect_json(tmp_path, "other.json", 0.5, "m/b")
    note = next(n for n in read_log(hostile).notes if "closeness" in n)
    assert "1 score(s) NaN, infinite or beyond" in note
    assert main(["leaderboard", str(hostile), str(other)]) == 0
    out = capsys.readouterr().out
    assert f"note: m/a: {note}" in out
    for word in ("inf [", "[-inf", "inf]", " nan "):
        assert word not in out
    # b.json: 10 items x 2 epochs; the hostile epoch left out, q01 still has its other one
    assert main(["leaderboard", str(hostile), str(other), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
    assert {r["arm"]: r["n"] for r in rows if r["metric"] == "closeness"} == {"m/a": 10,
                                                                               "m/b": 10}


def test_the_zip_cap_holds_for_the_leaderboards_item_texts(monkeypatch):
    run = read_log(DATA / "leaderboard" / "strong.eval")
    # the page's texts read each sample entry again: through the same capped reader
    monkeypatch.setattr(inspect_logs, "MAX_ENTRY_BYTES", 100)
    details = item_details.read_details(run)
    assert details.texts == {}
    assert "texts not read" in details.note and "more than the 0.0001 MB" in details.note
    monkeypatch.undo()
    assert len(item_details.read_details(run).texts) == run.rows.groupby(
        ["item", "sample"]).ngroups


def test_the_json_logs_texts_are_streamed_like_its_scores():
    run = read_log(DATA / "inspect" / "b.json")
    details = item_details.read_details(run)
    samples = json.loads((DATA / "inspect" / "b.json").read_text())["samples"]
    assert len(details.texts) == len(samples) == 20  # 10 items x 2 epochs
    first = samples[0]
    assert details.texts[(run.rows["dataset"].iloc[0], str(first["id"]),
                          first["epoch"])]["answer"] == first["output"]["completion"]


def test_identical_arms_get_words_not_nan(tmp_path, capsys):
    # two kept tables with the same scores under two names: every paired difference is 0
    for arm in ("x", "y"):
        (tmp_path / f"{arm}.csv").write_text(
            "arm,dataset,metric,item,sample,score,kind,low,high,lower_is_better\n"
            + "".join(f"{arm},t,s,i{k},1,{k / 10},mean,0,1,False\n" for k in range(8)))
    assert main(["leaderboard", str(tmp_path / "x.csv"), str(tmp_path / "y.csv")]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower()
    assert ("No detectable difference can be estimated: each pair of arms differs by the "
            "same amount on every item") in out
    assert "| 1= | x |" in out and "| 1= | y |" in out


def test_a_smoke_runs_task_pairs_with_the_full_runs(tmp_path, capsys):
    from scievals.common.selection import limited_label, unlimited_label

    label = limited_label("OMIP", {"limit": 2}, 2, 6)
    assert unlimited_label(label) == ("OMIP", "limited to 2 items")
    assert unlimited_label("OMIP") == ("OMIP", "")
    runs = tmp_path / "runs"
    kept(runs, OLD, BEFORE)
    kept(runs, NEW, {"gpt": AFTER["gpt"][:2]}, limited=True, dataset=label)
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    [gpt] = [r for r in found["comparisons"] if r["metric"] == "hierarchy_f1"]
    # cases 0 and 1: new - old = 0.9 - 0.5, 0.8 - 0.6 -> mean 0.3; both one way: exact
    # sign-flip p = 2 / 2^2
    assert gpt["n"] == 2 and gpt["diff"] == pytest.approx(0.3)
    assert gpt["p_value"] == pytest.approx(0.5) and gpt["dataset"] == "gating/OMIP"
    assert f"gating/OMIP: limited to 2 items in {NEW}: compared on those items" in found["notes"]


def test_the_table_reads_each_log_once_its_tokens_summed_with_the_scores(monkeypatch,
                                                                          capsys):
    # the second read (item_details._read) is for the HTML page's texts only
    def second_read(run):
        raise AssertionError(f"{run.path} read again")
    monkeypatch.setattr(item_details, "_read", second_read)
    logs = [str(DATA / "leaderboard" / f"{n}.eval") for n in ("strong", "twice", "weak")]
    assert main(["leaderboard", *logs, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
    # the fixtures' model_usage per sample: 5 tokens in, 1 out; 60 samples (twice: 120) and
    # total_cost 0.0001, 0.0002 and 0.00005 a sample (tests/support/make_leaderboard_logs.py)
    spent = {r["log"].rsplit("/", 1)[1]: (r["tokens_in"], r["tokens_out"], r["cost_usd"])
             for r in rows}
    assert spent == {"strong.eval": (300, 60, pytest.approx(0.006)),
                     "twice.eval": (600, 120, pytest.approx(0.024)),
                     "weak.eval": (300, 60, pytest.approx(0.003))}
