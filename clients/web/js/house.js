// House rules (SH-7, SS-10): the room form's controls, and the rules in force as short chips
// for the lobby and the table. Option names and values are the wire's (protocol/messages.py
// ShitheadOptions, SheepsheadOptions); the defaults are the book's game.
import { t } from "./i18n.js";
import { esc } from "./ui.js";

// Each game's options in the order the form shows them: a toggle, or a choice of values (the
// first value is the book's).
export const HOUSE = {
  shithead: [
    { key: "seven_lower", values: [false, true] },
    { key: "eight_skips", values: [false, true] },
    { key: "three_invisible", values: [false, true] },
  ],
  sheepshead: [
    { key: "partner", values: ["called_ace", "jack_of_diamonds"] },
    { key: "no_pick", values: ["leaster", "doubler", "forced"] },
    { key: "crack", values: [false, true] },
  ],
};

function isToggle(opt) {
  return opt.values.length === 2 && opt.values[0] === false;
}

// The label of one option's value ("" for a toggle that is off: nothing to say).
function chipText(game, key, value) {
  if (value === false) return "";
  if (value === true) return t(`house.${key}`);
  return t(`house.${key}.${value}`);
}

// What a chip says when tapped: the form's own note for that option's value.
function chipNote(key, value) {
  return value === true ? t(`house.${key}Note`) : t(`house.${key}.${value}Note`);
}

// The options that differ from the book: {key, text, note} each (empty: the book's rules).
function differing(game, options) {
  const out = [];
  for (const opt of HOUSE[game] || []) {
    const value = options && opt.key in options ? options[opt.key] : opt.values[0];
    if (value !== opt.values[0]) out.push({ key: opt.key, text: chipText(game, opt.key, value), note: chipNote(opt.key, value) });
  }
  return out;
}

// The options that differ from the book, as chip texts (empty: the book's rules).
export function ruleChips(game, options) {
  return differing(game, options).map((c) => c.text);
}

// The chip whose explanation shows (one at a time; tapped again, it folds).
let openChip = null;

export function toggleChip(key) {
  openChip = openChip === key ? null : key;
}

// One line: "7 plays lower · 8 skips", or "Book rules"; each chip a button that says what its
// rule does (a newcomer meets "3 is glass" at the table, not in the form).
export function rulesHTML(game, options, cls = "house-rules") {
  const chips = differing(game, options);
  if (!chips.length) chips.push({ key: "book", text: t("house.book"), note: t("house.bookNote"), book: true });
  const label = `<span class="lbl">${esc(t("house.inForce"))}</span> `;
  let note = "";
  const body = chips
    .map((c) => {
      const open = openChip === c.key;
      if (open) note = `<span class="chip-note" id="chip-note">${esc(c.note)}</span>`;
      const controls = open ? ` aria-controls="chip-note"` : "";
      return `<button type="button" class="chip${c.book ? " book" : ""}" data-act="chip" data-chip="${c.key}" data-key="chip:${c.key}" aria-expanded="${open}"${controls}>${esc(c.text)}</button>`;
    })
    .join("");
  return `<p class="${cls}">${label}${body}${note}</p>`;
}

function toggleHTML(game, opt) {
  const id = `opt-${opt.key}`;
  return (
    `<label class="choice" for="${id}"><input type="checkbox" id="${id}" name="${game}.${opt.key}"> ` +
    `<span>${esc(t(`house.${opt.key}`))}</span><small>${esc(t(`house.${opt.key}Note`))}</small></label>`
  );
}

function choiceHTML(game, opt) {
  const rows = opt.values
    .map((value, i) => {
      const id = `opt-${opt.key}-${value}`;
      return (
        `<label class="choice" for="${id}"><input type="radio" id="${id}" name="${game}.${opt.key}" value="${value}"${i === 0 ? " checked" : ""}> ` +
        `<span>${esc(t(`house.${opt.key}.${value}`))}</span><small>${esc(t(`house.${opt.key}.${value}Note`))}</small></label>`
      );
    })
    .join("");
  return `<fieldset class="house-choice"><legend>${esc(t(`house.${opt.key}Legend`))}</legend>${rows}</fieldset>`;
}

// The form's house rules for both games, the chosen game's shown (js/app.js switches them
// with the game): folded by default, the book's rules checked.
export function formHTML(chosen) {
  return Object.keys(HOUSE)
    .map((game) => {
      const controls = HOUSE[game].map((opt) => (isToggle(opt) ? toggleHTML(game, opt) : choiceHTML(game, opt))).join("");
      return (
        `<details class="house" data-house="${game}"${game === chosen ? "" : " hidden"}>` +
        `<summary>${esc(t("house.title"))} <span class="house-now" data-house-now="${game}">${esc(t("house.book"))}</span></summary>` +
        `<p class="muted">${esc(t("house.intro"))}</p>${controls}</details>`
      );
    })
    .join("");
}

// The options the form holds for ``game``, as the wire writes them.
export function readForm(game, root = document) {
  const out = {};
  for (const opt of HOUSE[game] || []) {
    if (isToggle(opt)) {
      out[opt.key] = !!root.querySelector(`input[name="${game}.${opt.key}"]`)?.checked;
    } else {
      out[opt.key] = root.querySelector(`input[name="${game}.${opt.key}"]:checked`)?.value || opt.values[0];
    }
  }
  return out;
}

// After a change in the form: the chosen game's rules shown, and each summary says what is set.
export function syncForm(root = document) {
  const chosen = root.querySelector('input[name="game"]:checked')?.value || "shithead";
  for (const el of root.querySelectorAll("[data-house]")) el.hidden = el.dataset.house !== chosen;
  for (const el of root.querySelectorAll("[data-house-now]")) {
    const chips = ruleChips(el.dataset.houseNow, readForm(el.dataset.houseNow, root));
    el.textContent = chips.length ? chips.join(" · ") : t("house.book");
  }
}
