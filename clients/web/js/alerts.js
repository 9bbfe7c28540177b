// Sounds and the tab title: what a player in another tab needs to hear or see. Every sound is
// made in the page (WebAudio oscillators, nothing fetched); the mute is remembered; "your turn"
// goes into the tab title while the tab is in the background.
import { t } from "./i18n.js";
import { esc } from "./ui.js";

const KEY = "cardroom.sound"; // "off" when muted
const NOTIFY_KEY = "cardroom.notify"; // "on" once the player asked for turn notifications

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
  if (turnNow && !isMine(me, prev && prev.view)) {
    play("turn", cue ? 0.3 : 0);
    notifyTurn(state.room);
  }
  myTurn = turnNow;
}

// ------------------------------------------------------------------ turn notifications

// Whether this browser can show notifications and the player has not refused them for good.
export function canNotify() {
  return "Notification" in window && Notification.permission !== "denied";
}

// On: the player asked (remembered) and the browser allows it.
export function notifying() {
  if (!("Notification" in window) || Notification.permission !== "granted") return false;
  try {
    return localStorage.getItem(NOTIFY_KEY) === "on";
  } catch {
    return false;
  }
}

// The bell pressed: asks the browser's permission the first time (it must come from a tap).
export async function toggleNotify() {
  if (!("Notification" in window)) return;
  const on = !notifying() && (Notification.permission === "granted" || (await Notification.requestPermission()) === "granted");
  try {
    if (on) localStorage.setItem(NOTIFY_KEY, "on");
    else localStorage.removeItem(NOTIFY_KEY);
  } catch {
    /* private mode: not remembered */
  }
}

// "Your turn" while the tab is in the background. Through the service worker where there is
// one (phones show only those), else the page's own; one at a time (the same tag).
function notifyTurn(room) {
  if (!document.hidden || !notifying()) return;
  const title = t("notify.turn");
  const options = { body: t("notify.turnBody", { room: room || "" }), tag: "cardroom-turn", renotify: true, icon: "/icons/192.png", data: { url: location.pathname } };
  const sw = navigator.serviceWorker;
  (sw ? sw.getRegistration() : Promise.resolve(null))
    .then((reg) => (reg ? reg.showNotification(title, options) : new Notification(title, options)))
    .catch(() => {});
}

const BELL = "M12 3a5 5 0 0 0-5 5v4l-2 3h14l-2-3V8a5 5 0 0 0-5-5zm-2 14a2 2 0 0 0 4 0";

// The bell beside the seats: shown where the browser can notify.
export function notifyButton() {
  if (!canNotify()) return "";
  const on = notifying();
  return (
    `<button type="button" class="btn small ghost notify" data-act="notify" aria-pressed="${on}" title="${esc(t("notify.label"))}">` +
    `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path d="${BELL}" fill="${on ? "currentColor" : "none"}" stroke="currentColor" stroke-width="2"/></svg> ` +
    `${esc(t(on ? "notify.on" : "notify.ask"))}</button>`
  );
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
