"""Entry script of rule gating_extract: FlowJo workspaces -> gate hierarchies (flowkit)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.io import read_json
from scievals.gating.extract import extract_workspaces


def extract(smk):
    downloaded = read_json(smk.input.source)
    workspaces = list(smk.input.workspaces) + downloaded["workspaces"]
    extract_workspaces(workspaces, smk.output.records, smk.output.report,
                       fcs_dirs=downloaded["fcs_dirs"], origins=downloaded["origins"])


run(snakemake, extract)
