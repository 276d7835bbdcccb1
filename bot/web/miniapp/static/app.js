/* The Mini App's page: swipes, keys and buttons become API calls; the server's game is drawn.
 *
 * The page never decides a tile: it slides locally (slide.js) to start the animation at once,
 * and the answer brings the board as committed, with the new tile. Swipes that come faster
 * than answers wait in a queue and go out one at a time, in order, each with the sequence
 * number of the position it was meant for. */
"use strict";

(function () {
  const tg = window.Telegram.WebApp;
  const DIRECTIONS = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right",
    w: "up", s: "down", a: "left", d: "right", W: "up", S: "down", A: "left", D: "right" };
  const SWIPE_MIN = 24; // px a finger travels before it counts as a swipe
  const SLIDE_MS = 100;
  const $ = (id) => document.getElementById(id);

  let state = null; // the game as the server last answered
  let texts = {};
  let tiles = new Map(); // cell index -> tile element
  let queue = []; // actions waiting for the answer before them
  let sending = false;
  let receivedAt = 0;
  const gameParam = new URLSearchParams(location.search).get("game");

  function applyTheme() {
    const theme = tg.themeParams || {};
    const root = document.documentElement.style;
    const pairs = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
      button_color: "--button", button_text_color: "--button-text",
      secondary_bg_color: "--panel" };
    for (const [key, variable] of Object.entries(pairs)) {
      if (theme[key]) root.setProperty(variable, theme[key]);
    }
    document.body.classList.toggle("dark", tg.colorScheme === "dark");
    const insets = { ...(tg.safeAreaInset || {}) };
    for (const [side, value] of Object.entries(tg.contentSafeAreaInset || {})) {
      insets[side] = (insets[side] || 0) + value;
    }
    for (const side of ["top", "bottom", "left", "right"]) {
      root.setProperty("--tg-safe-" + side, (insets[side] || 0) + "px");
    }
  }

  async function call(name, body) {
    const response = await fetch("api/" + name, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ initData: tg.initData, ...body }),
    });
    if (response.status === 429) {
      const seconds = Number(response.headers.get("Retry-After")) || 1;
      const error = new Error("throttled");
      error.retryAfter = seconds;
      throw error;
    }
    if (response.status === 401) throw new Error("expired");
    if (!response.ok) throw new Error("status " + response.status);
    return response.json();
  }

  function say(text) {
    $("toast").textContent = text || "";
  }

  function label(value) {
    if (value < 100000) return String(value);
    for (const [unit, suffix] of [[2 ** 30, "G"], [2 ** 20, "M"], [2 ** 10, "k"]]) {
      if (value >= unit) return Math.floor(value / unit) + suffix;
    }
    return String(value);
  }

  function place(element, index) {
    element.style.setProperty("--r", Math.floor(index / state.size));
    element.style.setProperty("--c", index % state.size);
  }

  function makeTile(value, index, effect) {
    const tile = document.createElement("div");
    const text = label(value);
    tile.className = "tile v" + Math.min(value, 2048) + (effect ? " " + effect : "")
      + (text.length > 2 ? " digits" + text.length : "");
    tile.textContent = text;
    tile.dataset.value = value;
    place(tile, index);
    $("tiles").appendChild(tile);
    tiles.set(index, tile);
    return tile;
  }

  function drawCells() {
    const board = $("board");
    board.style.setProperty("--n", state.size);
    const cells = $("cells");
    cells.replaceChildren();
    for (let index = 0; index < state.size * state.size; index++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      place(cell, index);
      cells.appendChild(cell);
    }
  }

  /* The whole board as the server has it, with no slide. */
  function drawTiles(popped) {
    $("tiles").replaceChildren();
    tiles = new Map();
    state.board.forEach((value, index) => {
      if (value) makeTile(value, index, popped && popped.has(index) ? "pop" : "");
    });
  }

  function clockText() {
    let seconds = state.seconds;
    if (state.running) seconds += Math.min((Date.now() - receivedAt) / 1000, 60);
    seconds = Math.floor(seconds);
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const rest = String(seconds % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + rest : minutes + ":" + rest;
  }

  function button(text, onClick) {
    const element = document.createElement("button");
    element.textContent = text;
    element.addEventListener("click", onClick);
    return element;
  }

  function drawFigures() {
    $("title").textContent = "2048 · " + state.title;
    $("score").textContent = state.scoreText;
    $("best").textContent = state.bestText;
    $("moves").textContent = state.movesText;
    $("undos").textContent = state.undos;
    $("clock").textContent = clockText();
    $("undo").disabled = !state.canUndo || !state.active;
    $("hint").hidden = !state.hints;
    $("hint").disabled = state.won || state.over || !state.active;
    const banner = $("banner");
    const buttons = $("banner-buttons");
    buttons.replaceChildren();
    if (state.won && state.active) {
      buttons.append(button(texts.keep, () => act("keep")), button(texts.new, showSizes));
    } else if (state.over || !state.active) {
      if (state.canUndo && state.active) buttons.append(button(texts.undo, () => act("undo")));
      for (const [size, name] of Object.entries(texts.sizes)) {
        buttons.append(button(name, () => startNew(Number(size))));
      }
    }
    banner.hidden = buttons.childElementCount === 0;
    $("banner-text").textContent = state.banner || (state.active ? "" : texts.pick);
    document.body.dataset.seq = state.seq;
    document.body.dataset.board = state.board.join(",");
    document.body.dataset.score = state.score;
  }

  function showSizes() {
    const buttons = $("banner-buttons");
    buttons.replaceChildren();
    for (const [size, name] of Object.entries(texts.sizes)) {
      buttons.append(button(name, () => startNew(Number(size))));
    }
    $("banner-text").textContent = texts.pick;
    $("banner").hidden = false;
  }

  function setIdle() {
    document.body.dataset.idle = String(!sending && queue.length === 0);
  }

  /* A new state from the server: draw it, popping in what the local slide did not predict. */
  function show(next, predicted) {
    const resized = !state || state.size !== next.size;
    state = next;
    receivedAt = Date.now();
    if (resized) drawCells();
    if (predicted && predicted.every((value, index) => value === 0 || value === next.board[index])) {
      const popped = new Set();
      next.board.forEach((value, index) => {
        if (value && predicted[index] !== value) popped.add(index);
      });
      const agrees = next.board.every((value, index) => value === predicted[index] || popped.has(index));
      if (agrees) {
        for (const index of popped) {
          tiles.get(index)?.remove();
          makeTile(next.board[index], index, "pop");
        }
      } else {
        drawTiles();
      }
    } else {
      drawTiles();
    }
    drawFigures();
    if (next.toast !== undefined) say(next.toast);
  }

  /* Slide the tiles on screen as `slide` says; merged pairs become one tile when they meet. */
  function animate(result) {
    const moved = new Map();
    let merges = 0;
    for (const move of result.moves) {
      const tile = tiles.get(move.from);
      if (!tile) continue;
      place(tile, move.to);
      if (move.merged) {
        if (moved.has(move.to)) {
          const first = moved.get(move.to);
          merges++;
          setTimeout(() => {
            first.remove();
            tile.remove();
            if (tiles.get(move.to) === tile) tiles.delete(move.to);
            makeTile(move.value * 2, move.to, "merge");
          }, SLIDE_MS);
        }
        moved.set(move.to, tile);
      } else {
        moved.set(move.to, tile);
      }
    }
    tiles = moved;
    if (merges && tg.HapticFeedback) tg.HapticFeedback.impactOccurred("light");
  }

  async function send(action) {
    const before = state;
    let predicted = null;
    if (["up", "down", "left", "right"].includes(action)) {
      const result = window.Slide2048.slide(before.board, before.size, action);
      if (!result.changed || before.won || before.over || !before.active) return;
      animate(result);
      predicted = result.board;
    }
    const [answer] = await Promise.all([
      call("move", { game: before.game, seq: before.seq, action }),
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
          if (error.retryAfter) {
            say(texts.busy);
            drawTiles();
            await new Promise((resolve) => setTimeout(resolve, error.retryAfter * 1000));
          } else {
            queue = [];
            say(error.message === "expired" ? texts.expired : texts.offline);
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
      show(await call(name, { game: state.game, ...body }));
    } catch (error) {
      say(error.retryAfter ? texts.busy : error.message === "expired" ? texts.expired : texts.offline);
    }
  }

  async function startNew(size) {
    queue = [];
    await once("new", { size });
  }

  async function resync() {
    try {
      show(await call("open", { game: state ? state.game : gameParam ? Number(gameParam) : null }));
    } catch (error) {
      say(error.message === "expired" ? texts.expired : texts.offline);
    }
  }

  function listen() {
    document.addEventListener("keydown", (event) => {
      const direction = DIRECTIONS[event.key];
      if (direction && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        act(direction);
      }
    });
    /* A touch's events go to the element it started on, even once a slide or a merge has
     * taken that tile out of the page; listened to there, no swipe is lost. */
    $("board").addEventListener("touchstart", (event) => {
      if (event.touches.length !== 1) return;
      const target = event.target;
      const start = [event.touches[0].clientX, event.touches[0].clientY];
      const hold = (move) => move.preventDefault();
      const end = (finish) => {
        target.removeEventListener("touchmove", hold);
        target.removeEventListener("touchend", end);
        target.removeEventListener("touchcancel", end);
        if (finish.type !== "touchend" || finish.changedTouches.length !== 1) return;
        const dx = finish.changedTouches[0].clientX - start[0];
        const dy = finish.changedTouches[0].clientY - start[1];
        if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_MIN) return;
        act(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : dy > 0 ? "down" : "up");
      };
      target.addEventListener("touchmove", hold, { passive: false });
      target.addEventListener("touchend", end);
      target.addEventListener("touchcancel", end);
    }, { passive: true });
    $("undo").addEventListener("click", () => act("undo"));
    $("hint").addEventListener("click", () => once("hint", {}));
    $("new").addEventListener("click", showSizes);
    $("share").addEventListener("click", () => once("share", {}));
    tg.BackButton.onClick(() => tg.close());
    tg.onEvent("themeChanged", applyTheme);
    tg.onEvent("safeAreaChanged", applyTheme);
    tg.onEvent("contentSafeAreaChanged", applyTheme);
    setInterval(() => { if (state) $("clock").textContent = clockText(); }, 1000);
  }

  async function start() {
    tg.ready();
    tg.expand();
    tg.BackButton.show();
    applyTheme();
    listen();
    try {
      const opened = await call("open", { game: gameParam ? Number(gameParam) : null });
      texts = opened.texts;
      document.documentElement.lang = opened.language;
      for (const element of document.querySelectorAll("[data-text]")) {
        element.textContent = texts[element.dataset.text];
      }
      show(opened);
    } catch (error) {
      say(error.message === "expired" ? "⚠️ initData" : "⚠️ " + error.message);
    }
    setIdle();
    document.body.dataset.ready = "true";
  }

  start();
})();
