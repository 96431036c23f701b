"""Optional features come with pip extras (``pip install -e '.[report]'``, ...).

A core install parses and dry-runs the whole workflow; a job or command that needs a
package of a missing extra stops with one line naming the extra to install, instead of a
``ModuleNotFoundError`` traceback. Which package belongs to which extra is read from the
package metadata (``[project.optional-dependencies]`` of pyproject.toml).
"""

from __future__ import annotations

import importlib
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from scievals.common.errors import ScievalsError

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _import_name(distribution: str) -> str:
    # Every optional dependency here imports under its distribution name (json-repair ->
    # json_repair, snakemake-executor-plugin-slurm -> snakemake_executor_plugin_slurm).
    return distribution.lower().replace("-", "_").replace(".", "_")


@cache
def extra_of_module() -> dict[str, str]:
    """Top-level import name -> the first (smallest) extra that installs it."""
    # here, not at the top: only a missing package reads the metadata, and every job imports
    # this module (importlib.metadata, tomllib and the email parser they bring: ~10 ms a job)
    import tomllib
    from importlib import metadata

    pairs: list[tuple[str, str | None]] = []  # (distribution, extra or None for core)
    try:
        for line in metadata.requires("scievals") or []:
            extra = _EXTRA.search(line)
            if name := _REQUIREMENT.match(line):
                pairs.append((name.group(1), extra.group(1) if extra else None))
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
        groups = {None: project["dependencies"], **project["optional-dependencies"]}
        for extra, requirements in groups.items():
            pairs += [(m.group(1), extra) for r in requirements if (m := _REQUIREMENT.match(r))]
    core = {_import_name(d) for d, extra in pairs if extra is None}
    mapping: dict[str, str] = {}
    for distribution, extra in pairs:
        name = _import_name(distribution)
        if extra not in (None, "all") and name not in core and name != "scievals":
            mapping.setdefault(name, extra)
    return mapping


def missing_extra(exc: BaseException) -> str | None:
    """The one-line message for an import error caused by a missing extra, else None."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    extra = extra_of_module().get(top)
    if extra is None:
        return None
    return (f"this needs the '{extra}' extra (package {top} is not installed): "
            f"pip install -e '.[{extra}]'  (or '.[all]')")


def import_extra(module: str) -> ModuleType:
    """Import ``module``; a missing optional package becomes a ScievalsError naming its extra."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        message = missing_extra(exc)
        if message is None:
            raise
        raise ScievalsError(module, message) from None


def install_excepthook() -> None:
    """Uncaught missing-extra imports (e.g. at the top of an entry script) print one line."""
    previous = sys.excepthook

    def hook(kind, exc, tb):
        message = missing_extra(exc)
        if message is None:
            previous(kind, exc, tb)
            return
        line = f"error: {message}"
        print(line, file=sys.stderr)
        smk = getattr(sys.modules.get("__main__"), "snakemake", None)
        if smk is not None and len(smk.log):  # a Snakemake job: the rule's log too
            with open(smk.log[0], "a", encoding="utf-8") as log:
                log.write(line + "\n")

    sys.excepthook = hook
