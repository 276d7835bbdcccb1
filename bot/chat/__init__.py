"""Everything the bot sends into a chat, in the chat's turn: posts, boards, cards, pictures,
owed announcements, and the chat's side of the Mini App.

Handlers (bot/handlers/) and the Mini App's API (bot/web/miniapp/) decide what to send; this
package sends it through the one pacer (bot/transport/pacer.py), each queued job a named value
that draws what is saved when its turn comes.
"""
