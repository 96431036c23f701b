"""Every registered benchmark is complete and follows one template (docs/adding-a-benchmark.md):
schema, rules file with the template's rule names and code-version params, CLI, docs page, demo
data, tests folder, figures (own ones with captions, or the generic one), pure metrics, headline
metrics (that the default run reports them: tests/workflow/test_workflow_default.py)."""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import re
from pathlib import Path

import pytest
from scievals import benchmarks
from scievals.common.config import section_schema, validate
from scievals.common.io import read_yaml

ROOT = Path(__file__).resolve().parents[1]
NAMES = list(benchmarks.NAMES)
RULE = re.compile(r"^rule (\w+):\n(.*?)(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
# Calls that read or write files: a metrics module must make none of them.
IO_CALLS = {"open", "read_csv", "to_csv", "read_json", "write_json", "read_jsonl", "write_jsonl",
            "write_csv", "write_text", "read_text", "read_yaml", "write_result_table"}


def rules_of(name: str) -> dict[str, str]:
    return dict(RULE.findall(benchmarks.get(name).rules.read_text()))


def test_the_registry_names_abdev_and_gating_once():
    assert NAMES[:2] == ["abdev", "gating"]
    assert len(NAMES) == len(set(NAMES))
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in NAMES)
    with pytest.raises(KeyError, match="registered: "):
        benchmarks.get("chess")


@pytest.mark.parametrize("name", NAMES)
def test_schema_accepts_the_default_section(name):
    bench = benchmarks.get(name)
    assert bench.schema.is_file()
    section = copy.deepcopy(read_yaml(ROOT / "config" / "config.yaml").get(name, {}))
    validate(section, section_schema(bench), "config", prefix=name)
    assert section["source"] in ("auto", "remote", "file", "demo")
    assert section["models"], "a benchmark runs at least one model by default"
    # the keys every rules file relies on (scievals.common.workflow.benchmark_models)
    assert section["predictions_dir"] == f"predictions/{name}"
    assert set(bench.baselines) <= set(section["models"]) | set(bench.baselines)


@pytest.mark.parametrize("name", NAMES)
def test_rules_follow_the_template(name):
    rules = rules_of(name)
    assert set(rules) >= {f"{name}_download", f"{name}_import", f"{name}_score"}
    assert {f"{name}_predict_baseline", f"{name}_predict_llm"} & set(rules)
    allowed = {f"{name}_{s}" for s in ("download", "curate", "predict_baseline", "predict_llm",
                                       "import", "score")}
    extra = set(rules) - allowed
    assert extra <= {"gating_extract"}, f"rules outside the template: {extra}"
    for rule, body in rules.items():
        role = rule.removeprefix(f"{name}_")
        if role in ("predict_baseline", "predict_llm", "score") or (
                role in benchmarks.get(name).code_versions):
            assert f'code_version=code_version("{name}", "{role}")' in body, rule
            assert role in benchmarks.get(name).code_versions, f"registry lacks {role}"
        if "{model}" in body:
            assert "model=model_regex(" in body, f"{rule}: constrain the model wildcard"
        assert f"logs/{rule}" in body or f"logs/{rule.rsplit('_', 1)[0]}" in body, (
            f"{rule}: log under logs/<rule>")
    assert "localrule: True" in rules[f"{name}_download"]


def test_abdev_own_file_batches_are_score_rules_like_abdev_score():
    """Own abdev files are scored a batch per job by loop-defined rules abdev_score_own_<k>
    (docs/adding-a-benchmark.md); they carry the score role's code version, a log under
    logs/abdev_score_own and the same entry script as abdev_score."""
    text = benchmarks.get("abdev").rules.read_text()
    block = text[text.index('f"abdev_score_own_{_batch}"'):]
    assert 'code_version=code_version("abdev", "score")' in block
    assert 'f"logs/abdev_score_own/{_batch}.log"' in block
    assert block.count('"../scripts/abdev_score.py"') == 1
    assert rules_of("abdev")["abdev_score"].count('"../scripts/abdev_score.py"') == 1
    # produced predictions only: own files never match abdev_score's wildcard
    assert "model=model_regex(ABDEV_MODELS.configured)" in rules_of("abdev")["abdev_score"]


