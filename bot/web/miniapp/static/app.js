/* The Mini App's page: swipes, keys and buttons become API calls; the server's game is drawn.
 *
 * The page never decides a tile: it slides locally (slide.js) to start the animation at once,
 * and the answer brings the board as committed, with the new tile. Swipes that come faster
 * than answers wait in a queue and go out one at a time, in order, each with the sequence
 * number of the position it was meant for. A call that gets no answer is sent again, the
 * same, with growing pauses until one comes; meanwhile the page says so and takes no new
 * move. Here are the queue and the retries; api.js calls the server, board.js draws,
 * input.js reads keys and swipes, telegram.js speaks to Telegram. */

import { ApiError, call } from "./api.js";
import { $, Board, SLIDE_MS } from "./board.js";
import { listen } from "./input.js";
import { DIRECTIONS, slide } from "./slide.js";
import {
  gameStarted,
  haptic,
  load,
  save,
  setUp,
  shareMessage,
  sharesMessages,
  telegramLanguage,
  tg,
} from "./telegram.js";

const catalog = JSON.parse($("catalog").textContent);
const board = new Board({ act, startNew, review: openReview });
const gameParam = new URLSearchParams(location.search).get("game");
// Seconds between attempts at a call that got no answer: growing, then every 15 s.
const BACKOFF = [1, 2, 4, 8, 15];

let state = null; // the game as the server last answered
let queue = []; // actions waiting for the answer before them
let sending = false;
let offline = false;
let wake = null; // ends the pause before the next attempt at once
let review = null; // the review being stepped through: its moves, and the one shown

const refused = (error, reason) => error instanceof ApiError && error.reason === reason;
const opening = () => ({ game: state ? state.game : gameParam ? Number(gameParam) : null });

function pause(seconds) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wake = null;
      resolve();
    };
    const timer = setTimeout(done, seconds * 1000);
    wake = done;
  });
}

function setOffline(lost) {
  if (offline === lost) return;
  offline = lost;
  document.body.dataset.offline = String(lost);
  if (lost && state) board.say(board.texts.offline);
  if (!lost) board.say("");
}

/* A call, sent again after a lost connection or the throttle until it is answered; a refusal
 * of the call itself (an expired page, a bad request) ends it. `lost` says what the page
 * shows while it waits. */
async function post(name, body, lost = () => {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await call(tg.initData, name, body);
      setOffline(false);
      return answer;
    } catch (error) {
      if (refused(error, "throttled")) {
        board.say(error.budget === "hints" ? board.texts.hints : board.texts.busy);
        await pause(error.retryAfter);
      } else if (refused(error, "offline")) {
        setOffline(true);
        lost();
        await pause(BACKOFF[Math.min(attempt, BACKOFF.length - 1)]);
      } else {
        throw error;
      }
    }
  }
}

function trouble(error) {
  board.say(refused(error, "expired") ? board.texts.expired : board.texts.unreached);
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
  let result = null;
  if (DIRECTIONS.includes(action)) {
    result = slide(before.board, before.size, action);
    if (!result.changed || before.won || before.over || !before.active) return;
    if (board.slide(result)) haptic();
  }
  const [answer] = await Promise.all([
    post("move", { game: before.game, seq: before.seq, action }),
    new Promise((resolve) => setTimeout(resolve, result ? SLIDE_MS : 0)),
  ]);
  const predicted = answer.seq === before.seq + 1 ? result : null;
  show(answer, predicted?.board);
  board.announce(action, predicted);
}

async function pump() {
  if (sending) return;
  sending = true;
  setIdle();
  try {
    while (queue.length) {
      try {
        await send(queue[0]);
        queue.shift();
      } catch (error) {
        queue = [];
        trouble(error);
        if (!refused(error, "expired")) await resync();
      }
    }
  } finally {
    sending = false;
    setIdle();
  }
}

function act(action) {
  if (!state || review) return;
  if (offline) {
    board.say(board.texts.unsent);
    return;
  }
  queue.push(action);
  setIdle();
  pump();
}

