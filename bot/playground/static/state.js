// Who the page is acting as, which chat is open, and what it knows of the bot and players.

export const state = {
  bot: null, // {id, first_name, username}
  players: new Map(), // id -> {id, first_name, language_code, chats}
  me: null, // current player id
  chatId: null, // open chat id
  unread: new Map(), // chat id -> ids of the messages not seen yet, for the current player
  arrivals: null, // messages received while the open chat is being (re)loaded
  typingTimer: null,
};

export const me = () => state.players.get(state.me);
export const currentChat = () => me().chats.find((chat) => chat.id === state.chatId);
export const isMyChat = (chatId) => me().chats.some((chat) => chat.id === chatId);
