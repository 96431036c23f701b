"""Check a `snakemake --profile profiles/slurm` run against SLURM and against a local run.

    python tests/cluster/check_slurm_run.py --workdir W --local-summary L/results/summary.csv \
        --partition batch

Passes when
- every job the run finished either ran inside a SLURM job or belongs to a rule the
  workflow declares `localrule: True` (download and table merging stay on the submit host);
  a job "ran inside SLURM" when its rule block and outputs appear in a kept SLURM job log
  of this run's submissions (run with --slurm-keep-successful-logs), and per rule the
  counts match;
- every SLURM job snakemake reported as submitted is known to SLURM (`squeue --states=all`)
  as COMPLETED, under this run's job name, in the expected partition (--partition);
- results/summary.csv has exactly the values of the local run (all columns: the runs share
  the code, config, data and SCIEVALS_GIT_COMMIT, so even provenance must agree).
Prints one line per check and exits 1 on the first failed group of checks.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

SUBMITTED = re.compile(
    r"^Job (\S+) has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", re.MULTILINE
)
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: ([\w-]+)\)", re.MULTILINE)
LOCAL_BLOCK = re.compile(r"^localrule ([\w-]+):\n(?:[ \t]+.*\n)*?[ \t]+jobid: (\d+)", re.MULTILINE)
RUN_ID = re.compile(r"^SLURM run ID: (\S+)", re.MULTILINE)
# A rule block in a SLURM job log: "rule x:" or, for the job-step snakemake, "localrule x:".
JOB_BLOCK = re.compile(r"^[ \t]*(?:local)?rule ([\w-]+):\n(?:[ \t]+.*\n)*?[ \t]+output: (.+)\n", re.MULTILINE)
RULE_START = re.compile(r"^\s*rule\s+([\w-]+)\s*:", re.MULTILINE)


@dataclass
class MainLog:
    run_id: str
    finished: dict[str, str]  # snakemake jobid -> rule
    local: set[str]  # jobids that ran on the submit host
    submissions: list[tuple[str, str, str]]  # (snakemake job or group id, slurm jobid, log)


def parse_main_log(text: str) -> MainLog:
    run_id = RUN_ID.search(text)
    return MainLog(
        run_id=run_id.group(1) if run_id else "",
        finished={jobid: rule for jobid, rule in FINISHED.findall(text)},
        local={jobid for _, jobid in LOCAL_BLOCK.findall(text)},
        submissions=SUBMITTED.findall(text),
    )


def jobs_in_slurm_logs(texts: list[str]) -> dict[str, set[str]]:
    """Rule -> set of output lists of the rule blocks executed inside SLURM jobs."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for rule, outputs in JOB_BLOCK.findall(text):
            found.setdefault(rule, set()).add(outputs.strip())
    return found


def submitted_logs(log: MainLog, workdir: Path) -> list[str]:
    """The texts of the SLURM job logs this run submitted (a re-run in the same copy leaves
    the earlier run's logs beside them: a rule that ran remotely then, and again now for
    fewer of its jobs, would otherwise count both runs' jobs)."""
    texts = []
    for _, _, path in log.submissions:
        file = Path(path) if Path(path).is_absolute() else workdir / path
        if file.is_file():
            texts.append(file.read_text())
    return texts


def generated_local_rules(workdir: Path) -> set[str]:
    """Local rules among those rules/stages.smk generates from the registry (downloads, ...),
    under the workdir's config/config.yaml, which enables every benchmark the run can use."""
    sys.path.insert(0, str(workdir / "scripts"))
    from scievals import registry
    from scievals.common.io import read_yaml
    from scievals.config_validation import validate_config

    config = validate_config(read_yaml(workdir / "config" / "config.yaml"))
    return {f"{bench.name}_{role}" for bench in registry.enabled(config)
            for role, stage in bench.stages(config).items() if stage.localrule}


def declared_local_rules(rule_files: list[Path]) -> set[str]:
    """Names of rules declared with `localrule: True` in the workflow's rule files."""
    local = set()
    for path in rule_files:
        text = path.read_text()
        starts = list(RULE_START.finditer(text))
        for i, match in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
            if re.search(r"^\s*localrule:\s*True\b", text[match.end():end], re.MULTILINE):
                local.add(match.group(1))
    return local


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def ok(self, message: str) -> None:
        self.lines.append(f"ok    {message}")

    def fail(self, message: str) -> None:
        self.lines.append(f"FAIL  {message}")
        self.failures.append(message)


