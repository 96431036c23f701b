# autogkb: pharmacogenomic annotation extraction (download -> curate -> predict -> score).
# Truth: ClinPGx variant-phenotype annotations of the AutoGKB articles (embedded subset by
# default, or the ClinPGx zip); text: curated evidence sentences or PMC open-access full
# texts (autogkb.text_mode). Models: config["autogkb"]["models"] (autogkb_baseline and LLMs
# from the registry) plus every <model>.json in config["autogkb"]["predictions_dir"].
# Helpers: scievals.autogkb.workflow.
from scievals.autogkb import workflow as autogkb_wf

AUTOGKB = config["autogkb"]
AUTOGKB_MODELS = MODELS["autogkb"]


rule autogkb_download:
    output:
        source=autogkb_wf.SOURCE,
    log:
        "logs/autogkb_download.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    params:
        cfg=autogkb_wf.download_settings(AUTOGKB),
        raw_dir=lambda wildcards, output: str(Path(output.source).parent),
    script:
        "../scripts/autogkb_download.py"


rule autogkb_curate:
    input:
        source=rules.autogkb_download.output.source,
    output:
        cases=autogkb_wf.CASES,
        report=autogkb_wf.CURATION_REPORT,
        vocabulary=autogkb_wf.VOCABULARY,
    log:
        "logs/autogkb_curate.log",
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        raw_dir=lambda wildcards, input: str(Path(input.source).parent),
    script:
        "../scripts/autogkb_curate.py"


rule autogkb_predict_baseline:
    input:
        cases=rules.autogkb_curate.output.cases,
        vocabulary=rules.autogkb_curate.output.vocabulary,
    output:
        predictions=autogkb_wf.PREDICTIONS,
        usage=autogkb_wf.USAGE,
    log:
        "logs/autogkb_predict/{model}.log",
    benchmark:
        "logs/benchmarks/autogkb_predict/{model}.tsv"
    wildcard_constraints:
        model=model_regex(AUTOGKB_MODELS.baselines),
    group:
        "autogkb"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config=lambda wildcards: autogkb_wf.predict_config(config, wildcards.model),
        code_version=code_version("autogkb", "predict_baseline"),
    script:
        "../scripts/autogkb_predict.py"


rule autogkb_predict_llm:
    input:
        cases=rules.autogkb_curate.output.cases,
        vocabulary=rules.autogkb_curate.output.vocabulary,
    output:
        predictions=autogkb_wf.PREDICTIONS,
        usage=autogkb_wf.USAGE,
    log:
        "logs/autogkb_predict/{model}.log",
    benchmark:
        "logs/benchmarks/autogkb_predict/{model}.tsv"
    wildcard_constraints:
        model=model_regex(AUTOGKB_MODELS.llms),
    conda:
        "../envs/llm.yaml"
    resources:
        llm_api=1,
        mem_mb=2000,
        runtime=240,
    params:
        config=lambda wildcards: autogkb_wf.predict_config(config, wildcards.model),
        code_version=code_version("autogkb", "predict_llm"),
        retry_failed=retry_failed("autogkb_predict_llm"),
    script:
        "../scripts/autogkb_predict.py"


rule autogkb_import:
    input:
        user=f"{AUTOGKB['predictions_dir']}/{{model}}.json",
        cases=rules.autogkb_curate.output.cases,
    output:
        predictions=autogkb_wf.PREDICTIONS,
    log:
        "logs/autogkb_import/{model}.log",
    wildcard_constraints:
        model=model_regex(AUTOGKB_MODELS.byo),
    group:
        "autogkb"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/autogkb_import.py"


rule autogkb_score:
    input:
        unpack(lambda wildcards: autogkb_wf.score_inputs(wildcards.model, AUTOGKB_MODELS.byo)),
    output:
        table="results/autogkb/scores/{model}.csv",
        per_article="results/autogkb/scores/{model}.per_article.csv",
        review="results/autogkb/review/{model}.md",
    log:
        "logs/autogkb_score/{model}.log",
    benchmark:
        "logs/benchmarks/autogkb_score/{model}.tsv"
    wildcard_constraints:
        model=model_regex(AUTOGKB_MODELS.all),
    group:
        "autogkb"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        bootstrap=BOOTSTRAP,
        threshold=AUTOGKB["threshold"],
        config_hash=section_hash("autogkb"),
        code_version=code_version("autogkb", "score"),
    script:
        "../scripts/autogkb_score.py"