@pytest.mark.parametrize("name", NAMES)
def test_code_versions_resolve(name):
    bench = benchmarks.get(name)
    assert "score" in bench.code_versions
    # "import": an importer that parses the user's file with versioned code (gating's parser)
    assert set(bench.code_versions) <= {"predict_baseline", "predict_llm", "import", "score"}
    for role in bench.code_versions:
        assert re.fullmatch(r"[a-z0-9_-]+-v\d+", bench.code_version(role)), role


@pytest.mark.parametrize("name", NAMES)
def test_package_has_the_template_modules_and_a_cli(name):
    package = ROOT / "scripts" / "scievals" / name
    for module in ("data", "predict", "metrics", "score", "cli"):
        assert (package / f"{module}.py").is_file(), f"{name}: no {module}.py"
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(benchmarks.get(name).cli).register(sub)
    assert name in sub.choices


@pytest.mark.parametrize("name", NAMES)
def test_metrics_are_pure(name):
    tree = ast.parse((ROOT / "scripts" / "scievals" / name / "metrics.py").read_text())
    calls = {node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
             for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert not calls & IO_CALLS, f"{name}.metrics does file I/O: {sorted(calls & IO_CALLS)}"


@pytest.mark.parametrize("name", NAMES)
def test_docs_demo_data_tests_and_figures(name):
    assert (ROOT / "docs" / f"{name}.md").is_file()
    demo = ROOT / "data" / "demo" / name
    assert (demo / "README.md").is_file() and len(list(demo.rglob("*"))) > 1
    assert list((ROOT / "tests" / name).glob("test_*.py"))
    bench = benchmarks.get(name)
    for spec in bench.figures:
        assert (ROOT / "report" / name / f"{spec.name}.rst").is_file(), spec.name
        assert callable(spec.draw)
        assert set(spec.inputs) <= {"summary", *bench.report_inputs}
    assert bench.report_figures()


@pytest.mark.parametrize("name", NAMES)
def test_headline_metrics_are_declared(name):
    bench = benchmarks.get(name)
    assert bench.headline_metrics, f"{name}: no headline_metrics for the leaderboard"
    assert len(set(bench.headline_metrics)) == len(bench.headline_metrics)
    assert all(isinstance(m, str) and m for m in bench.headline_metrics)
    assert bench.headline_condition is None or isinstance(bench.headline_condition, str)


@pytest.mark.parametrize("name", NAMES)
def test_a_rules_group_has_its_slurm_group_components(name):
    """A group without an entry runs one SLURM job per connected component (many tiny jobs)."""
    groups = set(re.findall(r'^    group:\n\s+"(\w+)"', benchmarks.get(name).rules.read_text(),
                            re.MULTILINE))
    profile = read_yaml(ROOT / "profiles" / "slurm" / "config.yaml")
    components = {entry.split("=")[0] for entry in profile.get("group-components", [])}
    assert groups <= components, f"profiles/slurm/config.yaml lacks group-components {groups}"


def test_benchmark_names_appear_nowhere_else_in_the_wiring():
    """The Snakefile, common/summary/report rules, config validation and CLI loop over the
    registry; none of them names a benchmark."""
    files = ["Snakefile", "rules/common.smk", "rules/summary.smk", "rules/report.smk",
             "scripts/scievals/cli.py", "scripts/scievals/common/config.py",
             "scripts/scievals/common/workflow.py", "config/schema.yaml"]
    for path in files:
        text = (ROOT / path).read_text()
        for name in NAMES:
            assert not re.search(rf"\b{name}\b", text), f"{path} names {name}"
