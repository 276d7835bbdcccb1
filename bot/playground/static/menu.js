// The command menu: the bot's commands for this chat and player, as setMyCommands set them.

import { send } from "./actions.js";
import { $, el } from "./dom.js";
import { call } from "./server.js";
import { state } from "./state.js";

export function hideMenu() {
  $("command-menu").hidden = true;
}

export async function showMenu(filter = "") {
  const menu = $("command-menu");
  const { commands } = await call(`/api/chats/${state.chatId}/commands?user_id=${state.me}`);
  const shown = commands.filter((c) => `/${c.command}`.startsWith(filter || "/"));
  menu.replaceChildren();
  for (const command of shown) {
    const item = el("button", "command-item");
    item.type = "button";
    item.append(
      el("span", "command-name", `/${command.command}`),
      el("span", "command-desc", command.description),
    );
    item.addEventListener("click", () => {
      hideMenu();
      $("text").value = "";
      send(`/${command.command}`);
    });
    menu.append(item);
  }
  menu.hidden = shown.length === 0;
}
