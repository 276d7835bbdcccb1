// The Mini App: a web_app button opens the page in a phone-sized frame, as Telegram would,
// signed for the current player; a service worker gives the frame the emulator's Telegram
// script.

import { $, toast } from "./dom.js";
import { call } from "./server.js";
import { state } from "./state.js";

async function miniAppWorker() {
  const registration = await navigator.serviceWorker.register("/telegram-sw.js", { scope: "/" });
  const worker = registration.active || registration.waiting || registration.installing;
  if (worker.state !== "activated") {
    await new Promise((resolve) => {
      worker.addEventListener("statechange", () => {
        if (worker.state === "activated") resolve();
      });
    });
  }
}

export function closeMiniApp() {
  const frame = $("mini-app");
  frame.hidden = true;
  $("mini-app-frame").src = "about:blank";
}

export async function openMiniApp(url) {
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

// The frame's Telegram.WebApp.close() (the emulator's stand-in posts it) closes the frame.
export function listenToMiniApp() {
  window.addEventListener("message", (event) => {
    if (event.origin === location.origin && event.data && event.data.webApp === "close") {
      closeMiniApp();
    }
  });
  $("mini-app-close").addEventListener("click", closeMiniApp);
}
