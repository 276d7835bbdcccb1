"""The real Application against the Bot API emulator over HTTP, in this process: what people
do in their chats, in groups and in the Mini App, and what they see."""
