// The player's display choices, kept in this browser: dark mode and larger cards, each a class
// on the page's root (app.css swaps the colour tokens, or scales the cards).
import { t } from "./i18n.js";
import { esc } from "./ui.js";

const KEY = "cardroom.view";
// Each choice: its class on <html> and the key of its label.
const CHOICES = { dark: "view.dark", "large-cards": "view.large" };

function chosen() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((c) => c in CHOICES) : [];
  } catch {
    return [];
  }
}

// Put the kept choices on the page (at start).
export function apply() {
  const on = chosen();
  for (const name of Object.keys(CHOICES)) document.documentElement.classList.toggle(name, on.includes(name));
}

export function set(name, value) {
  if (!(name in CHOICES)) return;
  const on = chosen().filter((c) => c !== name);
  if (value) on.push(name);
  try {
    localStorage.setItem(KEY, JSON.stringify(on));
  } catch {
    /* private mode: for this page only */
  }
  apply();
}

// The choices beside the table, folded.
export function html() {
  const on = chosen();
  const boxes = Object.entries(CHOICES)
    .map(([name, key]) => `<label class="view-opt"><input type="checkbox" data-view="${name}"${on.includes(name) ? " checked" : ""}> ${esc(t(key))}</label>`)
    .join("");
  return `<details class="view-opts"><summary>${esc(t("view.title"))}</summary>${boxes}</details>`;
}
