# waza: agent-skill evaluation suites (download -> curate -> predict -> score).
# Suites: the embedded example suites (data/demo/waza/suites) or the user's (waza.source: file),
# copied with checksums. Models: config["waza"]["models"] (waza_mock = waza's mock executor,
# offline; LLMs from the registry = the agent loop) plus every <model>.json in
# config["waza"]["predictions_dir"] (bring your own results). Predict records the runs of one
# (model, suite), ungraded; the score job grades every recorded or imported run, so a grader
# change re-scores without re-running any agent. Helpers: scievals.waza.workflow.
from scievals.waza import workflow as waza_wf

WAZA = config["waza"]
WAZA_MODELS = MODELS["waza"]
WAZA_SUITES = list(WAZA["suites"])


rule waza_download:
    output:
        report=waza_wf.DOWNLOAD,
        suites=directory(waza_wf.SUITES_DIR),
    log:
        "logs/waza_download.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    params:
        cfg=waza_wf.download_settings(WAZA),
    script:
        "../scripts/waza_download.py"


rule waza_curate:
    input:
        download=rules.waza_download.output.report,
        suites=rules.waza_download.output.suites,
    output:
        cases=waza_wf.CASES,
        report=waza_wf.CURATION,
    log:
        "logs/waza_curate.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/waza_curate.py"


rule waza_predict_baseline:
    input:
        cases=rules.waza_curate.output.cases,
        suites=rules.waza_download.output.suites,
    output:
        results=waza_wf.PREDICTIONS,
    log:
        "logs/waza_predict/{model}/{suite}.log",
    benchmark:
        "logs/benchmarks/waza_predict/{model}/{suite}.tsv"
    wildcard_constraints:
        model=model_regex(WAZA_MODELS.baselines),
        suite=model_regex(WAZA_SUITES),
    # No SLURM group: one model's suites run in parallel and feed one score job, so grouping
    # them would make one job asking for a CPU per suite (pending forever on small nodes).
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config=lambda wildcards: waza_wf.predict_config(config, wildcards.model),
        code_version=code_version("waza", "predict_baseline"),
    script:
        "../scripts/waza_predict.py"


rule waza_predict_llm:
    input:
        cases=rules.waza_curate.output.cases,
        suites=rules.waza_download.output.suites,
    output:
        results=waza_wf.PREDICTIONS,
        records=waza_wf.LLM_RECORDS,
        usage=waza_wf.USAGE,
    log:
        "logs/waza_predict/{model}/{suite}.log",
    benchmark:
        "logs/benchmarks/waza_predict/{model}/{suite}.tsv"
    wildcard_constraints:
        model=model_regex(WAZA_MODELS.llms),
        suite=model_regex(WAZA_SUITES),
    conda:
        "../envs/llm.yaml"
    resources:
        llm_api=1,
        mem_mb=2000,
        runtime=240,
    params:
        config=lambda wildcards: waza_wf.predict_config(config, wildcards.model),
        code_version=code_version("waza", "predict_llm"),
        retry_failed=retry_failed("waza_predict_llm"),
    script:
        "../scripts/waza_predict.py"


rule waza_import:
    input:
        user=f"{WAZA['predictions_dir']}/{{model}}.json",
        cases=rules.waza_curate.output.cases,
        suites=rules.waza_download.output.suites,
    output:
        imported=waza_wf.IMPORTED,
    log:
        "logs/waza_import/{model}.log",
    wildcard_constraints:
        model=model_regex(WAZA_MODELS.byo),
    group:
        "waza"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        suites=WAZA_SUITES,
    script:
        "../scripts/waza_import.py"


rule waza_score:
    input:
        unpack(lambda wildcards: waza_wf.score_inputs(wildcards.model, WAZA_SUITES,
                                                       WAZA_MODELS.byo, WAZA_MODELS.llms)),
    output:
        table="results/waza/scores/{model}.csv",
        per_case="results/waza/scores/{model}.per_case.csv",
        graded=waza_wf.GRADED,
        review=report(
            "results/waza/review/{model}.md",
            caption="../report/waza/review.rst",
            category="waza",
            subcategory="Failed graders per task",
            labels={"benchmark": "waza", "model": "{model}"},
        ),
    log:
        "logs/waza_score/{model}.log",
    benchmark:
        "logs/benchmarks/waza_score/{model}.tsv"
    wildcard_constraints:
        model=model_regex(WAZA_MODELS.all),
    group:
        "waza"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        bootstrap=BOOTSTRAP,
        config_hash=section_hash("waza"),
        settings=waza_wf.score_settings(config),
        code_version=code_version("waza", "score"),
    script:
        "../scripts/waza_score.py"
