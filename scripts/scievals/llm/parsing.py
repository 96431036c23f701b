"""What every benchmark's reply parser reports: the status, how it parsed, why it failed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass
class ParseOutcome:
    """Base of a benchmark's parse result; subclasses add the parsed answer's field."""

    status: str  # "ok" | "failed"
    method: str | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_record(self) -> dict:
        """The parse columns of a prediction record."""
        return {"parse_status": self.status, "parse_method": self.method,
                "parse_error": self.error, "parse_warnings": self.warnings}


# Stop reasons meaning "cut at max_tokens": OpenAI-compatible servers' and Anthropic's.
TRUNCATED_STOP = frozenset({"length", "max_tokens"})
CUT_SHORT = ("the reply was cut at max_tokens inside its JSON (finish_reason length); a "
             "repaired guess is not counted as parsed: raise the model's params.max_tokens")


def is_truncated(stop_reason: str | None) -> bool:
    return stop_reason in TRUNCATED_STOP


def refuse_cut_short(parsed: ParseOutcome, stop_reason: str | None, **empty) -> ParseOutcome:
    """``parsed``, or a failed copy of it (``empty`` clears the answer's field) when the
    reply was cut at max_tokens and parsed only by repairing broken JSON: the repair would
    guess how the answer ends, and count the guess as the model's answer."""
    if is_truncated(stop_reason) and parsed.ok and (parsed.method or "").endswith("repaired"):
        return replace(parsed, status="failed", error=CUT_SHORT, **empty)
    return parsed
