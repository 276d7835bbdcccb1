"""The storage interface: every query written once for both backends, a module an aggregate.

`Storage` is composed of one mixin an aggregate (players, games, records, group chats,
challenges, the record of updates delivered, the outbox, the daily puzzle and its cards in
groups, a player's statistics), each written over base.py's primitives and nothing else; a
backend (sqlite.py, postgres.py) supplies those and inherits every query. What other
aggregates read of games (a game's columns and row, the leaderboard) games.py offers at
module level; a group's move hands back its challenges, so GroupQueries builds on
ChallengeQueries, and a daily place not kept yet is counted as the daily's standings count
it, so StatsQueries builds on DailyQueries.
"""

from __future__ import annotations

from bot.storage.queries.challenges import ChallengeQueries
from bot.storage.queries.daily import DailyQueries
from bot.storage.queries.games import GameQueries
from bot.storage.queries.group_daily import GroupDailyQueries
from bot.storage.queries.groups import GroupQueries
from bot.storage.queries.outbox import OutboxQueries
from bot.storage.queries.players import PlayerQueries
from bot.storage.queries.records import RecordQueries
from bot.storage.queries.redelivery import RedeliveryQueries
from bot.storage.queries.reminders import ReminderQueries
from bot.storage.queries.stats import StatsQueries


class Storage(
    PlayerQueries,
    GameQueries,
    RecordQueries,
    GroupQueries,
    ChallengeQueries,
    RedeliveryQueries,
    OutboxQueries,
    StatsQueries,
    DailyQueries,
    GroupDailyQueries,
    ReminderQueries,
):
    """Players, games, records and challenges; `bot.storage.open_storage` picks the backend."""
