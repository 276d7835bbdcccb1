"""Debian's Chromium driven by Playwright: the playground's page and the Mini App's page."""
