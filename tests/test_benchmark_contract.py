"""Every registered benchmark is complete and follows one template (docs/adding-a-benchmark.md):
schema, generated rules with the template's names and code-version params, CLI, docs page, demo
data, tests folder, figures (own ones with captions, or the generic one), pure metrics, headline
metrics (that the default run reports them: tests/workflow/test_workflow_default.py), and one
stage contract: the same module, file and constant names in every package and one typed score
entry, ``scievals.<b>.score.score(job: ScoreJob)``."""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import inspect
import json
import re
import typing
from pathlib import Path

import pandas as pd
import pytest
from scievals import registry
from scievals.common.config import section_schema, validate
from scievals.common.entry import STAGE_JOBS
from scievals.common.io import read_yaml, sha256_file
from scievals.common.jobs import ScoreJob
from scievals.common.workflow import ROLES, Stage
from scievals.config_validation import validate_config

ROOT = Path(__file__).resolve().parents[1]
NAMES = list(registry.NAMES)
RULE = re.compile(r"^rule (\w+):\n(.*?)(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
# Calls that read or write files: a metrics module must make none of them.
IO_CALLS = {"open", "read_csv", "to_csv", "read_json", "write_json", "read_jsonl", "write_jsonl",
            "write_csv", "write_text", "read_text", "read_yaml", "write_result_table"}
# One spelling per version constant: the code behind each rule step.
CONSTANTS = {"predict_baseline": "BASELINE_VERSION", "predict_llm": "PROMPT_VERSION",
             "import": "PARSER_VERSION", "score": "METRICS_VERSION"}
# Rules a benchmark may write itself (rules/<b>.smk), beside the generated ones.
SPECIFIC_RULES = {"abdev": set(), "gating": {"gating_extract"}}
CONFIG = validate_config(read_yaml(ROOT / "config" / "config.yaml"))


def stages_of(name: str) -> dict[str, Stage]:
    return registry.get(name).stages(CONFIG)


def specific_rules(name: str) -> dict[str, str]:
    """Rules written in rules/<name>.smk (none if the benchmark has no such file)."""
    path = registry.get(name).rules
    return dict(RULE.findall(path.read_text())) if path.is_file() else {}


def specific_text(name: str) -> str | None:
    """The text of rules/<name>.smk (None if the benchmark has no such file)."""
    path = registry.get(name).rules
    return path.read_text() if path.is_file() else None


def package(name: str) -> Path:
    return ROOT / "scripts" / "scievals" / name


def test_the_registry_names_abdev_and_gating_once():
    assert NAMES[:2] == ["abdev", "gating"]
    assert len(NAMES) == len(set(NAMES))
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in NAMES)
    with pytest.raises(KeyError, match="registered: "):
        registry.get("chess")


@pytest.mark.parametrize("name", NAMES)
def test_schema_accepts_the_default_section(name):
    bench = registry.get(name)
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
    """The shared rules come from the package's workflow.stages(); rules/<b>.smk holds only
    what no template rule does (and an own-file import that needs no Python job)."""
    stages = stages_of(name)
    written = specific_rules(name)
    assert set(stages) <= set(ROLES)
    rules = {f"{name}_{role}" for role in stages} | set(written)
    assert {f"{name}_download", f"{name}_score"} <= rules
    # own files: an import rule, or (abdev) loop-defined batches copying and scoring them
    batches = "for _batch, _models in byo_batches(" in (specific_text(name) or "")
    assert f"{name}_import" in rules or batches
    assert {f"{name}_predict_baseline", f"{name}_predict_llm"} & rules
    assert not {f"{name}_{role}" for role in stages} & set(written), "a rule defined twice"
    extra = {r for r in written if not r.startswith(f"{name}_score_own_")}
    assert extra <= SPECIFIC_RULES.get(name, set()), f"rules outside the template: {extra}"
    for role, stage in stages.items():
        step = "predict" if role.startswith("predict") else role
        if role in ("predict_baseline", "predict_llm", "score"):
            # rules/stages.smk adds code_version=code_version(b, role) from this entry
            assert role in registry.get(name).code_versions, f"registry lacks {role}"
        if "{model}" in str(stage.output):
            assert stage.models, f"{name}_{role}: constrain the model wildcard"
        assert stage.log.startswith(f"logs/{name}_{step}"), f"{name}_{role}: log under logs/<rule>"
        if stage.benchmark:
            assert stage.benchmark.startswith(f"logs/benchmarks/{name}_{step}")
    assert stages["download"].localrule


def test_generated_rules_carry_code_versions_retries_and_score_params():
    text = (ROOT / "rules" / "stages.smk").read_text()
    assert 'params["code_version"] = code_version(bench.name, stage.role)' in text
    assert 'params["retry_failed"] = retry_failed(f"{bench.name}_predict_llm")' in text
    assert "params.update(bootstrap=BOOTSTRAP, config_hash=section_hash(bench.name))" in text


