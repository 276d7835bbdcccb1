"""`python -m bot` as a real process: refused settings and clean shutdowns."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: `python -m bot` runs from here


def refused_setting(args: list[str], env: dict[str, str]) -> str:
    """Run `python -m bot` with a bad setting: exit code 2, one clear line, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr


async def stop_cleanly(process: asyncio.subprocess.Process) -> str:
    """SIGTERM a bot process; it must exit 0 without a traceback. Returns its stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        code = await asyncio.wait_for(process.wait(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.stderr is not None
    stderr = (await process.stderr.read()).decode()
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
    return stderr
