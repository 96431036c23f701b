"""The stage contract's plumbing: a ScoreJob from a score rule's job (one model or a batch of
own files), a rule name read as (benchmark, stage), and the stage defaults every generated
rule starts from."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from scievals.common.jobs import ScoreJob, jobs_from_snakemake
from scievals.common.workflow import stage, stage_of_rule
from snakemake.iocontainers import Namedlist


def smk(rule, inputs, outputs, params, model=None):
    """A stand-in for the `snakemake` object an entry script gets: named lists as Snakemake
    builds them (a list-valued name is a slice of the flat list)."""
    def named(mapping):
        flat, names, start = [], {}, 0
        for name, value in mapping.items():
            items = value if isinstance(value, list) else [value]
            flat += items
            names[name] = (start, start + len(items) if isinstance(value, list) else None)
            start += len(items)
        result = Namedlist(flat)
        for name, (begin, end) in names.items():
            result._set_name(name, begin, end)
        return result

    wildcards = Namedlist(fromdict={"model": model} if model else {})
    return SimpleNamespace(rule=rule, input=named(inputs), output=named(outputs),
                           params=Namedlist(fromdict=params), wildcards=wildcards)


def test_one_model_job_takes_truth_outputs_settings_and_usage():
    job = ScoreJob.from_snakemake(smk(
        "b2_score",
        {"cases": "c.jsonl", "curation": "r.json", "predictions": "p.jsonl", "usage": "u.json"},
        {"table": "t.csv", "per_case": "t.per_case.csv", "review": "r.md"},
        {"threshold": 0.7, "bootstrap": {"n_resamples": 10, "seed": 1}, "config_hash": "abc",
         "code_version": "b2-metrics-v1"},
        model="m1"))
    assert (job.benchmark, job.model, job.origin) == ("b2", "m1", "")
    assert job.prediction == Path("p.jsonl") and job.usage == Path("u.json")
    assert dict(job.truth) == {"cases": Path("c.jsonl"), "curation": Path("r.json")}
    assert dict(job.outputs) == {"table": Path("t.csv"), "per_case": Path("t.per_case.csv"),
                                 "review": Path("r.md")}
    # the workflow's own params are not scoring settings
    assert dict(job.settings) == {"threshold": 0.7}
    assert dict(job.bootstrap) == {"n_resamples": 10, "seed": 1} and job.config_hash == "abc"


def test_a_model_with_one_file_per_suite_keeps_all_of_them():
    job = ScoreJob.from_snakemake(smk(
        "b3_score", {"predictions": ["m/s1.json", "m/s2.json"], "source": "src.json"},
        {"table": "t.csv"}, {"config_hash": "h"}, model="m"))
    assert job.predictions == (Path("m/s1.json"), Path("m/s2.json"))
    with pytest.raises(ValueError, match="expected one prediction file, got 2"):
        job.prediction  # noqa: B018 (the property raises)


def test_a_batch_rule_gives_one_job_per_own_file_in_order():
    jobs = jobs_from_snakemake(smk(
        "b1_score_own_03",
        {"predictions": ["p/x.csv", "p/y.csv"], "truth": "truth.csv", "source": "s.json"},
        {"table": ["x.csv", "y.csv"], "reference": ["x.ref.csv", "y.ref.csv"]},
        {"fold_col": "fold", "num_folds": 5, "models": ["x", "y"],
         "origins": ["own/x.csv", "own/y.csv"], "config_hash": "h"}))
    assert [j.model for j in jobs] == ["x", "y"]
    assert [j.benchmark for j in jobs] == ["b1", "b1"]
    assert [j.prediction for j in jobs] == [Path("p/x.csv"), Path("p/y.csv")]
    assert [j.outputs["reference"] for j in jobs] == [Path("x.ref.csv"), Path("y.ref.csv")]
    assert [j.origin for j in jobs] == ["own/x.csv", "own/y.csv"]
    assert all(dict(j.truth) == {"truth": Path("truth.csv"), "source": Path("s.json")}
               for j in jobs)
    assert all(dict(j.settings) == {"fold_col": "fold", "num_folds": 5} for j in jobs)
    with pytest.raises(ValueError, match="scores 2 models"):
        ScoreJob.from_snakemake(smk("b1_score_own_03", {"predictions": ["a", "b"]},
                                    {"table": ["c", "d"]}, {"models": ["x", "y"]}))


@pytest.mark.parametrize(("rule", "expected"), [
    ("b2_predict_llm", ("b2", "predict_llm")),
    ("b1_score_own_03", ("b1", "score")),
    ("my_score_score", ("my_score", "score")),  # a benchmark named like a stage
    ("b3_import", ("b3", "import")),
    ("b3_download", ("b3", "download")),
])
def test_rule_names_read_as_benchmark_and_stage(rule, expected):
    assert stage_of_rule(rule) == expected


@pytest.mark.parametrize("rule", ["summarize_all", "b2_extract", "report_b2_figure"])
def test_other_rules_are_not_stages(rule):
    with pytest.raises(ValueError, match="not named <benchmark>_<stage>"):
        stage_of_rule(rule)


def test_stage_defaults_and_overrides():
    llm = stage("b9", "predict_llm", output={"predictions": "p/{model}.jsonl"})
    assert (llm.log, llm.benchmark) == ("logs/b9_predict/{model}.log",
                                        "logs/benchmarks/b9_predict/{model}.tsv")
    assert (llm.env, llm.group, llm.models) == ("llm", None, "llms")
    assert dict(llm.resources) == {"llm_api": 1, "mem_mb": 2000, "runtime": 240}
    assert llm.script == "predict.py"
    own = stage("b9", "import", output={"predictions": "p/{model}.jsonl"})
    assert (own.benchmark, own.group, own.models, own.script) == (
        "", "b9", "byo", "import_own.py")
    download = stage("b9", "download", output={"source": "data/raw/b9/source.json"})
    assert download.localrule and download.log == "logs/b9_download.log"
    curate = stage("b9", "curate", output={}, localrule=True, resources={})
    assert curate.localrule and dict(curate.resources) == {}
    with pytest.raises(ValueError, match="unknown stage 'extract'"):
        stage("b9", "extract", output={})
