"""Strict suite loading (specs/waza.md §2-§3): every embedded suite loads; unknown keys,
wrong types and missing fields name the file, the key path and the allowed keys."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from scievals.common.errors import ScievalsError
from scievals.waza.data import DEMO_DIR, demo_suites
from scievals.waza.suites import check_suite, load_suite
from scievals.waza.workspaces import make as make_workspace

EVAL = """\
name: s
skill: demo-skill
config: {trials_per_task: 1, timeout_seconds: 60, executor: mock, model: m}
metrics: [{name: trigger_accuracy, weight: 1, threshold: 0.8}]
tasks: ["tasks/*.yaml"]
"""
TASK = """\
id: t1
name: Task one
inputs: {prompt: "do it"}
graders:
  - {name: g, type: text, config: {contains: [x]}}
"""


def _suite(tmp_path: Path, eval_text: str = EVAL, task_text: str = TASK,
           trigger: str | None = None) -> Path:
    (tmp_path / "tasks").mkdir(exist_ok=True)
    (tmp_path / "eval.yaml").write_text(textwrap.dedent(eval_text))
    (tmp_path / "tasks" / "t1.yaml").write_text(textwrap.dedent(task_text))
    if trigger is not None:
        (tmp_path / "trigger_tests.yaml").write_text(textwrap.dedent(trigger))
    return tmp_path


def test_every_embedded_suite_loads():
    suites = {name: load_suite(path) for name, path in demo_suites().items()}
    assert {n: len(s.tasks) for n, s in suites.items()} == {
        "code-explainer": 4, "grader-showcase": 6, "azure-deploy": 2,
        "cli-session-recorder": 2,
        # schemaVersion 1.4 suites: range [2, 5] of 6 CSV rows = 4 tasks; two task files
        "csv-explainer": 4, "multi-turn-refactor": 2}
    # trigger_tests.yaml: 8 + 8, 6 + 6, and cli-session-recorder 5 + 4 prompts
    assert len(suites["code-explainer"].trigger_prompts) == 16
    assert len(suites["azure-deploy"].trigger_prompts) == 12
    assert suites["grader-showcase"].trigger_prompts == []


def test_legacy_top_level_assertions_are_graded_not_ignored():
    suite = load_suite(demo_suites()["azure-deploy"])
    task = next(t for t in suite.tasks if t.id == "deploy-container-app-001")
    grader = task.graders[0]
    assert (grader.name, grader.type) == ("container_deployment", "code")
    assert grader.config == {"assertions": [
        "'container' in output.lower() or 'deploy' in output.lower()"]}


def test_both_assertion_forms_give_a_note(tmp_path):
    task = TASK.replace("graders:\n  - {name: g, type: text, config: {contains: [x]}}",
                        'graders:\n  - name: g\n    type: code\n'
                        '    assertions: ["len(output) > 1"]\n'
                        '    config: {assertions: ["len(output) > 0"]}')
    suite = load_suite(_suite(tmp_path, task_text=task))
    assert suite.tasks[0].graders[0].config["assertions"] == ["len(output) > 0",
                                                              "len(output) > 1"]
    assert any("both top-level assertions and config.assertions" in n for n in suite.notes)


def test_unknown_key_names_file_path_and_allowed_keys(tmp_path):
    path = _suite(tmp_path, EVAL.replace("trials_per_task: 1", "trials_per_tasks: 1"))
    with pytest.raises(ScievalsError) as err:
        load_suite(path)
    text = err.value.one_line()
    assert str(path / "eval.yaml") in text
    assert "config: unknown key(s) trials_per_tasks" in text
    assert "allowed keys: executor, fail_fast" in text and "trials_per_task" in text


def test_wrong_type_and_missing_field(tmp_path):
    path = _suite(tmp_path, EVAL.replace("timeout_seconds: 60", "timeout_seconds: soon"))
    with pytest.raises(ScievalsError, match=r"config\.timeout_seconds: 'soon' is not of type "
                                            "integer"):
        load_suite(path)
    path = _suite(tmp_path, task_text=TASK.replace('inputs: {prompt: "do it"}\n', ""))
    with pytest.raises(ScievalsError, match=r"t1\.yaml.*'inputs' is a required property"):
        load_suite(path)


def test_grader_config_is_strict_per_type(tmp_path):
    path = _suite(tmp_path, task_text=TASK.replace("contains: [x]", "contain: [x]"))
    with pytest.raises(ScievalsError, match=r"graders\[0\]\.config: unknown key\(s\) contain "
                                            r"\(allowed keys: contains, contains_cs"):
        load_suite(path)


def test_bad_trigger_confidence_and_no_glob_match(tmp_path):
    trigger = "skill: demo-skill\nshould_trigger_prompts:\n  - {prompt: hi, confidence: low}\n"
    with pytest.raises(ScievalsError, match=r"trigger_tests\.yaml: should_trigger_prompts\[0\]"
                                            r"\.confidence: 'low' is not allowed"):
        load_suite(_suite(tmp_path, trigger=trigger))
    (tmp_path / "trigger_tests.yaml").unlink()
    with pytest.raises(ScievalsError, match="matches no file"):
        load_suite(_suite(tmp_path, EVAL.replace("tasks/*.yaml", "nothing/*.yaml")))


def test_check_lists_every_problem():
    assert check_suite(demo_suites()["code-explainer"]) == []
    assert check_suite(demo_suites()["grader-showcase"]) == []
    legacy = check_suite(demo_suites()["cli-session-recorder"])
    assert len(legacy) == 3  # config.executor, config.model, graders[1].type regex
    assert any("'executor' is a required property" in p for p in legacy)
    assert any("graders[1].type: 'regex' is not allowed" in p for p in legacy)
    interactive = check_suite(DEMO_DIR / "invalid" / "waza-interactive-eval.yaml")
    assert any("unknown key(s) executor" in p for p in interactive)
    assert any("'config' is a required property" in p for p in interactive)
    assert any("tasks[0]:" in p and "is not of type string" in p for p in interactive)


def test_fixture_precedence_and_workspace_holds_only_task_files(tmp_path):
    task = TASK.replace('inputs: {prompt: "do it"}',
                        'inputs: {prompt: "do it", files: [{path: a.txt}, '
                        '{path: b.txt, content: inline}, {path: ../escape.txt}]}')
    root = _suite(tmp_path, task_text=task)
    for folder, text in (("fixtures", "default"), ("other", "context-dir"),
                         ("own", "task context_dir")):
        (root / folder).mkdir()
        (root / folder / "a.txt").write_text(text)
        (root / folder / "extra.txt").write_text("not a task file")

    def workspace_text(suite):
        workspace = make_workspace(suite, suite.tasks[0])
        try:
            assert sorted(p.name for p in workspace.iterdir()) == ["a.txt", "b.txt"]
            assert (workspace / "b.txt").read_text() == "inline"
            return (workspace / "a.txt").read_text()
        finally:
            import shutil
            shutil.rmtree(workspace)

    suite = load_suite(root)
    assert any("skipped '../escape.txt'" in n for n in suite.notes)
    assert workspace_text(suite) == "default"
    assert workspace_text(load_suite(root, context_dir=root / "other")) == "context-dir"
    (root / "tasks" / "t1.yaml").write_text(task + "context_dir: own\n")
    assert workspace_text(load_suite(root, context_dir=root / "other")) == "task context_dir"


def test_missing_fixture_is_a_load_error(tmp_path):
    task = TASK.replace('inputs: {prompt: "do it"}',
                        'inputs: {prompt: "do it", files: [{path: gone.py}]}')
    with pytest.raises(ScievalsError, match="fixture 'gone.py' not found"):
        load_suite(_suite(tmp_path, task_text=task))


def test_check_lists_problems_of_eval_and_task_files_together(tmp_path):
    root = _suite(tmp_path, EVAL.replace("executor: mock, ", ""),
                  TASK.replace("contains: [x]", "contain: [x]"))
    problems = check_suite(root)
    assert len(problems) == 3, problems
    assert "eval.yaml: config: 'executor' is a required property" in problems[0]
    # the misspelt key is unknown, and then no text check is configured at all
    assert any("t1.yaml: graders[0].config: unknown key(s) contain" in p for p in problems)
    assert any("t1.yaml: graders[0].config: needs at least one of: contains, not_contains"
               in p for p in problems)


def test_inline_file_without_path_is_an_error(tmp_path):
    task = TASK.replace('inputs: {prompt: "do it"}',
                        'inputs: {prompt: "do it", files: [{content: "x"}]}')
    with pytest.raises(ScievalsError, match=r"inputs\.files\[0\]: needs a path"):
        load_suite(_suite(tmp_path, task_text=task))


def test_python_era_include_globs_and_config_keys_load(tmp_path):
    text = EVAL.replace('tasks: ["tasks/*.yaml"]', 'tasks: ["include: tasks/*.yaml"]').replace(
        "model: m}", "model: m, max_workers: 2, verbose: true}")
    suite = load_suite(_suite(tmp_path, text))
    assert [t.id for t in suite.tasks] == ["t1"]
    assert suite.config["max_workers"] == 2


def test_unknown_grader_type_and_unsupported_keys_are_refused(tmp_path):
    with pytest.raises(ScievalsError, match=r"graders\[0\]\.type: 'txt' is not allowed "
                                            r"\(allowed values: code, prompt, text"):
        load_suite(_suite(tmp_path, task_text=TASK.replace("type: text", "type: txt")))
    # current-format keys without schemaVersion: read as 1.x, as waza reads a missing
    # version (issue 30; they used to be refused here), so the hooks and A/B mode are kept
    hooked = load_suite(_suite(tmp_path, EVAL + "hooks: {before_run: [{command: echo hi}]}\n"))
    assert hooked.version == "1.4" and hooked.hooks["before_run"][0]["command"] == "echo hi"
    assert load_suite(_suite(tmp_path, EVAL + "baseline: true\n")).baseline is True


def test_bad_grader_configs_are_load_and_check_problems(tmp_path, capsys):
    """Graders are built while loading, so a config only a constructor rejects is a load
    problem, not an `error` status of every run. Spec §6.11: for `tool_constraint`, "Empty
    `tool` or an invalid regex is a constructor error (`config.expect_tools[0].tool: ...`)"."""
    from scievals.cli import main

    bad_regex = EVAL + ("graders:\n  - {name: tc, type: tool_constraint, "
                        "config: {expect_tools: [{tool: '(bash'}]}}\n")
    bad_pattern = TASK + ("  - {name: tc2, type: tool_constraint, "
                          "config: {reject_tools: [{tool: bash, command_pattern: '[z-a]'}]}}\n")
    root = _suite(tmp_path, bad_regex, bad_pattern)
    problems = check_suite(root)
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"{root / 'eval.yaml'}: graders[0] (tc): "
                                  "config.expect_tools[0].tool: ")
    assert problems[1].startswith(f"{root / 'tasks' / 't1.yaml'}: graders[1] (tc2): "
                                  "config.reject_tools[0].command_pattern: ")
    with pytest.raises(ScievalsError, match=r"eval\.yaml: graders\[0\] \(tc\): config\."
                                            r"expect_tools\[0\]\.tool: .*\(\+1 more: "):
        load_suite(root)
    # `waza check` lists every problem, one per line, and exits 1
    assert main(["waza", "check", str(root)]) == 1
    assert capsys.readouterr().out.splitlines() == problems


