// Where things sit on the felt, the same for both games: the viewer at the bottom, the others
// in an arc across the top in play order. Play goes clockwise (seat + 1 is on your left), so
// read left to right the arc is the order the others play after you. Also: hands squeezed to
// one row, the finished trick held in view a moment, and the last trick opened on demand.
import { t } from "./i18n.js";
import { SWEEP_LEAD_MS, sweep } from "./motion.js";
import { esc, formatSeconds } from "./ui.js";

// The other seats from the viewer's left, clockwise (a spectator sees seat 0 at the bottom).
export function arc(n, me) {
  const bottom = me ?? 0;
  const out = [];
  for (let k = 1; k < n; k++) out.push((bottom + k) % n);
  return out;
}

// The seat at the bottom: the viewer's, or seat 0 for a spectator.
export function bottomSeat(me) {
  return me ?? 0;
}

// A seat's place class in the arc: its column, and "outer" for the two ends (drawn lower, so
// the arc bends round the table like chairs do).
export function spotClass(seats, seat) {
  const i = seats.indexOf(seat);
  if (i < 0) return "spot-me";
  const outer = seats.length >= 3 && (i === 0 || i === seats.length - 1);
  return `spot-${i + 1}${outer ? " outer" : ""}`;
}

// The dealer's mark: a round "D" chip, as the dealer button at a real table (the word for
// screen readers and on hover).
export function dealerChip() {
  return `<span class="badge dealer" title="${esc(t("table.dealer"))}"><span aria-hidden="true">${esc(t("table.dealerChip"))}</span><span class="sr-only">${esc(t("table.dealer"))}</span></span>`;
}

// ------------------------------------------------------------------ a friend gone

// A seat whose person is gone (the badge at their place at the table).
export function goneBadge(info) {
  if (!info || info.kind !== "human" || info.connected) return "";
  return `<span class="badge bad">${esc(t("lobby.away"))}</span>`;
}

// How long until a bot plays for a gone person (or a lobby seat is freed), counted down by
// tickHeld from the server's own deadline (SeatInfo.held_until, unix time), not a guess.
export function heldHTML(key, until, params = {}) {
  const data = esc(JSON.stringify(params));
  return `<span class="held" data-until="${until}" data-words="${esc(key)}" data-params="${data}">${esc(heldText(key, until, params))}</span>`;
}

function heldText(key, until, params) {
  return t(key, { ...params, time: formatSeconds(until - Date.now() / 1000) });
}

export function tickHeld(root) {
  for (const el of root.querySelectorAll(".held[data-until]")) {
    el.textContent = heldText(el.dataset.words, Number(el.dataset.until), JSON.parse(el.dataset.params));
  }
}

// Under the prompt: for each seat to act whose person is gone, "a bot plays for Bob in 0:55".
export function heldLine(d, seats) {
  const gone = seats
    .map((s) => d.info && d.info.seats[s])
    .filter((s) => s && s.kind === "human" && !s.connected && s.held_until);
  if (!gone.length) return "";
  return `<p class="held-line">${gone.map((s) => heldHTML("table.botFor", s.held_until, { name: s.name })).join(" · ")}</p>`;
}

// ------------------------------------------------------------------ hands in one row

// After every draw: a hand wider than its place overlaps its cards so that it stays on one
// row while each card shows at least its corner; past that it wraps, each lower row laid over
// the one above it up to its corners (a big pick-up stays in view). (A margin set through the
// CSSOM: the page's CSP forbids style attributes, not this.) Every hand is measured first and
// written after, so a draw costs one forced layout (more only for a hand that wraps), not two
// per hand: this runs after every state, and those layouts were the page's largest cost.
export function fitHands(root) {
  const hands = [];
  for (const hand of root.querySelectorAll(".hand")) {
    const cards = [...hand.querySelectorAll(":scope > .card")];
    for (const c of cards) c.classList.remove("lower", "row-start");
    if (cards.length < 2) hand.style.removeProperty("--overlap");
    else hands.push({ hand, cards });
  }
  for (const h of hands) {
    // the room it has: beside the cards on the table (Shithead) or the whole row
    const row = h.hand.parentElement;
    const beside = row.classList.contains("mine") && !row.classList.contains("wide");
    const table = beside ? row.querySelector(".tablecards") : null;
    // (less the gap where Sheepshead's trump ends)
    const gap = h.hand.querySelector(":scope > .fail-start") ? 16 : 0;
    h.width = (beside ? row.clientWidth - (table ? table.offsetWidth + 12 : 0) : h.hand.clientWidth) - 8 - gap;
    h.cw = h.cards[0].offsetWidth;
  }
  const wrapped = [];
  for (const { hand, cards, width, cw } of hands) {
    const gap = 4;
    const need = cards.length * cw + (cards.length - 1) * gap;
    if (need <= width) {
      hand.style.setProperty("--overlap", gap + "px");
      continue;
    }
    // the step from one card to the next, at least 42% of a card (its index stays readable)
    const step = Math.max((width - cw) / (cards.length - 1), cw * 0.42);
    hand.style.setProperty("--overlap", Math.floor(step - cw) + "px");
    wrapped.push(cards);
  }
  for (const cards of wrapped) {
    // the rows the browser made, card by card: a row's first card loses its overlap (it
    // starts the row), which moves the cards after it, so each is read after the last mark
    let top = cards[0].offsetTop;
    for (const c of cards) {
      if (c.offsetTop > top + 2) {
        top = c.offsetTop;
        c.classList.add("row-start");
      }
    }
    let lower = false;
    for (const c of cards) {
      lower = lower || c.classList.contains("row-start");
      if (lower) c.classList.add("lower");
    }
  }
}

