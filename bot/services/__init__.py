"""The bot's use cases, with no Telegram in sight: games and hints, players, challenges,
sharing and duels, the outbox of owed announcements, the update log that makes a redelivery
apply once, and the worker pools for CPU-bound work.

Each public method that writes takes the chat's lock and runs one storage transaction, so a
caller never has to know either rule.
"""
