"""Entry script of rule report_samples: the report's sample viewer page."""

import logging
import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.report.viewer import RUNS_INDEX, write_viewer


def samples(smk):
    # the page also opens the kept run logs (results/runs/, scievals.interop.runlogs)
    count = write_viewer(smk.output[0], dict(smk.params.models), runs_index=RUNS_INDEX)
    logging.getLogger("scievals").info("%d items in %s", count, smk.output[0])


run(snakemake, samples)
