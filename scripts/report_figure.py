"""Entry script of the report_<benchmark>_<figure> rules: draw one registered figure."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.report.registry import figure


def draw(smk):
    spec = figure(smk.params.benchmark, smk.params.figure)
    inputs = {}
    for name in spec.inputs:
        files = smk.input[name]
        inputs[name] = [files] if isinstance(files, str) else list(files)
    spec.draw(inputs, smk.output[0])


run(snakemake, draw)
