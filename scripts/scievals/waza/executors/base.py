"""The executors' one interface: run a prompt in a workspace, return what happened.

An executor turns one prompt (a task's trial or a trigger prompt) into an
:class:`Execution`: session events (Copilot-shaped ``{type, data}``) or a plain output,
and an error text when the run failed. Recording a run (``scievals.waza.recording``) and
grading it (``scievals.waza.runs``, in the score stage) are the same for every executor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

# Called after each turn with (turn number from 1, the events so far, that turn's output);
# False stops the conversation (a checkpoint with ``on_failure: stop`` failed).
TurnHook = Callable[[int, list[dict], str], bool]


@dataclass
class Execution:
    """What an executor returns for one prompt. ``output`` None: taken from ``events``."""

    events: list[dict] = field(default_factory=list)
    output: str | None = None
    error: str = ""
    # Multi-turn runs (follow_up_prompts): the turns completed, and a later turn's error
    # (``follow-up i/n failed: ...``: graders still run on the state reached).
    turns: int = 1
    followup_error: str = ""


@dataclass(frozen=True)
class Trial:
    """One run of one prompt: ``case_id`` names it in LLM records and the cache,
    ``sample_index`` makes a retry a new sample, ``n_files`` is the task's file count,
    ``skill_dirs`` the folders whose skills the agent may load."""

    case_id: str
    sample_index: int = 0
    n_files: int = 0
    timeout_s: float = 300.0
    # Where this task's skills are found (schemaVersion 1.x: skill_directories,
    # disabled_skills); None: the executor's own set.
    skill_dirs: tuple[Path, ...] | None = None


class Executor(Protocol):
    """``kind`` is the results' ``engine_type``; ``workspace`` None is a trigger prompt."""

    kind: str

    def execute(self, prompt: str, workspace: Path | None, trial: Trial,
                follow_ups: Sequence[str] = (), on_turn: TurnHook | None = None
                ) -> Execution:
        """Turn 1 is ``prompt``, turns 2..N the ``follow_ups`` in the same session and
        workspace; ``output`` is the last turn's output only (waza's ``final_output``)."""

    def invoked_skills(self, prompt: str, should_trigger: bool, trial: Trial
                       ) -> tuple[list[str], str]: ...
