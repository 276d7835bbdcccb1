// Links: t.me deep links to the bot act as in Telegram (open the chat, send /start
// <payload>); other web links open in a new tab.

import { send } from "./actions.js";
import { openChat } from "./chats.js";
import { toast } from "./dom.js";
import { me, state } from "./state.js";

const PAYLOAD = /^[A-Za-z0-9_-]{1,64}$/;

export function openUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    toast("That link cannot be opened.");
    return;
  }
  let username = null;
  if (/^https?:$/.test(parsed.protocol) && /^(t|telegram)\.me$/i.test(parsed.hostname)) {
    username = parsed.pathname.replace(/^\/+/, "").split("/")[0];
  } else if (parsed.protocol === "tg:" && parsed.hostname === "resolve") {
    username = parsed.searchParams.get("domain");
  }
  if (username === null) {
    if (/^https?:$/.test(parsed.protocol)) {
      window.open(parsed.href, "_blank", "noopener,noreferrer");
    } else {
      toast("That link cannot be opened here.");
    }
    return;
  }
  if (username.toLowerCase() !== state.bot.username.toLowerCase()) {
    toast(`@${username} does not live in the playground; only @${state.bot.username} does.`);
    return;
  }
  const params = parsed.searchParams;
  if (params.has("startgroup")) {
    const group = me().chats.find((chat) => chat.type !== "private");
    if (!group) return;
    const payload = params.get("startgroup");
    openChat(group.id);
    send(`/start@${state.bot.username}${PAYLOAD.test(payload) ? ` ${payload}` : ""}`, group.id);
    return;
  }
  openChat(state.me);
  if (params.has("start")) {
    const payload = params.get("start");
    send(`/start${PAYLOAD.test(payload) ? ` ${payload}` : ""}`, state.me);
  }
}
