"""Run one workflow job: ``python scripts/job.py THREADS JOB_JSON [LOG ...]``.

The rules' ``shell:`` command (scievals.common.job_spec.job_command). The job's entry
script (in this folder, named in JOB_JSON) runs as Snakemake's ``script:`` directive would
run it, with a ``snakemake`` global holding the job's input, output, params, wildcards, log
and threads, but without importing Snakemake (scievals.common.job_spec says why)."""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, str(HERE))

try:
    from scievals.common.job_spec import decode

    threads, spec, *log = sys.argv[1:]
    entry, snakemake = decode(spec, int(threads), log, str(HERE))
    runpy.run_path(str(HERE / entry), init_globals={"snakemake": snakemake}, run_name="__main__")
except KeyboardInterrupt:  # Ctrl-C before the entry script's own handler: one line
    print("interrupted", file=sys.stderr)
    sys.exit(130)
