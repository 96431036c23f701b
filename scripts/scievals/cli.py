"""``python -m scievals``: one command line, one sub-command group per benchmark.

Each registered benchmark (``scievals.registry``) has a ``cli`` module with
``register(subparsers)``, as do the LLM layer and the result history; this file only
wires them together and turns :class:`ScievalsError` (and a missing pip extra) into
one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from scievals import __version__, registry
from scievals.common import interrupts
from scievals.common.errors import ScievalsError, machine_error
from scievals.common.extras import missing_extra

# Sub-command groups: every benchmark's, then the ones shared by all benchmarks.
COMMAND_MODULES = [b.cli for b in registry.REGISTRY] + [
    "scievals.llm.cli",
    "scievals.results.history_cli",
    "scievals.results.show",
    "scievals.results.plan",
    "scievals.results.estimate",
    "scievals.interop.importing",
    "scievals.interop.cli",
    "scievals.run",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scievals",
        description="Score, validate and compare scientific-AI benchmark results. "
        "The Snakemake workflow calls the same functions.",
    )
    parser.add_argument("--version", action="version", version=f"scievals {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    interrupts.install()
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    passthrough = []
    if argv[:1] == ["run"] and "--" in argv:  # `run ... -- SNAKEMAKE ARGS`: not ours to parse
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    args.passthrough = passthrough
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:  # Ctrl-C: nothing is wrong with any file
        print("interrupted", file=sys.stderr)
        return 130
    except ScievalsError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as exc:  # a command of an extra that is not installed
        message = missing_extra(exc)
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk, a read-only folder: one line, not a traceback
        error = machine_error(exc)
        if error is None:
            raise
        print(f"error: {error.one_line()}", file=sys.stderr)
        return 1
