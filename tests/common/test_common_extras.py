"""A core install (`pip install -e .`, no extras) parses the workflow; a missing extra is one line.

The subprocesses below hide every package that only an extra brings (found from the package
metadata: the extras' requirements minus everything the core requirements pull in), the way
a core install lacks them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from scievals.common.extras import extra_of_module, missing_extra
from support.workflow_copy import copy_workflow

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("-", "_")


def core_closure() -> set[str]:
    """Import-style names of the core requirements and everything they require."""
    todo = [_name(r) for r in metadata.requires("scievals") or [] if "extra ==" not in r]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_name(r) for r in requires if "extra ==" not in r]
    return seen


def hidden_extras() -> set[str]:
    # Snakemake plugins stay visible: Snakemake finds installed plugins by their metadata
    # and imports them all, while a core install has neither (nothing to hide then).
    return {m for m in set(extra_of_module()) - core_closure() if not m.startswith("snakemake_")}


BLOCKER = """
import importlib.abc, sys
HIDDEN = {hidden!r}
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hide())
"""


def run_hidden(code: str, cwd: Path = ROOT, **extra_env) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts"), **extra_env)
    program = BLOCKER.format(hidden=sorted(hidden_extras())) + code
    return subprocess.run([sys.executable, "-c", program], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_extras_map_from_the_package_metadata():
    mapping = extra_of_module()
    assert mapping["matplotlib"] == "report"
    assert mapping["flowkit"] == "gating"
    assert mapping["openai"] == "llm"
    assert "pandas" not in mapping and "httpx" not in mapping  # core requirements
    # What a core install lacks: at least the report, gating and llm packages.
    assert {"matplotlib", "flowkit", "openai", "anthropic"} <= hidden_extras()


def test_missing_extra_message_names_the_extra():
    exc = ModuleNotFoundError("No module named 'matplotlib.pyplot'", name="matplotlib.pyplot")
    assert missing_extra(exc) == ("this needs the 'report' extra (package matplotlib is not "
                                  "installed): pip install -e '.[report]'  (or '.[all]')")
    assert missing_extra(ModuleNotFoundError("x", name="not_an_extra")) is None
    assert missing_extra(ValueError("x")) is None


def test_drawing_a_figure_without_matplotlib_is_one_line_naming_the_extra(tmp_path):
    proc = run_hidden(
        "from scievals.common.errors import ScievalsError\n"
        "from scievals import registry\n"
        "try:\n"
        f"    registry.get('abdev').figure('assay_heatmap').draw({{'summary': []}}, "
        f"{str(tmp_path)!r})\n"
        "except ScievalsError as exc:\n"
        "    print(exc.one_line())\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "scievals.abdev.figures: this needs the 'report' extra (package matplotlib is not "
        "installed): pip install -e '.[report]'  (or '.[all]')")


def test_entry_script_importing_a_missing_extra_prints_one_line(tmp_path):
    log = tmp_path / "job.log"
    proc = run_hidden(
        "class Smk:\n"
        f"    log = [{str(log)!r}]\n"
        "snakemake = Smk()\n"
        "from scievals.common.entry import run\n"
        "import flowkit\n"
    )
    assert proc.returncode == 1
    line = ("error: this needs the 'gating' extra (package flowkit is not installed): "
            "pip install -e '.[gating]'  (or '.[all]')")
    assert proc.stderr.strip() == line  # no traceback
    assert log.read_text().strip() == line


def test_cli_command_of_a_missing_extra_is_one_line():
    wsp = ROOT / "data/demo/gating/flowkit/simple_line_example/single_ellipse_51_events.wsp"
    proc = run_hidden(
        "import sys\n"
        "from scievals.cli import main\n"
        f"sys.exit(main(['gating', 'extract', '--wsp', {str(wsp)!r}]))\n"
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "error: flowkit: this needs the 'gating' extra (package flowkit is not installed): "
        "pip install -e '.[gating]'  (or '.[all]')")


def test_scoring_a_gating_reply_needs_only_the_core_install():
    # json-repair (reply parsing) is a core dependency: the registry reads gating's code
    # versions at parse time, and a core install must parse the workflow.
    case = ROOT / "docs/examples/gating/case.json"
    proc = run_hidden(
        "import sys\n"
        "from scievals.cli import main\n"
        f"sys.exit(main(['gating', 'score', '--pred', {str(case)!r}, '--truth', {str(case)!r}]))\n"
    )
    assert proc.returncode == 0, proc.stderr


def test_workspace_extraction_without_flowkit_stops_instead_of_skipping_every_file(tmp_path):
    wsp = ROOT / "data/demo/gating/flowkit/simple_line_example/single_ellipse_51_events.wsp"
    assert wsp.is_file()
    proc = run_hidden(
        "from scievals.common.errors import ScievalsError\n"
        "from scievals.gating.extract import extract_workspaces\n"
        "try:\n"
        f"    extract_workspaces([{str(wsp)!r}], {str(tmp_path / 'w.jsonl')!r}, "
        f"{str(tmp_path / 'r.json')!r})\n"
        "except ScievalsError as exc:\n"
        "    print(exc.one_line())\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("flowkit: this needs the 'gating' extra (package flowkit is "
                                   "not installed): pip install -e '.[gating]'  (or '.[all]')")
    assert not (tmp_path / "w.jsonl").exists()


@pytest.mark.slow
def test_core_install_parses_and_dry_runs_the_workflow(tmp_path):
    workdir = tmp_path / "scievals"
    copy_workflow(ROOT, workdir)
    proc = run_hidden(
        "import sys\n"
        "from snakemake.cli import main\n"
        "sys.argv = ['snakemake', '-n', '--cores', '1']\n"
        "main()\n",
        cwd=workdir,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"\breport_abdev\b", proc.stdout)  # the report rules are planned too
