// The room's log: what happened, kept as the server's events (not as sentences) so that it is
// written again in the language chosen later, with a line between games, and kept in this tab's
// session storage so that a reload shows it again. At most KEEP entries per room.
import { t } from "./i18n.js";

const KEEP = 60;
const PREFIX = "cardroom.log.";

function key(room) {
  return PREFIX + room;
}

export function load(room) {
  try {
    const entries = JSON.parse(sessionStorage.getItem(key(room)));
    return Array.isArray(entries) ? entries.slice(-KEEP) : [];
  } catch {
    return [];
  }
}

function store(room, entries) {
  try {
    sessionStorage.setItem(key(room), JSON.stringify(entries));
  } catch {
    /* private mode or full: the log lives only in the page */
  }
}

// A state's events appended to ``log`` (kept): a new deal after a finished game starts with a
// separator line. A state already logged (sent again after a reload) adds nothing.
export function add(log, room, msg, prev, gamesPlayed) {
  const view = msg.view;
  const last = log.length ? log[log.length - 1].v : -1;
  if (msg.version <= last) return;
  if (prev && prev.view.phase === "over" && view.phase !== "over") log.push({ v: msg.version, sep: gamesPlayed + 1 });
  for (const e of msg.events || []) log.push({ v: msg.version, g: view.game, e });
  if (log.length > KEEP) log.splice(0, log.length - KEEP);
  store(room, log);
}

// One entry as a sentence in the chosen language ("" for events not worth a line).
export function text(entry, games, nameOf) {
  if (entry.sep != null) return t("log.newGame", { n: entry.sep });
  const game = games[entry.g];
  return game ? game.eventText(entry.e, nameOf) : "";
}
