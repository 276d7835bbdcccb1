"""What players read: board text, keyboards, leaderboards, long texts, button data, languages.

Plain values in, text and markup out: nothing here talks to Telegram or to the database.
"""
