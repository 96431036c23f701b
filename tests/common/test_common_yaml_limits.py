"""The one YAML reader (issue 19 item 3): alias bombs, recursive aliases, deep nesting,
NUL and lone surrogates are one line at load; ordinary anchors still work."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.io import YAML_ALIAS_BUDGET, parse_yaml, read_yaml

ROOT = Path(__file__).resolve().parents[2]


def bomb(levels: int = 9, width: int = 9) -> str:
    """Nested anchors: level k holds ``width`` aliases of level k-1, so the last one
    expands to width**levels leaves (9**9 = 387,420,489) from about 300 bytes."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for k in range(1, levels):
        lines.append(f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_at_load_in_one_line(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text(bomb())
    assert path.stat().st_size < 1024
    started = time.perf_counter()
    with pytest.raises(ScievalsError) as info:
        read_yaml(path)
    assert time.perf_counter() - started < 2
    line = info.value.one_line()
    assert "\n" not in line and str(path) in line and "aliases expand" in line


def test_alias_budget_counts_only_the_nodes_aliases_add():
    # One anchored list of n scalars (n+1 nodes) used by k aliases adds k*(n+1) nodes.
    # n = 99, k = 100: 100 * 100 = 10,000 = the budget -> allowed; k = 101 -> 10,100, refused.
    items = ", ".join(["x"] * 99)
    ok = f"a: &a [{items}]\nb: [" + ", ".join(["*a"] * 100) + "]\n"
    assert YAML_ALIAS_BUDGET == 10_000
    assert len(parse_yaml(ok, "ok.yaml")["b"]) == 100
    too_many = f"a: &a [{items}]\nb: [" + ", ".join(["*a"] * 101) + "]\n"
    with pytest.raises(ScievalsError, match="aliases expand to more than 10,000"):
        parse_yaml(too_many, "big.yaml")


def test_ordinary_anchors_and_merge_keys_still_load():
    text = "base: &b {timeout: 5, retries: 2}\nx: *b\ny: {<<: *b, retries: 3}\n"
    assert parse_yaml(text, "f.yaml") == {"base": {"timeout": 5, "retries": 2},
                                          "x": {"timeout": 5, "retries": 2},
                                          "y": {"timeout": 5, "retries": 3}}


@pytest.mark.parametrize("text, problem", [
    ("a: &a [1, *a]\n", "recursive alias"),
    ("a: &a {b: *a}\n", "recursive alias"),
    ('a: "x\\0y"\n', "NUL or lone surrogate"),
    ('a: "\\ud800"\n', "NUL or lone surrogate"),
    ('"\\udfff": 1\n', "NUL or lone surrogate"),
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ("a: \x01\n", "not valid YAML"),
    ("a: !!python/object/apply:os.system [ls]\n", "not valid YAML"),
])
def test_hostile_yaml_is_one_line(text, problem):
    with pytest.raises(ScievalsError) as info:
        parse_yaml(text, "h.yaml")
    line = info.value.one_line()
    assert problem in line and line.startswith("h.yaml") and "\n" not in line


def test_every_yaml_read_goes_through_the_shared_reader():
    """No module parses YAML itself: the only yaml loader in the package is common.io's."""
    direct = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load|compose|SafeLoader)\b")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "scripts").rglob("*.py")
                 if p.name != "io.py" and direct.search(p.read_text(encoding="utf-8"))]
    offenders += [str(p.relative_to(ROOT)) for p in [ROOT / "Snakefile",
                                                     *(ROOT / "rules").glob("*.smk")]
                  if direct.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_waza_check_and_run_refuse_a_task_file_bomb(tmp_path, capsys):
    from scievals.cli import main

    (tmp_path / "eval.yaml").write_text("skill: s\ntasks: [t.yaml]\n")
    (tmp_path / "t.yaml").write_text("id: t\nname: t\ninputs: {prompt: hi}\n" + bomb())
    assert main(["waza", "check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "t.yaml" in out and "aliases expand" in out
    assert main(["waza", "run", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "aliases expand" in err
