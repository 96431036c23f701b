# gating: flow-cytometry gating hierarchies (download -> extract -> curate -> predict -> score).
# Cases: the embedded OMIP test cases plus FlowJo workspaces read with flowkit (embedded FlowKit
# examples, configured local files, best-effort downloads). Models: config["gating"]["models"]
# (marker_baseline and LLMs from the registry) plus every <model>.jsonl in
# config["gating"]["predictions_dir"] (bring your own). Helpers: scievals.gating.workflow.
from scievals.gating import workflow as gating_wf

GATING = config["gating"]
GATING_MODELS = MODELS["gating"]


rule gating_download:
    output:
        report="data/raw/gating/download.json",
    log:
        "logs/gating_download.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    params:
        cfg=gating_wf.download_settings(GATING),
        out_dir=lambda wildcards, output: str(Path(output.report).parent),
    script:
        "../scripts/gating_download.py"


# gating_extract is gating's curate step for FlowJo workspaces (flowkit, its own env).
rule gating_extract:
    input:
        download=rules.gating_download.output.report,
        workspaces=gating_wf.workspaces(GATING),
    output:
        records="data/curated/gating/workspaces.jsonl",
        report="data/curated/gating/extraction_report.json",
    log:
        "logs/gating_extract.log",
    benchmark:
        "logs/benchmarks/gating_extract.tsv"
    conda:
        "../envs/workspaces.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    script:
        "../scripts/gating_extract.py"


rule gating_curate:
    input:
        omip=gating_wf.omip_files(GATING),
        extracted=rules.gating_extract.output.records,
        download=rules.gating_download.output.report,  # failed sources, for the dataset label
    output:
        cases=gating_wf.CASES,
        report=gating_wf.CURATION_REPORT,
    log:
        "logs/gating_curate.log",
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        omip_dirs=gating_wf.omip_dirs(GATING),
    script:
        "../scripts/gating_curate.py"


rule gating_predict_baseline:
    input:
        cases=rules.gating_curate.output.cases,
    output:
        predictions=gating_wf.PREDICTIONS,
        usage=gating_wf.USAGE,
    log:
        "logs/gating_predict/{model}.log",
    benchmark:
        "logs/benchmarks/gating_predict/{model}.tsv"
    wildcard_constraints:
        model=model_regex(GATING_MODELS.baselines),
    group:
        "gating"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config=lambda wildcards: gating_wf.predict_config(config, wildcards.model),
        code_version=code_version("gating", "predict_baseline"),
    script:
        "../scripts/gating_predict.py"


rule gating_predict_llm:
    input:
        cases=rules.gating_curate.output.cases,
    output:
        predictions=gating_wf.PREDICTIONS,
        usage=gating_wf.USAGE,
    log:
        "logs/gating_predict/{model}.log",
    benchmark:
        "logs/benchmarks/gating_predict/{model}.tsv"
    wildcard_constraints:
        model=model_regex(GATING_MODELS.llms),
    conda:
        "../envs/llm.yaml"
    resources:
        llm_api=1,
        mem_mb=2000,
        runtime=240,
    params:
        config=lambda wildcards: gating_wf.predict_config(config, wildcards.model),
        code_version=code_version("gating", "predict_llm"),
        retry_failed=retry_failed("gating_predict_llm"),
    script:
        "../scripts/gating_predict.py"


rule gating_import:
    input:
        user=f"{GATING['predictions_dir']}/{{model}}.jsonl",
        cases=rules.gating_curate.output.cases,
    output:
        predictions=gating_wf.PREDICTIONS,
    log:
        "logs/gating_import/{model}.log",
    wildcard_constraints:
        model=model_regex(GATING_MODELS.byo),
    group:
        "gating"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        code_version=code_version("gating", "import"),
    script:
        "../scripts/gating_import.py"


rule gating_score:
    input:
        unpack(lambda wildcards: gating_wf.score_inputs(wildcards.model, GATING_MODELS.byo)),
    output:
        table="results/gating/scores/{model}.csv",
        per_case="results/gating/scores/{model}.per_case.csv",
        review="results/gating/review/{model}.md",
    log:
        "logs/gating_score/{model}.log",
    benchmark:
        "logs/benchmarks/gating_score/{model}.tsv"
    wildcard_constraints:
        model=model_regex(GATING_MODELS.all),
    group:
        "gating"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        bootstrap=BOOTSTRAP,
        config_hash=section_hash("gating"),
        code_version=code_version("gating", "score"),
    script:
        "../scripts/gating_score.py"
