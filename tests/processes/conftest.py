"""Whatever a test's end (passed, failed, timed out), no bot process it started outlives it."""

from __future__ import annotations

import pytest

from tests.support.processes import stop_leftovers


@pytest.fixture(autouse=True)
async def no_process_left():
    yield
    await stop_leftovers()
