// The 2048 playground: a tiny Telegram client for the local Bot API emulator.
//
// Messages arrive as Telegram Message objects (text + entities), and entities.js renders
// them the way a Telegram app does. The modules call one another as the parts of a chat
// app do (a link opens a chat, whose messages hold links), and only this one acts when
// loaded: it reads who is here, wires the controls and opens a chat.

import { send } from "./actions.js";
import { editPlayer, renderPlayers, savePlayer, selectPlayer } from "./chats.js";
import { $, toast } from "./dom.js";
import { connect } from "./events.js";
import { inlineQueryOf, scheduleInline } from "./inline.js";
import { hideMenu, showMenu } from "./menu.js";
import { followScrolling } from "./messages.js";
import { listenToMiniApp } from "./miniapp.js";
import { call } from "./server.js";
import { state } from "./state.js";

function wire() {
  listenToMiniApp();
  followScrolling();
  $("player").addEventListener("change", (event) => selectPlayer(Number(event.target.value)));
  $("edit-player").addEventListener("click", editPlayer);
  $("player-form").addEventListener("submit", savePlayer);
  $("player-cancel").addEventListener("click", () => {
    $("player-form").hidden = true;
  });
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
}

async function start() {
  const data = await call("/api/state");
  state.bot = data.bot;
  for (const player of data.players) state.players.set(player.id, player);
  const saved = Number(localStorage.getItem("playground.player"));
  const first = state.players.has(saved) ? saved : data.players[0].id;
  state.me = first;
  renderPlayers();
  connect();
  wire();
  selectPlayer(first);
  document.body.dataset.ready = "true";
}

start().catch((error) => {
  document.body.dataset.ready = "error";
  toast(`The playground did not start: ${error.message}`);
});
