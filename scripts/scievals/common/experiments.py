"""The experiment dimensions every structured-answer benchmark shares (DESIGN, round 6).

A benchmark that asks a model for a structured answer (gating trees, autogkb annotations)
exposes three pure functions in ``scievals.<b>.experiments``; the shared code drives them:

- ``units(parsed, item) -> list[Unit]``: the scored units of one parsed reply (a gate, an
  annotation), each with its stated confidence and whether it is right. ``parsed`` is what
  the benchmark's parser returned (``None`` for a reply that did not parse: no units);
  ``item`` is the case *with* its truth.
- ``consensus(parsed_list) -> parsed``: k parsed replies of one item -> one reply, scored
  like any other.
- ``feedback(parsed_or_error, inputs) -> str | None``: a follow-up user message built only
  from checks that do not look at the truth, or ``None`` when the checks find nothing.
  ``inputs`` is the item's model-facing part (``item_inputs``), never the truth.

Temperature, sample index, stated confidence and refinement turn are parts of an arm's
*condition* string, so the paired engine, leaderboard, history and viewer need no new
concept. One spelling, built and read only here:

    <base>[+conf][@t<temperature>][#turn<k>]      e.g.  standard_direct+conf@t0.7#turn1

``+conf``: the prompt asked for a confidence per unit; ``@t``: the sampling temperature,
written only when the benchmark's ``temperatures`` is not the default ``[0.0]`` (so the
default run's condition names do not change); ``#turn<k>``: the reply after k feedback turns
(turn 0 is the first answer and carries no suffix).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

DEFAULT_TEMPERATURES = (0.0,)


@dataclass(frozen=True)
class Unit:
    """One scored unit of one reply.

    ``key``: the unit's identity within its item, the same across samples of that item
    (gating: the normalized gate name; autogkb: the annotation's normalized identity), so the
    share of samples holding a key is its agreement confidence. ``confidence``: the stated
    probability that the unit is right, or ``None`` when the reply gave none or an invalid
    one (missing, not a number, outside [0, 1]): counted, never guessed.
    """

    key: str
    correct: bool
    confidence: float | None = None


def stated_confidence(value) -> float | None:
    """A reply's confidence value as a probability, or None when it is not a valid one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else None


@dataclass(frozen=True)
class Condition:
    """An arm's condition split into its dimensions (see the module docstring)."""

    base: str
    confidence: bool = False
    temperature: float | None = None  # None: the default temperature, not written
    turn: int = 0

    @property
    def name(self) -> str:
        name = self.base + ("+conf" if self.confidence else "")
        if self.temperature is not None:
            name += f"@t{self.temperature:g}"
        if self.turn:
            name += f"#turn{self.turn}"
        return name

    def with_turn(self, turn: int) -> Condition:
        return Condition(self.base, self.confidence, self.temperature, turn)


_CONDITION = re.compile(r"^(?P<base>[^+@#]*)(?P<conf>\+conf)?(?:@t(?P<t>[0-9.eE+-]+))?"
                        r"(?:#turn(?P<turn>[0-9]+))?$")


def parse_condition(name: str) -> Condition:
    """The dimensions of a condition string (a plain base name parses to itself)."""
    m = _CONDITION.match(name)
    if m is None:
        return Condition(name)
    t = m.group("t")
    return Condition(m.group("base"), bool(m.group("conf")), None if t is None else float(t),
                     int(m.group("turn") or 0))


def temperature_written(temperatures) -> bool:
    """Whether condition names carry ``@t``: only when the setting is not the default."""
    return tuple(float(t) for t in temperatures) != DEFAULT_TEMPERATURES


def temperature_arms(temperatures) -> list[float | None]:
    """The temperature each arm is sampled at, in the setting's order: ``[None]`` (the model's
    own ``params.temperature``, no ``@t`` in the name) for the default setting, else each
    temperature, which then replaces the model's own for that arm."""
    if temperatures is None or not temperature_written(temperatures):
        return [None]
    return [float(t) for t in temperatures]


def temperature_setting(section) -> dict:
    """``{"temperatures": [...]}`` for a predict job's params, or ``{}`` for the default
    setting: the default run's params (and so its jobs) stay as they were."""
    temperatures = section.get("temperatures")
    if temperatures is None or not temperature_written(temperatures):
        return {}
    return {"temperatures": [float(t) for t in temperatures]}
