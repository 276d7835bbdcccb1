"""The Mini App: a web page inside Telegram that plays the chat's game by swiping.

The page only sends moves; every move goes through the same `GameService` call, lock,
transaction and delivery key as a tap on the chat's board, so it stays one game. This layer
turns HTTP into service calls and nothing else: identity comes from the Mini App's signed
`initData` (initdata.py), the JSON API is api.py, and the page is in static/.
"""
