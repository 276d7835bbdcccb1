/* What the page draws: the cells, the tiles and their slides, the figures, the banner and
 * the toast. It draws the game it is given and decides nothing; the banner's buttons call
 * back into the page through `actions`. The tiles are pictures only: a screen reader reads
 * the cells, a grid that holds each cell's value, and hears each move's result. */

// As long as style.css's --slide; a player who asks for less motion gets instant moves.
export const SLIDE_MS = matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 100;
// Milliseconds a hint's arrow stays on the board, unless a move ends it first.
const ARROW_MS = 4000;
// The page's elements, by id.
export const $ = (id) => document.getElementById(id);

function button(text, onClick) {
  const element = document.createElement("button");
  element.textContent = text;
  element.addEventListener("click", onClick);
  return element;
}

export class Board {
  /* actions: {act(action), startNew(size), review()}, for the banner's buttons. */
  constructor(actions) {
    this.actions = actions;
    this.texts = {};
    this.labels = {}; // every tile's label, by value
    this.state = null; // the game last drawn
    this.tiles = new Map(); // cell index -> tile element
    this.receivedAt = 0;
    this.arrowTimer = 0;
    this.live = null; // the game under a review being shown, drawn again when it closes
  }

  /* The page's fixed texts in the player's language, and every tile's label. */
  speak(texts, labels) {
    this.texts = texts;
    this.labels = labels;
    for (const element of document.querySelectorAll("[data-text]")) {
      element.textContent = texts[element.dataset.text];
    }
    for (const element of document.querySelectorAll("[data-label]")) {
      element.setAttribute("aria-label", texts[element.dataset.label]);
      element.title = texts[element.dataset.label];
    }
    if (this.state) this.drawFigures();
  }

  say(text) {
    $("toast").textContent = text || "";
  }

  /* The hinted move as an arrow across the board, with its reason, until the next move or
   * ARROW_MS. It is a picture only: the toast, a live region, says the same in words. */
  point(direction, reason) {
    $("arrow").dataset.direction = direction;
    $("arrow-reason").textContent = reason || "";
    $("arrow").hidden = false;
    clearTimeout(this.arrowTimer);
    this.arrowTimer = setTimeout(() => this.unpoint(), ARROW_MS);
  }

  unpoint() {
    clearTimeout(this.arrowTimer);
    $("arrow").hidden = true;
  }

  /* One move of a review, read only: the position it was played on, the player's move and
   * the better one as two arrows, each with its label, and the move's number and cost, which
   * a screen reader hears too. */
  review(move, size) {
    this.live ??= this.state;
    this.unpoint();
    this.position({ ...this.live, size, board: move.board });
    document.body.dataset.review = move.number;
    $("banner").hidden = true;
    for (const [id, direction, text] of [
      ["yours", move.played, move.yours],
      ["better", move.best, move.better],
    ]) {
      $(id).dataset.direction = direction;
      $(id).lastChild.textContent = text;
    }
    $("step").textContent = `${move.title} · ${move.cost}`;
    $("said").textContent = `${$("step").textContent}. ${move.yours}. ${move.better}.`;
  }

  /* The review closed: the live game as it was. */
  endReview() {
    delete document.body.dataset.review;
    this.position(this.live);
    this.live = null;
    this.drawFigures();
  }

  /* Draw `next`'s tiles, with no slide, and its cells if its size is new. */
  position(next) {
    const resized = this.state.size !== next.size;
    this.state = next;
    if (resized) this.drawCells();
    this.drawTiles();
    this.labelCells();
  }

  /* Why there is no game to show (null: there is one), and whether trying again may help. */
  unreached(text, retry) {
    $("unreached").hidden = text === null;
    $("unreached-text").textContent = text || "";
    $("retry").hidden = !retry;
  }

  contrast(on) {
    document.body.classList.toggle("contrast", on);
    $("contrast").setAttribute("aria-pressed", String(on));
  }

  /* A move's result, for a screen reader: the direction, the tiles it merged (when the
   * page's slide foresaw the answer), the score, and the banner's news. */
  announce(action, result) {
    const { texts, state } = this;
    const parts = [texts.moved[action] || ""];
    const merged = (result?.moves || []).filter((move, i, all) => {
      return move.merged && all.findIndex((other) => other.to === move.to) === i;
    });
    if (merged.length) {
      const tiles = merged.map((move) => this.labels[move.value * 2]).join(", ");
      parts.push(texts.merged.replace("{tiles}", tiles));
    }
    parts.push(`${texts.score}: ${state.scoreText}.`, state.banner || "");
    $("said").textContent = parts.filter(Boolean).join(" ");
  }

  place(element, index) {
    element.style.setProperty("--r", Math.floor(index / this.state.size));
    element.style.setProperty("--c", index % this.state.size);
  }

  makeTile(value, index, effect) {
    const tile = document.createElement("div");
    const text = this.labels[value];
    tile.className =
      "tile v" +
      Math.min(value, 2048) +
      (effect ? ` ${effect}` : "") +
      (text.length > 2 ? ` digits${text.length}` : "");
    tile.textContent = text;
    tile.dataset.value = value;
    this.place(tile, index);
    $("tiles").appendChild(tile);
    this.tiles.set(index, tile);
    return tile;
  }

