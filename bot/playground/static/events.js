// Live events from the emulator (server-sent): messages, edits, deletions, the bot typing,
// and players edited elsewhere.

import { reloadMessages, renderChats, renderPlayers, subtitle } from "./chats.js";
import { $ } from "./dom.js";
import { remove, upsert } from "./messages.js";
import { currentChat, isMyChat, state } from "./state.js";

export function connect() {
  const events = new EventSource("/api/events");
  let opened = false;
  events.addEventListener("open", () => {
    if (opened && state.chatId !== null) reloadMessages(); // resync after a reconnect
    opened = true;
  });
  const onMessage = (event) => {
    const { chat_id: chatId, message } = JSON.parse(event.data);
    if (chatId === state.chatId) {
      if (state.arrivals) state.arrivals.push(message);
      upsert(message);
      if (message.from.id === state.bot.id) typing(false);
    } else if (event.type === "message" && isMyChat(chatId) && message.from.id !== state.me) {
      state.unread.set(chatId, (state.unread.get(chatId) || 0) + 1);
      renderChats();
    }
  };
  events.addEventListener("message", onMessage);
  events.addEventListener("edit", onMessage);
  events.addEventListener("delete", (event) => {
    const data = JSON.parse(event.data);
    if (data.chat_id === state.chatId) remove(data.message_id);
  });
  events.addEventListener("action", (event) => {
    const data = JSON.parse(event.data);
    if (data.chat_id === state.chatId && data.action === "typing") typing(true);
  });
  events.addEventListener("player", (event) => {
    const { player } = JSON.parse(event.data);
    state.players.set(player.id, player);
    renderPlayers();
  });
}

function typing(on) {
  clearTimeout(state.typingTimer);
  const chat = currentChat();
  $("chat-status").textContent = on ? `${state.bot.first_name} is typing…` : subtitle(chat);
  if (on) state.typingTimer = setTimeout(() => typing(false), 5000);
}
