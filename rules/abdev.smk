# abdev: what is specific to it (rules/stages.smk makes abdev_download,
# abdev_predict_baseline and abdev_score from scievals.abdev.workflow): the user's own
# prediction files are copied, not imported by a Python job, and scored a batch per job.
from scievals.abdev import workflow as abdev_wf

ABDEV = config["abdev"]
ABDEV_MODELS = MODELS["abdev"]

# A model the workflow predicts is never imported; any other name is an own file. This order
# instead of a constraint listing every own file: Snakemake writes a wildcard's constraint into
# its pattern and scans it at each match, so 10,000 own names made building the DAG quadratic.
ruleorder: abdev_predict_baseline > abdev_import


rule abdev_import:
    input:
        user=f"{ABDEV['predictions_dir']}/{{model}}.csv",
    output:
        predictions=abdev_wf.PREDICTIONS,
    log:
        "logs/abdev_import/{model}.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    # A plain copy: the score jobs validate every prediction file (own or baseline) against the
    # truth, and name the user's file in their errors. No Python process per own file.
    shell:
        "cp -- {input.user:q} {output.predictions:q} 2> {log:q}"


# One abdev_score_own_<k> job per batch of the user's own files (byo_score_jobs batches at
# most), beside abdev_score (one job per model the workflow predicts). A score job is mostly
# Python and pandas start-up, which a batch pays once; a file's batch is fixed by its name,
# so adding or editing a file re-scores only its batch (docs/abdev.md, "Speed"). The same
# entry script and params as abdev_score; params.models and params.origins name each file's
# model and the user's file (scievals.common.jobs.jobs_from_snakemake).
for _batch, _models in byo_batches(ABDEV_MODELS.byo, ABDEV["byo_score_jobs"]).items():
    _params = dict(
        **abdev_wf.score_settings(ABDEV),
        bootstrap=BOOTSTRAP,
        config_hash=section_hash("abdev"),
        code_version=code_version("abdev", "score"),
        models=_models,
        # errors in an own file name the user's file, not its copy
        origins=[f"{ABDEV['predictions_dir']}/{m}.csv" for m in _models],
    )

    rule:
        name:
            f"abdev_score_own_{_batch}"
        input:
            predictions=expand(abdev_wf.PREDICTIONS, model=_models),
            **abdev_wf.SCORE_TRUTH,
        output:
            table=expand(abdev_wf.TABLE, model=_models),
            reference=expand(abdev_wf.REFERENCE, model=_models),
        log:
            f"logs/abdev_score_own/{_batch}.log",
        benchmark:
            f"logs/benchmarks/abdev_score_own/{_batch}.tsv"
        # No group: a batch is minutes of work at hundreds of files, a SLURM job of its own;
        # and Snakemake checks a grouped job's readiness by walking all its dependencies
        # (here one import job per file) each time one finishes: quadratic in the files.
        conda:
            "../envs/core.yaml"
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            **_params,
            job=job_param(f"abdev_score_own_{_batch}", "score.py", _params),
        shell:
            JOB_SHELL
