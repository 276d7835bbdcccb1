"""The bot's use cases: games, challenges and hints, with no Telegram in sight.

Each public method that writes takes the chat's lock and runs one storage transaction, so a
handler never has to know either rule.
"""
