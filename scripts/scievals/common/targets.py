"""Unknown targets get the list of valid ones, not Snakemake's MissingRuleException.

Snakemake 9 builds the DAG after the Snakefile is read and runs no hook when a target has
no rule, so the Snakefile checks the command line's targets itself once every rule is
defined (:func:`check_targets`): a target is fine when it names a rule, an existing file,
or a file some rule's output pattern matches.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from scievals.common.errors import ScievalsError


class RuleLike(Protocol):
    name: str

    def is_producer(self, requested_output: str) -> bool: ...


def command_line_targets(argv: Sequence[str]) -> list[str]:
    """The targets of a snakemake command line, read with Snakemake's own parser ([] when
    it cannot be read: then Snakemake says what is wrong)."""
    return [str(t) for t in (getattr(_parsed(argv), "targets", None) or [])]


def unknown_targets(targets: Iterable[str], rules: Iterable[RuleLike],
                    exists: Callable[[str], bool] = os.path.exists) -> list[str]:
    rules = list(rules)
    names = {rule.name for rule in rules}
    return [t for t in targets if t not in names and not exists(t)
            and not any(rule.is_producer(t) for rule in rules)]


def check_targets(argv: Sequence[str], rules: Iterable[RuleLike], valid: Sequence[str],
                  exists: Callable[[str], bool] = os.path.exists) -> None:
    """Raise one ScievalsError naming the unknown targets and the valid ones."""
    unknown = unknown_targets(command_line_targets(argv), rules, exists)
    if unknown:
        raise ScievalsError(
            "snakemake targets", f"no rule makes {', '.join(map(repr, unknown))}",
            f"valid targets: {', '.join(valid)}, or any file a rule writes (e.g. "
            "results/<benchmark>/scores/<model>.csv); options such as --configfile take every "
            "word after them, so put the targets first")


def report_is_missing_inputs(argv: Sequence[str], inputs: Iterable[str],
                             exists: Callable[[str], bool] = os.path.exists) -> bool:
    """True for a ``snakemake --report`` command line (without ``--report-after-run``, which
    makes them first) while a file the report bundles is missing."""
    # snakemake is present whenever a Snakefile is being read (as in command_line_targets)
    args = _parsed(argv)
    if getattr(args, "report", None) is None or getattr(args, "report_after_run", False):
        return False
    return not all(exists(path) for path in inputs)


def report_after_run(argv: Sequence[str]) -> str | None:
    """The report a ``--report FILE --report-after-run`` command line writes once the run
    ends (None for any other): the run's last lines name that file, not the command again."""
    args = _parsed(argv)
    if getattr(args, "report", None) is None or not getattr(args, "report_after_run", False):
        return None
    return str(args.report)


def _parsed(argv: Sequence[str]):
    """A snakemake command line read with Snakemake's parser (None if it cannot be read)."""
    # snakemake is present whenever a Snakefile is being read; the rest of scievals does not
    # need it, hence the import here.
    from snakemake.cli import get_argument_parser

    try:
        args, _ = get_argument_parser().parse_known_args(list(argv))
    except (SystemExit, Exception):  # noqa: BLE001 - Snakemake reports a bad command line
        return None
    return args
