// Sounds and the tab title: what a player in another tab needs to hear or see. Every sound is
// made in the page (WebAudio oscillators, nothing fetched); the mute is remembered; "your turn"
// goes into the tab title while the tab is in the background.
import { t } from "./i18n.js";
import { esc } from "./ui.js";

const KEY = "cardroom.sound"; // "off" when muted

// Each cue: tones of [frequency Hz, start s, length s, wave].
const CUES = {
  turn: [[660, 0, 0.12, "sine"], [880, 0.13, 0.2, "sine"]],
  play: [[300, 0, 0.05, "triangle"]],
  burn: [[160, 0, 0.3, "sawtooth"], [110, 0.06, 0.32, "sawtooth"]],
  trick: [[520, 0, 0.07, "triangle"], [390, 0.08, 0.1, "triangle"]],
  end: [[523, 0, 0.14, "sine"], [659, 0.15, 0.14, "sine"], [784, 0.3, 0.32, "sine"]],
};
// At most one cue besides "your turn" per state, the one that says the most.
const ORDER = ["end", "burn", "trick", "play"];
const EVENT_CUES = { hand_over: "end", game_over: "end", burned: "burn", trick: "trick", played: "play" };

let ctx = null;
let isMuted = readMuted();
let myTurn = false;

function readMuted() {
  try {
    return localStorage.getItem(KEY) === "off";
  } catch {
    return false;
  }
}

export function muted() {
  return isMuted;
}

export function toggleMute() {
  isMuted = !isMuted;
  try {
    if (isMuted) localStorage.setItem(KEY, "off");
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode: not remembered */
  }
}

// The audio context is made on the first tap or key (browsers refuse sound before one).
function unlock() {
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return;
    try {
      ctx = new AC();
    } catch {
      return;
    }
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
}

export function play(name, delay = 0) {
  if (isMuted || !ctx) return;
  const now = ctx.currentTime + delay;
  for (const [freq, at, len, wave] of CUES[name]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + at);
    osc.stop(now + at + len + 0.02);
  }
}

function isMine(me, view) {
  return !!view && me != null && view.phase !== "over" && view.to_act.includes(me) && view.legal.length > 0;
}

// A new state (the message; `prev` the one before, `me` the viewer's seat): the sound of what
// happened, and "your turn" when it just became ours.
export function onState(state, prev, me) {
  const v = state.view;
  const kinds = new Set((state.events || []).map((e) => EVENT_CUES[e.kind]).filter(Boolean));
  const cue = ORDER.find((k) => kinds.has(k));
  if (cue) play(cue);
  const turnNow = isMine(me, v);
  if (turnNow && !isMine(me, prev && prev.view)) play("turn", cue ? 0.3 : 0);
  myTurn = turnNow;
}

// The tab's title: "your turn" first while the tab is in the background.
export function title(base) {
  return myTurn && document.hidden ? `● ${t("table.yourTurn")} · ${base}` : base;
}

const SPEAKER = "M3 9v6h4l5 4V5L7 9H3z";
const WAVES = `<path d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2"/>`;
const CROSS = `<path d="M16 9l5 6M21 9l-5 6" fill="none" stroke="currentColor" stroke-width="2"/>`;

export function muteButton() {
  const icon =
    `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">` +
    `<path d="${SPEAKER}" fill="currentColor"/>${isMuted ? CROSS : WAVES}</svg>`;
  return (
    `<button type="button" class="btn small ghost mute" data-act="mute" aria-pressed="${isMuted}" ` +
    `aria-label="${esc(t("snd.mute"))}" title="${esc(t(isMuted ? "snd.off" : "snd.on"))}">${icon}</button>`
  );
}

export function start(redraw) {
  document.addEventListener("pointerdown", unlock, true);
  document.addEventListener("keydown", unlock, true);
  // back in the tab: the title loses its "your turn"
  document.addEventListener("visibilitychange", () => redraw());
}
