// Cards that move: a card played travels from the seat that played it to the trick or pile; a
// trick won sweeps to its winner. Only what is drawn moves (transforms through the Web
// Animations API), never what can be clicked, so input is never held up; several moves at once
// are quicker; nothing moves when the system asks for reduced motion.

const TRAVEL_MS = 280;
const QUICK_MS = 140; // several cards in one state, or states close together (bots in a row)
const SWEEP_MS = 300;

// Counted for tests and the curious: how many moves were started (quick: travels cut short).
export const stats = { travels: 0, sweeps: 0, quick: 0 };

let lastAt = 0;

function still() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// The box a seat's cards come from (its seat box, or the viewer's own place).
function seatBox(area, seat, me) {
  return area.querySelector(`.seatbox[data-seat="${seat}"]`) || (seat === me ? area.querySelector(".me") : null);
}

function centre(rect) {
  return [rect.left + rect.width / 2, rect.top + rect.height / 2];
}

function travel(el, from, ms) {
  const [fx, fy] = centre(from.getBoundingClientRect());
  const [tx, ty] = centre(el.getBoundingClientRect());
  const frames = [
    { transform: `translate(${fx - tx}px, ${fy - ty}px) scale(.6)`, opacity: 0.4 },
    { transform: "none", opacity: 1 },
  ];
  el.animate(frames, { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" }).id = "travel";
  stats.travels += 1;
  if (ms < TRAVEL_MS) stats.quick += 1;
}

// After a state is drawn: each card just played flies in from its seat.
let drawn = null; // the state last animated: a redraw of the same state moves nothing

// `state`: the state message drawn; `me`: the viewer's seat.
export function afterDraw(state, me, area) {
  if (!state || state === drawn) return;
  drawn = state;
  if (still()) return;
  const played = (state.events || []).filter((e) => e.kind === "played" && e.seat != null);
  if (!played.length) return;
  const now = Date.now();
  const ms = played.length > 1 || now - lastAt < 400 ? QUICK_MS : TRAVEL_MS;
  lastAt = now;
  for (const e of played) {
    const from = seatBox(area, e.seat, me);
    if (!from) continue;
    // Sheepshead: the card under the seat that played it; Shithead: the cards on the pile
    const where = [`.trick .play[data-seat="${e.seat}"] .card.enter`, ...(e.cards || []).map((c) => `.pile .card.enter[data-card="${c}"]`)];
    const cards = area.querySelectorAll(where.join(", "));
    for (const el of cards) travel(el, from, ms);
  }
}

// A trick won, before it leaves the middle: its cards sweep to the winner's seat.
export function sweep(area, winner, me) {
  if (still() || !area) return;
  const to = seatBox(area, winner, me);
  if (!to) return;
  const [wx, wy] = centre(to.getBoundingClientRect());
  for (const el of area.querySelectorAll(".trick.last:not(.opened) .plays .card")) {
    const [cx, cy] = centre(el.getBoundingClientRect());
    const frames = [{ transform: "none" }, { transform: `translate(${wx - cx}px, ${wy - cy}px) scale(.4)`, opacity: 0 }];
    el.animate(frames, { duration: SWEEP_MS, easing: "ease-in", fill: "forwards" }).id = "sweep";
    stats.sweeps += 1;
  }
}

export const SWEEP_LEAD_MS = SWEEP_MS;
