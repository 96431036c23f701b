"""The ``mock`` executor (built-in baseline ``waza_mock``): waza's mock engine exactly.

Output ``Mock response for: <prompt>`` (+ ``\\nAnalyzed N file(s)`` when the task has
files), the workspace left as the task's files, no events, tool calls or usage; on
trigger prompts it invokes the suite's skill exactly when it should (a perfect score).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from scievals.waza.executors.base import Execution, Trial, TurnHook

MOCK_MODEL = "waza_mock"
# The predict_baseline rule's code version: a bump re-runs the mock's predict jobs.
# v2: runs are recorded (final workspace files included) and graded in the score stage.
# v3: a smoke run (limit N) runs the first N trigger prompts of each suite, not all.
BASELINE_VERSION = "waza-mock-v3"


class MockExecutor:
    kind = "mock"

    def __init__(self, skill: str = "") -> None:
        self.skill = skill

    def execute(self, prompt: str, workspace: Path | None, trial: Trial,
                follow_ups: Sequence[str] = (), on_turn: TurnHook | None = None
                ) -> Execution:
        """Each turn answers its own prompt the same way; the run's output is the last
        turn's (follow-ups go to the same mock session, as in waza's runner)."""
        prompts = [prompt, *follow_ups]
        output = ""
        for turn, text in enumerate(prompts, start=1):
            output = f"Mock response for: {text}"
            if trial.n_files:
                output += f"\nAnalyzed {trial.n_files} file(s)"
            if on_turn is not None and not on_turn(turn, [], output) and turn < len(prompts):
                return Execution(output=output, turns=turn)
        return Execution(output=output, turns=len(prompts))

    def invoked_skills(self, prompt: str, should_trigger: bool, trial: Trial
                       ) -> tuple[list[str], str]:
        return ([self.skill] if should_trigger else []), ""
