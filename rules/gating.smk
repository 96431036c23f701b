# gating: what is specific to it (rules/stages.smk makes gating_download, gating_curate,
# gating_predict_baseline, gating_predict_llm, gating_import and gating_score from
# scievals.gating.workflow): gating_extract, gating's curate step for FlowJo workspaces,
# reads them with flowkit in its own env before gating_curate.
from scievals.gating import workflow as gating_wf


rule gating_extract:
    input:
        source=gating_wf.SOURCE,
        workspaces=gating_wf.workspaces(config["gating"]),
    output:
        records=gating_wf.EXTRACTED,
        report=gating_wf.EXTRACTION_REPORT,
    log:
        "logs/gating_extract.log",
    benchmark:
        "logs/benchmarks/gating_extract.tsv"
    conda:
        "../envs/workspaces.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        job=job_param("gating_extract", "gating_extract.py", {}),
    shell:
        JOB_SHELL
