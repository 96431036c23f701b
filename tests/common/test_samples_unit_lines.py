"""The sample viewer's confidence block: each unit's stated confidence beside right/wrong."""

from scievals.common.experiments import Unit
from scievals.common.samples import unit_lines


def test_most_confident_first_unstated_last():
    text = unit_lines([Unit("live", True, 0.6), Unit("b", False, None),
                       Unit("singlets", True, 0.9), Unit("nk", False, 0.3)], "gate")
    assert text.splitlines() == [
        "Stated confidence per gate (right = matches the truth):",
        "  0.90  right  singlets", "  0.60  right  live", "  0.30  wrong  nk",
        "   -    wrong  b"]


def test_nothing_stated_nothing_shown():
    assert unit_lines([Unit("live", True)]) == ""
