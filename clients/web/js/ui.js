// Small helpers shared by the screens.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Replace an element's content, keeping keyboard focus on the element with the same data-key
// (cards and buttons are redrawn on every state; focus must not jump away).
export function patch(el, html) {
  const active = document.activeElement;
  const key = active && el.contains(active) ? active.dataset.key : null;
  el.innerHTML = html;
  if (key) {
    // the same control again, else (a card just played) the next thing to choose
    const again =
      el.querySelector(`[data-key="${CSS.escape(key)}"]`) ||
      el.querySelector("button.card.playable") ||
      el.querySelector(".actions button:not([disabled])");
    if (again) again.focus({ preventScroll: true });
  }
}

let toastTimer = null;

// A short message that goes away by itself (also read out by screen readers).
export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.className = "toast show " + kind;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.className = "toast";
  }, 4000);
}

// A prompt's key for the pointer in use: "tap" on a touch screen, "click" (its "Click"
// variant) with a mouse.
export function pointerKey(key) {
  return window.matchMedia && window.matchMedia("(hover: hover) and (pointer: fine)").matches ? key + "Click" : key;
}

export function formatSeconds(s) {
  const n = Math.max(0, Math.ceil(s));
  return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
}

// "k7 q2m " -> "K7Q2M"; null when it cannot be a room code.
export function cleanCode(text) {
  const code = String(text || "")
    .replace(/[\s-]+/g, "")
    .toUpperCase();
  return /^[A-Z0-9]{5}$/.test(code) ? code : null;
}
