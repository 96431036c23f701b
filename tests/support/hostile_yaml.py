"""Hostile YAML texts shared by the config-loader tests (unit and workflow)."""

from __future__ import annotations


def alias_bomb() -> str:
    """A 'billion laughs' config: 9 aliases of the level below at each of 9 levels, so
    9**9 = 387,420,489 leaves when expanded, from about 400 bytes (under ``gating:``)."""
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("gating: {bomb: *i}")
    return "\n".join(lines) + "\n"
