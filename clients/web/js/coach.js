// Practice: a hand against bots with the hints on, and a coach that explains each moment the
// first time it comes (trump, the pick, the bury and the call in Sheepshead; the swap, the
// specials and the table cards in Shithead). A lesson shows while its moment lasts, once; "Got
// it" puts it away sooner. What was shown is kept with the practice room (a reload keeps it).
import { KEYS, load, save } from "./store.js";
import { t } from "./i18n.js";
import { esc } from "./ui.js";

// The practice tables: the player and bots of the default level, no timer, book rules.
export const PRACTICE_SEATS = { shithead: 3, sheepshead: 5 };

const mine = (v, me) => me != null && v.phase !== "over" && v.to_act.includes(me) && v.legal.length > 0;
const kinds = (v) => new Set(v.legal.map((a) => a.kind));
const holds = (v, ranks) => (v.hand || []).some((c) => ranks.includes(c[0]));

// Each game's lessons, in the order they are told when several apply: [key, when(view, me)].
const LESSONS = {
  shithead: [
    ["swap", (v) => v.phase === "swap"],
    ["play", (v, me) => mine(v, me) && v.source === "hand" && kinds(v).has("play")],
    ["special", (v, me) => mine(v, me) && v.source === "hand" && holds(v, ["2", "T"])],
    ["pickup", (v, me) => mine(v, me) && !kinds(v).has("play") && kinds(v).has("pickup")],
    ["faceUp", (v, me) => mine(v, me) && v.source === "face_up"],
    ["faceDown", (v, me) => mine(v, me) && v.source === "face_down"],
    ["end", (v) => v.phase === "over"],
  ],
  sheepshead: [
    ["trump", (v) => v.phase !== "over" && !!v.hand],
    ["pick", (v, me) => mine(v, me) && v.phase === "pick"],
    ["bury", (v, me) => mine(v, me) && v.phase === "bury"],
    ["call", (v, me) => mine(v, me) && v.phase === "call"],
    ["leaster", (v) => v.phase === "play" && v.leaster],
    ["partner", (v) => v.phase === "play" && v.you_are_partner],
    ["lead", (v, me) => mine(v, me) && v.phase === "play" && !v.trick.cards.length],
    ["follow", (v, me) => mine(v, me) && v.phase === "play" && v.trick.cards.length > 0],
    ["end", (v) => v.phase === "over"],
  ],
};

// The practice this browser is in: {room, game, seen: [keys], done: [keys]}, or null.
export function current(room) {
  const p = load(KEYS.practice, null);
  return p && p.room === room ? p : null;
}

export function begin(room, game) {
  save(KEYS.practice, { room, game, seen: [], done: [] });
}

// The lesson for this state: the one on show while its moment lasts (until the phase moves on
// and a new one applies), else the first unseen one that applies now (marked seen). Null:
// nothing to say.
export function lesson(practice, view, me) {
  if (!practice || !view) return null;
  const list = LESSONS[practice.game] || [];
  const applies = list.filter(([, when]) => when(view, me)).map(([key]) => key);
  const fresh = applies.find((k) => !practice.seen.includes(k));
  const on = practice.showing;
  const keep = on && applies.includes(on) && !practice.done.includes(on) && (!fresh || practice.phase === view.phase);
  const key = keep ? on : fresh;
  if (!key) return null;
  if (key !== on) {
    practice.showing = key;
    practice.phase = view.phase;
    practice.seen.push(key);
    save(KEYS.practice, practice);
  }
  return key;
}

// "Got it": the lesson on show is put away.
export function dismiss(practice) {
  if (!practice || !practice.showing) return;
  practice.done.push(practice.showing);
  practice.showing = null;
  save(KEYS.practice, practice);
}

// Whether the coach wants the hint asked for now (the hints are on in practice: the seat's
// every decision comes with the strong bot's suggestion and its reason).
export function wantsHint(practice, view, me) {
  return !!practice && !!view && mine(view, me);
}

export function coachHTML(practice, view, me) {
  const key = lesson(practice, view, me);
  if (!key) return "";
  const id = `${practice.game === "shithead" ? "sh" : "ss"}.${key}`;
  return (
    `<div class="coach" role="note" aria-labelledby="coach-title" data-lesson="${esc(id)}">` +
    `<p><b id="coach-title">${esc(t("coach.title"))}</b> ${esc(t("coach." + id))}</p>` +
    `<button type="button" class="btn small" data-act="coach-ok" data-key="btn:coach-ok">${esc(t("coach.ok"))}</button>` +
    `</div>`
  );
}
