"""Grader families; importing this package registers every grader type."""

from scievals.waza.graders import (  # noqa: F401
    code,
    files,
    human,
    judge,
    programs,
    session,
    text,
    trigger,
)
