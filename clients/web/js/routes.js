// The app's own addresses, in one table: every path the page reads (where it starts, a link
// followed, the browser's back button) is matched here, and every path it writes is built here.
// The server serves index.html for the same paths (server/net/static.py).

const CODE = "([A-Za-z0-9]{5})"; // a room code, as typed or shared (the app upper-cases it)
// a player id: a device digest, or a house bot's identity (server/store/ratings.py PLAYER_ID)
const PLAYER = "([0-9a-f]{20}|bot:[a-z]+)";

const ROUTES = [
  { name: "home", pattern: /^\/$/ },
  { name: "leaderboard", pattern: /^\/leaderboard\/?$/ },
  { name: "ladder", pattern: /^\/ladder\/?$/ },
  { name: "replay", pattern: new RegExp(`^/r/${CODE}/history/?$`) },
  { name: "room", pattern: new RegExp(`^/r/${CODE}/?$`) },
  { name: "player", pattern: new RegExp(`^/p/${PLAYER}/?$`) },
  { name: "event-new", pattern: /^\/e\/new\/?$/ },
  { name: "event", pattern: new RegExp(`^/e/${CODE}/?$`) },
];

// Where a path leads: {name, code} (`code` upper-cased, for a room, its replay, an event; a
// player's id as it is), or {name: null} for an address that is not the app's.
export function match(path) {
  for (const { name, pattern } of ROUTES) {
    const m = pattern.exec(path.replace(/%3a/gi, ":")); // a bot's id, as a browser may write it
    if (!m) continue;
    if (name === "player") return { name, code: m[1] };
    return { name, code: m[1] ? m[1].toUpperCase() : null };
  }
  return { name: null, code: null };
}

// The pages drawn on their own (not the home screen or a room's table).
export function isPage(name) {
  return ["leaderboard", "ladder", "replay", "player", "event", "event-new"].includes(name);
}

export const paths = {
  home: () => "/",
  leaderboard: () => "/leaderboard",
  ladder: () => "/ladder",
  ladderAPI: (game) => `/api/ladder?game=${encodeURIComponent(game)}`,
  room: (code) => `/r/${code}`,
  replay: (code) => `/r/${code}/history`,
  player: (id) => `/p/${id}`,
  playerAPI: (id) => `/api/players/${encodeURIComponent(id)}`,
  event: (code) => `/e/${code}`,
  newEvent: () => "/e/new",
  rules: (lang, game) => `/rules/${lang}/${game}.html`, // static pages, not the app's
};
