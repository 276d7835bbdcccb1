// Players and chats: who you are, your chats in the sidebar, and the open chat's messages.

import { $, avatarFor, el, toast } from "./dom.js";
import { hideMenu } from "./menu.js";
import { renderMessage, scrollDown, upsert } from "./messages.js";
import { call } from "./server.js";
import { currentChat, me, state } from "./state.js";

export function renderPlayers() {
  const select = $("player");
  select.replaceChildren();
  for (const player of state.players.values()) {
    const option = el(
      "option",
      "",
      `${player.first_name} (${player.language_code || "no language"})`,
    );
    option.value = String(player.id);
    select.append(option);
  }
  select.value = String(state.me);
}

export function renderChats() {
  const nav = $("chats");
  nav.replaceChildren();
  for (const chat of me().chats) {
    const item = el("button", "chat-item");
    item.type = "button";
    item.dataset.chatId = String(chat.id);
    if (chat.id === state.chatId) item.classList.add("active");
    const avatar = el("span", "avatar");
    avatarFor(avatar, chat.title, chat.id);
    const words = el("span", "chat-words");
    words.append(el("span", "chat-name", chat.title));
    words.append(el("span", "chat-sub", subtitle(chat)));
    item.append(avatar, words);
    const unread = state.unread.get(chat.id)?.size || 0;
    if (unread) item.append(el("span", "badge", String(unread)));
    item.addEventListener("click", () => openChat(chat.id));
    nav.append(item);
  }
}

export function subtitle(chat) {
  if (chat.type === "private") return `bot · @${state.bot.username}`;
  const admin = chat.admins.includes(state.me) ? " · you are admin" : "";
  return `${chat.members} members${admin}`;
}

export function selectPlayer(id) {
  state.me = id;
  state.unread.clear();
  localStorage.setItem("playground.player", String(id));
  $("player").value = String(id);
  $("player-form").hidden = true;
  openChat(id);
}

export async function openChat(chatId) {
  state.chatId = chatId;
  state.unread.delete(chatId);
  hideMenu();
  const chat = currentChat();
  $("chat-title").textContent = chat.title;
  $("chat-status").textContent = subtitle(chat);
  avatarFor($("chat-avatar"), chat.title, chat.id);
  renderChats();
  await reloadMessages();
  $("text").focus();
}

export async function reloadMessages() {
  const chatId = state.chatId;
  const arrived = [];
  state.arrivals = arrived; // events that overtake the snapshot are replayed onto it
  let data;
  try {
    data = await call(`/api/chats/${chatId}/messages?user_id=${state.me}`);
  } catch (error) {
    toast(error.message);
    return;
  } finally {
    if (state.arrivals === arrived) state.arrivals = null;
  }
  if (chatId !== state.chatId) return;
  const box = $("messages");
  box.replaceChildren();
  for (const message of data.messages) box.append(renderMessage(message));
  for (const message of arrived) upsert(message);
  scrollDown();
}

export function editPlayer() {
  const form = $("player-form");
  form.hidden = !form.hidden;
  $("player-name").value = me().first_name;
  $("player-language").value = me().language_code || "";
  if (!form.hidden) $("player-name").focus();
}

export async function savePlayer(event) {
  event.preventDefault();
  try {
    const { player } = await call(`/api/players/${state.me}`, {
      method: "PUT",
      body: {
        first_name: $("player-name").value,
        language_code: $("player-language").value.trim(),
      },
    });
    state.players.set(player.id, player);
    renderPlayers();
    renderChats();
    $("player-form").hidden = true;
    toast(`You are ${player.first_name} (${player.language_code || "no language"}) now.`);
  } catch (error) {
    toast(error.message);
  }
}
