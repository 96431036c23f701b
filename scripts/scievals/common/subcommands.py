"""The ``python -m scievals <benchmark> COMMAND`` parser every benchmark's CLI hangs off."""

from __future__ import annotations

import argparse


def benchmark_commands(subparsers, name: str, help: str, description: str):
    """Add ``<name>`` to ``subparsers`` and return its own subparsers (a command is required).

    ``description`` is printed as written (a module docstring keeps its line breaks)."""
    parser = subparsers.add_parser(name, help=help, description=description,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND", required=True)
