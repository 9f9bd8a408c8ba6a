"""Counts what `check_pass` proved: how many goldens ran before and after their pass in the
interpreter, and why the others could not, printed at the end of the test run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.passes.golden import VERDICTS


@pytest.fixture(autouse=True)
def _record_verdicts(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each `check_pass` verdict of a test goes to its report's `user_properties`."""
    verdicts: list = []
    token = VERDICTS.set(verdicts)
    yield
    VERDICTS.reset(token)
    request.node.user_properties.extend(("check_pass", v) for v in verdicts)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    verdicts = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        for name, value in getattr(report, "user_properties", ())
        if name == "check_pass"
    ]
    if not verdicts:
        return
    semantic = [(p, v) for p, v in verdicts if v.compared]
    reasons = Counter(f"{p.rsplit('.', 1)[-1]}: {v.reason}" for p, v in verdicts if not v.compared)
    write = terminalreporter.write_line
    write(
        f"check_pass: {len(semantic)} of {len(verdicts)} goldens compared by running them before "
        f"and after the pass ({sum(v.compared for _, v in semantic)} input sets); "
        f"{len(verdicts) - len(semantic)} could not run:"
    )
    for reason, count in sorted(reasons.items()):
        write(f"  {count} x {reason}")
