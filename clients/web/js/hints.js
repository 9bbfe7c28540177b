// Hints: the Hint button and the reason of the last answer, in a room opened with hints, for
// a seated player whose decision it is; and the hinted action marked on the table.
import { cardText, rankText } from "./cards.js";
import { has, t } from "./i18n.js";
import { esc } from "./ui.js";

// A hint's reason in the chosen language: its key's text with the params shown as on the
// table (cards as 10♦, ranks as 10, suits as words), else the server's English text.
const CARD_PARAMS = new Set(["card", "cards", "beat", "hold", "ace", "called", "other"]);
const RANK_PARAMS = new Set(["ranks", "top", "usual"]);

export function reasonText(reason) {
  if (!reason || !has(reason.key)) return (reason && reason.text) || "";
  const params = {};
  for (const [k, v] of Object.entries(reason.params || {})) {
    if (CARD_PARAMS.has(k)) params[k] = String(v).split(" ").map(cardText).join(" + ");
    else if (RANK_PARAMS.has(k)) params[k] = String(v).split(" ").map((r) => rankText(r)).join(" + ");
    else if (k === "suit") params[k] = t("suit." + v);
    else params[k] = String(v);
  }
  return t(reason.key, params);
}

// The cards a seat holds in a view (its hand and face-up cards), as one comparable value.
export function heldKey(view, seat) {
  const s = view.seats && view.seats[seat];
  return JSON.stringify([view.hand || [], (s && s.face_up) || []]);
}

function sameAction(a, b) {
  const key = (x) => `${x.kind}|${(x.cards || []).join(" ")}|${x.slot ?? ""}`;
  return key(a) === key(b);
}

// The last answer while it still holds, else null: the state it answered is on screen, or, in
// the simultaneous swap (SH-2.3), other seats moved since while this seat's cards stayed as they
// were and its action is still legal (another seat's "ready" changes nothing of this choice; an
// answer that came after such a move was dropped, and the first Hint seemed to do nothing).
export function current(hint, state) {
  if (!hint || !state) return null;
  if (hint.version === state.version) return hint;
  const v = state.view;
  const holds = hint.version < state.version && v.phase === "swap" && hint.held === heldKey(v, hint.seat);
  return holds && v.legal.some((a) => sameAction(a, hint.action)) ? hint : null;
}

// The Hint box: `info` the room, `seat` the viewer's, `state` the state on screen, `hint` the
// last answer, `hinting` whether one is on its way.
export function hintHTML({ info, seat, state, hint, hinting }) {
  const v = state && state.view;
  const can = info && info.hints && seat != null && v && v.phase !== "over" &&
    v.to_act.includes(seat) && v.legal.length > 0;
  if (!can) return "";
  const h = current(hint, state);
  const label = hinting ? t("table.hintWait") : t("table.hint");
  let out =
    `<div class="hintbox" role="status" aria-live="polite">` +
    `<button type="button" class="btn hint-btn" data-act="hint" data-key="btn:hint" aria-keyshortcuts="?"${hinting ? " disabled" : ""}>${esc(label)}</button>`;
  if (h) {
    out +=
      `<p class="hint-reason"><b>${esc(t("table.hintTitle"))}</b> ${esc(reasonText(h.reason))}</p>` +
      `<button type="button" class="btn small" data-act="hint-use" data-key="btn:hint-use">${esc(t("table.hintUse"))}</button>`;
  }
  return out + `</div>`;
}

// The hinted action marked on the table: its cards (or face-down slot) and its button.
export function markHint(area, hint, state) {
  const h = current(hint, state);
  if (!h) return;
  const a = h.action;
  const marks = [];
  for (const c of a.cards || []) marks.push(`.me [data-card="${c}"]`);
  if (a.kind === "flip") marks.push(`.me [data-act="flip"][data-slot="${a.slot}"]`);
  if (a.kind === "call") marks.push(`.actions [data-act="call"][data-card="${a.cards[0]}"]`);
  if (a.kind === "call_unknown") marks.push(`.actions [data-act="callu"][data-card="${a.cards[0]}"]`);
  // the buttons named by their kind (the house rules add the jack's partner and the cracks)
  const buttons = ["ready", "pickup", "pick", "pass", "alone", "jd_partner", "crack", "recrack", "no_crack"];
  if (buttons.includes(a.kind)) marks.push(`.actions [data-act="${a.kind}"]`);
  for (const sel of marks) for (const el of area.querySelectorAll(sel)) el.classList.add("suggested");
}
