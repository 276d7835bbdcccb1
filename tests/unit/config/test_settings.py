"""Every setting the bot reads is in SETTINGS, and docs/operating.md's table lists each with its
default (`--help` lists them too: tests/processes/test_bot_process.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from bot.config import SETTINGS, load_config
from tests.support.processes import ROOT

ROW = re.compile(r"\| `([A-Z_]+)` \|.*\| (`[^`]*`|unset|required) \|")


class Recording(Mapping[str, str]):
    """An environment that notes every variable asked for."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return self.values[key]

    def get(self, key: str, default: object = None) -> object:
        self.asked.add(key)
        return self.values.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def test_the_table_lists_every_setting_the_bot_reads():
    env = Recording(
        {
            "TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35,
            "WEBHOOK_URL": "https://bot.example/hook",
            "WEBHOOK_SECRET": "secret",
        }
    )
    load_config(env, webhook=True)
    assert env.asked == {s.name for s in SETTINGS}


def test_the_configuration_table_matches_the_settings():
    guide = (ROOT / "docs" / "operating.md").read_text()
    section = guide.split("## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = {name: default for name, default in ROW.findall(section)}
    assert rows == {
        s.name: "required" if s.required else f"`{s.default}`" if s.default else "unset"
        for s in SETTINGS
    }
