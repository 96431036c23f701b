"""Did the model attempt the task at all?

A prediction is a task failure when its reply is empty, errored, or yields no
hierarchy, or when the reply asks questions, refuses or explains how one *would*
gate instead of gating. The phrase lists below are ours; the decision rule follows
the reference (``evaluation/task_failure.py``): gate-like words outweigh a single
stray phrase, and a reply with ten or more gate-like words is never a failure.
"""

from __future__ import annotations

import re

_QUESTION = [
    r"which (?:markers?|channels?|fluorochromes?) (?:are|is) (?:being )?used",
    r"what (?:is|are) (?:the|your) (?:research|experimental|scientific) (?:question|goal|aim)",
    r"what (?:cell )?populations? (?:are you|do you|of interest)",
    r"(?:please|could you|can you) (?:provide|specify|clarify|share|tell)",
    r"(?:need|require)s? (?:more|additional) (?:information|context|details)",
    r"without (?:knowing|more (?:information|context))",
]
_REFUSAL = [
    r"(?:cannot|can't|can not|unable to) (?:predict|determine|provide|create|propose|design)",
    r"(?:not possible|impossible) to (?:predict|determine|say)",
    r"insufficient (?:information|data|context)",
    r"i (?:would )?need to know",
]
_INSTRUCTION = [
    r"here(?:'s| is) how (?:you|one) (?:would|could|might|can)",
    r"(?:generally|typically),? (?:you|one) would",
    r"the (?:typical|usual|general) approach (?:is|would be)",
    r"it depends on (?:the|your)",
]
_GATE_WORDS = re.compile(
    r"\b(?:singlets?|live|viable|lymphocytes?|leukocytes?|monocytes?|granulocytes?|"
    r"dendritic|[tb] cells?|nk cells?|cd\d+[a-z]*[+-]?)(?![a-z0-9])"
)


def _count(patterns: list[str], text: str) -> int:
    return sum(len(re.findall(p, text)) for p in patterns)


def classify(text: str | None, parsed: bool, error: str | None = None) -> str:
    """"none" or the failure type: error, empty, unparseable, meta_questions,
    refusal, instructions."""
    if error:
        return "error"
    if text is None or not text.strip():
        return "empty"
    low = text.lower()
    questions = _count(_QUESTION, low)
    refusals = _count(_REFUSAL, low)
    instructions = _count(_INSTRUCTION, low)
    gates = len(_GATE_WORDS.findall(low))
    signals = questions + refusals + instructions
    if gates >= 10 or (gates >= 5 and signals <= 1):
        return "none" if parsed else "unparseable"
    if questions >= 2 or (questions >= 1 and gates < 3):
        return "meta_questions"
    if refusals >= 1:
        return "refusal"
    if instructions >= 2 and gates < 5:
        return "instructions"
    return "none" if parsed else "unparseable"
