"""`file` and `diff` graders on a real temporary workspace (specs/waza.md §6.3, §6.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderError,
    GraderOptions,
)
from scievals.waza.graders.registry import grade


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 42\n")
    (root / "README.md").write_text("# Demo\n")
    return root


def ctx(ws: Path | None) -> GraderContext:
    return GraderContext(workspace_dir=ws)


def test_file_existence_checks_and_directories_count(ws):
    # §6.3: "one per `must_exist` (`os.Stat`, so directories count) and per `must_not_exist`".
    # must_exist src (dir) ok, missing.txt fails; must_not_exist README.md fails -> 1 of 3.
    r = grade("file", {"must_exist": ["src", "missing.txt"], "must_not_exist": ["README.md"]},
              ctx(ws))
    assert r.score == pytest.approx(1 / 3)
    assert r.feedback == ("File must exist but not found: missing.txt; "
                          "File must not exist but found: README.md")


def test_file_content_patterns_count_an_implicit_readable_check(ws):
    # §6.3: "per content pattern one implicit "readable" check plus one per regex".
    # app.py readable (1) + "def main" matches (1) + forbidden "TODO" absent (1) +
    # "return 7" missing (0) -> 3 of 4.
    r = grade("file", {"content_patterns": [{"path": "src/app.py",
                                             "must_match": ["def main", "return 7"],
                                             "must_not_match": ["TODO"]}]}, ctx(ws))
    assert r.score == 0.75
    assert r.feedback == "File src/app.py missing expected pattern: return 7"


def test_file_missing_content_file_fails_every_pattern(ws):
    # §6.3: "A missing content file fails the implicit check **and** all its patterns".
    r = grade("file", {"content_patterns": [{"path": "nope.py", "must_match": ["a"],
                                             "must_not_match": ["x"]}]}, ctx(ws))
    assert r.score == 0.0
    assert r.feedback == ("File not found for content check: nope.py; "
                          "File nope.py missing expected pattern (file not found): a; "
                          "File nope.py could not verify absence of pattern (file not found): x")


def test_file_no_workspace_scores_zero():
    r = grade("file", {"must_exist": ["a"]}, ctx(None))
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == "No workspace directory available for file grading"


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "src/../../x"])
def test_file_path_outside_workspace_is_a_grader_error(ws, path):
    # §6.3: "An absolute path, or one escaping via `..`, is a grader **error**".
    with pytest.raises(GraderError):
        grade("file", {"must_exist": [path]}, ctx(ws))


def test_file_needs_one_check():
    with pytest.raises(GraderConfigError, match="at least one"):
        grade("file", {}, ctx(None))


def test_file_invalid_regex_is_failed_check(ws):
    r = grade("file", {"content_patterns": [{"path": "README.md", "must_match": ["(?<=x)"]}]},
              ctx(ws))
    assert r.score == 0.5  # readable ok, invalid pattern fails
    assert r.feedback.startswith("Invalid 'must_match' regex pattern \"(?<=x)\" for file README.md")


def test_diff_contains_fragments(ws):
    # §6.4: "`+x` or `x` must appear, `-x` must not (substring of the whole file, trimmed; an
    # empty fragment counts and always passes)". Checks: exists + 4 fragments = 5;
    # "+def main" ok, "return 42" ok, "-return" fails, "+" (empty) passes -> 4/5.
    r = grade("diff", {"expected_files": [{"path": "src/app.py", "contains": [
        "+def main", "return 42", "-return", "+"]}]}, ctx(ws))
    assert r.score == pytest.approx(4 / 5)
    assert r.feedback == "File src/app.py contains fragment that should be absent: return"


def test_diff_snapshot_exact_bytes(ws, tmp_path):
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    (snaps / "readme.snap").write_text("# Demo\n")
    (snaps / "app.snap").write_text("def main():\n    return 41\n")
    r = grade("diff", {"context_dir": str(snaps), "expected_files": [
        {"path": "README.md", "snapshot": "readme.snap"},
        {"path": "src/app.py", "snapshot": "app.snap"}]}, ctx(ws))
    # 2 files x (exists + snapshot) = 4 checks, app.py snapshot differs -> 3/4.
    assert r.score == 0.75
    assert r.feedback == "File src/app.py does not match snapshot app.snap"


def test_diff_missing_file_fails_every_subcheck(ws):
    # §6.4: "A missing workspace file fails every sub-check of its entry": 1 + 1 + 2 = 4 failed.
    r = grade("diff", {"expected_files": [{"path": "gone.txt", "snapshot": "s",
                                           "contains": ["a", "-b"]}]}, ctx(ws))
    assert r.score == 0.0
    assert r.feedback == ("Expected file not found in workspace: gone.txt; "
                          "Snapshot comparison skipped (file not found): gone.txt; "
                          "Contains check skipped (file not found): gone.txt → a; "
                          "Contains check skipped (file not found): gone.txt → -b")


def test_diff_update_snapshots_rewrites_and_passes(ws, tmp_path):
    # §6.4: "With update: mismatched/missing snapshots are rewritten and pass (`All diff checks
    # passed (snapshots: U updated, C created, N unchanged)`)".
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    (snaps / "readme.snap").write_text("old\n")
    (snaps / "same.snap").write_text("def main():\n    return 42\n")
    r = grade("diff", {"context_dir": str(snaps), "expected_files": [
        {"path": "README.md", "snapshot": "readme.snap"},
        {"path": "src/app.py", "snapshot": "same.snap"},
        {"path": "README.md", "snapshot": "new/readme.snap"}]}, ctx(ws),
        GraderOptions(update_snapshots=True))
    assert (r.score, r.passed) == (1.0, True)
    assert r.feedback == "All diff checks passed (snapshots: 1 updated, 1 created, 1 unchanged)"
    assert (snaps / "readme.snap").read_text() == "# Demo\n"
    assert (snaps / "new" / "readme.snap").read_text() == "# Demo\n"


def test_diff_update_refuses_snapshot_escaping_context_dir(ws, tmp_path):
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    r = grade("diff", {"context_dir": str(snaps), "update_snapshots": True, "expected_files": [
        {"path": "README.md", "snapshot": "../evil.snap"}]}, ctx(ws))
    assert r.passed is False
    assert r.feedback.startswith("Invalid snapshot file ../evil.snap")
    assert not (tmp_path / "evil.snap").exists()


def test_diff_entry_needs_snapshot_or_contains():
    with pytest.raises(GraderConfigError, match="must have 'snapshot' or 'contains'"):
        grade("diff", {"expected_files": [{"path": "a"}]}, ctx(None))


def test_diff_context_dir_is_not_defaulted_to_fixtures(ws, tmp_path, monkeypatch):
    # §6.4: "`context_dir` is not defaulted to `--context-dir` ... relative snapshots then
    # resolve against the CWD". The fixtures dir holds a matching snapshot, the CWD a stale one.
    fixtures, cwd = tmp_path / "fixtures", tmp_path / "cwd"
    fixtures.mkdir()
    cwd.mkdir()
    (fixtures / "r.snap").write_text("# Demo\n")
    (cwd / "r.snap").write_text("stale\n")
    monkeypatch.chdir(cwd)
    c = GraderContext(workspace_dir=ws, context_dir=fixtures)
    r = grade("diff", {"expected_files": [{"path": "README.md", "snapshot": "r.snap"}]}, c)
    assert r.feedback == "File README.md does not match snapshot r.snap"
