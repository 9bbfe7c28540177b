// Keys. At the table: arrows move along a row of cards; Enter on a card plays it (with the
// cards chosen with Space); h: the first card that can be chosen; p: play; u: pick up;
// r: ready; ?: a hint; Esc: clear. In a replay: arrows step, Home and End jump to its ends.

// At the table: a key that presses the button it names (when the button is there and enabled).
const BUTTONS = { p: '[data-act="play"]', u: '[data-act="pickup"]', r: '[data-act="ready"]', "?": '[data-act="hint"]' };
// In a replay: how far a key moves (±Infinity: to an end).
const REPLAY_STEPS = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };

// One key press. `on` is what the page can do where it is: `replay()` whether the replay is
// showing, `step(delta)` move it; `table()` the table's area while a game is showing (else
// null), `enter(card)` play the card that has focus (true: done), `clear()` drop the choice.
export function onKey(e, on) {
  const target = e.target;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (target.closest && target.closest("input, textarea, select")) return;
  if (on.replay()) {
    if (!(e.key in REPLAY_STEPS)) return;
    on.step(REPLAY_STEPS[e.key]);
    e.preventDefault();
    return;
  }
  const area = on.table();
  if (!area) return;
  const isCard = target.dataset && target.dataset.act && target.classList.contains("card");
  if (e.key === "Enter" && isCard) {
    if (on.enter(target)) e.preventDefault();
    return;
  }
  if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && isCard) {
    const row = [...area.querySelectorAll("button.card")];
    const next = row[row.indexOf(target) + (e.key === "ArrowRight" ? 1 : -1)];
    if (next) next.focus();
    e.preventDefault();
    return;
  }
  const key = e.key.toLowerCase();
  if (key in BUTTONS) {
    const b = area.querySelector(BUTTONS[key]);
    if (b && !b.disabled) b.click();
  } else if (key === "h") {
    const first = area.querySelector("button.card.playable") || area.querySelector(".actions button:not([disabled])");
    if (first) first.focus();
  } else if (key === "escape") {
    on.clear();
  } else {
    return;
  }
  e.preventDefault();
}
