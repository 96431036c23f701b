"""Reasoning models: the sampling parameters they refuse, and how the refusal is met.

OpenAI's reasoning models answer a request carrying ``temperature`` (or ``top_p``) with
HTTP 400 naming the parameter (``"param": "temperature"``, "Unsupported parameter: ...",
"Unsupported value: ... Only the default (1) value is supported"); Anthropic answers
``temperature`` with extended thinking on ("may only be set to 1 when thinking is
enabled") and some newer models refuse it outright. Such a request goes once more without
the named parameters, the client leaves them out of its later requests, and the replies say
which were dropped (``ProviderReply.dropped_params``), so the run ends with one notice per
model (:func:`scievals.llm.runner.check_dropped`).

The response cache keys the request as configured, not as sent: the configured parameters
are what the user asked for and what the tables' parameters say, a re-run then finds the
reply without first meeting the 400 again, and a model that accepts the parameter later
(or a server that ignores it) is not a different request for the cache.
"""

from __future__ import annotations

import re

# The sampling parameters a reasoning model may refuse (the others it has no notion of).
SAMPLING = ("temperature", "top_p")
# Wordings of a refusal (as opposed to a 400 about the prompt that mentions the word).
_REFUSAL = re.compile(r"unsupported|not supported|does not support|may only be set|"
                      r"only the default|cannot be (?:set|used|specified)|not allowed|"
                      r"deprecated|cannot both be", re.IGNORECASE)


def sent_sampling(kwargs: dict) -> list[str]:
    """The sampling parameters in a request's keyword arguments (or its ``extra_body``)."""
    extra = kwargs.get("extra_body") or {}
    return [name for name in SAMPLING if name in kwargs or name in extra]


def refused_parameters(exc, kwargs: dict) -> list[str]:
    """The sampling parameters a rejected request's 400 refuses (empty: another problem)."""
    if getattr(exc, "status", None) != 400:
        return []
    text = str(exc)
    param = getattr(exc, "param", None)
    named = [name for name in sent_sampling(kwargs)
             if param == name or re.search(rf"\b{name}\b", text)]
    if named and (param in SAMPLING or _REFUSAL.search(text)):
        return named
    return []


def without(kwargs: dict, names: list[str] | set[str]) -> dict:
    """``kwargs`` without the parameters ``names`` (top level and ``extra_body``)."""
    if not names:
        return kwargs
    kept = {key: value for key, value in kwargs.items() if key not in names}
    if "extra_body" in kwargs:
        extra = {key: value for key, value in kwargs["extra_body"].items() if key not in names}
        if extra:
            kept["extra_body"] = extra
        else:
            del kept["extra_body"]
    return kept
