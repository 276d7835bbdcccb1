/* The Mini App's page: swipes, keys and buttons become API calls; the server's game is drawn.
 *
 * The page never decides a tile: it slides locally (slide.js) to start the animation at once,
 * and the answer brings the board as committed, with the new tile. Swipes that come faster
 * than answers wait in a queue and go out one at a time, in order, each with the sequence
 * number of the position it was meant for. Here are the queue and Telegram's side of the
 * page; api.js calls the server, board.js draws, input.js reads keys and swipes. */

import { ApiError, call } from "./api.js";
import { $, Board, SLIDE_MS } from "./board.js";
import { listen } from "./input.js";
import { DIRECTIONS, slide } from "./slide.js";

const tg = window.Telegram.WebApp;
const board = new Board({ act, startNew });
const gameParam = new URLSearchParams(location.search).get("game");

let state = null; // the game as the server last answered
let queue = []; // actions waiting for the answer before them
let sending = false;

const post = (name, body) => call(tg.initData, name, body);
const refused = (error, reason) => error instanceof ApiError && error.reason === reason;

/* What the toast says when a call fails for a reason other than the throttle. */
function trouble(error) {
  return refused(error, "expired") ? board.texts.expired : board.texts.offline;
}

function applyTheme() {
  const theme = tg.themeParams || {};
  const root = document.documentElement.style;
  const pairs = {
    bg_color: "--bg",
    text_color: "--text",
    hint_color: "--hint",
    button_color: "--button",
    button_text_color: "--button-text",
    secondary_bg_color: "--panel",
  };
  for (const [key, variable] of Object.entries(pairs)) {
    if (theme[key]) root.setProperty(variable, theme[key]);
  }
  document.body.classList.toggle("dark", tg.colorScheme === "dark");
  const insets = { ...(tg.safeAreaInset || {}) };
  for (const [side, value] of Object.entries(tg.contentSafeAreaInset || {})) {
    insets[side] = (insets[side] || 0) + value;
  }
  for (const side of ["top", "bottom", "left", "right"]) {
    root.setProperty(`--tg-safe-${side}`, `${insets[side] || 0}px`);
  }
}

function show(next, predicted) {
  state = next;
  board.show(next, predicted);
}

function setIdle() {
  document.body.dataset.idle = String(!sending && queue.length === 0);
}

async function send(action) {
  const before = state;
  let predicted = null;
  if (DIRECTIONS.includes(action)) {
    const result = slide(before.board, before.size, action);
    if (!result.changed || before.won || before.over || !before.active) return;
    if (board.slide(result) && tg.HapticFeedback) tg.HapticFeedback.impactOccurred("light");
    predicted = result.board;
  }
  const [answer] = await Promise.all([
    post("move", { game: before.game, seq: before.seq, action }),
    new Promise((resolve) => setTimeout(resolve, predicted ? SLIDE_MS : 0)),
  ]);
  show(answer, answer.seq === before.seq + 1 ? predicted : null);
}

async function pump() {
  if (sending) return;
  sending = true;
  setIdle();
  try {
    while (queue.length) {
      const action = queue[0];
      try {
        await send(action);
        queue.shift();
      } catch (error) {
        if (refused(error, "throttled")) {
          board.say(board.texts.busy);
          board.drawTiles();
          await new Promise((resolve) => setTimeout(resolve, error.retryAfter * 1000));
        } else {
          queue = [];
          board.say(trouble(error));
          await resync();
        }
      }
    }
  } finally {
    sending = false;
    setIdle();
  }
}

function act(action) {
  if (!state) return;
  queue.push(action);
  setIdle();
  pump();
}

async function once(name, body) {
  try {
    show(await post(name, { game: state.game, ...body }));
  } catch (error) {
    board.say(refused(error, "throttled") ? board.texts.busy : trouble(error));
  }
}

async function startNew(size) {
  queue = [];
  await once("new", { size });
}

async function resync() {
  try {
    show(await post("open", { game: state ? state.game : gameParam ? Number(gameParam) : null }));
  } catch (error) {
    board.say(trouble(error));
  }
}

function wire() {
  listen($("board"), act);
  $("undo").addEventListener("click", () => act("undo"));
  $("hint").addEventListener("click", () => once("hint", {}));
  $("new").addEventListener("click", () => board.showSizes());
  $("share").addEventListener("click", () => once("share", {}));
  tg.BackButton.onClick(() => tg.close());
  tg.onEvent("themeChanged", applyTheme);
  tg.onEvent("safeAreaChanged", applyTheme);
  tg.onEvent("contentSafeAreaChanged", applyTheme);
  setInterval(() => board.tick(), 1000);
}

async function start() {
  tg.ready();
  tg.expand();
  tg.BackButton.show();
  applyTheme();
  wire();
  try {
    const opened = await post("open", { game: gameParam ? Number(gameParam) : null });
    board.speak(opened.texts);
    document.documentElement.lang = opened.language;
    show(opened);
  } catch (error) {
    board.say(refused(error, "expired") ? "⚠️ initData" : `⚠️ ${error.message}`);
  }
  setIdle();
  document.body.dataset.ready = "true";
}

start();
