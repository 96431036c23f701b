# abdev: what is specific to it (rules/stages.smk makes abdev_download,
# abdev_predict_baseline and abdev_score from scievals.abdev.workflow): the user's own
# prediction files are copied, not imported by a Python job each, and copied and scored a
# batch per job.
from scievals.abdev import workflow as abdev_wf
from scievals.common.workflow import own_content

ABDEV = config["abdev"]
ABDEV_MODELS = MODELS["abdev"]


# One abdev_import_own_<k> and one abdev_score_own_<k> job per batch of the user's own files
# (byo_score_jobs batches, more past 100 files each: byo_batches), beside abdev_score (one job per
# model the workflow predicts). A score job is mostly Python and pandas start-up, which a batch
# pays once; a file's batch is fixed by its name, so adding or editing a file re-copies and
# re-scores only its batch (docs/abdev.md, "Speed"). The copies are a batch too: Snakemake's
# scheduler checks the input sizes of every ready job each time it picks one, so 10,000 one-file
# copy jobs cost it 10,000 x 10,000 file checks (docs/scale.md). The same entry script and params
# as abdev_score; params.models and params.origins name each file's model and the user's file
# (scievals.common.jobs.jobs_from_snakemake).
for _batch, _models in byo_batches(ABDEV_MODELS.byo, ABDEV["byo_score_jobs"]).items():

    rule:
        name:
            f"abdev_import_own_{_batch}"
        input:
            user=[f"{ABDEV['predictions_dir']}/{m}.csv" for m in _models],
        output:
            predictions=expand(abdev_wf.PREDICTIONS, model=_models),
        log:
            f"logs/abdev_import_own/{_batch}.log",
        localrule: True
        conda:
            "../envs/core.yaml"
        params:
            # the files' bytes: a change that keeps their mtime (mv, cp -p) re-copies them too
            own_sha256=own_content([f"{ABDEV['predictions_dir']}/{m}.csv" for m in _models]),
            job=job_param(f"abdev_import_own_{_batch}", "copy_own.py", {}),
        shell:
            JOB_SHELL

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
