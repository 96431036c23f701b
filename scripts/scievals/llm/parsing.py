"""What every benchmark's reply parser reports: the status, how it parsed, why it failed."""

from __future__ import annotations

from dataclasses import dataclass, field


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
