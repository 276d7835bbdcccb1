/* The playground's Mini App frame has no Telegram app around it: this worker answers the
 * page's request for Telegram's script with the emulator's stand-in, served here. */
"use strict";

const TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (event.request.url === TELEGRAM_SCRIPT) {
    event.respondWith(fetch("/telegram-web-app.js"));
  }
});
