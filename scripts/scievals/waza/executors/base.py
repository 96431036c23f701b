"""The executors' one interface: run a prompt in a workspace, return what happened.

An executor turns one prompt (a task's trial or a trigger prompt) into an
:class:`Execution`: session events (Copilot-shaped ``{type, data}``) or a plain output,
and an error text when the run failed. Recording a run (``scievals.waza.recording``) and
grading it (``scievals.waza.runs``, in the score stage) are the same for every executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass
class Execution:
    """What an executor returns for one prompt. ``output`` None: taken from ``events``."""

    events: list[dict] = field(default_factory=list)
    output: str | None = None
    error: str = ""


@dataclass(frozen=True)
class Trial:
    """One run of one prompt: ``case_id`` names it in LLM records and the cache,
    ``sample_index`` makes a retry a new sample, ``n_files`` is the task's file count."""

    case_id: str
    sample_index: int = 0
    n_files: int = 0
    timeout_s: float = 300.0


class Executor(Protocol):
    """``kind`` is the results' ``engine_type``; ``workspace`` None is a trigger prompt."""

    kind: str

    def execute(self, prompt: str, workspace: Path | None, trial: Trial) -> Execution: ...

    def invoked_skills(self, prompt: str, should_trigger: bool, trial: Trial
                       ) -> tuple[list[str], str]: ...