// ------------------------------------------------------------------ the trick in view

// How long a finished trick stays in the middle after it is won (ms), even when the winner
// leads again at once; input is never held up by it.
export const TRICK_HOLD_MS = 1600;

const held = { trick: null, until: 0, timer: null, sweepTimer: null, lastOpen: false, count: 0 };

// Called with every state: a trick just won is held in view for a moment; a new trick won
// closes the last-trick view (it would show an older one). `state`: the state message, `me`:
// the viewer's seat.
export function noteState(state, me, redraw) {
  const v = state.view;
  if (v.game !== "sheepshead") return;
  const won = (state.events || []).some((e) => e.kind === "trick");
  const count = (v.tricks || []).length;
  if (count < held.count) held.lastOpen = false; // a new hand
  if (won && count) {
    held.trick = v.tricks[count - 1];
    held.until = Date.now() + TRICK_HOLD_MS;
    held.lastOpen = false;
    clearTimeout(held.timer);
    clearTimeout(held.sweepTimer);
    held.timer = setTimeout(redraw, TRICK_HOLD_MS + 20);
    // just before it goes, the trick sweeps to its winner
    const winner = held.trick.winner;
    held.sweepTimer = setTimeout(() => sweep(document.getElementById("area"), winner, me), TRICK_HOLD_MS - SWEEP_LEAD_MS);
  }
  held.count = count;
}

// The trick to draw in the middle: the one just won while it is held (or while the last trick
// is opened), else the trick being played. {cards, done (a finished trick or null)}.
export function holdingTrick(v) {
  const last = v.tricks && v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
  return !!(held.trick && last && Date.now() < held.until && held.trick.number === last.number);
}

export function trickShown(v) {
  const last = v.tricks && v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
  if (held.lastOpen && last && v.phase === "play") return { cards: last.cards, done: last, opened: true };
  if ((holdingTrick(v) || !v.trick.cards.length) && last && v.phase !== "pick") return { cards: last.cards, done: last, opened: false };
  return { cards: v.trick.cards, done: null, opened: false };
}

export function lastTrickButton(v) {
  if (v.phase !== "play" || !v.tricks || !v.tricks.length) return "";
  const open = held.lastOpen;
  const label = open ? t("ss.backToTrick") : t("ss.lastTrickBtn");
  return `<button type="button" class="btn small lasttrick-btn" data-act="last-trick" data-key="btn:last-trick" aria-pressed="${open}">${esc(label)}</button>`;
}

export function toggleLastTrick(force) {
  held.lastOpen = force ?? !held.lastOpen;
}

export function lastTrickOpen() {
  return held.lastOpen;
}

// ------------------------------------------------------------------ chat at the table

// A message said at the table shows for a moment as a bubble at the sender's seat (cut to
// BUBBLE_CHARS: the whole line is in the chat box); while the chat box is out of view, the
// header counts what arrived unread.
export const BUBBLE_MS = 5000;
const BUBBLE_CHARS = 60;
const bubbles = new Map(); // seat -> {text, until}
const chat = { unread: 0, observed: null, visible: false };

function watchChat(box, redraw) {
  if (chat.observed === box || !box || !window.IntersectionObserver) return;
  chat.observed = box;
  new IntersectionObserver(([entry]) => {
    chat.visible = entry.isIntersecting;
    if (chat.visible && chat.unread) {
      chat.unread = 0;
      redraw();
    }
  }).observe(box);
}

// A host's "play again" line: the mark, then the new room's address (js/app.js playAgain); no
// words, so that every page says it in its own language.
// A chat line's text as shown: the room's own "plays again" line (app.js noteAgain) in words;
// what people type is shown as typed.
export function chatWords(line) {
  return line.again ? t("chat.again", { code: line.again }) : line.text;
}

export function noteChat(msg, me, redraw) {
  watchChat(document.getElementById("chat-lines"), redraw);
  if (msg.seat != null) {
    const words = chatWords(msg);
    const text = words.length > BUBBLE_CHARS ? words.slice(0, BUBBLE_CHARS - 1) + "…" : words;
    bubbles.set(msg.seat, { text, until: Date.now() + BUBBLE_MS });
    setTimeout(redraw, BUBBLE_MS + 20);
  }
  if (msg.seat !== me && !chat.visible) chat.unread += 1;
}

// A seat's quick reaction (js/reacts.js): its emoji in the seat's bubble for a moment.
export function noteReactionBubble(seat, glyph, redraw) {
  bubbles.set(seat, { text: glyph, until: Date.now() + BUBBLE_MS, react: true });
  setTimeout(redraw, BUBBLE_MS + 20);
}

export function bubbleHTML(seat) {
  const b = bubbles.get(seat);
  if (!b || Date.now() > b.until) return "";
  // the chat box reads a line out, the reactions bar a reaction
  return `<p class="bubble${b.react ? " react" : ""}" aria-hidden="true">${esc(b.text)}</p>`;
}

export function unread() {
  return chat.unread;
}

// The header's count of unread messages: a link down to the chat box.
export function chatPill() {
  if (!chat.unread) return "";
  return `<button type="button" class="chat-pill" data-act="to-chat"><span class="word">${esc(t("chat.title"))}</span> <b>${chat.unread}</b><span class="sr-only"> ${esc(t("chat.unread", { n: chat.unread }))}</span></button>`;
}

export function toChat() {
  chat.unread = 0;
  const box = document.getElementById("chat-text");
  if (box) {
    box.scrollIntoView({ block: "center" });
    box.focus({ preventScroll: true });
  }
}
