import pytest

from bot.advisor import Advisor


@pytest.fixture(scope="session")
def advisor() -> Advisor:
    return Advisor()
