// Inline mode: "@bot query" in any chat asks the bot, and a picked result is posted via it.

import { openChat } from "./chats.js";
import { $, el, toast } from "./dom.js";
import { openUrl } from "./links.js";
import { call } from "./server.js";
import { me, state } from "./state.js";

const inline = { timer: null, serial: 0 };

// The query of "@bot query", or null when the text is not addressed to the bot.
export function inlineQueryOf(value) {
  const prefix = `@${state.bot.username}`;
  if (value.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return null;
  const rest = value.slice(prefix.length);
  if (rest && !rest.startsWith(" ")) return null;
  return rest.trim();
}

export function scheduleInline(value) {
  clearTimeout(inline.timer);
  const query = inlineQueryOf(value);
  if (query === null) {
    hideInline();
    return;
  }
  inline.timer = setTimeout(() => runInline(query), 250);
}

async function runInline(query) {
  const serial = ++inline.serial;
  const chatId = state.chatId;
  const panel = $("inline-results");
  panel.replaceChildren(el("div", "inline-note", `Asking @${state.bot.username}…`));
  panel.hidden = false;
  let result;
  try {
    result = await call(`/api/chats/${chatId}/inline`, {
      method: "POST",
      body: { user_id: state.me, query },
    });
  } catch (error) {
    panel.replaceChildren(el("div", "inline-note", error.message));
    return;
  }
  if (serial !== inline.serial) return; // a later query replaced this one
  const answer = result.answer;
  panel.replaceChildren();
  if (!answer) {
    panel.append(el("div", "inline-note", "No answer from the bot."));
    return;
  }
  if (answer.button) {
    const start = el("button", "inline-button", answer.button.text);
    start.type = "button";
    start.addEventListener("click", () => {
      hideInline();
      openUrl(`https://t.me/${state.bot.username}?start=${answer.button.start_parameter || ""}`);
    });
    panel.append(start);
  }
  for (const item of answer.results) {
    const option = el("button", "inline-result");
    option.type = "button";
    option.dataset.resultId = item.id;
    const fileId = item.photo_file_id || item.mpeg4_file_id;
    if (item.photo_file_id) {
      const img = el("img", "inline-thumb");
      img.src = `/api/files/${encodeURIComponent(fileId)}`;
      img.alt = "";
      option.append(img);
    }
    option.append(el("span", "inline-caption", item.title || (item.caption || "").split("\n")[0]));
    option.addEventListener("click", () => chooseInline(result.query_id, item.id));
    panel.append(option);
  }
  if (!answer.results.length && !answer.button) {
    panel.append(el("div", "inline-note", "No results."));
  }
}

async function chooseInline(queryId, resultId) {
  hideInline();
  $("text").value = "";
  try {
    await call(`/api/inline/${queryId}/choose`, {
      method: "POST",
      body: { user_id: state.me, result_id: resultId },
    });
  } catch (error) {
    toast(error.message);
  }
}

export function hideInline() {
  clearTimeout(inline.timer);
  inline.serial += 1;
  $("inline-results").hidden = true;
}

// A switch_inline_query button: pick a chat, then "@bot query" is typed there for you.
export function pickChat(query) {
  const list = $("chat-picker-list");
  list.replaceChildren();
  for (const chat of me().chats) {
    const item = el("button", "picker-item", chat.title);
    item.type = "button";
    item.dataset.chatId = String(chat.id);
    item.addEventListener("click", () => {
      $("chat-picker").close();
      openChat(chat.id);
      const text = `@${state.bot.username} ${query}`;
      $("text").value = text;
      scheduleInline(text);
    });
    list.append(item);
  }
  $("chat-picker").showModal();
}
