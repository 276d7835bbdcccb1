"""The bot's one web server, in the bot process, in polling and webhook mode alike.

It serves Telegram's webhook (in webhook mode) and whatever else registers a route set in
`bot/web/routes.py`. Everything here is a way into the bot from HTTP; the services it calls
know nothing of aiohttp.
"""
