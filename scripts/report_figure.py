"""Entry script of the report_<benchmark>_<figure> rules: draw one registered figure."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.figures.spec import FigureSpec


def draw(smk):
    spec = FigureSpec(smk.params.figure, smk.params.figure, smk.params.function)
    inputs = {}
    for name, files in smk.input.items():
        inputs[name] = [files] if isinstance(files, str) else list(files)
    spec.draw(inputs, smk.output[0])


run(snakemake, draw)
