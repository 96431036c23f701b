"""Current waza's suite format, schemaVersion 1.x (specs/waza-current.md): loading, CSV
tasks and templates, multi-turn tasks, checkpoints, expected-output graders, the new
statistics, JUnit, gate and compare. Expected values come from the spec's worked examples
or are worked by hand in the comments."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.waza import metrics
from scievals.waza.data import demo_suites
from scievals.waza.graders.base import GraderContext
from scievals.waza.graders.registry import grade
from scievals.waza.suites import check_report, load_suite

EVAL = """\
schemaVersion: {version}
name: s
skill: demo
config: {{trials_per_task: 1, timeout_seconds: 60, executor: mock, model: m}}
metrics: [{{name: task_completion, weight: 1, threshold: 0.5}}]
tasks: ["tasks/*.yaml"]
"""
TASK = """\
id: t1
name: Task one
inputs: {prompt: "do it"}
graders:
  - {name: g, type: text, config: {contains: [do]}}
"""


def _suite(tmp: Path, eval_text: str | None = None, task: str = TASK,
           version: str = '"1.4"', files: dict[str, str] | None = None) -> Path:
    (tmp / "tasks").mkdir(exist_ok=True)
    (tmp / "eval.yaml").write_text(textwrap.dedent(eval_text or EVAL.format(version=version)))
    (tmp / "tasks" / "t1.yaml").write_text(textwrap.dedent(task))
    for name, text in (files or {}).items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(textwrap.dedent(text))
    return tmp


# --- versions and unknown keys (§1) ---------------------------------------------------------

def test_schema_version_is_read_as_raw_text(tmp_path):
    # unquoted 1.10 is the float 1.1 to PyYAML; waza keeps the text "1.10" (a newer minor,
    # accepted like any 1.x)
    assert load_suite(_suite(tmp_path, version="1.10")).version == "1.10"
    assert load_suite(_suite(tmp_path, version='"1.4"')).version == "1.4"


@pytest.mark.parametrize("version", ['"1"', '"1.4.0"', '"v1.4"'])
def test_malformed_schema_version_is_an_error(tmp_path, version):
    with pytest.raises(ScievalsError, match="is not MAJOR.MINOR"):
        load_suite(_suite(tmp_path, version=version))


def test_schema_version_2_is_refused_in_one_line(tmp_path, capsys):
    suite = _suite(tmp_path, version='"2.0"')
    assert main(["waza", "run", str(suite)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "2.0 scenario evals are out of scope" in err


def test_unknown_keys_warn_outside_grader_config_and_fail_inside(tmp_path, caplog):
    text = EVAL.format(version='"1.4"') + "owner: me\n"
    suite = load_suite(_suite(tmp_path, text))
    assert any("eval.yaml: owner: unknown key ignored" in w for w in suite.warnings)
    assert any("owner" in r.getMessage() for r in caplog.records)
    problems, warnings = check_report(tmp_path)
    assert problems == [] and len(warnings) == 1
    strict, _ = check_report(tmp_path, strict=True)
    assert len(strict) == 1 and "unknown key(s) owner" in strict[0]
    # inside a grader's config: an error even without --strict
    bad = TASK.replace("contains: [do]", "contains: [do], extract_json: true")
    with pytest.raises(ScievalsError, match="extract_json"):
        load_suite(_suite(tmp_path, task=bad))


def test_minor_gated_key_needs_its_minor(tmp_path):
    # adversarial needs >= 1.2 (§1.1); waza run ignores it otherwise
    text = EVAL.format(version='"1.1"') + "adversarial: {packs: [basic]}\n"
    with pytest.raises(ScievalsError, match="adversarial: needs schemaVersion 1.2"):
        load_suite(_suite(tmp_path, text))
    text = EVAL.format(version='"1.2"') + "adversarial: {packs: [basic]}\n"
    assert load_suite(_suite(tmp_path, text)).tasks


def test_v023_suite_without_schema_version_does_not_grade_expected():
    # code-explainer's tasks carry expected.output_contains; v0.23 never graded it
    suite = load_suite(demo_suites()["code-explainer"])
    assert suite.version == ""
    assert not any(g.name.startswith("_output") for t in suite.tasks for g in t.graders)


# --- CSV tasks and templates (§2.3) ---------------------------------------------------------

CSV_EVAL = """\
schemaVersion: "1.4"
name: s
skill: demo
config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}
inputs: {lang: python, who: everyone}
tasks_from: cases.csv
range: [2, 4]
graders:
  - {name: g, type: text, config: {contains: [python]}}
