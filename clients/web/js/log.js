// The room's log: what happened, kept as the server's events (not as sentences) so that it is
// written again in the language chosen later, with a line between games. The server sends the
// match's recent events when this page joins or resumes (a `log` message), so a reload or
// another device of the seat shows the same log; each state then adds its events.
import { t } from "./i18n.js";

const KEEP = 60;

// One event of game ``n`` of the match (``g``: which card game) appended, after a separator
// line when it opens another game.
function push(log, v, g, n, e) {
  const last = log.findLast((entry) => entry.n != null);
  if (last && n > last.n) log.push({ v, sep: n + 1 });
  log.push({ v, g, n: last ? Math.max(n, last.n) : n, e });
  if (log.length > KEEP) log.splice(0, log.length - KEEP);
}

// The server's log (the `log` message) of a room playing ``game``: the log up to its version.
export function fromServer(msg, game) {
  const log = [{ v: msg.version }]; // complete up to msg.version (an entry with no line)
  for (const entry of msg.entries || []) push(log, msg.version, game, entry.game, entry.event);
  return log;
}

// A state's events appended to ``log``: they happened in game ``n`` of the match (the room's
// games played when the state came: a game's last state comes before the room counts it). A
// state already logged (its version) adds nothing.
export function add(log, msg, n) {
  const last = log.length ? log[log.length - 1].v : -1;
  if (msg.version <= last) return;
  for (const e of msg.events || []) push(log, msg.version, msg.view.game, n, e);
}

// One entry as a sentence in the chosen language ("" for events not worth a line).
export function text(entry, games, nameOf) {
  if (entry.sep != null) return t("log.newGame", { n: entry.sep });
  const game = entry.e && games[entry.g];
  const line = game ? game.eventText(entry.e, nameOf) : "";
  return line && entry.e.timed_out ? t("log.timedOut", { line }) : line;
}
