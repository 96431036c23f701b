"""The checks of run_slurm_test.sh on recorded log excerpts: they pass on a good run and
catch a job that bypassed SLURM, a failed or misplaced SLURM job and a changed number."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

spec = importlib.util.spec_from_file_location(
    "check_slurm_run", Path(__file__).with_name("check_slurm_run.py"))
check = importlib.util.module_from_spec(spec)
sys.modules["check_slurm_run"] = check  # dataclasses look their module up there
spec.loader.exec_module(check)

MAIN_LOG = """\
Building DAG of jobs...
SLURM run ID: 7005889f-b967-4ab5-86bf-4124745f5a15
Select jobs to execute...
[Sun Nov 22 00:15:49 2026]
localrule abdev_download:
    output: data/raw/abdev/GDPa1.csv, data/raw/abdev/heldout_sequences.csv
    log: logs/abdev_download.log
    jobid: 4
    reason: Missing output files: data/raw/abdev/GDPa1.csv
[Sun Nov 22 00:15:54 2026]
Finished jobid: 4 (Rule: abdev_download)
Job c6acf978-360e-5127-be0d-5b7a7a7d6403 has been submitted with SLURM jobid 1 (log: /tmp/sl/logs/slurm/group_abdev_abdev_predict_abdev_score/1.log).
[Sun Nov 22 00:16:35 2026]
Finished jobid: 6 (Rule: abdev_predict_baseline)
Finished jobid: 3 (Rule: abdev_predict_baseline)
Finished jobid: 2 (Rule: abdev_score)
Finished jobid: 5 (Rule: abdev_score)
[Sun Nov 22 00:16:35 2026]
localrule summarize_benchmark:
    input: results/abdev/scores/random.csv, results/abdev/scores/ridge_descriptors.csv
    output: results/abdev/summary.csv
    jobid: 1
Finished jobid: 1 (Rule: summarize_benchmark)
"""

SLURM_LOG = """\
[Sun Nov 22 00:17:33 2026] Group job abdev (jobs in lexicogr. order):
    rule abdev_predict_baseline:
        input: data/raw/abdev/GDPa1.csv
        output: results/abdev/predictions/random.csv
        jobid: 1
    rule abdev_score:
        input: results/abdev/predictions/random.csv
        output: results/abdev/scores/random.csv, results/abdev/scores/random.reference.csv
        jobid: 0
localrule abdev_predict_baseline:
    input: data/raw/abdev/GDPa1.csv
    output: results/abdev/predictions/random.csv
    jobid: 1