"""


def test_csv_tasks_range_inputs_and_ids(tmp_path):
    csv_text = ("id,name,prompt,who\n"
                "a,A,{{.Vars.lang}} first,x\n"
                "b,B,{{ .Vars.lang }} for {{.Vars.who}},the row\n"
                ",C,{{.TaskName}} in {{.Vars.lang}},y\n"
                ",,plain,z\n"
                "e,E,after the range,w\n")
    suite = load_suite(_suite(tmp_path, CSV_EVAL, files={"cases.csv": csv_text}))
    # rows 2..4: ids b, C (no id: the name), row-4 (neither); the row's "who" wins over inputs
    assert [t.id for t in suite.tasks] == ["b", "C", "row-4"]
    assert [t.prompt for t in suite.tasks] == ["python for the row", "C in python", "plain"]
    assert all(t.graders == [] for t in suite.tasks)


def test_csv_range_end_is_clamped_and_bad_range_refused(tmp_path):
    csv_text = "id,prompt\na,one\nb,two\n"
    text = CSV_EVAL.replace("range: [2, 4]", "range: [2, 9]")
    assert [t.id for t in load_suite(_suite(tmp_path, text, files={"cases.csv": csv_text})
                                     ).tasks] == ["b"]
    text = CSV_EVAL.replace("range: [2, 4]", "range: [3, 2]")
    with pytest.raises(ScievalsError, match="range"):
        load_suite(_suite(tmp_path, text, files={"cases.csv": csv_text}))


def test_csv_missing_template_variable_and_outside_path(tmp_path):
    with pytest.raises(ScievalsError, match="no variable 'nope'"):
        load_suite(_suite(tmp_path, CSV_EVAL,
                          files={"cases.csv": "id,prompt\na,b\nc,{{.Vars.nope}}\nd,e\n"}))
    with pytest.raises(ScievalsError, match="fixture:x.*not supported"):
        load_suite(_suite(tmp_path, CSV_EVAL,
                          files={"cases.csv": "id,prompt\na,x\nb,{{fixture:x}}\n"}))
    text = CSV_EVAL.replace("tasks_from: cases.csv", "tasks_from: ../cases.csv")
    with pytest.raises(ScievalsError, match="must be a relative path inside"):
        load_suite(_suite(tmp_path, text))


def test_prompt_file_is_read_and_parent_paths_refused(tmp_path):
    task = TASK.replace('inputs: {prompt: "do it"}', "inputs: {prompt_file: p/one.md}")
    suite = load_suite(_suite(tmp_path, task=task, files={"tasks/p/one.md": "do from file"}))
    assert suite.tasks[0].prompt == "do from file"
    task = TASK.replace('inputs: {prompt: "do it"}', "inputs: {prompt_file: ../one.md}")
    with pytest.raises(ScievalsError, match="prompt_file"):
        load_suite(_suite(tmp_path, task=task))


# --- expected graders (§3.4) ----------------------------------------------------------------

def test_expected_graders_feedback():
    ctx = GraderContext(output="Use PyTest here")
    r = grade("expected.output_contains", {"strings": ["pytest", "coverage", "tox"]}, ctx)
    # 1 of 3 matched, case-insensitively
    assert (r.score, r.passed) == (pytest.approx(1 / 3), False)
    assert r.feedback == "matched 1/3 required strings; missing: [coverage tox]"
    r = grade("expected.output_not_contains", {"strings": ["error", "here"]}, ctx)
    assert (r.score, r.feedback) == (0.5, "1/2 excluded strings absent; found: [here]")
    r = grade("expected.output_contains_any", {"strings": ["unittest", "pytest"]}, ctx)
    assert (r.score, r.passed, r.feedback) == (1.0, True, 'found accepted string: "pytest"')
    r = grade("expected.output_contains_any", {"strings": ["nose"]}, ctx)
    assert (r.score, r.feedback) == (0.0, "none of the accepted strings found")


# --- multi-turn and checkpoints (§3.3) ------------------------------------------------------

MULTI = """\
id: t1
name: Task one
inputs:
  prompt: "first turn"
  follow_up_prompts: ["second turn", "third turn"]