def check_jobs(log: MainLog, slurm_jobs: dict[str, set[str]], local_rules: set[str],
               report: Report) -> None:
    if not log.finished:
        report.fail("the main log lists no finished job")
        return
    remote_counts: Counter[str] = Counter()
    for jobid, rule in sorted(log.finished.items(), key=lambda kv: int(kv[0])):
        if jobid in log.local:
            if rule not in local_rules:
                report.fail(f"job {jobid} ({rule}) ran on the submit host, but {rule} is not a localrule")
        else:
            remote_counts[rule] += 1
    for rule, count in sorted(remote_counts.items()):
        in_slurm = len(slurm_jobs.get(rule, ()))
        if in_slurm == count:
            report.ok(f"{rule}: {count} job(s) ran inside SLURM jobs")
        else:
            report.fail(f"{rule}: {count} job(s) finished but {in_slurm} appear in SLURM job logs")
    local = Counter(log.finished[j] for j in log.local if j in log.finished)
    for rule, count in sorted(local.items()):
        if rule in local_rules:
            report.ok(f"{rule}: {count} job(s) on the submit host (localrule)")
    if not remote_counts:
        report.fail("no job went through SLURM")
    if not log.submissions:
        report.fail("snakemake reported no sbatch submission")


def squeue_jobs() -> dict[str, tuple[str, str, str]]:
    """SLURM jobid -> (job name, state, partition) for every job slurmctld still knows."""
    out = subprocess.run(
        ["squeue", "--states=all", "--noheader", "--format=%i|%j|%T|%P"],
        capture_output=True, text=True, check=True, timeout=30,
    ).stdout
    jobs = {}
    for line in out.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 4:
            jobs[parts[0]] = (parts[1], parts[2], parts[3])
    return jobs


def check_slurm_side(log: MainLog, known: dict[str, tuple[str, str, str]], partition: str,
                     report: Report) -> None:
    for _, slurm_id, _ in log.submissions:
        if slurm_id not in known:
            report.fail(f"SLURM job {slurm_id} is unknown to squeue")
            continue
        name, state, part = known[slurm_id]
        problems = []
        if state != "COMPLETED":
            problems.append(f"state {state}")
        if log.run_id and name != log.run_id:
            problems.append(f"job name {name!r} is not the run id {log.run_id!r}")
        if part != partition:
            problems.append(f"partition {part!r}, not the expected {partition!r}")
        if problems:
            report.fail(f"SLURM job {slurm_id}: {', '.join(problems)}")
        else:
            report.ok(f"SLURM job {slurm_id}: COMPLETED in partition {part}")


KEYS = ["benchmark", "dataset", "model", "condition", "metric"]


def check_summaries(slurm_summary: Path, local_summary: Path, report: Report) -> None:
    def load(path: Path) -> pd.DataFrame:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return frame.sort_values(KEYS).reset_index(drop=True)

    slurm, local = load(slurm_summary), load(local_summary)
    if list(slurm.columns) != list(local.columns):
        report.fail(f"summary columns differ: {list(slurm.columns)} vs {list(local.columns)}")
        return
    if len(slurm) != len(local) or not slurm[KEYS].equals(local[KEYS]):
        report.fail(f"summary rows differ: {len(slurm)} rows on SLURM, {len(local)} locally")
        return
    differing = [c for c in slurm.columns if not slurm[c].equals(local[c])]
    if differing:
        first = next(i for i in range(len(slurm)) if not slurm.loc[i].equals(local.loc[i]))
        report.fail(
            f"summary values differ in {differing}; first row {first}: "
            f"{dict(slurm.loc[first, differing])} vs {dict(local.loc[first, differing])}"
        )
    else:
        report.ok(f"results/summary.csv: {len(slurm)} rows identical to the local run "
                  f"(every column, values compared as written)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True, help="the SLURM run's workflow copy")
    parser.add_argument("--local-summary", type=Path, required=True)
    parser.add_argument("--partition", required=True,
                        help="the partition every job must have run in")
    args = parser.parse_args(argv)

    logs = sorted((args.workdir / ".snakemake" / "log").glob("*.snakemake.log"))
    if not logs:
        print(f"FAIL  no snakemake log under {args.workdir}/.snakemake/log", file=sys.stderr)
        return 1
    log = parse_main_log(logs[-1].read_text())
    slurm_logs = submitted_logs(log, args.workdir)
    local_rules = (declared_local_rules(sorted((args.workdir / "rules").glob("*.smk")))
                   | generated_local_rules(args.workdir))

    report = Report()
    check_jobs(log, jobs_in_slurm_logs(slurm_logs), local_rules, report)
    check_slurm_side(log, squeue_jobs(), args.partition, report)
    check_summaries(args.workdir / "results" / "summary.csv", args.local_summary, report)
    print("\n".join(report.lines))
    passed = len(report.lines) - len(report.failures)
    print(f"{passed} passed, {len(report.failures)} failed")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