"""
SLURM_LOG_2 = SLURM_LOG.replace("random", "ridge_descriptors")
LOCAL_RULES = {"abdev_download", "summarize_benchmark", "summarize_all"}


def test_main_log_parsing():
    log = check.parse_main_log(MAIN_LOG)
    assert log.run_id == "7005889f-b967-4ab5-86bf-4124745f5a15"
    assert log.finished == {"4": "abdev_download", "6": "abdev_predict_baseline", "3": "abdev_predict_baseline",
                            "2": "abdev_score", "5": "abdev_score", "1": "summarize_benchmark"}
    assert log.local == {"4", "1"}
    assert log.submissions == [("c6acf978-360e-5127-be0d-5b7a7a7d6403", "1",
                                "/tmp/sl/logs/slurm/group_abdev_abdev_predict_abdev_score/1.log")]


def test_slurm_logs_count_distinct_jobs_per_rule():
    jobs = check.jobs_in_slurm_logs([SLURM_LOG, SLURM_LOG_2])
    assert {rule: len(outputs) for rule, outputs in jobs.items()} == {
        "abdev_predict_baseline": 2, "abdev_score": 2}


def run_checks(main_log=MAIN_LOG, slurm_logs=(SLURM_LOG, SLURM_LOG_2), local=LOCAL_RULES,
               squeue=None):
    report = check.Report()
    log = check.parse_main_log(main_log)
    check.check_jobs(log, check.jobs_in_slurm_logs(list(slurm_logs)), local, report)
    squeue = squeue or {"1": (log.run_id, "COMPLETED", "debug")}
    check.check_slurm_side(log, squeue, "debug", report)
    return report


def test_a_good_run_passes():
    report = run_checks()
    assert report.failures == []
    assert "ok    SLURM job 1: COMPLETED in partition debug" in report.lines


def test_a_job_that_bypassed_slurm_fails():
    report = run_checks(slurm_logs=(SLURM_LOG,))
    assert report.failures == [
        "abdev_predict_baseline: 2 job(s) finished but 1 appear in SLURM job logs",
        "abdev_score: 2 job(s) finished but 1 appear in SLURM job logs",
    ]
    report = run_checks(local={"abdev_download"})
    assert report.failures == [
        "job 1 (summarize_benchmark) ran on the submit host, but summarize_benchmark is not a localrule"]


def test_failed_misplaced_or_unknown_slurm_jobs_fail():
    run_id = check.parse_main_log(MAIN_LOG).run_id
    report = run_checks(squeue={"1": (run_id, "FAILED", "batch")})
    assert report.failures == [
        "SLURM job 1: state FAILED, partition 'batch', not the expected 'debug'"]
    assert run_checks(squeue={"2": (run_id, "COMPLETED", "debug")}).failures == [
        "SLURM job 1 is unknown to squeue"]


def test_a_run_with_no_submission_fails():
    only_local = MAIN_LOG.split("Job c6acf978")[0]
    report = run_checks(main_log=only_local, slurm_logs=())
    assert "no job went through SLURM" in report.failures
    assert "snakemake reported no sbatch submission" in report.failures


def test_declared_local_rules_are_read_from_rule_files(tmp_path):
    smk = tmp_path / "x.smk"
    smk.write_text("rule a:\n    output: 'a'\n    localrule: True\n    shell: 'x'\n\n"
                   "rule b:\n    output: 'b'\n    shell: 'y'\n\nrule c:\n    localrule: True\n")
    assert check.declared_local_rules([smk]) == {"a", "c"}


def test_summaries_must_agree_to_the_last_digit(tmp_path):
    rows = pd.DataFrame({
        "benchmark": ["abdev"] * 2, "dataset": ["d"] * 2, "model": ["m", "n"],
        "condition": ["fold=average"] * 2, "metric": ["HIC:spearman"] * 2,
        "value": [0.123456789012, 0.5], "git_commit": ["c", "c"],
    })
    rows.to_csv(tmp_path / "local.csv", index=False)
    rows.iloc[::-1].to_csv(tmp_path / "slurm.csv", index=False)  # order does not matter
    report = check.Report()
    check.check_summaries(tmp_path / "slurm.csv", tmp_path / "local.csv", report)
    assert report.failures == []
    rows.loc[0, "value"] = 0.123456789013
    rows.to_csv(tmp_path / "slurm.csv", index=False)
    check.check_summaries(tmp_path / "slurm.csv", tmp_path / "local.csv", report)
    assert len(report.failures) == 1 and report.failures[0].startswith("summary values differ in ['value']")


def test_only_this_runs_submitted_slurm_logs_are_read(tmp_path):
    """A re-run in the same copy leaves the first run's SLURM logs beside its own: only the
    logs its main log names as submitted count (else a rule re-run for 2 of its 4 jobs reads
    as 4 jobs in SLURM logs)."""
    ours = tmp_path / "logs" / "slurm" / "group_x" / "21.log"
    earlier = tmp_path / "logs" / "slurm" / "group_x" / "14.log"
    ours.parent.mkdir(parents=True)
    ours.write_text(SLURM_LOG)
    earlier.write_text(SLURM_LOG_2)
    main_log = MAIN_LOG.replace("/tmp/sl/logs/slurm/group_abdev_abdev_predict_abdev_score/1.log",
                                str(ours))
    texts = check.submitted_logs(check.parse_main_log(main_log), tmp_path)
    assert texts == [SLURM_LOG]
    # a relative log path is read from the run's copy
    relative = MAIN_LOG.replace("/tmp/sl/logs/slurm/group_abdev_abdev_predict_abdev_score/1.log",
                                "logs/slurm/group_x/21.log")
    assert check.submitted_logs(check.parse_main_log(relative), tmp_path) == [SLURM_LOG]
