/* A stand-in for https://telegram.org/js/telegram-web-app.js, for tests and the playground.
 *
 * It reads the launch parameters Telegram puts in the page's URL fragment (tgWebAppData,
 * tgWebAppThemeParams, tgWebAppVersion, tgWebAppPlatform) and offers the part of
 * window.Telegram.WebApp a Mini App uses, as core.telegram.org/bots/webapps documents it and
 * as Telegram's script does:
 * - the version is the client's (6.0 when none is given); a method newer than it warns, or
 *   for 8.0's methods and CloudStorage logs an error and throws WebAppMethodUnsupported, and
 *   the fields newer than it (safe areas and fullscreen 8.0, vertical swipes 7.7) are absent;
 * - in a frame (Telegram Web) it adds a <style> element that the host may fill
 *   (set_custom_style, from https://web.telegram.org only), posts iframe_ready, then every
 *   call as {eventType, eventData} JSON to the parent, and takes the host's events
 *   (theme_changed, viewport_changed, safe_area_changed, back_button_pressed, …) from it;
 * - at start it asks for the theme, the viewport and, from 8.0, the safe areas.
 * What the page asks is also kept in `Telegram.WebApp.calls`, and posted to a parent frame
 * as {webApp, detail}, which the playground reads; a test plays Telegram's part with
 * `Telegram.WebView.receiveEvent(eventType, eventData)`. */
"use strict";

(() => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const initData = fragment.get("tgWebAppData") || "";
  const version = fragment.get("tgWebAppVersion") || "6.0";
  const isIframe = window.parent !== window;
  let themeParams = {};
  try {
    themeParams = JSON.parse(fragment.get("tgWebAppThemeParams") || "{}");
  } catch {
    themeParams = {};
  }
  const calls = [];
  const handlers = {}; // the page's onEvent callbacks, by name
  const root = document.documentElement.style;

  function atLeast(wanted) {
    const have = version.split(".").map(Number);
    const want = String(wanted).split(".").map(Number);
    for (let i = 0; i < Math.max(have.length, want.length); i++) {
      if ((have[i] || 0) !== (want[i] || 0)) return (have[i] || 0) > (want[i] || 0);
    }
    return true;
  }

  function postEvent(eventType, eventData) {
    if (isIframe) {
      window.parent.postMessage(JSON.stringify({ eventType, eventData: eventData ?? "" }), "*");
    }
  }

  function record(name, detail) {
    calls.push(detail === undefined ? [name] : [name, detail]);
    if (isIframe) {
      window.parent.postMessage(
        { webApp: name, detail: detail === undefined ? null : detail },
        "*",
      );
    }
  }

  /* Telegram's two ways of refusing a call newer than the client. */
  function warnsBelow(wanted, what) {
    if (atLeast(wanted)) return false;
    console.warn(`[Telegram.WebApp] ${what} is not supported in version ${version}`);
    return true;
  }
  function throwsBelow(wanted, what) {
    if (atLeast(wanted)) return;
    console.error(`[Telegram.WebApp] Method ${what} is not supported in version ${version}`);
    throw Error("WebAppMethodUnsupported");
  }

  function emit(name, ...args) {
    for (const callback of (handlers[name] || []).slice()) callback.apply(WebApp, args);
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
    for (const [key, value] of Object.entries(themeParams)) {
      root.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
    }
  }

  function setInsets(name, inset) {
    for (const side of ["top", "bottom", "left", "right"]) {
      root.setProperty(`--tg-${name}-${side}`, `${inset[side] || 0}px`);
    }
  }

  const backButtonClicks = [];
  const BackButton = {
    isVisible: false,
    show() {
      if (warnsBelow("6.1", "BackButton")) return this;
      this.isVisible = true;
      record("BackButton.show");
      postEvent("web_app_setup_back_button", { is_visible: true });
      return this;
    },
    hide() {
      if (warnsBelow("6.1", "BackButton")) return this;
      this.isVisible = false;
      record("BackButton.hide");
      postEvent("web_app_setup_back_button", { is_visible: false });
      return this;
    },
    onClick(callback) {
      if (!warnsBelow("6.1", "BackButton")) backButtonClicks.push(callback);
      return this;
    },
    offClick(callback) {
      const index = backButtonClicks.indexOf(callback);
      if (index >= 0) backButtonClicks.splice(index, 1);
      return this;
    },
  };

  function haptic(name, type, detail, style) {
    if (warnsBelow("6.1", "HapticFeedback")) return;
    record(`HapticFeedback.${name}`, detail);
    postEvent("web_app_trigger_haptic_feedback", { type, ...style });
  }

  /* CloudStorage's keys, also kept in the page's own storage where the browser allows it
   * (a frame's may be refused), so that they outlast a reload as Telegram's cloud does. */
  const cloud = {};
  function stored(key) {
    try {
      return localStorage.getItem(`__cloud__${key}`);
    } catch {
      return null;
    }
  }
  const CloudStorage = {
    setItem(key, value, callback) {
      throwsBelow("6.9", "CloudStorage");
      cloud[key] = String(value);
      try {
        localStorage.setItem(`__cloud__${key}`, cloud[key]);
      } catch {
        // Kept for the page's life only.
      }
      record("CloudStorage.setItem", key);
      setTimeout(() => callback?.(null, true));
      return CloudStorage;
    },
    getItem(key, callback) {
      throwsBelow("6.9", "CloudStorage");
      const value = cloud[key] ?? stored(key) ?? "";
      setTimeout(() => callback?.(null, value));
      return CloudStorage;
    },
  };

  function setSwipes(allowed) {
    if (warnsBelow("7.7", "Changing swipes behavior")) return;
    WebApp.isVerticalSwipesEnabled = allowed;
    record(allowed ? "enableVerticalSwipes" : "disableVerticalSwipes");
    postEvent("web_app_setup_swipe_behavior", { allow_vertical_swipe: allowed });
  }

  const homeScreenChecks = [];
  let sharing = null; // the shareMessage callback waiting for Telegram's answer

  const WebApp = {
    initData,
    initDataUnsafe: unsafe(initData),
    version,
    platform: fragment.get("tgWebAppPlatform") || "unknown",
    colorScheme: scheme(themeParams.bg_color),
    themeParams,
    isExpanded: false,
    viewportHeight: window.innerHeight,
    viewportStableHeight: window.innerHeight,
    headerColor: null,
    backgroundColor: null,
    BackButton,
    HapticFeedback: {
      impactOccurred(style) {
        haptic("impactOccurred", "impact", style, { impact_style: style });
        return this;
      },
      notificationOccurred(type) {
        haptic("notificationOccurred", "notification", type, { notification_type: type });
        return this;
      },
      selectionChanged() {
        haptic("selectionChanged", "selection_change");
        return this;
      },
    },
    CloudStorage,
    calls,
    isVersionAtLeast: atLeast,
    ready() {
      record("ready");
      postEvent("web_app_ready");
    },
    expand() {
      record("expand");
      postEvent("web_app_expand");
    },
    close() {
      record("close");
      postEvent("web_app_close");
    },
    setHeaderColor(color) {
      if (warnsBelow("6.1", "Header color")) return;
      this.headerColor = color;
      record("setHeaderColor", color);
      postEvent("web_app_set_header_color", { color_key: color });
    },
    setBackgroundColor(color) {
      if (warnsBelow("6.1", "Background color")) return;
      this.backgroundColor = color;
      record("setBackgroundColor", color);
      postEvent("web_app_set_background_color", { color: themeParams[color] || color });
    },
    enableVerticalSwipes() {
      setSwipes(true);
    },
    disableVerticalSwipes() {
      setSwipes(false);
    },
    requestFullscreen() {
      throwsBelow("8.0", "requestFullscreen");
      record("requestFullscreen");
      postEvent("web_app_request_fullscreen");
    },
    addToHomeScreen() {
      throwsBelow("8.0", "addToHomeScreen");
      record("addToHomeScreen");
      postEvent("web_app_add_to_home_screen");
    },
    checkHomeScreenStatus(callback) {
      throwsBelow("8.0", "checkHomeScreenStatus");
      if (callback) homeScreenChecks.push(callback);
      record("checkHomeScreenStatus");
      postEvent("web_app_check_home_screen");
    },
    shareMessage(id, callback) {
      throwsBelow("8.0", "shareMessage");
      if (sharing) throw Error("WebAppShareMessageOpened");
      sharing = callback || (() => {});
      record("shareMessage", id);
      postEvent("web_app_send_prepared_message", { id });
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
    /* What Telegram's app does, for a test or the playground to play its part. */
    pressBackButton() {
      receiveEvent("back_button_pressed");
    },
    setTheme(params) {
      receiveEvent("theme_changed", { theme_params: params });
    },
  };
  if (atLeast("7.7")) WebApp.isVerticalSwipesEnabled = true;
  if (atLeast("8.0")) {
    WebApp.isFullscreen = false;
    WebApp.safeAreaInset = { top: 0, bottom: 0, left: 0, right: 0 };
    WebApp.contentSafeAreaInset = { top: 0, bottom: 0, left: 0, right: 0 };
  }

  function setViewport(height, stable) {
    root.setProperty("--tg-viewport-height", height === null ? "100vh" : `${height}px`);
    if (stable) {
      root.setProperty("--tg-viewport-stable-height", height === null ? "100vh" : `${height}px`);
    }
  }

  /* Telegram's events, as its script turns them into the page's. */
  const EVENTS = {
    theme_changed(data) {
      if (!data.theme_params) return;
      themeParams = data.theme_params;
      WebApp.themeParams = themeParams;
      WebApp.colorScheme = scheme(themeParams.bg_color);
      setThemeVariables();
      emit("themeChanged");
    },
    viewport_changed(data) {
      if (!data.height) return;
      WebApp.isExpanded = !!data.is_expanded;
      WebApp.viewportHeight = data.height;
      if (data.is_state_stable) WebApp.viewportStableHeight = data.height;
      setViewport(data.height, data.is_state_stable);
      emit("viewportChanged", { isStateStable: !!data.is_state_stable });
    },
    safe_area_changed(data) {
      if (!atLeast("8.0")) return;
      WebApp.safeAreaInset = { top: 0, bottom: 0, left: 0, right: 0, ...data };
      setInsets("safe-area-inset", WebApp.safeAreaInset);
      emit("safeAreaChanged");
    },
    content_safe_area_changed(data) {
      if (!atLeast("8.0")) return;
      WebApp.contentSafeAreaInset = { top: 0, bottom: 0, left: 0, right: 0, ...data };
      setInsets("content-safe-area-inset", WebApp.contentSafeAreaInset);
      emit("contentSafeAreaChanged");
    },
    fullscreen_changed(data) {
      if (!atLeast("8.0")) return;
      WebApp.isFullscreen = !!data.is_fullscreen;
      emit("fullscreenChanged");
    },
    fullscreen_failed(data) {
      emit("fullscreenFailed", { error: data.error });
    },
    back_button_pressed() {
      for (const callback of backButtonClicks.slice()) callback();
      emit("backButtonClicked");
    },
    home_screen_checked(data) {
      for (const callback of homeScreenChecks.splice(0)) callback(data.status || "unknown");
      emit("homeScreenChecked", { status: data.status });
    },
    home_screen_added() {
      emit("homeScreenAdded");
    },
    prepared_message_sent() {
      const callback = sharing;
      sharing = null;
      callback?.(true);
      emit("shareMessageSent");
    },
    prepared_message_failed(data) {
      const callback = sharing;
      sharing = null;
      callback?.(false);
      emit("shareMessageFailed", { error: data.error });
    },
  };

  function receiveEvent(eventType, eventData) {
    EVENTS[eventType]?.(eventData || {});
  }

  if (isIframe) {
    const style = document.createElement("style");
    document.head.appendChild(style);
    window.addEventListener("message", (event) => {
      if (event.source !== window.parent || typeof event.data !== "string") return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message?.eventType) return;
      if (message.eventType === "set_custom_style") {
        if (event.origin === "https://web.telegram.org") style.innerHTML = message.eventData;
      } else {
        receiveEvent(message.eventType, message.eventData);
      }
    });
    postEvent("iframe_ready", { reload_supported: false });
  }

  setThemeVariables();
  setViewport(null, true);
  if (atLeast("8.0")) {
    setInsets("safe-area-inset", WebApp.safeAreaInset);
    setInsets("content-safe-area-inset", WebApp.contentSafeAreaInset);
  }
  window.Telegram = { WebApp, WebView: { isIframe, receiveEvent } };
  postEvent("web_app_request_theme");
  postEvent("web_app_request_viewport");
  if (atLeast("8.0")) {
    postEvent("web_app_request_safe_area");
    postEvent("web_app_request_content_safe_area");
  }
})();
