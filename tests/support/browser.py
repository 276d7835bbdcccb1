"""Debian's Chromium through Playwright (never Playwright's own browser download), and the
playground's page driven as a player drives it.

Outside CI a browser test is skipped when that Chromium or Playwright is missing; with CI set
it fails instead, since .ci/run installs both.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Where `modules_page` serves a folder of ES modules from: answered by the browser's routes.
MODULES_ORIGIN = "http://modules.test/"


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Debian's headless Chromium, closed afterwards."""
    if not CHROMIUM.exists() and not os.environ.get("CI"):
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium); .ci/run installs it")
    if os.environ.get("CI"):
        from playwright.async_api import async_playwright
    else:
        async_playwright = pytest.importorskip("playwright.async_api").async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


async def type_and_send(page: Any, text: str) -> None:
    """Type a message into the playground's chat and send it."""
    await page.fill("#text", text)
    await page.press("#text", "Enter")


async def be(page: Any, user_id: int, name: str) -> None:
    """Act as another of the playground's players, in their private chat."""
    await page.select_option("#player", str(user_id))
    await page.locator("#player option:checked").filter(has_text=name).wait_for(state="attached")
    await page.locator(f'.chat-item.active[data-chat-id="{user_id}"]').wait_for()


async def modules_page(browser: Any, folder: Path) -> Any:
    """A blank page whose origin serves `folder`'s files, so that it can import them as ES
    modules (which no page loaded from a file: address may do); nothing else loads."""

    async def serve(route: Any) -> None:
        name = route.request.url.removeprefix(MODULES_ORIGIN)
        if name == "":
            await route.fulfill(
                body="<!doctype html><title>modules</title>", content_type="text/html"
            )
        elif "/" not in name and (folder / name).is_file():
            await route.fulfill(path=str(folder / name))
        else:
            await route.fulfill(status=404)

    page = await browser.new_page()
    await page.route("**/*", serve)
    await page.goto(MODULES_ORIGIN)
    return page
