// The client's state: one object holding what every screen is drawn from, and what this
// browser remembers between visits (localStorage). The controller (app.js) changes it; the
// renderers get the parts they draw (a scene, built by screens.js), never the store itself.
import { t } from "./i18n.js";

// What this browser keeps, under these localStorage keys.
export const KEYS = { name: "cardroom.name", session: "cardroom.session", prefs: "cardroom.prefs", lang: "cardroom.lang", device: "cardroom.device", practice: "cardroom.practice" };

export function load(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v ?? fallback;
  } catch {
    return fallback;
  }
}

export function save(key, value) {
  try {
    if (value == null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode: nothing is remembered */
  }
}

// This browser's device identity, kept: the leaderboards know a player by it. Made up on the
// first visit; the server's welcome then gives one it issued (the only kind that ranks).
export function deviceToken() {
  let token = load(KEYS.device, null);
  if (typeof token === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(token)) return token;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  token = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  save(KEYS.device, token);
  return token;
}

export const store = {
  net: null,
  screen: "home", // home | room | leaderboard | ladder | replay | player | event | event-new
  event: null, // {code, frame, error} (an event's page)
  openingEvent: false, // an event_create sent from /e/new: its first frame opens its page
  boards: null, // board name -> its standings (the leaderboard page)
  ladder: null, // {games: game -> its /api/ladder answer} (the bots' ladder page)
  replay: null, // {code, games, g, step, error} (the replay page)
  player: null, // {id, data, error, move} (a player's page)
  me: null, // this browser's player id (its welcome's), once known
  name: load(KEYS.name, ""),
  prefs: { game: "shithead", seats: 4, level: "basic", timer: 0, hints: false, ...load(KEYS.prefs, {}) },
  session: load(KEYS.session, null), // {room, token, seat} or {room, watch: true}
  pendingCode: null, // a share link's code, before joining
  newOpen: false, // the new room's form unfolded on the home page (`/#new` opens it)
  queue: null, // Play now: {game, waiting, waited, fill_in, at, found} while waiting for a table
  room: null,
  seat: null,
  info: null, // RoomInfo
  state: null, // the last `state` message
  events: [], // events of the last state (for animations)
  log: [], // what happened: the events, written out when drawn (js/log.js)
  chat: [],
  sel: [],
  mode: null,
  acting: false,
  awaiting: null, // the version an acknowledged action made, until it is on screen
  resend: null,
  online: false,
  everOnline: false,
  hint: null, // the last `hint` answer, while its version is on screen
  hinting: false, // a hint asked for, not answered yet
  shown: {}, // "ROOM:game" -> the commitment a room showed before that deal (fair deals)
  dailyRank: null, // {room, you, done}: this browser's rank on the board of a daily that ended
  again: null, // {from, room, name}: the host said the table plays again in room `room`
  confirmKick: null, // the seat whose removal the host is asked to confirm
  waiting: false, // a spectator who asked to play: seated when the game ends
};

export function isHost(info, seat) {
  return seat != null && !!info && !!info.seats[seat] && info.seats[seat].host;
}

export function nameOf(info, seat) {
  const s = info && info.seats[seat];
  if (s && s.kind === "bot") return t("lobby.botName", { n: seat + 1 });
  return (s && s.name) || t("lobby.seat", { n: seat + 1 });
}

// Forget the room this browser sat in (left, replaced, removed).
export function forget() {
  store.session = null;
  save(KEYS.session, null);
}
