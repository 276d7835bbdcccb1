// Telegram formatting: a message's text and entities become DOM, the way a Telegram app
// shows them. Offsets are UTF-16 code units, which are JavaScript string indices. Every
// piece of text goes in as a text node, never as markup, so nothing a bot or a player
// writes can inject any; only http(s) and tg links become links.

import { el } from "./dom.js";

const SAFE_URL = /^(https?:|tg:)/i;
const BLOCKS = new Set(["pre", "blockquote", "expandable_blockquote"]);
// Entities whose text is shown as it is: no emoji grid, no commands found inside.
const LITERAL = new Set(["code", "pre", "bot_command", "url", "text_link"]);
const EMOJI_LINE = /^(?:\p{Extended_Pictographic}\uFE0F?){3,}$/u;
const COMMAND = /(?<![\w/@<>])\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@<>])/g;

function entityNode(entity, text, ctx) {
  const inner = text.slice(entity.offset, entity.offset + entity.length);
  switch (entity.type) {
    case "bold":
      return el("b");
    case "italic":
      return el("i");
    case "underline":
      return el("u");
    case "strikethrough":
      return el("s");
    case "code":
      return el("code");
    case "pre": {
      const pre = el("pre");
      if (entity.language) pre.dataset.language = entity.language;
      return pre;
    }
    case "blockquote":
    case "expandable_blockquote":
      return el("blockquote");
    case "spoiler": {
      const span = el("span", "spoiler");
      span.title = "Spoiler: click to reveal";
      span.addEventListener("click", () => span.classList.add("revealed"));
      return span;
    }
    case "text_link":
    case "url":
      return linkNode(entity.type === "url" ? inner : entity.url, ctx);
    case "bot_command": {
      const span = el("span", "command");
      span.addEventListener("click", () => ctx.onCommand(inner));
      return span;
    }
    default:
      return el("span"); // mention, hashtag, custom_emoji...: plain
  }
}

function linkNode(url, ctx) {
  const a = el("a");
  if (typeof url === "string" && SAFE_URL.test(url)) {
    a.href = url;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    a.title = url;
    a.addEventListener("click", (event) => {
      event.preventDefault();
      ctx.onLink(url);
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
  if (!ctx.commands) {
    parent.append(piece);
    return;
  }
  let pos = 0;
  for (const match of piece.matchAll(COMMAND)) {
    parent.append(piece.slice(pos, match.index));
    const span = el("span", "command", match[0]);
    span.addEventListener("click", () => ctx.onCommand(match[0]));
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
    const literal = plain || LITERAL.has(entity.type);
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

// A message's text, or a photo's or an animation's caption, as a <div class="text">.
// commands: whether plain text's /commands become clickable (in the bot's messages);
// onCommand(command) and onLink(url) are called when one, or a link, is clicked.
export function renderText(message, { commands, onCommand, onLink }) {
  const text = message.text || message.caption || "";
  const entities = (message.entities || message.caption_entities || [])
    .filter((e) => e.length > 0)
    .sort((a, b) => a.offset - b.offset || b.length - a.length);
  const node = el("div", "text");
  const ctx = { runs: emojiRuns(text), commands, onCommand, onLink };
  renderRange(node, text, 0, text.length, entities, ctx, false);
  return node;
}
