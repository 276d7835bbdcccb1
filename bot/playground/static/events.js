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
      if (!state.unread.has(chatId)) state.unread.set(chatId, new Set());
      state.unread.get(chatId).add(message.message_id);
      renderChats();
    }
  };
  events.addEventListener("message", onMessage);
  events.addEventListener("edit", onMessage);
  // A deleted message is no longer unread: the card an inline share uploads to the sharer's
  // private chat, deleted there at once, leaves no badge behind.
  events.addEventListener("delete", (event) => {
    const data = JSON.parse(event.data);
    if (data.chat_id === state.chatId) remove(data.message_id);
    else if (state.unread.get(data.chat_id)?.delete(data.message_id)) renderChats();
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

// Said in the chat's header, and in its place in the chat strip (a phone shows no header).
function typing(on) {
  clearTimeout(state.typingTimer);
  const status = on ? `${state.bot.first_name} is typing…` : subtitle(currentChat());
  $("chat-status").textContent = status;
  const strip = document.querySelector(".chat-item.active .chat-sub");
  if (strip) strip.textContent = status;
  if (on) state.typingTimer = setTimeout(() => typing(false), 5000);
}
