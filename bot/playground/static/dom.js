// Small DOM helpers: every text goes in as textContent.

export const $ = (id) => document.getElementById(id);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function avatarFor(node, title, id) {
  node.textContent = (title || "?").trim().charAt(0).toUpperCase();
  node.dataset.color = String(Math.abs(Number(id)) % 7);
}

let toastTimer = null;
export function toast(text) {
  const node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    node.hidden = true;
  }, 2500);
}

export function alertBox(title, text) {
  $("alert-title").textContent = title;
  $("alert-text").textContent = text;
  const dialog = $("alert");
  if (!dialog.open) dialog.showModal();
  $("alert-ok").focus();
}

export function timeOf(seconds) {
  const date = new Date(seconds * 1000);
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}
