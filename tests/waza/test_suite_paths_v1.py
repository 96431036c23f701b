"""Suite-folder containment (suite_paths) for the schemaVersion 1.x keys, and key
redaction across multi-turn transcripts (merge of faults-waza with waza-current)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.waza.suites import load_suite

FAKE_KEY = "sk-merge-test-0123456789abcdef"


def _suite(root: Path, extra: str = "", task: str = "inputs: {prompt: 'do a'}\n") -> Path:
    (root / "tasks").mkdir(parents=True)
    (root / "eval.yaml").write_text(textwrap.dedent("""\
        schemaVersion: "1.4"
        name: paths
        skill: demo
        config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}
        tasks: ["tasks/*.yaml"]
        graders: [{name: g, type: text, config: {contains: [mock]}}]
        """) + extra)
    (root / "tasks" / "a.yaml").write_text("id: a\nname: Task a\n" + task)
    return root


def _refused(suite: Path) -> str:
    with pytest.raises(ScievalsError) as info:
        load_suite(suite)
    return str(info.value)


def test_a_v1_suite_inside_its_folder_loads(tmp_path):
    suite = _suite(tmp_path / "s", 'hooks:\n  before_run: [{command: "python3 hooks/x.py"}]\n')
    assert load_suite(suite).hooks["before_run"][0]["command"] == "python3 hooks/x.py"


def test_a_v1_task_file_symlinked_out_of_the_suite_is_refused(tmp_path):
    suite = _suite(tmp_path / "s")
    (tmp_path / "outside.yaml").write_text("id: b\nname: B\ninputs: {prompt: x}\n")
    (suite / "tasks" / "b.yaml").symlink_to(tmp_path / "outside.yaml")
    assert "is outside the suite folder" in _refused(suite)


def test_v1_context_dir_and_task_skill_directories_outside_are_refused(tmp_path):
    suite = _suite(tmp_path / "s", task="inputs: {prompt: 'do a'}\ncontext_dir: ../..\n")
    assert "context_dir" in _refused(suite)
    suite = _suite(tmp_path / "t", task="inputs: {prompt: 'do a'}\n"
                   "skill_directories: [../elsewhere]\n")
    assert "skill_directories[0]" in _refused(suite)


def test_v1_config_skill_directories_outside_are_refused(tmp_path):
    suite = _suite(tmp_path / "s")
    text = (suite / "eval.yaml").read_text().replace(
        "executor: mock}", "executor: mock, skill_directories: [../../x]}")
    (suite / "eval.yaml").write_text(text)
    assert "config.skill_directories[0]" in _refused(suite)


@pytest.mark.parametrize("hook", [
    '{command: "python3 ../evil.py"}',
    '{command: "./run.sh", working_directory: "sub/../.."}',
    '{command: "../../bin/tool --flag"}',
])
def test_hook_paths_leading_out_of_the_suite_are_refused(tmp_path, hook):
    suite = _suite(tmp_path / "s", f"hooks:\n  before_task: [{hook}]\n")
    assert "hooks.before_task[0]" in _refused(suite)


def test_tasks_from_and_prompt_file_outside_are_refused(tmp_path):
    (tmp_path / "cases.csv").write_text("id,prompt\nr1,hello\n")
    suite = _suite(tmp_path / "s", "tasks_from: ../cases.csv\n")
    assert "tasks_from" in _refused(suite)
    (tmp_path / "p.md").write_text("secret prompt")
    suite = _suite(tmp_path / "t", task="inputs: {prompt_file: ../../p.md}\n")
    assert "prompt_file" in _refused(suite)


def test_a_rubric_file_outside_the_suite_is_refused(tmp_path):
    (tmp_path / "r.md").write_text("---\nname: r\n---\nJudge it.\n")
    suite = _suite(tmp_path / "s")
    text = (suite / "eval.yaml").read_text().replace(
        "contains: [mock]}}]", "contains: [mock]}}, {name: j, type: prompt, config: "
        "{rubric: ../r.md}}]")
    (suite / "eval.yaml").write_text(text)
    assert "rubric file" in _refused(suite)


def test_keys_are_redacted_in_every_turn_of_a_multi_turn_run(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    suite = _suite(tmp_path / "s", task=(
        f"inputs:\n  prompt: 'first {FAKE_KEY}'\n"
        f"  follow_up_prompts: ['second {FAKE_KEY}', 'third {FAKE_KEY}']\n"))
    out, transcripts = tmp_path / "r.json", tmp_path / "tr"
    main(["waza", "run", str(suite), "-o", str(out), "--transcript-dir", str(transcripts)])
    written = out.read_text() + "".join(p.read_text() for p in transcripts.rglob("*.json"))
    assert FAKE_KEY not in written
    run = json.loads(out.read_text())["tasks"][0]["runs"][0]
    assert "[OPENAI_API_KEY redacted]" in run["final_output"]
    assert "third" in run["final_output"]  # the last turn's output
