"""Entry script of the report_<benchmark> rules: draw every registered figure of one
benchmark in one job (matplotlib is loaded once)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.figures.spec import FigureSpec


def draw(smk):
    for figure in smk.params.figures:
        spec = FigureSpec(figure["name"], figure["name"], figure["function"])
        inputs = {}
        for name in figure["inputs"]:
            files = getattr(smk.input, name)
            inputs[name] = [files] if isinstance(files, str) else list(files)
        spec.draw(inputs, getattr(smk.output, figure["name"]))


run(snakemake, draw)