def test_legacy_top_level_script_and_model_reach_the_grader(tmp_path, caplog):
    """Spec §2: eval.yaml graders are `{type, name, weight?, config?, script?, rubric?,
    model?}` and "`script`/`rubric`/`model` are ignored in Go"; the Python era read them, so
    the `script` grader must get its script and `llm` its judge model (default
    `gpt-4o-mini`, §6.7). Elsewhere a top-level key is ignored with a note."""
    from scievals.waza.graders.base import GraderContext
    from scievals.waza.graders.registry import build

    script = tmp_path / "grade.py"
    # §6.15: stdin = the GraderContext JSON, stdout = {score, passed, message, details}
    script.write_text("import json, sys\nc = json.load(sys.stdin)\n"
                      "print(json.dumps({'score': 0.25, 'passed': False, "
                      "'message': 'saw ' + c['output']}))\n")
    graders = (f"graders:\n  - {{name: s, type: script, script: '{script}'}}\n"
               "  - {name: j, type: llm, model: gpt-4o, rubric: Score 1-5}\n"
               "  - {name: t, type: text, model: gpt-4o, config: {contains: [x]}}\n"
               "  - {name: j2, type: llm, model: gpt-4o, config: {model: o3}}\n")
    suite = load_suite(_suite(tmp_path, EVAL + graders))
    by_name = {g.name: g for g in suite.graders}
    assert by_name["s"].config == {"script": str(script)}
    result = build("script", by_name["s"].config).grade(GraderContext(output="abc"))
    assert (result.score, result.passed, result.feedback) == (0.25, False, "saw abc")
    assert by_name["j"].config == {"model": "gpt-4o", "rubric": "Score 1-5"}
    assert build("llm", by_name["j"].config).model == "gpt-4o"
    assert by_name["t"].config == {"contains": ["x"]}
    assert by_name["j2"].config == {"model": "o3"}  # config's own value wins
    assert "graders[2]: top-level model is ignored by a text grader" in caplog.text
    assert "graders[3]: both top-level model and config.model; using config.model" in caplog.text
