// Messages as the open chat shows them: bubbles with their sender, reply, media, formatted
// text and inline keyboard, kept in message_id order.

import { pressButton, sendCommand } from "./actions.js";
import { $, el, timeOf } from "./dom.js";
import { renderText } from "./entities.js";
import { pickChat } from "./inline.js";
import { openUrl } from "./links.js";
import { openMiniApp } from "./miniapp.js";
import { state } from "./state.js";

function renderKeyboard(message) {
  const rows = message.reply_markup?.inline_keyboard;
  if (!rows?.length) return null;
  const keyboard = el("div", "keyboard");
  for (const row of rows) {
    const line = el("div", "kb-row");
    for (const button of row) {
      const node = el("button", "kb-button", button.text);
      node.type = "button";
      if (button.callback_data !== undefined) {
        node.dataset.callback = button.callback_data;
        node.addEventListener("click", () => pressButton(message, button, node));
      } else if (button.url !== undefined) {
        node.classList.add("kb-url");
        node.title = button.url;
        node.addEventListener("click", () => openUrl(button.url));
      } else if (button.switch_inline_query !== undefined) {
        node.classList.add("kb-url");
        node.title = "Pick a chat to share in";
        node.addEventListener("click", () => pickChat(button.switch_inline_query));
      } else if (button.web_app !== undefined) {
        node.classList.add("kb-url");
        node.title = "Open the Mini App";
        node.addEventListener("click", () => openMiniApp(button.web_app.url));
      } else {
        node.disabled = true;
        node.title = "This kind of button does nothing in the playground";
      }
      line.append(node);
    }
    keyboard.append(line);
  }
  return keyboard;
}

export function renderMessage(message) {
  const fromBot = message.from.id === state.bot.id;
  const outgoing = message.from.id === state.me;
  const wrap = el("div", `msg ${outgoing ? "out" : "in"}${fromBot ? " bot" : ""}`);
  wrap.dataset.messageId = String(message.message_id);
  const bubble = el("div", "bubble");
  if (!outgoing && message.chat.type !== "private") {
    const sender = el("div", "sender", message.from.first_name);
    sender.dataset.color = String(message.from.id % 7);
    bubble.append(sender);
  }
  if (message.reply_to_message) {
    const quoted = message.reply_to_message;
    const reply = el("div", "reply");
    reply.append(el("div", "reply-name", quoted.from.first_name));
    reply.append(el("div", "reply-text", (quoted.text || "").split("\n")[0]));
    bubble.append(reply);
  }
  if (message.via_bot) bubble.append(el("div", "via", `via @${message.via_bot.username}`));
  const media = renderMedia(message);
  if (media) {
    bubble.classList.add("has-media");
    bubble.append(media);
  }
  const text = renderText(message, {
    commands: fromBot,
    onCommand: (command) => sendCommand(command, message.chat.id),
    onLink: openUrl,
  });
  bubble.append(text);
  const meta = el("span", "meta", (message.edit_date ? "edited " : "") + timeOf(message.date));
  bubble.append(meta);
  wrap.append(bubble);
  const keyboard = renderKeyboard(message);
  if (keyboard) {
    wrap.classList.add("has-keyboard");
    wrap.append(keyboard);
  }
  return wrap;
}

// Photos show their largest size; animations play muted and loop, as in Telegram. Each keeps
// its place while it loads, and the chat follows it down once it has, unless scrolled up.
function renderMedia(message) {
  const photo = message.photo?.[message.photo.length - 1];
  const file = photo || message.animation;
  if (!file) return null;
  const media = el(photo ? "img" : "video", "media");
  Object.assign(media, { width: file.width, height: file.height });
  media.src = `/api/files/${encodeURIComponent(file.file_id)}`;
  if (photo) {
    media.alt = "Photo";
    media.addEventListener("load", keepFollowing);
  } else {
    Object.assign(media, { autoplay: true, loop: true, muted: true, playsInline: true });
    media.addEventListener("loadeddata", keepFollowing);
  }
  return media;
}

// Whether the chat shows its newest messages: true until the player scrolls up.
let following = true;

export function followScrolling() {
  const box = $("messages");
  box.addEventListener("scroll", () => {
    following = nearBottom();
  });
}

function keepFollowing() {
  if (following) scrollDown();
}

function nearBottom() {
  const box = $("messages");
  return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
}

export function scrollDown() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

// Insert or replace a message in place, keeping message_id order.
export function upsert(message) {
  const box = $("messages");
  const stick = nearBottom();
  const node = renderMessage(message);
  const existing = box.querySelector(`[data-message-id="${message.message_id}"]`);
  if (existing) {
    existing.replaceWith(node);
  } else {
    const later = [...box.children].find(
      (child) => Number(child.dataset.messageId) > message.message_id,
    );
    box.insertBefore(node, later || null);
    if (stick || message.from.id === state.me) scrollDown();
    return;
  }
  if (stick) scrollDown();
}

export function remove(messageId) {
  const node = $("messages").querySelector(`[data-message-id="${messageId}"]`);
  if (node) node.remove();
}