/* A button's call (hint, share, new game); true once it is answered. */
async function once(name, body) {
  if (offline) {
    board.say(board.texts.unsent);
    return false;
  }
  try {
    show(await post(name, { game: state.game, ...body }));
    return true;
  } catch (error) {
    trouble(error);
    return false;
  }
}

/* 📤: the card to a chat the player picks where the client can (shareMessage), else into
 * the game's own chat. */
async function share() {
  if (!sharesMessages()) {
    await once("share", {});
  } else if ((await once("share", { prepare: true })) && state.prepared) {
    shareMessage(state.prepared);
  }
}

/* 💡: the hinted move drawn as an arrow on the board, with its reason. */
async function hint() {
  if ((await once("hint", {})) && state.hint) board.point(state.hint, state.reason);
}

/* 🔎: the review of the page's ended game (or, with none, of the last finished one), stepped
 * through on the board; the answer's toast gives the totals, or why there is none now. It
 * takes a second or more to make, and the page says so and stays in play meanwhile: the
 * server answers the player's other calls beside it. A page that has moved on to another
 * game by then leaves the review unshown (the server keeps it, for the next 🔎 or /review). */
async function openReview() {
  if (offline) {
    board.say(board.texts.unsent);
    return;
  }
  if (document.body.dataset.making) return;
  document.body.dataset.making = "true";
  board.say(board.texts.making);
  const asked = state.game;
  try {
    const body = asked === null ? {} : { game: asked, seq: state.seq };
    const answer = await post("review", body);
    if (state.game !== asked) {
      if ($("toast").textContent === board.texts.making) board.say("");
      return;
    }
    board.say(answer.toast);
    if (answer.review?.moves.length) {
      review = { ...answer.review, shown: 0 };
      step(0);
    }
  } catch (error) {
    trouble(error);
  } finally {
    delete document.body.dataset.making;
  }
}

function step(by) {
  const last = review.moves.length - 1;
  review.shown = Math.min(Math.max(review.shown + by, 0), last);
  board.review(review.moves[review.shown], review.size);
  $("back").disabled = review.shown === 0;
  $("next").disabled = review.shown === last;
}

function closeReview() {
  review = null;
  board.endReview();
  board.say("");
}

async function startNew(size) {
  queue = [];
  if (await once("new", { size })) gameStarted();
}

async function resync() {
  try {
    show(await post("open", opening()));
  } catch (error) {
    trouble(error);
  }
}

async function togglePalette() {
  const on = !document.body.classList.contains("contrast");
  board.contrast(on);
  save("palette", on ? "contrast" : "");
}

function wire() {
  listen($("board"), act);
  $("undo").addEventListener("click", () => act("undo"));
  $("hint").addEventListener("click", hint);
  $("new").addEventListener("click", () => board.showSizes());
  $("share").addEventListener("click", share);
  $("contrast").addEventListener("click", togglePalette);
  $("back").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("close").addEventListener("click", closeReview);
  $("retry").addEventListener("click", () => wake?.());
  tg.onEvent("themeChanged", applyTheme);
  setInterval(() => board.tick(), 1000);
}

/* The first call: until it is answered the page says, in Telegram's language, why there is
 * no game yet, and offers to try again at once. */
async function open() {
  try {
    const lost = () => board.unreached(board.texts.unreached, true);
    const opened = await post("open", opening(), lost);
    board.unreached(null);
    board.speak(catalog.texts[opened.language], catalog.tiles);
    document.documentElement.lang = opened.language;
    show(opened);
  } catch (error) {
    board.unreached(refused(error, "expired") ? board.texts.expired : board.texts.unreached, false);
  }
}

async function start() {
  const language = telegramLanguage(catalog.texts);
  board.speak(catalog.texts[language], catalog.tiles);
  document.documentElement.lang = language;
  setUp();
  applyTheme();
  wire();
  load("palette").then((palette) => board.contrast(palette === "contrast"));
  await open();
  setIdle();
  document.body.dataset.ready = "true";
}

start();
