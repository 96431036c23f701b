"""The digest of a benchmark's score code (scievals.common.code_digest) covers every module
the score code can import, changes with any edit to one of them, and leaves out the code that
does not compute tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scievals import registry
from scievals.common import code_digest, score_cache
from scievals.common.jobs import ScoreJob
from test_import_floors import GRAPH


def ast_closure(root: str) -> set[str]:
    """The modules ``root`` reaches in tests/test_import_floors.py's graph (read with ``ast``,
    every import at module level or in a function), with the packages above each."""
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name in seen or name not in GRAPH:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        todo.extend(GRAPH[name])
    return seen


@pytest.mark.parametrize("name", registry.NAMES)
def test_the_digest_covers_every_module_the_score_code_imports(name):
    root = f"scievals.{name}.score"
    reached = set(code_digest.reached_modules(root))
    expected = ast_closure(root)
    assert {root, f"scievals.{name}.metrics", "scievals.stats.intervals"} <= expected
    assert expected <= reached, sorted(expected - reached)


def test_code_that_makes_predictions_is_left_out():
    # predict code (an edit re-runs the predictions, whose new files re-score), not scoring
    assert "scievals.abdev.predict" not in code_digest.reached_modules("scievals.abdev.score")
    waza = code_digest.reached_modules("scievals.waza.score")
    assert "scievals.waza.executors.agent" not in waza
    assert "scievals.waza.graders.base" in waza


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A copy of the package for the digest to read (its caches emptied before and after)."""
    copy = tmp_path / "scievals"
    shutil.copytree(code_digest.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(code_digest, "PACKAGE", copy)
    code_digest._module.cache_clear()
    code_digest.code_digest.cache_clear()
    yield copy
    code_digest._module.cache_clear()
    code_digest.code_digest.cache_clear()


def digests() -> dict[str, str]:
    code_digest._module.cache_clear()
    code_digest.code_digest.cache_clear()
    return {name: code_digest.score_code_digest(name) for name in ("abdev", "gating")}


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_copy_digests_as_the_package_does(package, monkeypatch):
    ours = digests()
    monkeypatch.setattr(code_digest, "PACKAGE", Path(score_cache.__file__).resolve().parents[1])
    assert digests() == ours  # the digest names modules, not where the checkout is


def test_an_edit_changes_the_digest_of_every_benchmark_whose_scoring_reaches_it(package):
    first = digests()
    assert len(first["abdev"]) == 64 and first["abdev"] != first["gating"]
    append(package / "abdev" / "predict.py", "# not scoring code\n")
    assert digests() == first
    append(package / "abdev" / "score.py", "# a comment is an edit too\n")
    second = digests()
    assert second["abdev"] != first["abdev"] and second["gating"] == first["gating"]
    # shared statistics: both
    text = (package / "stats" / "intervals.py").read_text(encoding="utf-8")
    (package / "stats" / "intervals.py").write_text(
        text.replace("\nLEVEL = 0.95\n", "\nLEVEL = 0.90\n"), encoding="utf-8")
    third = digests()
    assert third["abdev"] != second["abdev"] and third["gating"] != second["gating"]


def test_a_kept_tables_key_changes_with_the_score_code(package, tmp_path):
    # the same commit name before and after (git_commit is read once per process)
    (tmp_path / "own.csv").write_text("predictions\n")
    job = ScoreJob(benchmark="abdev", model="a", predictions=(tmp_path / "own.csv",),
                   truth={}, outputs={"table": tmp_path / "a.csv"})
    digests()
    before = score_cache.job_key(job, "abdev-metrics-v4", "")
    append(package / "common" / "tables.py", "\n")
    digests()
    assert score_cache.job_key(job, "abdev-metrics-v4", "") != before


def test_a_kept_tables_key_changes_with_a_library_version(tmp_path, monkeypatch):
    # a table kept under one scipy is not served under another
    (tmp_path / "own.csv").write_text("predictions\n")
    job = ScoreJob(benchmark="abdev", model="a", predictions=(tmp_path / "own.csv",),
                   truth={}, outputs={"table": tmp_path / "a.csv"})
    before = score_cache.job_key(job, "abdev-metrics-v4", "")
    real = code_digest.metadata.version
    monkeypatch.setattr(code_digest.metadata, "version",
                        lambda dist: "0.0-other" if dist == "scipy" else real(dist))
    code_digest.library_versions.cache_clear()
    try:
        assert score_cache.job_key(job, "abdev-metrics-v4", "") != before
    finally:
        code_digest.library_versions.cache_clear()


@pytest.mark.parametrize("name", registry.NAMES)
def test_library_versions_name_what_the_score_code_imports(name):
    # every third-party module of the score code's reach, by importlib.metadata's own map of
    # installed modules to distributions (independent of DISTRIBUTION_OF), with its version
    from importlib import metadata

    providers = metadata.packages_distributions()
    versions = dict(code_digest.library_versions(f"scievals.{name}.score"))
    assert {"numpy", "pandas", "scipy"} <= set(versions)
    for source in code_digest.reached_modules(f"scievals.{name}.score").values():
        for pair in code_digest._TOP.findall(source):
            for module in (m.decode() for m in pair if m):
                for dist in providers.get(module, ()):
                    if module != "scievals":
                        assert versions[dist] == metadata.version(dist), (module, dist)


def test_the_comparisons_jobs_code_covers_the_engine(package):
    # rules/comparisons.smk names this digest in the job's code_version: an edit to the
    # paired tests re-runs every comparisons job, one to a benchmark's items function its own.
    def versions():
        code_digest._module.cache_clear()
        code_digest.code_digest.cache_clear()
        return {b.name: code_digest.code_digest(b.comparisons.split(":")[0],
                                                "scievals.stats.comparisons")
                for b in registry.REGISTRY}
    first = versions()
    assert {"scievals.stats.paired", "scievals.stats.intervals"} <= set(
        code_digest.reached_modules("scievals.stats.comparisons"))
    append(package / "stats" / "paired.py", "# an edit to the paired tests\n")
    second = versions()
    assert all(second[name] != first[name] for name in first)
    append(package / "waza" / "comparisons.py", "# waza's items\n")
    third = versions()
    assert [name for name in third if third[name] != second[name]] == ["waza"]
