"""The Bot API emulator itself, driven by python-telegram-bot's own client."""
