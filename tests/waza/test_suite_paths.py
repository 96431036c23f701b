"""Everything a suite reads is inside its folder (issue 19 item 6): task globs,
context_dir, fixtures (symlinks resolved), trigger file, skill directories."""

from __future__ import annotations

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.waza.data import download_suites, tree_sha256
from scievals.waza.suites import check_suite, load_suite

TASK = "id: {id}\nname: {id}\ninputs: {{prompt: hello{files}}}\n{extra}"


def _suite(tmp_path, tasks=("tasks/*.yaml",), files="", extra="", config=""):
    suite, elsewhere = tmp_path / "suite", tmp_path / "elsewhere"
    (suite / "tasks").mkdir(parents=True)
    elsewhere.mkdir()
    globs = ", ".join(f"'{g}'" for g in tasks)
    (suite / "eval.yaml").write_text(f"skill: s\ntasks: [{globs}]\n{config}")
    (suite / "tasks" / "t.yaml").write_text(TASK.format(id="t1", files=files, extra=extra))
    (elsewhere / "t.yaml").write_text(TASK.format(id="outside", files="", extra=""))
    (elsewhere / "secret.txt").write_text("host file")
    return suite, elsewhere


def _refused(suite, text):
    with pytest.raises(ScievalsError) as info:
        load_suite(suite)
    line = info.value.one_line()
    assert text in line and "is outside the suite folder" in line and "\n" not in line
    assert any(text in p for p in check_suite(suite))


def test_absolute_task_glob_outside_the_suite_is_refused(tmp_path):
    suite, elsewhere = _suite(tmp_path)
    (suite / "eval.yaml").write_text(f"skill: s\ntasks: ['tasks/*.yaml', "
                                     f"'{elsewhere}/*.yaml']\n")
    _refused(suite, f"task file '{elsewhere / 't.yaml'}'")
    (suite / "eval.yaml").write_text("skill: s\ntasks: ['tasks/*.yaml', '../elsewhere/*.yaml']\n")
    _refused(suite, "tasks[1]: task file")


def test_symlinked_task_file_is_refused(tmp_path):
    suite, elsewhere = _suite(tmp_path)
    (suite / "tasks" / "linked.yaml").symlink_to(elsewhere / "t.yaml")
    _refused(suite, f"(resolves to {elsewhere / 't.yaml'})")


def test_context_dir_outside_is_refused(tmp_path):
    suite, _ = _suite(tmp_path, files=", files: [{path: passwd}]",
                      extra="context_dir: ../../../../../../../etc\n")
    _refused(suite, "context_dir: the folder")


def test_symlinked_fixture_and_fixtures_folder_are_refused(tmp_path):
    suite, elsewhere = _suite(tmp_path, files=", files: [{path: secret.txt}]")
    (suite / "fixtures").mkdir()
    (suite / "fixtures" / "secret.txt").symlink_to(elsewhere / "secret.txt")
    _refused(suite, "inputs.files: fixture")
    (suite / "fixtures" / "secret.txt").unlink()
    (suite / "fixtures").rmdir()
    (suite / "fixtures").symlink_to(elsewhere)
    _refused(suite, "inputs.files: fixture")


def test_fixture_folder_given_on_the_command_line_may_be_elsewhere(tmp_path, capsys):
    suite, elsewhere = _suite(tmp_path, files=", files: [{path: secret.txt}]")
    assert main(["waza", "run", str(suite), "--context-dir", str(elsewhere)]) == 0


def test_trigger_file_and_skill_directories_outside_are_refused(tmp_path):
    suite, elsewhere = _suite(tmp_path, config="config: {skill_directories: ['../elsewhere']}\n")
    _refused(suite, "config.skill_directories[0]: skill directory")
    suite, elsewhere = _suite(tmp_path / "2")
    (elsewhere / "trigger_tests.yaml").write_text(
        "skill: s\nshould_trigger_prompts: [{prompt: hi}]\n")
    (suite / "trigger_tests.yaml").symlink_to(elsewhere / "trigger_tests.yaml")
    _refused(suite, "trigger_tests.yaml: the file")


def test_links_inside_the_suite_are_fine_and_covered_by_its_checksum(tmp_path):
    suite, _ = _suite(tmp_path, files=", files: [{path: data.txt}]")
    (suite / "fixtures").mkdir()
    (suite / "shared.txt").write_text("one")
    (suite / "fixtures" / "data.txt").symlink_to(suite / "shared.txt")
    assert [t.id for t in load_suite(suite).tasks] == ["t1"]
    before = tree_sha256(suite)
    (suite / "shared.txt").write_text("two")  # an edit of the linked file changes the sha
    assert tree_sha256(suite) != before


def test_download_refuses_a_suite_folder_with_links_leading_out(tmp_path):
    root = tmp_path / "suites"
    suite, elsewhere = _suite(root)
    (suite / "notes.txt").symlink_to(elsewhere / "secret.txt")
    cfg = {"source": "file", "path": str(root), "sha256": "", "allow_unverified": True,
           "url": "", "download_timeout_s": 30, "max_download_mb": 200, "suites": ["suite"]}
    with pytest.raises(ScievalsError, match=r"symlink\(s\) to outside the suite folder: "
                                            r"notes\.txt"):
        download_suites(cfg, tmp_path / "out", tmp_path / "source.json")
    assert not (tmp_path / "out" / "suite" / "notes.txt").exists()
