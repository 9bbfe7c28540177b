// Card faces drawn in HTML and CSS: rank and suit symbol in the corners, a large suit in the
// middle, red for hearts and diamonds. Cards that can be chosen are buttons; others are images.
import { t } from "./i18n.js";
import { esc } from "./ui.js";

const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_TEXT = { T: "10" };

export function rankText(code) {
  return RANK_TEXT[code[0]] || code[0];
}

export function cardText(code) {
  return rankText(code) + SYMBOLS[code[1]];
}

// "ten of diamonds" in the chosen language, for screen readers.
export function cardName(code) {
  return t("card.name", { rank: t("rank." + code[0]), suit: t("suit." + code[1]) });
}

export function cardsText(codes) {
  return codes.map(cardText).join(" ");
}

// One card face. opts: key (focus memory), zone, act (a click action: makes it a button),
// playable (highlighted), selected, size ("s" small, "l" large), extra (more classes), note
// (said after the card's name: "jack of clubs, trump").
export function cardHTML(code, opts = {}) {
  const red = code[1] === "H" || code[1] === "D";
  const cls = ["card", red ? "red" : "black", opts.size ? "size-" + opts.size : ""];
  if (opts.playable) cls.push("playable");
  if (opts.selected) cls.push("selected");
  if (opts.extra) cls.push(opts.extra);
  const rank = rankText(code);
  const sym = SYMBOLS[code[1]];
  const face =
    `<span class="idx" aria-hidden="true"><b>${rank}</b><i>${sym}</i></span>` +
    `<span class="pip" aria-hidden="true">${sym}</span>` +
    `<span class="idx idx-b" aria-hidden="true"><b>${rank}</b><i>${sym}</i></span>`;
  const name = esc(cardName(code) + (opts.note ? ", " + opts.note : ""));
  const data = `data-card="${code}"` + (opts.zone ? ` data-zone="${opts.zone}"` : "");
  if (opts.act) {
    const key = opts.key ? ` data-key="${esc(opts.key)}"` : "";
    const pressed = opts.pressable ? ` aria-pressed="${opts.selected ? "true" : "false"}"` : "";
    return (
      `<button type="button" class="${cls.join(" ")}" ${data} data-act="${opts.act}"${key}` +
      `${pressed} aria-label="${name}">${face}</button>`
    );
  }
  return `<span class="${cls.join(" ")}" ${data} role="img" aria-label="${name}">${face}</span>`;
}

// A card seen from the back. With act, it is a button (a face-down card to turn over).
export function backHTML(opts = {}) {
  const cls = ["card", "back", opts.size ? "size-" + opts.size : ""];
  if (opts.playable) cls.push("playable");
  if (opts.extra) cls.push(opts.extra);
  const label = esc(opts.label || t("card.back"));
  if (opts.act) {
    const slot = opts.slot != null ? ` data-slot="${opts.slot}"` : "";
    const key = opts.key ? ` data-key="${esc(opts.key)}"` : "";
    return `<button type="button" class="${cls.join(" ")}" data-act="${opts.act}"${slot}${key} aria-label="${label}"></button>`;
  }
  return `<span class="${cls.join(" ")}" role="img" aria-label="${label}"></span>`;
}

// A small stack of backs with a count, for hands and the stock.
export function countHTML(n, label) {
  const shown = Math.min(n, 3);
  let backs = "";
  for (let i = 0; i < shown; i++) backs += `<span class="card back size-xs" aria-hidden="true"></span>`;
  return `<span class="count" role="img" aria-label="${esc(label)}"><span class="stack">${backs}</span><b aria-hidden="true">${n}</b></span>`;
}
