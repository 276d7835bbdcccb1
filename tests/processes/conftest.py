"""Whatever a test's end (passed, failed, timed out), no bot process it started outlives it;
and a PostgreSQL server of a module's own, to restart or to refuse a password."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.pgserver import OwnPostgres
from tests.support.processes import stop_leftovers


@pytest.fixture(autouse=True)
async def no_process_left():
    yield
    await stop_leftovers()


@pytest.fixture(scope="module")
def own_postgres():
    """A PostgreSQL server of the module's own, asking for a password (support/pgserver.py)."""
    server = OwnPostgres()
    try:
        asyncio.run(server.start())
        yield server
    finally:
        asyncio.run(server.stop())
