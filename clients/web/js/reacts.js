// Quick reactions: a handful of fixed emotes a seated player sends with one tap; each shows for
// a moment as a bubble at its seat (js/table.js) and is said to screen readers. Anyone may hide
// the others' (remembered); the server budgets them per seat and refuses a muted seat's.
import { t } from "./i18n.js";
import { esc } from "./ui.js";

// The wire's emotes (protocol/messages.py Emote), drawn as emoji of the Emoticons block, which
// even a desktop without a colour emoji font draws (DejaVu Sans has them).
export const EMOJI = { nice: "😀", laugh: "😂", wow: "😮", oops: "😅", sad: "😞", gg: "😊" };
const KEY = "cardroom.reactions"; // "off" when hidden

let hidden = readHidden();
let last = ""; // the last reaction, as a screen reader hears it

function readHidden() {
  try {
    return localStorage.getItem(KEY) === "off";
  } catch {
    return false;
  }
}

export function reactionsHidden() {
  return hidden;
}

export function toggleHidden() {
  hidden = !hidden;
  try {
    if (hidden) localStorage.setItem(KEY, "off");
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode: not remembered */
  }
}

// A reaction arrived: what its seat's bubble shows (null: hidden), and the words for the ear.
export function noteReaction(msg, name) {
  if (hidden || !(msg.emote in EMOJI)) return null;
  last = t("react.said", { name: name(msg.seat), emote: t("react." + msg.emote) });
  return EMOJI[msg.emote];
}

// The bar under the table: the emotes (for a seated player) and the hide switch.
export function barHTML(seated) {
  const buttons = seated && !hidden
    ? Object.entries(EMOJI)
        .map(([emote, glyph]) => `<button type="button" class="btn small ghost react" data-act="react" data-emote="${emote}" data-key="react:${emote}" aria-label="${esc(t("react." + emote))}" title="${esc(t("react." + emote))}">${glyph}</button>`)
        .join("")
    : "";
  const toggle = `<button type="button" class="btn small ghost react-hide" data-act="react-hide" data-key="react:hide" aria-pressed="${hidden}">${esc(t(hidden ? "react.show" : "react.hide"))}</button>`;
  return (
    `<div class="reacts" role="toolbar" aria-label="${esc(t("react.label"))}">${buttons}${toggle}</div>` +
    `<p class="sr-only" aria-live="polite">${esc(hidden ? "" : last)}</p>`
  );
}
