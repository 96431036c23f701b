"""Every command's and sub-command's ``--help`` formats (issue 36, point 1: the top-level help
crashed on a ``%`` in ``plan``'s one-line help, and ``plan --help`` printed ``80 %% power``)."""

from __future__ import annotations

import argparse

import pytest
from scievals import registry
from scievals.cli import build_parser, main


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command words, parser) of ``parser`` and of every sub-command under it, depth first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


PARSERS = list(_parsers(build_parser()))


def test_the_walk_reaches_every_command_and_the_nested_ones():
    commands = {path for path, _ in PARSERS}
    # every benchmark's group and the shared commands (scievals.cli.COMMAND_MODULES)
    assert {(b.name,) for b in registry.REGISTRY} <= commands
    assert {("run",), ("plan",), ("show",), ("history",), ("llm",)} <= commands
    assert any(len(path) == 2 for path in commands)  # a benchmark's sub-commands too


@pytest.mark.parametrize(("path", "parser"), PARSERS,
                         ids=[" ".join(path) or "top" for path, _ in PARSERS])
def test_every_help_formats_without_a_doubled_or_dangling_percent(path, parser):
    text = parser.format_help()
    assert text.startswith("usage: python -m scievals")
    # a help string is %-formatted (so "%%" prints "%"), a description is not (so "%%" shows)
    assert "%%" not in text and "%(" not in text


def test_the_top_level_help_is_printed_and_exits_0(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "80 % power" in out  # plan's one-line help, the % that crashed it
