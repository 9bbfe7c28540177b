// The pages of their own: the leaderboards, the bots' ladder, a room's replay and a player's
// page, loaded from the server (the boards through the protocol, the rest over HTTP) into the
// store, then drawn.
import { errorText, t } from "./i18n.js";
import * as ladder from "./ladder.js";
import * as leaders from "./leaders.js";
import * as replay from "./replay.js";
import { paths } from "./routes.js";
import { redrawPage } from "./screens.js";
import { store } from "./store.js";
import { patch } from "./ui.js";

// The three boards through the protocol: the server fills `you` from this browser's device.
export async function loadBoards() {
  if (!store.online) return; // asked again when the connection is up
  await Promise.all(
    leaders.BOARDS.map(async ({ board }) => {
      try {
        const msg = await store.net.request({ type: "leaderboard", board, limit: 20 });
        store.boards = { ...store.boards, [board]: msg };
      } catch (err) {
        store.boards = { ...store.boards, [board]: { error: errorText(err.code, err.message) } };
      }
    }),
  );
  if (store.screen === "leaderboard") redrawPage();
}

// The bots' ladder of both games (/ladder), each drawn as it arrives.
export async function loadLadder() {
  const l = store.ladder;
  await Promise.all(
    ladder.GAMES.map(async (game) => {
      let data;
      try {
        const res = await fetch(paths.ladderAPI(game));
        const body = await res.json();
        data = res.ok ? body : { error: errorText(body.error, body.message) };
      } catch {
        data = { error: errorText("connection_lost") };
      }
      l.games = { ...l.games, [game]: data };
      if (store.ladder === l && store.screen === "ladder") redrawPage();
    }),
  );
}

// A replay of room `code`'s finished games, before anything is loaded.
export function newReplay(code) {
  return { code, games: null, g: 0, step: 0, error: null, playing: false, speed: 1, timer: null };
}

// The room's finished games, then the steps of the one shown (a long game's steps are big:
// each is fetched when it is chosen).
export async function loadReplay() {
  const r = store.replay;
  const body = await fetchHistory(r);
  if (!body) return;
  if (!body.games.length) {
    r.error = t("rp.noHistory");
  } else {
    r.games = body.games;
    r.g = body.games.length - 1; // the game just finished
    r.step = 0;
  }
  if (showing(r)) redrawPage();
  if (r.games) loadSteps(r, r.g);
}

function showing(r) {
  return store.replay === r && store.screen === "replay";
}

export async function loadSteps(r, i) {
  const game = r.games[i];
  if (game.steps) return;
  const body = await fetchHistory(r, game.g);
  if (body && body.games.length) {
    const full = body.games[0];
    // the game's own answer has its whole deal and proof: the deal is checked from these
    for (const k of ["deal", "proof"]) if (k in full) game[k] = full[k];
    game.check = null;
    game.steps = full.steps;
  }
  else if (body) r.error = t("rp.noHistory");
  if (showing(r) && r.g === i) redrawPage();
}

// One history request; null (and the reason shown) when it fails.
async function fetchHistory(r, g = null) {
  const s = store.session;
  const token = s && s.room === r.code && !s.watch ? s.token : null;
  try {
    const res = await fetch(replay.historyURL(r.code, g), { headers: replay.historyHeaders(token) });
    const body = await res.json();
    if (res.ok) return body;
    // the one a person meets in words: no history to see (the server answers the same
    // whether there is no such room or the room is open and we are not at its table)
    r.error = body.error === "room_not_found"
      ? t("rp.noHistory") + " " + t("rp.notAtTable")
      : errorText(body.error, body.message);
  } catch {
    r.error = errorText("connection_lost");
  }
  if (showing(r)) redrawPage();
  return null;
}

// Auto-play: a step every 1/speed seconds until the last step, a step by hand, a pause or
// another page. Play at the last step starts again from the deal.
export function togglePlay() {
  const r = store.replay;
  if (!r || !r.games || !r.games[r.g].steps) return;
  if (r.playing) return stopPlay(r);
  if (r.step >= r.games[r.g].steps.length - 1) replayStep(0, true);
  r.playing = true;
  replay.markPlaying(r);
  tick(r);
}

function tick(r) {
  clearTimeout(r.timer);
  r.timer = setTimeout(() => {
    if (!r.playing || !showing(r) || !r.games[r.g].steps) return stopPlay(r);
    replayStep(r.step + 1, true);
    if (r.step >= r.games[r.g].steps.length - 1) stopPlay(r);
    else tick(r);
  }, 1000 / r.speed);
}

export function stopPlay(r = store.replay) {
  if (!r) return;
  clearTimeout(r.timer);
  r.timer = null;
  if (!r.playing) return;
  r.playing = false;
  replay.markPlaying(r);
}

// A new auto-play speed (steps a second), taking effect from the next step.
export function setSpeed(value) {
  const r = store.replay;
  if (!r || !replay.SPEEDS.includes(value)) return;
  r.speed = value;
  if (r.playing) tick(r);
}

// Move the replay to another step (clamped), redrawing only the table and the caption. A step
// by hand (`auto` false) stops auto-play.
export function replayStep(n, auto = false) {
  const r = store.replay;
  if (!r || !r.games || !r.games[r.g].steps) return;
  if (!auto) stopPlay(r);
  const total = r.games[r.g].steps.length - 1;
  const step = Math.max(0, Math.min(total, n));
  if (step === r.step) return;
  r.step = step;
  patch(document.getElementById("replay-board"), replay.boardHTML(r));
  document.getElementById("replay-caption").textContent = replay.captionText(r);
  const range = document.getElementById("replay-range");
  if (range) range.value = String(step);
  for (const [act, end] of [["rp-first", step === 0], ["rp-prev", step === 0], ["rp-next", step === total], ["rp-last", step === total]]) {
    const b = document.querySelector(`[data-act="${act}"]`);
    if (!b) continue;
    if (end) b.setAttribute("aria-disabled", "true");
    else b.removeAttribute("aria-disabled");
  }
}

// A player's page: their ratings, history and recent games (/api/players/ID).
export async function loadPlayer() {
  const p = store.player;
  try {
    const res = await fetch(paths.playerAPI(p.id));
    const body = await res.json();
    if (res.ok) p.data = body;
    else p.error = body.error === "player_not_found" ? t("pl.none") : errorText(body.error, body.message);
  } catch {
    p.error = errorText("connection_lost");
  }
  if (store.player === p && store.screen === "player") redrawPage();
}

// Your own page: a one-time code that brings this identity to another device.
export async function askMoveCode() {
  const p = store.player;
  try {
    const offer = await store.net.request({ type: "move_code" });
    p.move = { code: offer.code, expires: offer.expires, error: null };
  } catch (err) {
    p.move = { code: null, expires: null, error: errorText(err.code, err.message) };
  }
  if (store.player === p) redrawPage();
}

// A code from the other device: this browser is that player from now on (its identity kept,
// said in every hello); null when refused (the reason shown).
export async function claimMoveCode(code) {
  const p = store.player;
  try {
    return await store.net.request({ type: "move_claim", code });
  } catch (err) {
    p.move = { ...p.move, error: errorText(err.code, err.message) };
    if (store.player === p) redrawPage();
    return null;
  }
}