  drawCells() {
    const size = this.state.size;
    $("board").style.setProperty("--n", size);
    const cells = $("cells");
    cells.setAttribute("role", "grid");
    cells.replaceChildren();
    for (let r = 0; r < size; r++) {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("role", "row");
      for (let c = 0; c < size; c++) {
        const cell = document.createElement("div");
        cell.className = "cell";
        cell.setAttribute("role", "gridcell");
        this.place(cell, r * size + c);
        row.appendChild(cell);
      }
      cells.appendChild(row);
    }
  }

  /* Each cell says its value, as the server has it. */
  labelCells() {
    const { board } = this.state;
    $("cells")
      .querySelectorAll(".cell")
      .forEach((cell, index) => {
        const value = board[index] ? this.labels[board[index]] : this.texts.empty;
        cell.setAttribute("aria-label", value);
      });
  }

  /* The whole board as the server has it, with no slide. */
  drawTiles() {
    $("tiles").replaceChildren();
    this.tiles = new Map();
    this.state.board.forEach((value, index) => {
      if (value) this.makeTile(value, index, "");
    });
  }

  clockText() {
    const state = this.state;
    let seconds = state.seconds;
    if (state.running) seconds += Math.min((Date.now() - this.receivedAt) / 1000, 60);
    seconds = Math.floor(seconds);
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const rest = String(seconds % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
  }

  tick() {
    if (this.state) $("clock").textContent = this.clockText();
  }

  drawFigures() {
    const { state, texts, actions } = this;
    $("title").textContent = `2048 · ${state.title}`;
    $("score").textContent = state.scoreText;
    $("best").textContent = state.bestText;
    $("moves").textContent = state.movesText;
    $("undos").textContent = state.undos;
    $("clock").textContent = this.clockText();
    $("cells").setAttribute("aria-label", `${texts.board}, ${state.title}`);
    this.labelCells();
    $("undo").disabled = !state.canUndo || !state.active;
    $("hint").hidden = !state.hints;
    $("hint").disabled = state.won || state.over || !state.active;
    $("share").disabled = state.game === null;
    const buttons = $("banner-buttons");
    buttons.replaceChildren();
    if (state.won && state.active) {
      buttons.append(
        button(texts.keep, () => actions.act("keep")),
        button(texts.new, () => this.showSizes()),
      );
    } else if (state.over || !state.active) {
      if (state.canUndo && state.active) {
        buttons.append(button(texts.undo, () => actions.act("undo")));
      }
      buttons.append(button(texts.review, actions.review));
      // A game that just ended says "start a new game": a button of that name opens the
      // sizes. A page on an old game has nothing else to offer, so it shows them at once.
      if (state.over && state.active) {
        buttons.append(button(texts.new, () => this.showSizes()));
      } else {
        this.appendSizes(buttons);
      }
    }
    $("banner").hidden = buttons.childElementCount === 0;
    $("banner-text").textContent = state.banner || (state.active ? "" : texts.pick);
    document.body.dataset.game = state.game;
    document.body.dataset.seq = state.seq;
    document.body.dataset.board = state.board.join(",");
    document.body.dataset.score = state.score;
  }

  appendSizes(buttons) {
    for (const [size, name] of Object.entries(this.texts.sizes)) {
      buttons.append(button(name, () => this.actions.startNew(Number(size))));
    }
  }

  showSizes() {
    const buttons = $("banner-buttons");
    buttons.replaceChildren();
    this.appendSizes(buttons);
    $("banner-text").textContent = this.texts.pick;
    $("banner").hidden = false;
  }

  /* A new state from the server: draw it, popping in what the local slide did not predict. */
  show(next, predicted) {
    const resized = !this.state || this.state.size !== next.size;
    if (next.game !== this.state?.game || next.seq !== this.state?.seq) this.unpoint();
    this.state = next;
    this.receivedAt = Date.now();
    if (resized) this.drawCells();
    if (predicted?.every((value, index) => value === 0 || value === next.board[index])) {
      const popped = new Set();
      next.board.forEach((value, index) => {
        if (value && predicted[index] !== value) popped.add(index);
      });
      const agrees = next.board.every(
        (value, index) => value === predicted[index] || popped.has(index),
      );
      if (agrees) {
        for (const index of popped) {
          this.tiles.get(index)?.remove();
          this.makeTile(next.board[index], index, "pop");
        }
      } else {
        this.drawTiles();
      }
    } else {
      this.drawTiles();
    }
    this.drawFigures();
    if (next.toast !== undefined) this.say(next.toast);
  }

  /* Slide the tiles on screen as slide.js says; merged pairs become one tile when they meet,
   * SLIDE_MS later. Returns how many pairs merge. */
  slide(result) {
    this.unpoint();
    const moved = new Map();
    let merges = 0;
    for (const move of result.moves) {
      const tile = this.tiles.get(move.from);
      if (!tile) continue;
      this.place(tile, move.to);
      if (move.merged && moved.has(move.to)) {
        const first = moved.get(move.to);
        merges++;
        setTimeout(() => {
          first.remove();
          tile.remove();
          if (this.tiles.get(move.to) === tile) this.tiles.delete(move.to);
          this.makeTile(move.value * 2, move.to, "merge");
        }, SLIDE_MS);
      }
      moved.set(move.to, tile);
    }
    this.tiles = moved;
    return merges;
  }
}
