"""The Telegram side of 2048: handlers, rendering, storage and translations."""