def test_abdev_own_file_batches_are_score_rules_like_abdev_score():
    """Own abdev files are scored a batch per job by loop-defined rules abdev_score_own_<k>
    (docs/adding-a-benchmark.md); they carry the score role's code version, a log under
    logs/abdev_score_own and the same entry script as abdev_score."""
    text = registry.get("abdev").rules.read_text()
    block = text[text.index("for _batch, _models"):]
    assert 'code_version=code_version("abdev", "score")' in block
    assert 'f"logs/abdev_score_own/{_batch}.log"' in block
    assert block.count('"score.py"') == 1
    # and copied a batch per job: no job per own file (Snakemake's scheduler is quadratic in
    # the ready jobs)
    assert 'f"abdev_import_own_{_batch}"' in block and '"copy_own.py"' in block
    assert stages_of("abdev")["score"].script == "score.py"
    # produced predictions only: own files never match abdev_score's wildcard
    assert stages_of("abdev")["score"].models == "configured"


@pytest.mark.parametrize("name", NAMES)
def test_code_versions_resolve_to_the_one_spelling(name):
    bench = registry.get(name)
    assert "score" in bench.code_versions
    # "import": an importer that parses or re-grades the user's file with versioned code
    assert set(bench.code_versions) <= set(CONSTANTS)
    for role, reference in bench.code_versions.items():
        assert re.fullmatch(r"[a-z0-9_-]+-v\d+", bench.code_version(role)), role
        module, _, constant = reference.partition(":")
        assert module.startswith(f"scievals.{name}."), reference
        # the import step may share the code of the baseline predictor (waza's re-grading)
        allowed = {CONSTANTS[role]} | ({CONSTANTS["predict_baseline"]} if role == "import" else set())
        assert constant in allowed, f"{name}: {role} -> {constant}, spelled {CONSTANTS[role]}"
    assert bench.code_versions["score"] == f"scievals.{name}.metrics:METRICS_VERSION"


@pytest.mark.parametrize("name", NAMES)
def test_package_has_the_template_modules_and_a_cli(name):
    for module in ("data", "predict", "metrics", "score", "cli", "workflow"):
        assert (package(name) / f"{module}.py").is_file(), f"{name}: no {module}.py"
    # one spelling: prompts.py (never prompt.py), review.py for every review
    assert not (package(name) / "prompt.py").exists(), f"{name}: prompt.py is spelled prompts.py"
    if "review" in stages_of(name)["score"].output:
        assert (package(name) / "review.py").is_file(), f"{name}: its review lives in review.py"
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(registry.get(name).cli).register(sub)
    assert name in sub.choices


@pytest.mark.parametrize("name", NAMES)
def test_validate_means_a_prediction_file_against_its_truth(name):
    """`validate` never names a check of the truth (gating's is `check-cases`)."""
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(registry.get(name).cli).register(sub)
    commands = sub.choices[name]._subparsers._group_actions[0]
    for action in commands._choices_actions:
        if action.dest == "validate":
            assert re.search(r"predict|own|results", action.help), f"{name} validate: {action.help}"
    truth_checks = [a for a in commands._choices_actions if re.search(r"test-case|suite", a.help)]
    assert all(a.dest != "validate" for a in truth_checks)


@pytest.mark.parametrize("name", NAMES)
def test_stage_files_have_one_name_everywhere(name):
    """source.json, curation_report.json, <model>.per_case.csv in every benchmark."""
    stages = stages_of(name)
    assert stages["download"].output["source"] == f"data/raw/{name}/source.json"
    if "curate" in stages:
        assert stages["curate"].output["report"] == f"data/curated/{name}/curation_report.json"
    score = stages["score"].output
    assert score["table"] == f"results/{name}/scores/{{model}}.csv" == registry.get(name).score_table
    assert all(not str(p).endswith(".per_article.csv") for p in score.values())
    if "per_case" in score:
        assert score["per_case"] == f"results/{name}/scores/{{model}}.per_case.csv"
    for role, stage in stages.items():
        assert "predictions" in stage.output or role not in ("predict_baseline", "predict_llm",
                                                              "import"), role
    # every stage's job function is in the stage's own module: data.stage_download,
    # curate.stage_curate, predict.stage_predict / stage_import
    wanted = {"download": ("data", "stage_download"), "curate": ("curate", "stage_curate"),
              "predict_baseline": ("predict", "stage_predict"),
              "predict_llm": ("predict", "stage_predict"), "import": ("predict", "stage_import")}
    assert wanted == STAGE_JOBS
    for role in stages:
        if role in wanted:
            module, function = wanted[role]
            found = getattr(importlib.import_module(f"scievals.{name}.{module}"), function, None)
            assert callable(found), f"scievals.{name}.{module}.{function}"


@pytest.mark.parametrize("name", NAMES)
def test_every_score_accepts_a_score_job(name):
    module = importlib.import_module(registry.get(name).score_module)
    params = list(inspect.signature(module.score).parameters.values())
    assert [p.name for p in params] == ["job"]
    assert typing.get_type_hints(module.score)["job"] is ScoreJob


