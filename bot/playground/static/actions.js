// Acting as the player: writing in a chat and tapping a message's buttons, through the
// emulator, as a Telegram client would.

import { alertBox, toast } from "./dom.js";
import { openUrl } from "./links.js";
import { call } from "./server.js";
import { state } from "./state.js";

export async function send(text, chatId = state.chatId) {
  try {
    await call(`/api/chats/${chatId}/messages`, {
      method: "POST",
      body: { user_id: state.me, text },
    });
  } catch (error) {
    toast(error.message);
  }
}

// A command clicked in a message of `chatId`: in a group it names the bot, as Telegram does.
export function sendCommand(command, chatId) {
  let text = command;
  if (chatId !== state.me && !text.includes("@")) text += `@${state.bot.username}`;
  send(text);
}

export async function pressButton(message, button, node) {
  node.classList.add("pending");
  try {
    const result = await call(`/api/chats/${message.chat.id}/messages/${message.message_id}/tap`, {
      method: "POST",
      body: { user_id: state.me, data: button.callback_data },
    });
    const answer = result.answer;
    if (answer?.text) {
      if (answer.show_alert) alertBox(state.bot.first_name, answer.text);
      else toast(answer.text);
    }
    if (answer?.url) openUrl(answer.url);
  } catch (error) {
    toast(error.message);
  } finally {
    node.classList.remove("pending");
  }
}