expected: {output_contains_any: [third]}
checkpoints:
  - after_turn: 1
    graders: [{name: saw_first, type: text, config: {contains: [first]}}]
  - after_turn: 2
    on_failure: {on_failure}
    graders: [{name: wants_first, type: text, config: {contains: [first]}}]
"""


def test_follow_ups_and_checkpoints_with_the_mock(tmp_path, run_and_grade):
    suite = load_suite(_suite(tmp_path, task=MULTI.replace("{on_failure}", "continue")))
    run = run_and_grade(suite, "waza_mock")["tasks"][0]["runs"][0]
    # the graders see only the last turn's output
    assert run["final_output"] == "Mock response for: third turn"
    assert run["validations"]["_output_contains_any"]["passed"] is True
    # checkpoint 1 sees turn 1's output (passes), checkpoint 2 turn 2's (fails): the run fails
    assert [(c["after_turn"], c["status"]) for c in run["checkpoints"]] == [
        (1, "passed"), (2, "failed")]
    assert run["status"] == "failed"


def test_checkpoint_stop_ends_the_run_in_error(tmp_path, run_and_grade):
    suite = load_suite(_suite(tmp_path, task=MULTI.replace("{on_failure}", "stop")))
    run = run_and_grade(suite, "waza_mock")["tasks"][0]["runs"][0]
    # the conversation stopped after turn 2: its output is the last one graded
    assert run["final_output"] == "Mock response for: second turn"
    assert run["status"] == "error" and run["checkpoints"][1]["stopped"] is True
    assert run["error_msg"] == "checkpoint after turn 2 failed (on_failure: stop)"


def test_checkpoint_after_the_last_turn_is_refused(tmp_path):
    task = MULTI.replace("{on_failure}", "stop").replace("after_turn: 2", "after_turn: 4")
    with pytest.raises(ScievalsError, match="after_turn 4 is past the last turn"):
        load_suite(_suite(tmp_path, task=task))


# --- statistics (§5.2) ----------------------------------------------------------------------

@pytest.mark.parametrize(("passed", "n", "lower", "upper"), [
    (4, 5, 0.3755, 0.9638), (5, 5, 0.5655, 1.0), (0, 3, 0.0, 0.5615), (1, 3, 0.0615, 0.7923)])
def test_wilson_matches_the_spec_vectors(passed, n, lower, upper):
    ci = metrics.wilson(passed, n)
    assert (ci["lower"], ci["upper"]) == (pytest.approx(lower, abs=5e-5),
                                          pytest.approx(upper, abs=5e-5))
    assert ci["mean"] == pytest.approx(passed / n) and "num_bootstraps" not in ci


def test_wilson_by_the_spec_formula():
    # z = 1.959964, z^2 = 3.841459; 4/5: centre = (0.8 + z^2/10) / (1 + z^2/5)
    # = 1.1841459 / 1.7682918 = 0.669653; half = z / 1.7682918 * sqrt(0.16/5 + z^2/100)
    # = 1.108394 * sqrt(0.0704146) = 1.108394 * 0.265357 = 0.294120
    ci = metrics.wilson(4, 5)
    assert ci["lower"] == pytest.approx(0.669653 - 0.294120, abs=1e-5)
    assert ci["upper"] == pytest.approx(0.669653 + 0.294120, abs=1e-5)
    assert metrics.wilson(0, 0)["upper"] == 0.0


def test_pass_hat_k_spec_example():
    # passes 5, 4 and 2 of 5 -> [0.7333, 0.5667, 0.4667, 0.4, 0.3333]; e.g. k=2:
    # (C(5,2) + C(4,2) + C(2,2)) / C(5,2) / 3 = (10 + 6 + 1) / 10 / 3 = 0.5667
    def task(p):
        return {"runs": [{"status": "passed"}] * p + [{"status": "failed"}] * (5 - p)}

    assert metrics.pass_hat_k([task(5), task(4), task(2)]) == pytest.approx(
        [0.7333, 0.5667, 0.4667, 0.4, 0.3333], abs=5e-5)


# --- the embedded current-format suites, CLI, reporters, gate -------------------------------

def test_demo_suites_by_hand(run_and_grade):
    csv_out = run_and_grade(load_suite(demo_suites()["csv-explainer"]), "waza_mock")
    # rows 2-5: fact, calc, join, the unnamed row; calc's snippet has "eval(": its weighted
    # score is (1*1 + 2*0.5) / 3 = 2/3, the others 1 -> (3 + 2/3) / 4 = 0.916667
    assert [t["test_id"] for t in csv_out["tasks"]] == ["fact", "calc", "join", "Unnamed row"]
    assert csv_out["summary"]["weighted_score"] == pytest.approx(11 / 12)
    assert csv_out["summary"]["success_rate"] == 0.75
    # 3 of 4 tasks succeeded, Wilson over tasks: [0.3006, 0.9544]
    ci = csv_out["summary"]["statistics"]["success_rate_ci"]
    assert (ci["lower"], ci["upper"]) == (pytest.approx(0.3006, abs=5e-4),
                                          pytest.approx(0.9544, abs=5e-4))
    multi = run_and_grade(load_suite(demo_suites()["multi-turn-refactor"]), "waza_mock")
    by_id = {t["test_id"]: t for t in multi["tasks"]}
    assert by_id["refactor-then-test"]["golden"] is True
    assert by_id["refactor-then-test"]["status"] == "passed"
    # document-module: code 1.0 and _output_contains 1/3 -> (1 + 1/3) / 2 = 2/3
    assert by_id["document-module"]["stats"]["avg_weighted_score"] == pytest.approx(2 / 3)
    assert "is_significant" not in json.dumps(multi)


def test_junit_and_gate_on_the_cli(tmp_path, capsys):
    suite = str(demo_suites()["multi-turn-refactor"])
    out, junit = tmp_path / "r.json", tmp_path / "j.xml"
    # one task fails: exit 1, and the JUnit file is written all the same
    assert main(["waza", "run", suite, "-o", str(out), "--reporter", f"junit:{junit}"]) == 1
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["Document the module", "Refactor then test"]
    assert root.get("tests") == "2" and root.get("failures") == "1"
    assert cases[0].find("failure").get("message") == "Document the module: score=0.67"
    capsys.readouterr()
    assert main(["waza", "gate", "--baseline", str(out), "--current", str(out),
                 "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["outcome"] == "pass" and report["golden_total"] == 1
    # the golden task fails in "current": exit 2; a 50-point drop alone: exit 1
    current = json.loads(out.read_text())
    current["tasks"][1]["status"] = "failed"
    current["summary"]["success_rate"] = 0.0
    worse = tmp_path / "worse.json"
    worse.write_text(json.dumps(current))
    assert main(["waza", "gate", "--baseline", str(out), "--current", str(worse)]) == 2
    capsys.readouterr()
    assert main(["waza", "gate", "--baseline", str(out), "--current", str(worse),
                 "--golden-must-pass", "false", "-f", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["outcome"] == "regression"
    assert main(["waza", "gate", "--baseline", str(out), "--current",
                 str(tmp_path / "missing.json")]) == 3
    assert main(["waza", "run", suite, "--reporter", "xml:x"]) == 2
    capsys.readouterr()
    assert main(["waza", "compare", str(out), str(worse), "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert [r["success_rate"] for r in compared["runs"]] == [0.5, 0.0]


# --- parallel workers (§7) ------------------------------------------------------------------

def _without_timing(outcome: dict) -> dict:
    """The results minus what differs between any two runs (clock, durations, temp dirs)."""
    text = json.dumps(outcome, sort_keys=True)
    data = json.loads(text)
    for key in ("eval_id", "timestamp"):
        data.pop(key, None)
    data["summary"].pop("duration_ms")
    for task in data["tasks"]:
        task["stats"].pop("avg_duration_ms")
        for run in task["runs"]:
            run.pop("duration_ms")
            for validations in [run["validations"]] + [c["validations"] for c in
                                                       run.get("checkpoints") or []]:
                for v in validations.values():
                    v.pop("duration_ms")
                    v["details"].pop("workspace_dir", None)
    return data


@pytest.mark.parametrize("suite_name", ["csv-explainer", "multi-turn-refactor"])
def test_parallel_results_equal_serial_results(suite_name, run_and_grade):
    suite = load_suite(demo_suites()[suite_name])
    suite.config["parallel"], suite.config["workers"] = True, 4
    parallel = run_and_grade(suite, "waza_mock", threads=4)
    suite.config["parallel"] = False
    serial = run_and_grade(suite, "waza_mock")
    # tasks in load order whatever finished first, and every number the same
    assert [t["test_id"] for t in parallel["tasks"]] == [t.id for t in suite.tasks]
    assert _without_timing(parallel) == _without_timing(serial)


def test_worker_count():
    from scievals.waza.predict import worker_count

    suite = load_suite(demo_suites()["csv-explainer"])  # parallel: true, workers: 0 (auto)
    # auto: min(CPUs, tasks, 8), then the job's threads
    assert worker_count(suite, 4, threads=2) == 2
    assert worker_count(suite, 20, threads=64) == min(__import__("os").cpu_count(), 8)
    suite.config["workers"] = 50
    assert worker_count(suite, 3, threads=64) == 3  # capped to the tasks
    suite.config["parallel"] = False
    assert worker_count(suite, 4, threads=4) == 1


# --- baseline A/B (§2.7) --------------------------------------------------------------------

def test_normalized_gain_rules():
    from scievals.waza.metrics import normalized_gain

    # (post - pre) / (1 - pre): (0.75 - 0.5) / 0.5 = 0.5; a regression is negative
    assert normalized_gain(0.5, 0.75) == 0.5
    assert normalized_gain(0.5, 0.25) == -0.5
    assert normalized_gain(1.0, 0.5) == 0.0 and normalized_gain(0.3, 0.3) == 0.0
    assert normalized_gain(0.2, 1.0) == 1.0


class _NoSkillAgent:
    """An executor whose answers never name the language (the skill's rule)."""

    kind = "mock"

    def execute(self, prompt, workspace, trial, follow_ups=(), on_turn=None):
        from scievals.waza.executors.base import Execution

        return Execution(output="I explain: it runs.")

    def invoked_skills(self, prompt, should_trigger, trial):
        return [], ""


def test_baseline_arm_is_paired_by_task(tmp_path):
    from scievals.waza.predict import run_suite
    from scievals.waza.runs import regrade

    suite = load_suite(demo_suites()["csv-explainer"])
    assert suite.baseline is True
    recorded = run_suite(suite, "waza_mock", baseline_executor=_NoSkillAgent())
    graded = regrade(suite, recorded)
    # with skills (the mock): 3 of 4 tasks pass; without: none ("python" never named)
    assert graded["summary"]["success_rate"] == 0.75
    assert graded["baseline_outcome"]["summary"]["success_rate"] == 0.0
    impact = {t["test_id"]: t["skill_impact"] for t in graded["tasks"]}
    # fact: 1.0 - 0.0 = 1.0, percent_change = 1.0 / max(0, 0.01) * 100 = 10000
    assert impact["fact"] == {"pass_rate_with_skills": 1.0, "pass_rate_baseline": 0.0,
                              "delta": 1.0, "percent_change": pytest.approx(10000.0)}
    assert impact["calc"]["delta"] == 0.0
    # normalized gain from the success rates: (0.75 - 0) / (1 - 0)
    assert graded["summary"]["statistics"]["normalized_gain"] == 0.75
    assert metrics.exit_code(graded) == 0  # improved, although calc failed
    # the mock in both arms: a tie, which waza counts as no improvement (exit 1)
    plain = run_suite(suite, "waza_mock")
    tie = regrade(suite, {**plain, "baseline_tasks": plain["tasks"]})
    assert metrics.exit_code(tie) == 1


# --- skill_directories / disabled_skills (§2.2, §3.1) ---------------------------------------

def test_skill_directories_and_disabled_skills(tmp_path):
    from scievals.waza.executors.agent import find_skills
    from scievals.waza.predict import skill_dirs

    for name in ("alpha", "beta", "gamma"):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {name} skill\n---\nbody\n")
    text = EVAL.format(version='"1.4"').replace(
        "model: m}", "model: m, skill_directories: [skills/alpha, skills/beta], "
        "disabled_skills: [beta]}")
    task = TASK + "skill_directories: [skills/gamma]\n"
    suite = load_suite(_suite(tmp_path, text, task=task))
    # eval level: beta dropped by basename; the task's own list replaces it, unfiltered
    assert sorted(find_skills(skill_dirs(suite))) == ["alpha"]
    assert sorted(find_skills(skill_dirs(suite, suite.tasks[0]))) == ["gamma"]
    suite.config["disabled_skills"] = ["*"]
    assert skill_dirs(suite, suite.tasks[0]) == []
    suite.config["disabled_skills"], suite.config["skill_directories"] = [], []
    assert skill_dirs(suite) == [suite.directory]  # the target's folder, as waza discovers


def test_results_of_another_major_or_kind_are_refused(tmp_path):
    from scievals.waza.gate import load_results

    path = tmp_path / "r.json"
    path.write_text(json.dumps({"schemaVersion": "2.0", "skill": "s", "tasks": []}))
    with pytest.raises(ScievalsError, match="only 1.x results are read"):
        load_results(path)
    path.write_text(json.dumps({"kind": "waza.preflight", "skill": "s", "tasks": []}))
    with pytest.raises(ScievalsError, match="not a results file"):
        load_results(path)
    path.write_text(json.dumps({"schemaVersion": "1.9", "skill": "s", "tasks": []}))
    assert load_results(path)["tasks"] == []


class _PairwiseJudge:
    """Independent prompts: one pass; pairwise prompts: the output naming "python" wins."""

    def __init__(self):
        self.pairwise = 0

    def ask(self, case_id, prompt, model="", json_schema=None):
        if "## Output A" not in prompt:
            return json.dumps({"grades": [{"verdict": "pass", "description": "ok",
                                           "reason": ""}]})
        self.pairwise += 1
        a = prompt.split("## Output A", 1)[1].split("## Output B", 1)[0]
        b = prompt.split("## Output B", 1)[1]
        winner = "A" if "python" in a else ("B" if "python" in b else "tie")
        return json.dumps({"winner": winner, "magnitude": "much-better"})


def test_pairwise_judge_compares_the_two_arms(tmp_path):
    from scievals.waza.graders.base import GraderOptions
    from scievals.waza.predict import run_suite
    from scievals.waza.runs import regrade

    text = CSV_EVAL.replace("range: [2, 4]", "baseline: true").replace(
        "config: {trials_per_task: 1,", "config: {trials_per_task: 2,") + (
        "  - {name: pair, type: prompt, config: {prompt: 'Which explains better?', "
        "mode: pairwise}}\n")
    suite = load_suite(_suite(tmp_path, text, files={
        "cases.csv": "id,prompt\na,{{.Vars.lang}} one\nb,{{.Vars.lang}} two\n"}))
    judge = _PairwiseJudge()
    options = GraderOptions(judge=judge)
    graded = regrade(suite, run_suite(suite, "waza_mock", baseline_executor=_NoSkillAgent()),
                     options=options)
    pair = graded["tasks"][0]["skill_impact"]["pairwise"]["pair"]
    # 2 runs, each judged twice (positions swapped): the skill's output names python both
    # times, so the skill wins consistently: score 1 per run
    assert [(r["run_number"], r["winner"], r["score"]) for r in pair["runs"]] == [
        (1, "skill", 1.0), (2, "skill", 1.0)]
    assert pair["mean_score"] == 1.0 and judge.pairwise == 2 * 2 * 2  # tasks x runs x 2