def test_abdev_score_job_on_the_embedded_demo(tmp_path):
    """A real call: predictions equal to the demo's truth rank every antibody exactly as the
    truth does, so every assay's Spearman is 1 in each fold and on average (a fact of
    Spearman's rho, not of this code), and each fold=average row averages the 5 folds."""
    from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
    from scievals.abdev.data import DEMO_CSV
    from scievals.abdev.score import score

    truth = pd.read_csv(DEMO_CSV)
    pred = tmp_path / "perfect.csv"
    truth[["antibody_name", *PROPERTY_LIST, DEFAULT_FOLD_COL]].to_csv(pred, index=False)
    source = tmp_path / "source.json"
    source.write_text(json.dumps({"dataset": "GDPa1-demo", "sha256": sha256_file(DEMO_CSV)}))
    job = ScoreJob(benchmark="abdev", model="perfect", predictions=(pred,),
                   truth={"truth": DEMO_CSV, "source": source},
                   outputs={"table": tmp_path / "t.csv", "reference": tmp_path / "r.csv"},
                   bootstrap={"n_resamples": 50, "seed": 0}, config_hash="h",
                   settings={"fold_col": DEFAULT_FOLD_COL, "num_folds": 5})
    score(job)
    table = pd.read_csv(tmp_path / "t.csv")
    assert set(table["model"]) == {"perfect"}
    assert set(table["dataset"]) == {"GDPa1-demo_cross_validation"}
    rho = table[table["metric"].str.endswith(":spearman")]
    assert set(rho["metric"]) == {f"{a}:spearman" for a in PROPERTY_LIST}
    assert set(rho["condition"]) >= {f"fold={k}" for k in range(5)} | {"fold=average"}
    assert rho["value"].tolist() == pytest.approx([1.0] * len(rho))
    assert (tmp_path / "r.csv").is_file()


@pytest.mark.parametrize("name", NAMES)
def test_metrics_are_pure(name):
    tree = ast.parse((package(name) / "metrics.py").read_text())
    calls = {node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
             for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert not calls & IO_CALLS, f"{name}.metrics does file I/O: {sorted(calls & IO_CALLS)}"


@pytest.mark.parametrize("name", NAMES)
def test_docs_demo_data_tests_and_figures(name):
    assert (ROOT / "docs" / f"{name}.md").is_file()
    demo = ROOT / "data" / "demo" / name
    assert (demo / "README.md").is_file() and len(list(demo.rglob("*"))) > 1
    assert list((ROOT / "tests" / name).glob("test_*.py"))
    bench = registry.get(name)
    for spec in bench.figures:
        assert (ROOT / "report" / name / f"{spec.name}.rst").is_file(), spec.name
        assert callable(spec.draw)
        assert set(spec.inputs) <= {"summary", *bench.report_inputs}
    assert bench.report_figures()


@pytest.mark.parametrize("name", NAMES)
def test_headline_metrics_are_declared(name):
    bench = registry.get(name)
    assert bench.headline_metrics, f"{name}: no headline_metrics for the leaderboard"
    assert len(set(bench.headline_metrics)) == len(bench.headline_metrics)
    assert all(isinstance(m, str) and m for m in bench.headline_metrics)
    assert bench.headline_condition is None or isinstance(bench.headline_condition, str)


@pytest.mark.parametrize("name", NAMES)
def test_a_rules_group_has_its_slurm_group_components(name):
    """A group without an entry runs one SLURM job per connected component (many tiny jobs)."""
    groups = {stage.group for stage in stages_of(name).values() if stage.group}
    path = registry.get(name).rules
    if path.is_file():
        groups |= set(re.findall(r'^\s+group:\n\s+"(\w+)"', path.read_text(), re.MULTILINE))
    profile = read_yaml(ROOT / "profiles" / "slurm" / "config.yaml")
    components = {entry.split("=")[0] for entry in profile.get("group-components", [])}
    assert groups <= components, f"profiles/slurm/config.yaml lacks group-components {groups}"


def test_benchmark_names_appear_nowhere_else_in_the_wiring():
    """The Snakefile, the shared rules, the stage entry scripts, config validation and CLI
    loop over the registry; none of them names a benchmark."""
    files = ["Snakefile", "rules/common.smk", "rules/stages.smk", "rules/summary.smk",
             "rules/report.smk", "scripts/download.py", "scripts/curate.py",
             "scripts/predict.py", "scripts/import_own.py", "scripts/score.py",
             "scripts/scievals/cli.py", "scripts/scievals/common/config.py",
             "scripts/scievals/common/entry.py", "scripts/scievals/common/jobs.py",
             "scripts/scievals/common/workflow.py", "config/schema.yaml"]
    for path in files:
        text = (ROOT / path).read_text()
        for name in NAMES:
            assert not re.search(rf"\b{name}\b", text), f"{path} names {name}"
