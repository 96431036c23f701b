# The rules every benchmark shares, written once and generated per enabled benchmark:
# <b>_download, <b>_curate, <b>_predict_baseline, <b>_predict_llm, <b>_import, <b>_score.
# What differs between benchmarks (paths, inputs, benchmark-specific params, resources) comes
# from scievals.<b>.workflow.stages(config, models): one Stage per rule the benchmark has
# (scievals.common.workflow.Stage; roles' defaults in stage_defaults). This file adds what is
# the same for all: the code-version param of the rule's step (a bump re-runs exactly those
# jobs), retry_failed on LLM predictions, the score params (bootstrap, config hash), the
# model wildcard's constraint, and one entry script per stage (scripts/<stage>.py, run by
# scripts/job.py: JOB_SHELL in rules/common.smk; it calls the stage's job function in
# scievals.<b>: scievals.common.entry.STAGE_JOBS, or
# scievals.<b>.score.score). rules/<b>.smk, where it exists, keeps only what is specific to <b>.
from scievals.common.job_spec import redacted_param
from scievals.common.workflow import model_regex as _model_regex
from scievals.common.workflow import own_content


def _rule_params(bench, stage):
    params = dict(stage.params)
    if stage.role in bench.code_versions:
        params["code_version"] = code_version(bench.name, stage.role)
    if stage.role == "predict_llm":
        params["retry_failed"] = retry_failed(f"{bench.name}_predict_llm")
    if stage.role == "score":
        params.update(bootstrap=BOOTSTRAP, config_hash=section_hash(bench.name))
    if stage.role == "import":
        # the own file's bytes: a change that keeps its mtime (mv, cp -p) re-imports it too
        params["own_sha256"] = own_content(stage.input["user"])
    # Snakemake stores every param under .snakemake/: URL credentials stay out (a job
    # gets them from the environment, scievals.common.redaction)
    return {name: redacted_param(value) for name, value in params.items()}


def _rule_outputs(stage):
    outputs = {}
    for name, path in stage.output.items():
        if name in stage.directories:
            path = directory(path)
        if name in stage.reports:
            path = report(path, **stage.reports[name])
        outputs[name] = path
    return outputs


def _rule_constraints(bench, stage):
    constraints = {w: _model_regex(values) for w, values in stage.wildcards.items()}
    if stage.models:
        constraints["model"] = _model_regex(getattr(MODELS[bench.name], stage.models))
    return constraints


STAGES = {}  # benchmark name -> role -> Stage (what rules/<b>.smk may refer to)

for _bench in ENABLED:
    STAGES[_bench.name] = _bench.stages(config)
    for _stage in STAGES[_bench.name].values():
        _rule_name = f"{_bench.name}_{_stage.role}"
        _params = _rule_params(_bench, _stage)
        # An input function is unpacked into named inputs.
        _input = ([unpack(_stage.input)], {}) if callable(_stage.input) else ([], _stage.input)
        # Stages with and without a `benchmark:` file (a directive cannot be left empty).
        if _stage.benchmark:

            rule:
                name:
                    _rule_name
                input:
                    *_input[0],
                    **_input[1],
                output:
                    **_rule_outputs(_stage),
                log:
                    _stage.log,
                benchmark:
                    _stage.benchmark
                wildcard_constraints:
                    **_rule_constraints(_bench, _stage),
                group:
                    _stage.group
                localrule: _stage.localrule
                conda:
                    f"../envs/{_stage.env}.yaml"
                resources:
                    **_stage.resources,
                params:
                    **_params,
                    job=job_param(_rule_name, _stage.script, _params),
                shell:
                    JOB_SHELL

        else:

            rule:
                name:
                    _rule_name
                input:
                    *_input[0],
                    **_input[1],
                output:
                    **_rule_outputs(_stage),
                log:
                    _stage.log,
                wildcard_constraints:
                    **_rule_constraints(_bench, _stage),
                group:
                    _stage.group
                localrule: _stage.localrule
                conda:
                    f"../envs/{_stage.env}.yaml"
                resources:
                    **_stage.resources,
                params:
                    **_params,
                    job=job_param(_rule_name, _stage.script, _params),
                shell:
                    JOB_SHELL
