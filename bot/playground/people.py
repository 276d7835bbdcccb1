"""Who lives in the playground: three preset players and one group chat with all of them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.emulator import FakeBotApi


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    first_name: str
    language_code: str


PLAYERS = (
    Player(1001, "Anna", "en"),
    Player(1002, "Daan", "nl"),
    Player(1003, "Lena", "de"),
)
GROUP_ID = -100200300
GROUP_TITLE = "2048 Club"
GROUP_ADMIN = PLAYERS[0].id


def populate(api: FakeBotApi) -> None:
    """Create the preset players and the group (Anna is its creator and admin)."""
    for player in PLAYERS:
        api.add_user(player.id, player.first_name, language_code=player.language_code)
    api.add_group(
        GROUP_ID,
        GROUP_TITLE,
        admins={GROUP_ADMIN},
        creator=GROUP_ADMIN,
        members=[player.id for player in PLAYERS],
    )
