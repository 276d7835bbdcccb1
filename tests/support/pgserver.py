"""A PostgreSQL server of a test's own: restarted, fast or immediate, without touching the
shared test server, and asking for a password on 127.0.0.1 as a production server does.

It is started from Debian's `postgresql` binaries as `.ci/postgres` starts one (run as the
`postgres` user when the tests run as root), on a port and in a folder of its own; without
the binaries the test is skipped, except in CI.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import asyncpg
import pytest

from tests.support.databases import with_schema
from tests.support.processes import free_port

PASSWORD = "test-server-password"
DATABASE = "bot2048_test"
# Ports tried in turn when the one chosen was taken before the server could listen on it.
PORT_ATTEMPTS = 3


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    return Path(found[-1]) if found else None


class OwnPostgres:
    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            if os.environ.get("CI"):
                raise RuntimeError("PostgreSQL's binaries are missing (apt-get install postgresql)")
            pytest.skip("PostgreSQL's binaries are not installed (apt-get install postgresql)")
        self._bin = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="bot2048-pg-"))
        self.port = 0  # chosen when it starts

    def url(self, *, user: str = "postgres", password: str = PASSWORD, database: str = DATABASE):
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    async def fresh_url(self) -> str:
        """The URL of a new, empty schema: a test's own tables, and its own updates' ids."""
        schema = f"test_{uuid.uuid4().hex[:16]}"
        connection = await asyncpg.connect(self.url())
        try:
            await connection.execute(f"CREATE SCHEMA {schema}")
        finally:
            await connection.close()
        return with_schema(self.url(), schema)

    async def _run(self, *command: str) -> None:
        as_owner = ("runuser", "-u", "postgres", "--") if os.getuid() == 0 else ()
        process = await asyncio.create_subprocess_exec(
            *as_owner,
            *command,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await process.communicate()
        assert process.returncode == 0, f"{command[0]}: {stderr.decode()}"

    def _ctl(self, *args: str) -> tuple[str, ...]:
        return (str(self._bin / "pg_ctl"), "-D", str(self.dir / "data"), *args)

    async def start(self) -> None:
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres")
        password_file = self.dir / "password"
        password_file.write_text(PASSWORD)
        if os.getuid() == 0:
            shutil.chown(password_file, "postgres")
        await self._run(
            str(self._bin / "initdb"),
            *("-D", str(self.dir / "data"), "-U", "postgres", "-E", "UTF8", "--no-sync"),
            *("--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={password_file}"),
        )
        for attempt in range(1, PORT_ATTEMPTS + 1):
            # Chosen now, after initdb's seconds: another suite on this machine (the same
            # ports for its workers) may have taken the one free when this one was made.
            self.port = free_port()
            try:
                await self._up("start")
                break
            except AssertionError:
                log = self.dir / "server.log"
                taken = log.exists() and "Address already in use" in log.read_text()
                if not taken or attempt == PORT_ATTEMPTS:
                    raise
        await self._run(
            str(self._bin / "createdb"), "-h", str(self.dir), "-p", str(self.port), DATABASE
        )

    async def _up(self, command: str, *extra: str) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.dir}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        await self._run(
            *self._ctl("-l", str(self.dir / "server.log"), "-o", options, "-w", command, *extra)
        )

    async def restart(self, mode: str) -> None:
        """Stop the server (`fast`: sessions told and ended; `immediate`: killed) and start it
        again on the same port, as soon as it is down."""
        await self._up("restart", "-m", mode)

    async def stop(self) -> None:
        if (self.dir / "data" / "postmaster.pid").exists():
            await self._run(*self._ctl("-m", "immediate", "-w", "stop"))
        shutil.rmtree(self.dir, ignore_errors=True)
