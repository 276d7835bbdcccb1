"""Fixtures the end-to-end tests share beyond tests/conftest.py's: a group with two players."""

from __future__ import annotations

import pytest

from tests.support.groups import GROUP
from tests.support.harness import User


@pytest.fixture
def club(api) -> tuple[User, User]:
    """The group "2048 Club", with Anna (English) its admin, and Bob (Dutch)."""
    anna = User(api, 101, "Anna", "en")
    bob = User(api, 202, "Bob", "nl")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    return anna, bob
