"""The Snakemake commands the end of a run names, written so that following one keeps the run's
models.

A run started with config files (``python -m scievals run`` passes its overlay
``.scievals/run/<benchmark>.yaml``; a user passes ``--configfile mine.yaml``) has models and
limits the plain workflow has not: a hint without those files would re-run the benchmark on
the default config, and the viewer or report it builds would lack the model just run. So every
command carries the run's ``--configfile`` files (last: the option takes every word after it),
and ``--snakefile`` when the workflow is not the one in the working directory.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

CORES = "8"


def _as_typed(path: str | os.PathLike, cwd: Path) -> str:
    """A path relative to the working directory where it is under it (as the user typed it)."""
    path = Path(path)
    if path.is_absolute() and path.is_relative_to(cwd):
        path = path.relative_to(cwd)
    return shlex.quote(str(path))


def snakemake_command(*words: str, configfiles: Sequence[str | os.PathLike] = (),
                      snakefile: str | os.PathLike | None = None,
                      cwd: str | os.PathLike | None = None) -> str:
    """``snakemake --cores 8 WORDS`` run as this run was: with its ``--snakefile`` (when not
    ``./Snakefile``) and its config files, runnable as printed from the working directory."""
    here = Path(cwd or os.getcwd()).absolute()
    command = ["snakemake", "--cores", CORES, *words]
    if snakefile is not None and Path(snakefile).absolute() != here / "Snakefile":
        command[1:1] = ["--snakefile", _as_typed(Path(snakefile).absolute(), here)]
    if configfiles:
        command += ["--configfile", *(_as_typed(Path(f).absolute(), here) for f in configfiles)]
    return " ".join(command)


def viewer_address(page: str, targets: Sequence[str],
                   llms: dict[str, Sequence[str]]) -> str | None:
    """The sample viewer's address opened on the model a run of one or several benchmarks
    singles out (``python -m scievals run gating --model ...`` puts that model last in the
    section's models): ``results/report/samples.html#gating/<model>``; None for a run that
    named no benchmark or ran no LLM (the viewer opens on its first model then).
    ``llms``: each enabled benchmark's LLMs, in the config's order."""
    from scievals.common.sample_links import item_link  # one definition of the address

    for benchmark, models in llms.items():
        if benchmark in targets and models:
            return str(Path(page).parent / item_link(benchmark, models[-1]))
    return None
