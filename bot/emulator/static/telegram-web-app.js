/* A stand-in for https://telegram.org/js/telegram-web-app.js, for tests and the playground.
 *
 * It reads the launch parameters Telegram puts in the page's URL fragment (tgWebAppData,
 * tgWebAppThemeParams, tgWebAppVersion, tgWebAppPlatform) and offers the part of
 * window.Telegram.WebApp a Mini App uses, as documented at core.telegram.org/bots/webapps.
 * What the page asks of Telegram (expand, haptics, the back button, close) is kept in
 * `Telegram.WebApp.calls`, and told to a parent frame with postMessage, so a test or the
 * playground can see it. */
"use strict";

(() => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const initData = fragment.get("tgWebAppData") || "";
  let themeParams = {};
  try {
    themeParams = JSON.parse(fragment.get("tgWebAppThemeParams") || "{}");
  } catch {
    themeParams = {};
  }
  const calls = [];
  const handlers = {};

  function record(name, detail) {
    calls.push(detail === undefined ? [name] : [name, detail]);
    if (window.parent !== window) {
      window.parent.postMessage(
        { webApp: name, detail: detail === undefined ? null : detail },
        "*",
      );
    }
  }

  function unsafe(data) {
    const result = {};
    for (const [key, value] of new URLSearchParams(data)) {
      try {
        result[key] =
          key === "user" || key === "receiver" || key === "chat" ? JSON.parse(value) : value;
      } catch {
        result[key] = value;
      }
    }
    return result;
  }

  /* Telegram's rule: a dark background means the dark scheme. */
  function scheme(color) {
    const match = /^#?([0-9a-f]{6})$/i.exec(color || "");
    if (!match) return "light";
    const rgb = parseInt(match[1], 16);
    const luma = 0.299 * (rgb >> 16) + 0.587 * ((rgb >> 8) & 255) + 0.114 * (rgb & 255);
    return luma < 120 ? "dark" : "light";
  }

  function setThemeVariables() {
    const style = document.documentElement.style;
    for (const [key, value] of Object.entries(themeParams)) {
      style.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
    }
  }

  const backButtonClicks = [];
  const BackButton = {
    isVisible: false,
    show() {
      this.isVisible = true;
      record("BackButton.show");
      return this;
    },
    hide() {
      this.isVisible = false;
      record("BackButton.hide");
      return this;
    },
    onClick(callback) {
      backButtonClicks.push(callback);
      return this;
    },
    offClick(callback) {
      const index = backButtonClicks.indexOf(callback);
      if (index >= 0) backButtonClicks.splice(index, 1);
      return this;
    },
  };

  const WebApp = {
    initData,
    initDataUnsafe: unsafe(initData),
    version: fragment.get("tgWebAppVersion") || "8.0",
    platform: fragment.get("tgWebAppPlatform") || "unknown",
    colorScheme: scheme(themeParams.bg_color),
    themeParams,
    isExpanded: false,
    viewportHeight: window.innerHeight,
    viewportStableHeight: window.innerHeight,
    safeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    contentSafeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    BackButton,
    HapticFeedback: {
      impactOccurred(style) {
        record("HapticFeedback.impactOccurred", style);
        return this;
      },
      notificationOccurred(type) {
        record("HapticFeedback.notificationOccurred", type);
        return this;
      },
      selectionChanged() {
        record("HapticFeedback.selectionChanged");
        return this;
      },
    },
    calls,
    ready() {
      record("ready");
    },
    expand() {
      this.isExpanded = true;
      record("expand");
    },
    close() {
      record("close");
    },
    onEvent(name, callback) {
      handlers[name] = handlers[name] || [];
      handlers[name].push(callback);
    },
    offEvent(name, callback) {
      const list = handlers[name] || [];
      const index = list.indexOf(callback);
      if (index >= 0) list.splice(index, 1);
    },
    isVersionAtLeast(version) {
      const have = this.version.split(".").map(Number);
      const want = String(version).split(".").map(Number);
      for (let i = 0; i < Math.max(have.length, want.length); i++) {
        if ((have[i] || 0) !== (want[i] || 0)) return (have[i] || 0) > (want[i] || 0);
      }
      return true;
    },
    /* What Telegram's app does, for a test or the playground to play its part. */
    pressBackButton() {
      for (const callback of backButtonClicks.slice()) callback();
    },
    setTheme(params) {
      themeParams = params;
      this.themeParams = params;
      this.colorScheme = scheme(params.bg_color);
      setThemeVariables();
      for (const callback of handlers.themeChanged || []) callback.call(this);
    },
  };

  setThemeVariables();
  window.Telegram = { WebApp };
})();
