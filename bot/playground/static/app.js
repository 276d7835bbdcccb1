// The 2048 playground: a tiny Telegram client for the local Bot API emulator.
//
// Messages arrive as Telegram Message objects (text + entities, UTF-16 offsets, which are
// JavaScript string indices). They are rendered the way a Telegram app does it: from the
// entities, building DOM nodes with textContent, never innerHTML, so nothing a bot or a
// player writes can inject markup.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    bot: null, // {id, first_name, username}
    players: new Map(), // id -> {id, first_name, language_code, chats}
    me: null, // current player id
    chatId: null, // open chat id
    unread: new Map(), // chat id -> count, for the current player
    arrivals: null, // messages received while the open chat is being (re)loaded
    typingTimer: null,
  };
  const EMOJI_LINE = /^(?:\p{Extended_Pictographic}\uFE0F?){3,}$/u;
  const COMMAND = /(?<![\w/@<>])\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@<>])/g;
  const PAYLOAD = /^[A-Za-z0-9_-]{1,64}$/;

  // ----- server ---------------------------------------------------------------------------

  async function call(path, { method = "GET", body } = {}) {
    const options = { method, headers: {} };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  const me = () => state.players.get(state.me);
  const currentChat = () => me().chats.find((chat) => chat.id === state.chatId);
  const isMyChat = (chatId) => me().chats.some((chat) => chat.id === chatId);

  // ----- small DOM helpers ----------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function avatarFor(node, title, id) {
    node.textContent = (title || "?").trim().charAt(0).toUpperCase();
    node.dataset.color = String(Math.abs(Number(id)) % 7);
  }

  let toastTimer = null;
  function toast(text) {
    const node = $("toast");
    node.textContent = text;
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, 2500);
  }

  function alertBox(text) {
    $("alert-title").textContent = state.bot.first_name;
    $("alert-text").textContent = text;
    const dialog = $("alert");
    if (!dialog.open) dialog.showModal();
    $("alert-ok").focus();
  }

  function timeOf(seconds) {
    const date = new Date(seconds * 1000);
    return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }

  // ----- Telegram formatting: text + entities -> DOM --------------------------------------

  const SAFE_URL = /^(https?:|tg:)/i;
  const BLOCKS = new Set(["pre", "blockquote", "expandable_blockquote"]);

  function entityNode(entity, text, ctx) {
    const inner = text.slice(entity.offset, entity.offset + entity.length);
    switch (entity.type) {
      case "bold": return el("b");
      case "italic": return el("i");
      case "underline": return el("u");
      case "strikethrough": return el("s");
      case "code": return el("code");
      case "pre": {
        const pre = el("pre");
        if (entity.language) pre.dataset.language = entity.language;
        return pre;
      }
      case "blockquote":
      case "expandable_blockquote": return el("blockquote");
      case "spoiler": {
        const span = el("span", "spoiler");
        span.title = "Spoiler: click to reveal";
        span.addEventListener("click", () => span.classList.add("revealed"));
        return span;
      }
      case "text_link":
      case "url": {
        const url = entity.type === "url" ? inner : entity.url;
        return linkNode(url);
      }
      case "bot_command": {
        const span = el("span", "command");
        span.addEventListener("click", () => sendCommand(inner, ctx));
        return span;
      }
      default: return el("span"); // mention, hashtag, custom_emoji...: plain
    }
  }

  function linkNode(url) {
    const a = el("a");
    if (typeof url === "string" && SAFE_URL.test(url)) {
      a.href = url;
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      a.title = url;
      a.addEventListener("click", (event) => {
        event.preventDefault();
        openUrl(url);
      });
    }
    return a;
  }

  // Runs of all-emoji lines (the board) as [start, end) ranges of the full text.
  function emojiRuns(text) {
    const runs = [];
    let pos = 0;
    for (const line of text.split("\n")) {
      const end = pos + line.length;
      if (EMOJI_LINE.test(line)) {
        const last = runs[runs.length - 1];
        if (last && last[1] + 1 === pos) last[1] = end;
        else runs.push([pos, end]);
      }
      pos = end + 1;
    }
    return runs;
  }

  // Plain text [start, end): emoji grids become blocks, bot messages get clickable commands.
  function appendPlain(parent, text, start, end, ctx) {
    let pos = start;
    for (const [runStart, runEnd] of ctx.runs) {
      if (runStart < pos || runEnd > end) continue;
      appendWords(parent, text.slice(pos, runStart), ctx);
      const grid = el("span", "emoji-grid", text.slice(runStart, runEnd));
      parent.append(grid);
      pos = runEnd;
      if (text[pos] === "\n" && pos < end) pos += 1; // the block already ends the line
    }
    appendWords(parent, text.slice(pos, end), ctx);
  }

  function appendWords(parent, piece, ctx) {
    if (!piece) return;
    if (!ctx.linkCommands) {
      parent.append(piece);
      return;
    }
    let pos = 0;
    for (const match of piece.matchAll(COMMAND)) {
      parent.append(piece.slice(pos, match.index));
      const span = el("span", "command", match[0]);
      span.addEventListener("click", () => sendCommand(match[0], ctx));
      parent.append(span);
      pos = match.index + match[0].length;
    }
    parent.append(piece.slice(pos));
  }

  function renderRange(parent, text, start, end, entities, ctx, plain) {
    let pos = start;
    let i = 0;
    while (i < entities.length) {
      const entity = entities[i];
      const entityEnd = Math.min(entity.offset + entity.length, end);
      let j = i + 1;
      while (j < entities.length && entities[j].offset < entityEnd) j += 1;
      if (entity.offset > pos) write(parent, text, pos, entity.offset, ctx, plain);
      const node = entityNode(entity, text, ctx);
      const literal = plain || ["code", "pre", "bot_command", "url", "text_link"].includes(entity.type);
      const inner = entities.slice(i + 1, j).map((child) => ({
        ...child,
        length: Math.min(child.offset + child.length, entityEnd) - child.offset,
      }));
      renderRange(node, text, Math.max(entity.offset, pos), entityEnd, inner, ctx, literal);
      parent.append(node);
      pos = Math.max(pos, entityEnd);
      // pre and blockquote are blocks: they end their line, so the newline after them is spent.
      if (BLOCKS.has(entity.type) && text[pos] === "\n" && pos < end) pos += 1;
      i = j;
    }
    if (pos < end) write(parent, text, pos, end, ctx, plain);
  }

  function write(parent, text, start, end, ctx, plain) {
    if (plain) parent.append(text.slice(start, end));
    else appendPlain(parent, text, start, end, ctx);
  }

  function renderText(message, fromBot) {
    // A photo or animation carries its text as a caption, with caption entities.
    const text = message.text || message.caption || "";
    const entities = (message.entities || message.caption_entities || [])
      .filter((e) => e.length > 0)
      .slice()
      .sort((a, b) => a.offset - b.offset || b.length - a.length);
    const node = el("div", "text");
    const ctx = { runs: emojiRuns(text), linkCommands: fromBot, chatId: message.chat.id };
    renderRange(node, text, 0, text.length, entities, ctx, false);
    return node;
  }

  // ----- messages -------------------------------------------------------------------------

  function renderKeyboard(message) {
    const rows = message.reply_markup && message.reply_markup.inline_keyboard;
    if (!rows || !rows.length) return null;
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

  function renderMessage(message) {
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
    bubble.append(renderText(message, fromBot));
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

  // Photos show their largest size; animations play muted and loop, as in Telegram.
  function renderMedia(message) {
    if (message.photo && message.photo.length) {
      const img = el("img", "media");
      img.src = `/api/files/${encodeURIComponent(message.photo[message.photo.length - 1].file_id)}`;
      img.alt = "Photo";
      return img;
    }
    if (message.animation) {
      const video = el("video", "media");
      video.src = `/api/files/${encodeURIComponent(message.animation.file_id)}`;
      Object.assign(video, { autoplay: true, loop: true, muted: true, playsInline: true });
      return video;
    }
    return null;
  }

  // ----- inline mode: "@bot query" in any chat ------------------------------------------

  const inline = { timer: null, serial: 0 };

  function inlineQueryOf(value) {
    const prefix = `@${state.bot.username}`;
    if (value.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return null;
    const rest = value.slice(prefix.length);
    if (rest && !rest.startsWith(" ")) return null;
    return rest.trim();
  }

  function scheduleInline(value) {
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
    panel.replaceChildren(el("div", "inline-note", "Asking @" + state.bot.username + "…"));
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
    if (!answer.results.length && !answer.button) panel.append(el("div", "inline-note", "No results."));
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

  function hideInline() {
    clearTimeout(inline.timer);
    inline.serial += 1;
    $("inline-results").hidden = true;
  }

  // A switch_inline_query button: pick a chat, then "@bot query" is typed there for you.
  function pickChat(query) {
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

  function nearBottom() {
    const box = $("messages");
    return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  }

  function scrollDown() {
    const box = $("messages");
    box.scrollTop = box.scrollHeight;
  }

  // Insert or replace a message in place, keeping message_id order.
  function upsert(message) {
    const box = $("messages");
    const stick = nearBottom();
    const node = renderMessage(message);
    const existing = box.querySelector(`[data-message-id="${message.message_id}"]`);
    if (existing) {
      existing.replaceWith(node);
    } else {
      const later = [...box.children].find((child) => Number(child.dataset.messageId) > message.message_id);
      box.insertBefore(node, later || null);
      if (stick || message.from.id === state.me) scrollDown();
      return;
    }
    if (stick) scrollDown();
  }

  function remove(messageId) {
    const node = $("messages").querySelector(`[data-message-id="${messageId}"]`);
    if (node) node.remove();
  }

  // ----- acting as the player -------------------------------------------------------------

  async function send(text, chatId = state.chatId) {
    try {
      await call(`/api/chats/${chatId}/messages`, { method: "POST", body: { user_id: state.me, text } });
    } catch (error) {
      toast(error.message);
    }
  }

  function sendCommand(command, ctx) {
    let text = command;
    if (ctx && ctx.chatId !== state.me && !text.includes("@")) text += `@${state.bot.username}`;
    send(text);
  }

  async function pressButton(message, button, node) {
    node.classList.add("pending");
    try {
      const result = await call(`/api/chats/${message.chat.id}/messages/${message.message_id}/tap`, {
        method: "POST",
        body: { user_id: state.me, data: button.callback_data },
      });
      const answer = result.answer;
      if (answer && answer.text) {
        if (answer.show_alert) alertBox(answer.text);
        else toast(answer.text);
      }
      if (answer && answer.url) openUrl(answer.url);
    } catch (error) {
      toast(error.message);
    } finally {
      node.classList.remove("pending");
    }
  }

  // ----- the Mini App ---------------------------------------------------------------------

  // A web_app button opens the page in a phone-sized frame, as Telegram would, signed for
  // the current player; a service worker gives the frame the emulator's Telegram script.
  async function miniAppWorker() {
    const registration = await navigator.serviceWorker.register("/telegram-sw.js", { scope: "/" });
    const worker = registration.active || registration.waiting || registration.installing;
    if (worker.state !== "activated") {
      await new Promise((resolve) => {
        worker.addEventListener("statechange", () => { if (worker.state === "activated") resolve(); });
      });
    }
  }

  function closeMiniApp() {
    const frame = $("mini-app");
    frame.hidden = true;
    $("mini-app-frame").src = "about:blank";
  }

  async function openMiniApp(url) {
    try {
      await miniAppWorker();
      const theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
      const query = new URLSearchParams({ user_id: state.me, url, theme });
      const launch = await call(`/api/webapp?${query}`);
      $("mini-app-frame").src = launch.url;
      $("mini-app").hidden = false;
    } catch (error) {
      toast(`The Mini App did not open: ${error.message}`);
    }
  }

  window.addEventListener("message", (event) => {
    if (event.origin === location.origin && event.data && event.data.webApp === "close") closeMiniApp();
  });

  // t.me deep links to our bot act like in Telegram: open the chat and send /start <payload>.
  function openUrl(url) {
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
      if (/^https?:$/.test(parsed.protocol)) window.open(parsed.href, "_blank", "noopener,noreferrer");
      else toast("That link cannot be opened here.");
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
      send(`/start@${state.bot.username}` + (PAYLOAD.test(payload) ? ` ${payload}` : ""), group.id);
      return;
    }
    openChat(state.me);
    if (params.has("start")) {
      const payload = params.get("start");
      send("/start" + (PAYLOAD.test(payload) ? ` ${payload}` : ""), state.me);
    }
  }

  // ----- players and chats ----------------------------------------------------------------

  function renderPlayers() {
    const select = $("player");
    select.replaceChildren();
    for (const player of state.players.values()) {
      const option = el("option", "", `${player.first_name} (${player.language_code || "no language"})`);
      option.value = String(player.id);
      select.append(option);
    }
    select.value = String(state.me);
  }

  function renderChats() {
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
      const unread = state.unread.get(chat.id) || 0;
      if (unread) item.append(el("span", "badge", String(unread)));
      item.addEventListener("click", () => openChat(chat.id));
      nav.append(item);
    }
  }

  function subtitle(chat) {
    if (chat.type === "private") return `bot · @${state.bot.username}`;
    const admin = chat.admins.includes(state.me) ? " · you are admin" : "";
    return `${chat.members} members${admin}`;
  }

  function selectPlayer(id) {
    state.me = id;
    state.unread.clear();
    localStorage.setItem("playground.player", String(id));
    $("player").value = String(id);
    $("player-form").hidden = true;
    openChat(id);
  }

  async function openChat(chatId) {
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

  async function reloadMessages() {
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

  function editPlayer() {
    const form = $("player-form");
    form.hidden = !form.hidden;
    $("player-name").value = me().first_name;
    $("player-language").value = me().language_code || "";
    if (!form.hidden) $("player-name").focus();
  }

  async function savePlayer(event) {
    event.preventDefault();
    try {
      const { player } = await call(`/api/players/${state.me}`, {
        method: "PUT",
        body: { first_name: $("player-name").value, language_code: $("player-language").value.trim() },
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

  // ----- the command menu -----------------------------------------------------------------

  function hideMenu() {
    $("command-menu").hidden = true;
  }

  async function showMenu(filter = "") {
    const menu = $("command-menu");
    const { commands } = await call(`/api/chats/${state.chatId}/commands?user_id=${state.me}`);
    const shown = commands.filter((c) => `/${c.command}`.startsWith(filter || "/"));
    menu.replaceChildren();
    for (const command of shown) {
      const item = el("button", "command-item");
      item.type = "button";
      item.append(el("span", "command-name", `/${command.command}`), el("span", "command-desc", command.description));
      item.addEventListener("click", () => {
        hideMenu();
        $("text").value = "";
        send(`/${command.command}`);
      });
      menu.append(item);
    }
    menu.hidden = shown.length === 0;
  }

  // ----- live events ----------------------------------------------------------------------

  function connect() {
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

  // ----- start ----------------------------------------------------------------------------

  async function start() {
    const data = await call("/api/state");
    state.bot = data.bot;
    for (const player of data.players) state.players.set(player.id, player);
    const saved = Number(localStorage.getItem("playground.player"));
    const first = state.players.has(saved) ? saved : data.players[0].id;
    state.me = first;
    renderPlayers();
    connect();
    $("player").addEventListener("change", (event) => selectPlayer(Number(event.target.value)));
    $("edit-player").addEventListener("click", editPlayer);
    $("mini-app-close").addEventListener("click", closeMiniApp);
    $("player-form").addEventListener("submit", savePlayer);
    $("player-cancel").addEventListener("click", () => { $("player-form").hidden = true; });
    $("menu-button").addEventListener("click", () => {
      if ($("command-menu").hidden) showMenu();
      else hideMenu();
    });
    $("text").addEventListener("input", (event) => {
      const value = event.target.value;
      if (/^\/\w*$/.test(value)) showMenu(value);
      else hideMenu();
      scheduleInline(value);
    });
    $("text").addEventListener("keydown", (event) => {
      if (event.key === "Escape") hideMenu();
    });
    $("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("text").value.trim();
      if (!text || inlineQueryOf(text) !== null) return; // inline: pick a result instead
      $("text").value = "";
      hideMenu();
      send(text);
    });
    selectPlayer(first);
    document.body.dataset.ready = "true";
  }

  start().catch((error) => {
    document.body.dataset.ready = "error";
    toast(`The playground did not start: ${error.message}`);
  });
})();
