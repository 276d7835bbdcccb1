/* What the page asks of Telegram, each call only from the WebApp version that introduced it
 * (core.telegram.org/bots/webapps): an older client's script warns about a newer call, or
 * throws WebAppMethodUnsupported, so every call here goes through `since`. */

export const tg = window.Telegram.WebApp;
const since = (version) => tg.isVersionAtLeast(version);
const PHONES = ["android", "ios"];
// Games started from the page before it offers to be added to the home screen.
const HOME_SCREEN_AFTER = 3;

/* Once, at start: ready, the whole height, the back button closing the page, the header and
 * background in the theme's colour, no swipe-down closing the page while the board shows,
 * and on phones fullscreen, asked for once (the layout fits whether or not it comes). */
export function setUp() {
  tg.ready();
  tg.expand();
  if (since("6.1")) {
    tg.BackButton.onClick(() => tg.close());
    tg.BackButton.show();
    tg.setHeaderColor("bg_color");
    tg.setBackgroundColor("bg_color");
  }
  if (since("7.7")) tg.disableVerticalSwipes();
  if (since("8.0") && PHONES.includes(tg.platform) && !tg.isFullscreen) tg.requestFullscreen();
}

export function haptic() {
  if (since("6.1")) tg.HapticFeedback.impactOccurred("light");
}

/* From 8.0 the player shares the card to a chat they pick, as a prepared message. */
export const sharesMessages = () => since("8.0");

export function shareMessage(id) {
  tg.shareMessage(id);
}

/* The player's settings: in Telegram's cloud where the client has it (6.9), else in the
 * browser's storage, which some web views refuse. */
export function load(key) {
  if (since("6.9")) {
    return new Promise((resolve) => tg.CloudStorage.getItem(key, (_, value) => resolve(value)));
  }
  try {
    return Promise.resolve(localStorage.getItem(key));
  } catch {
    return Promise.resolve(null);
  }
}

export function save(key, value) {
  if (since("6.9")) {
    tg.CloudStorage.setItem(key, value);
    return;
  }
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not remembered: the setting holds for this visit.
  }
}

/* After a few games, the home screen is offered once; asked once, never again. */
export async function gameStarted() {
  if (!since("8.0")) return;
  const games = Number(await load("games")) + 1;
  save("games", String(games));
  if (games < HOME_SCREEN_AFTER || (await load("homeScreenOffered"))) return;
  tg.checkHomeScreenStatus((status) => {
    if (status !== "missed") return;
    save("homeScreenOffered", "1");
    tg.addToHomeScreen();
  });
}

/* The language the page speaks before the server says: Telegram's, as api.py resolves it. */
export function telegramLanguage(languages) {
  const code = tg.initDataUnsafe?.user?.language_code || "";
  const base = code.replace("_", "-").split("-")[0].toLowerCase();
  return base in languages ? base : "en";
}
