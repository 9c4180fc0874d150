"""The composers' tests share one way to get an advisor: one per test module, as each module built its own."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()
