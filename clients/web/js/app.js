// Cardroom in the browser: screens, the messages from the server, and the player's input.
import * as home from "./home.js";
import { detectLang, errorText, has, LANGS, lang, LANG_NAMES, onFallback, setLang, t } from "./i18n.js";
import * as leaders from "./leaders.js";
import * as lobby from "./lobby.js";
import { Net } from "./net.js";
import * as replay from "./replay.js";
import * as sheepshead from "./sheepshead.js";
import * as shithead from "./shithead.js";
import { cardText, rankText } from "./cards.js";
import { randomValue } from "./deal.js";
import * as alerts from "./alerts.js";
import * as roomLog from "./log.js";
import { afterDraw } from "./motion.js";
import { chatPill, fitHands, noteChat, noteState, toChat, toggleLastTrick, unread } from "./table.js";
import { cleanCode, esc, formatSeconds, patch, toast } from "./ui.js";

const GAMES = { shithead, sheepshead };
const STORE = { name: "cardroom.name", session: "cardroom.session", prefs: "cardroom.prefs", lang: "cardroom.lang", device: "cardroom.device" };
// Pages of their own: the leaderboards and a finished game's replay (drawn once, then patched).
const PAGES = { leaderboard: { mod: leaders, cls: "boards" }, replay: { mod: replay, cls: "replay" } };

function load(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v ?? fallback;
  } catch {
    return fallback;
  }
}

function save(key, value) {
  try {
    if (value == null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode: nothing is remembered */
  }
}

// This browser's device identity, kept: the leaderboards know a player by it. Made up on the
// first visit; the server's welcome then gives one it issued (the only kind that ranks).
function deviceToken() {
  let token = load(STORE.device, null);
  if (typeof token === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(token)) return token;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  token = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  save(STORE.device, token);
  return token;
}

const app = {
  net: null,
  screen: "home", // home | room | leaderboard | replay
  boards: null, // board name -> its standings (the leaderboard page)
  replay: null, // {code, games, g, step, error} (the replay page)
  name: load(STORE.name, ""),
  prefs: { game: "shithead", seats: 4, level: "basic", timer: 0, hints: false, ...load(STORE.prefs, {}) },
  session: load(STORE.session, null), // {room, token, seat} or {room, watch: true}
  pendingCode: null, // a share link's code, before joining
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
  resend: null,
  online: false,
  hint: null, // the last `hint` answer, while its version is on screen
  hinting: false, // a hint asked for, not answered yet
  shown: {}, // "ROOM:game" -> the commitment a room showed before that deal (fair deals)

  isHost() {
    return this.seat != null && !!this.info && !!this.info.seats[this.seat] && this.info.seats[this.seat].host;
  },

  nameOf(seat) {
    const s = this.info && this.info.seats[seat];
    if (s && s.kind === "bot") return t("lobby.botName", { n: seat + 1 });
    return (s && s.name) || t("lobby.seat", { n: seat + 1 });
  },

  async request(body) {
    try {
      return await this.net.request(body);
    } catch (err) {
      this.showError(err);
      throw err;
    }
  },

  showError(err) {
    if (!err || !err.code) return;
    toast(errorText(err.code, err.message), "error");
  },

  // Send a game action against the version on screen.
  async act(action) {
    const st = this.state;
    if (!st || this.acting) return;
    this.acting = true;
    this.sel = [];
    this.mode = null;
    this.redraw();
    let waiting = false;
    let retry = false;
    try {
      const ack = await this.net.request({ type: "act", room: this.room, version: st.version, action });
      // stay busy until the state this action made is on screen (it follows the ack)
      if (ack.version != null && this.state.version < ack.version) {
        this.awaiting = ack.version;
        waiting = true;
        setTimeout(() => {
          if (this.awaiting === ack.version) {
            this.awaiting = null;
            this.acting = false;
          }
        }, 3000);
      }
    } catch (err) {
      if (err.code === "stale_version") {
        // Another seat moved first. In the simultaneous swap phase our cards did not change:
        // send the same action again against the fresh view, once it is here.
        if (this.state.version > st.version) retry = GAMES[st.view.game].retryStale(this.state.view, action);
        else this.resend = action;
      } else {
        this.showError(err);
      }
    } finally {
      if (!waiting) this.acting = false;
    }
    if (retry) this.act(action);
  },

  // The Hint button and the last hint's reason: for a seated player whose decision it is, in a
  // room opened with hints.
  hintHTML() {
    const v = this.state && this.state.view;
    const can = this.info && this.info.hints && this.seat != null && v && v.phase !== "over" &&
      v.to_act.includes(this.seat) && v.legal.length > 0;
    if (!can) return "";
    const h = this.hint && this.hint.version === this.state.version ? this.hint : null;
    const label = this.hinting ? t("table.hintWait") : t("table.hint");
    let out =
      `<div class="hintbox" role="status" aria-live="polite">` +
      `<button type="button" class="btn hint-btn" data-act="hint" data-key="btn:hint" aria-keyshortcuts="?"${this.hinting ? " disabled" : ""}>${esc(label)}</button>`;
    if (h) {
      out +=
        `<p class="hint-reason"><b>${esc(t("table.hintTitle"))}</b> ${esc(reasonText(h.reason))}</p>` +
        `<button type="button" class="btn small" data-act="hint-use" data-key="btn:hint-use">${esc(t("table.hintUse"))}</button>`;
    }
    return out + `</div>`;
  },

  async askHint() {
    if (this.hinting || !this.state || !this.room) return;
    this.hinting = true;
    this.redraw();
    try {
      const msg = await this.net.request({ type: "hint", room: this.room });
      if (this.state && msg.version === this.state.version) this.hint = msg;
    } catch (err) {
      this.showError(err);
    } finally {
      this.hinting = false;
      this.redraw();
    }
  },

  host(op, extra = {}) {
    return this.request({ type: "host", room: this.room, op, ...extra }).catch(() => {});
  },

  nextGameHTML() {
    const info = this.info;
    if (!info) return "";
    return this.afterGameLinks() + this.nextGameButton();
  },

  nextGameButton() {
    const info = this.info;
    if (info.status === "over") return `<p class="muted">${esc(t("ss.matchOver"))}</p>`;
    if (info.status !== "between") return "";
    if (this.isHost()) {
      const label = info.game === "sheepshead" ? t("table.nextHand") : t("table.next");
      return `<button type="button" class="btn primary wide" data-act="host" data-op="next_game" data-key="next">${esc(label)}</button>`;
    }
    return `<p class="muted">${esc(t("table.waitNext"))}</p>`;
  },

  // After a game: its replay (players only while the room is open), and today's table once
  // a daily match is over.
  afterGameLinks() {
    const info = this.info;
    if (info.status !== "between" && info.status !== "over") return "";
    const links = [];
    if (this.seat != null) {
      const label = info.game === "sheepshead" ? t("rp.replayHand") : t("rp.replayGame");
      links.push(`<a class="btn" href="/r/${esc(info.room)}/history" data-nav data-key="replay">${esc(label)}</a>`);
    }
    if (info.daily && info.status === "over") {
      links.push(`<a class="btn" href="/leaderboard" data-nav data-key="leaders">${esc(t("lb.seeToday"))}</a>`);
    }
    return links.length ? `<p class="after-links">${links.join("")}</p>` : "";
  },

  redraw() {
    render();
  },
};

// A hint's reason in the chosen language: its key's text with the params shown as on the
// table (cards as 10♦, ranks as 10, suits as words), else the server's English text.
const CARD_PARAMS = new Set(["card", "cards", "beat", "hold", "ace", "called", "other"]);
const RANK_PARAMS = new Set(["ranks", "top"]);

export function reasonText(reason) {
  if (!reason || !has(reason.key)) return (reason && reason.text) || "";
  const params = {};
  for (const [k, v] of Object.entries(reason.params || {})) {
    if (CARD_PARAMS.has(k)) params[k] = String(v).split(" ").map(cardText).join(" + ");
    else if (RANK_PARAMS.has(k)) params[k] = String(v).split(" ").map((r) => rankText(r)).join(" + ");
    else if (k === "suit") params[k] = t("suit." + v);
    else params[k] = String(v);
  }
  return t(reason.key, params);
}

// The hinted action marked on the table: its cards (or face-down slot) and its button.
function markHint(area) {
  const h = app.hint;
  if (!h || !app.state || h.version !== app.state.version) return;
  const a = h.action;
  const marks = [];
  for (const c of a.cards || []) marks.push(`.me [data-card="${c}"]`);
  if (a.kind === "flip") marks.push(`.me [data-act="flip"][data-slot="${a.slot}"]`);
  if (a.kind === "call") marks.push(`.actions [data-act="call"][data-card="${a.cards[0]}"]`);
  if (a.kind === "call_unknown") marks.push(`.actions [data-act="callu"][data-card="${a.cards[0]}"]`);
  if (["ready", "pickup", "pick", "pass", "alone"].includes(a.kind)) marks.push(`.actions [data-act="${a.kind}"]`);
  for (const sel of marks) for (const el of area.querySelectorAll(sel)) el.classList.add("suggested");
}

// ------------------------------------------------------------------------------ messages

// Fair deals: a seated player's value for each deal the room announces (`next_deal`), sent at
// once, before anything the player does next; and the commitment shown, for the replay's check.
const contributed = new Set();
function contribute(info) {
  const deal = info.next_deal;
  if (!deal) return;
  app.shown[`${info.room}:${deal.game}`] = deal.commitment;
  const key = `${info.room}:${deal.game}:${deal.commitment}`;
  if (app.seat == null || contributed.has(key)) return;
  contributed.add(key);
  // a refusal (say, this seat already sent one from another tab) changes nothing: not shown
  app.net.request({ type: "contribute", room: info.room, game: deal.game, value: randomValue() }).catch(() => {});
}

function onMessage(msg) {
  switch (msg.type) {
    case "joined":
      app.room = msg.room;
      app.seat = msg.seat;
      app.session = msg.seat != null ? { room: msg.room, token: msg.token, seat: msg.seat } : { room: msg.room, watch: true };
      save(STORE.session, app.session);
      if (app.screen !== "room" || !app.info || app.info.room !== msg.room) {
        app.info = null;
        app.state = null;
        app.log = roomLog.load(msg.room);
        app.chat = [];
      }
      if (PAGES[app.screen]) break; // resumed behind the replay: the room waits
      app.screen = "room";
      if (location.pathname !== "/r/" + msg.room) history.replaceState(null, "", "/r/" + msg.room);
      buildRoom();
      break;
    case "room":
      if (msg.room.room !== app.room) return;
      app.info = msg.room;
      contribute(msg.room);
      render();
      break;
    case "state": {
      if (msg.room !== app.room) return;
      const prev = app.state;
      app.state = msg;
      if (app.awaiting != null && msg.version >= app.awaiting) {
        app.awaiting = null;
        app.acting = false;
      }
      app.events = msg.events || [];
      if (app.hint && app.hint.version !== msg.version) app.hint = null;
      if (!prev || prev.view.phase !== msg.view.phase || !msg.view.to_act.includes(app.seat)) {
        app.sel = [];
        app.mode = null;
      }
      // drop chosen cards that are no longer held
      const held = new Set([...(msg.view.hand || []), ...((msg.view.seats && app.seat != null && msg.view.seats[app.seat].face_up) || [])]);
      app.sel = app.sel.filter((c) => held.has(c));
      logEvents(msg, prev);
      noteState(app, render);
      alerts.onState(app, prev);
      render();
      if (app.resend) {
        const action = app.resend;
        app.resend = null;
        if (GAMES[msg.view.game].retryStale(msg.view, action)) app.act(action);
      }
      break;
    }
    case "chat":
      if (msg.room !== app.room) return;
      app.chat.push(msg);
      if (app.chat.length > 100) app.chat.shift();
      drawChat(true);
      noteChat(app, msg, render);
      render();
      break;
    case "error":
      if (msg.ref == null) {
        if (msg.code === "replaced" || msg.code === "removed") {
          forget();
          goHome();
        }
        app.showError(msg);
      }
      break;
    case "closing":
      toast(t("net.closing"));
      break;
  }
}

function logEvents(msg, prev) {
  const game = GAMES[msg.view.game];
  const lines = [];
  for (const e of msg.events || []) {
    const line = game.eventText(e, (s) => app.nameOf(s));
    if (line) lines.push(line);
  }
  roomLog.add(app.log, app.room, msg, prev, (app.info && app.info.games_played) || 0);
  // screen readers hear what happened, and when it becomes their turn
  const mine = (v) => v && app.seat != null && v.to_act.includes(app.seat) && v.legal.length > 0;
  const said = lines.slice(-3);
  if (mine(msg.view) && !mine(prev && prev.view)) said.push(t("table.yourTurn"));
  const live = document.getElementById("announce");
  if (live && said.length) live.textContent = said.join(". ");
}

function forget() {
  app.session = null;
  save(STORE.session, null);
}

// ------------------------------------------------------------------------------ screens

function shell() {
  document.documentElement.lang = lang();
  document.title = alerts.title(app, app.room ? `${app.room} · ${t("app.title")}` : t("app.title"));
  const langOpts = LANGS.map((l) => `<option value="${l}"${l === lang() ? " selected" : ""}>${LANG_NAMES[l]}</option>`).join("");
  const header = document.getElementById("top");
  // redrawn only when it changes: the language menu keeps focus while the game moves
  const key = [lang(), app.screen, app.room, app.info && app.info.status, app.info && app.info.hints, alerts.muted(), unread()].join("|");
  const inRoom = app.screen === "room";
  if (header.dataset.drawn === key) return drawNet();
  header.dataset.drawn = key;
  const roomBit = inRoom && app.room
    ? `<span class="roomcode" title="${esc(t("home.code"))}">${esc(app.room)}</span>` +
      (app.info ? `<span class="status">${esc(t("status." + app.info.status))}</span>` : "") +
      (app.info && app.info.hints ? `<span class="badge gold hints-on">${esc(t("table.hintsOn"))}</span>` : "") +
      alerts.muteButton() +
      chatPill() +
      `<span id="turn-timer" class="timer" role="timer" aria-live="off"></span>`
    : "";
  header.innerHTML =
    `<a class="brand" href="/">${esc(t("app.title"))}</a>${roomBit}<span class="spacer"></span>` +
    `<span id="net" class="net" role="status"></span>` +
    `<label class="lang"><span class="sr-only">${esc(t("lang.label"))}</span><select id="lang" data-key="lang">${langOpts}</select></label>`;
  drawNet();
}

function drawNet() {
  const el = document.getElementById("net");
  if (!el) return;
  const down = !app.online;
  el.textContent = down ? (app.everOnline ? t("net.reconnecting") : t("net.connecting")) : "";
  el.className = "net" + (down ? " down" : "");
  document.body.classList.toggle("offline", down);
}

function render() {
  shell();
  const main = document.getElementById("main");
  const page = PAGES[app.screen];
  if (page) {
    if (!main.querySelector("." + page.cls)) main.innerHTML = page.mod.render(app);
    return;
  }
  if (app.screen === "home") {
    if (!main.querySelector(".home")) main.innerHTML = home.render(app);
    return;
  }
  if (!main.querySelector(".room")) buildRoom();
  const area = document.getElementById("area");
  if (!app.info) {
    patch(area, `<p class="prompt">${esc(t("net.connecting"))}</p>`);
  } else if (app.state && app.info.status !== "lobby") {
    patch(area, GAMES[app.state.view.game].render(app));
    markHint(area);
    fitHands(area);
    afterDraw(app, area);
    drawLog();
  } else {
    patch(area, lobby.render(app));
  }
  const seats = document.getElementById("seats");
  if (seats) patch(seats, lobby.seatsHTML(app));
  tick();
}

function buildRoom() {
  const main = document.getElementById("main");
  main.innerHTML = `
  <div class="room">
    <h1 class="sr-only">${esc(t("app.title"))} · ${esc(t("lobby.codeIs", { code: app.room || "" }))}</h1>
    <div class="area-wrap"><div id="area" class="area"></div>
      <section class="log" aria-label="${esc(t("table.log"))}"><ol id="log"></ol></section></div>
    <aside class="side">
      <section id="seats" class="panel" aria-labelledby="h-seats"></section>
      <section class="panel chat" aria-labelledby="h-chat">
        <h2 id="h-chat">${esc(t("chat.title"))}</h2>
        <div id="chat-lines" class="chat-lines" role="log" aria-live="polite"></div>
        <form id="chat-form" class="inline">
          <label class="sr-only" for="chat-text">${esc(t("chat.placeholder"))}</label>
          <input id="chat-text" maxlength="280" autocomplete="off" placeholder="${esc(t("chat.placeholder"))}">
          <button type="submit" class="btn small">${esc(t("chat.send"))}</button>
        </form>
      </section>
    </aside>
  </div>`;
  drawChat(false);
  render();
}

function drawLog() {
  const el = document.getElementById("log");
  if (!el) return;
  const lines = app.log.map((entry) => roomLog.text(entry, GAMES, (s) => app.nameOf(s))).filter(Boolean);
  el.innerHTML = lines.slice(-6).map((l) => `<li>${esc(l)}</li>`).join("");
}

function drawChat(scroll) {
  const el = document.getElementById("chat-lines");
  if (!el) return;
  const host = app.isHost();
  // the host may mute a spectator by the number their lines carry
  const mute = (c) =>
    host && c.seat == null && c.spectator != null
      ? ` <button type="button" class="btn small ghost" data-act="host" data-op="mute" data-spectator="${c.spectator}" aria-label="${esc(t("chat.muteSpectator"))}">${esc(t("lobby.mute"))}</button>`
      : "";
  el.innerHTML = app.chat
    .map((c) => `<p><b>${esc(c.seat == null ? t("chat.spectator") : c.name)}:</b> ${esc(c.text)}${mute(c)}</p>`)
    .join("");
  if (scroll) el.scrollTop = el.scrollHeight;
}

// ------------------------------------------------------------------------------ pages

// Draw a page of its own again (new data, another language), keeping focus where it was.
function redrawPage() {
  const page = PAGES[app.screen];
  const main = document.getElementById("main");
  if (!page) return;
  patch(main, page.mod.render(app));
}

// Where an address inside the app leads: the leaderboards, a replay, a room, home.
function route() {
  const path = location.pathname;
  const main = document.getElementById("main");
  const hist = path.match(/^\/r\/([A-Za-z0-9]{5})\/history\/?$/);
  const room = path.match(/^\/r\/([A-Za-z0-9]{5})\/?$/);
  if (path === "/leaderboard" || path === "/leaderboard/") {
    app.screen = "leaderboard";
    main.innerHTML = "";
    render();
    loadBoards();
  } else if (hist) {
    app.screen = "replay";
    app.replay = { code: hist[1].toUpperCase(), games: null, g: 0, step: 0, error: null };
    main.innerHTML = "";
    render();
    loadReplay();
  } else if (room && app.room === room[1].toUpperCase()) {
    app.screen = "room"; // back at the table we never left
    main.innerHTML = "";
    buildRoom();
  } else {
    location.assign(path); // home, or another room: a fresh start
  }
}

function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  route();
}

// The three boards through the protocol: the server fills `you` from this browser's device.
async function loadBoards() {
  if (!app.online) return; // asked again when the connection is up
  await Promise.all(
    leaders.BOARDS.map(async ({ board }) => {
      try {
        const msg = await app.net.request({ type: "leaderboard", board, limit: 20 });
        app.boards = { ...app.boards, [board]: msg };
      } catch (err) {
        app.boards = { ...app.boards, [board]: { error: errorText(err.code, err.message) } };
      }
    }),
  );
  if (app.screen === "leaderboard") redrawPage();
}

// The room's finished games, then the steps of the one shown (a long game's steps are big:
// each is fetched when it is chosen).
async function loadReplay() {
  const r = app.replay;
  const body = await fetchHistory(r);
  if (!body) return;
  if (!body.games.length) {
    r.error = t("rp.noHistory");
  } else {
    r.games = body.games;
    r.g = body.games.length - 1; // the game just finished
    r.step = 0;
  }
  if (app.replay === r && app.screen === "replay") redrawPage();
  if (r.games) loadSteps(r, r.g);
}

async function loadSteps(r, i) {
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
  if (app.replay === r && app.screen === "replay" && r.g === i) redrawPage();
}

// One history request; null (and the reason shown) when it fails.
async function fetchHistory(r, g = null) {
  const s = app.session;
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
  if (app.replay === r && app.screen === "replay") redrawPage();
  return null;
}

// Move the replay to another step (clamped), redrawing only the table and the caption.
function replayStep(n) {
  const r = app.replay;
  if (!r || !r.games || !r.games[r.g].steps) return;
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

function goHome() {
  app.screen = "home";
  app.room = null;
  app.seat = null;
  app.info = null;
  app.state = null;
  if (location.pathname !== "/") history.pushState(null, "", "/");
  document.getElementById("main").innerHTML = "";
  render();
}

// The turn countdown, from the state's deadline (unix time).
function tick() {
  const el = document.getElementById("turn-timer");
  if (!el) return;
  const d = app.state && app.state.deadline;
  const phaseOver = app.state && app.state.view.phase === "over";
  if (!d || phaseOver) {
    el.textContent = "";
    el.className = "timer";
    return;
  }
  // a device clock behind the server's would show more than a whole turn: never more
  const whole = (app.info && app.info.turn_timer) || Infinity;
  const left = Math.min(d - Date.now() / 1000, whole);
  el.textContent = formatSeconds(left);
  el.className = "timer" + (left < 6 ? " urgent" : "");
  el.setAttribute("aria-label", t("table.secondsLeft", { n: Math.max(0, Math.ceil(left)) }));
}

// ------------------------------------------------------------------------------ input

function formValue(id) {
  const el = document.getElementById(id);
  return el ? el.value : "";
}

function readName() {
  const nm = formValue("name").trim().slice(0, 24);
  if (!nm) {
    toast(t("home.needName"), "error");
    document.getElementById("name")?.focus();
    return null;
  }
  app.name = nm;
  save(STORE.name, nm);
  return nm;
}

function readCode() {
  const code = cleanCode(formValue("code"));
  if (!code) {
    toast(t("home.badCode"), "error");
    document.getElementById("code")?.focus();
  }
  return code;
}

async function createRoom(daily) {
  const name = readName();
  if (!name) return;
  const game = daily ? "sheepshead" : document.querySelector('input[name="game"]:checked')?.value || "shithead";
  const level = formValue("level") || "basic";
  const timer = Number(formValue("timer")) || 0;
  const seats = game === "sheepshead" ? 5 : Number(formValue("seats")) || 4;
  // a daily game is played without hints (the server refuses them there)
  const hints = daily ? app.prefs.hints : !!document.getElementById("hints")?.checked;
  app.prefs = { game, seats: game === "sheepshead" ? app.prefs.seats : seats, level, timer, hints };
  save(STORE.prefs, app.prefs);
  try {
    await app.request({ type: "create", game, seats, name, turn_timer: timer || null, options: {}, daily: !!daily, hints: !daily && hints });
    // a daily room's bots are the day's (the server fills them at the start, fixed)
    if (daily) await app.host("start");
  } catch {
    /* shown */
  }
}

async function onClick(e) {
  const link = e.target.closest("a[data-nav]");
  if (link && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
    e.preventDefault();
    navigate(link.getAttribute("href"));
    return;
  }
  const el = e.target.closest("[data-act]");
  if (!el || el.disabled) return;
  const act = el.dataset.act;
  if (el.tagName === "A") return;
  if (el.tagName === "SELECT") return;
  const r = app.replay;
  switch (act) {
    case "rp-first":
      return replayStep(0);
    case "rp-prev":
      return replayStep(r.step - 1);
    case "rp-next":
      return replayStep(r.step + 1);
    case "rp-last":
      return replayStep(Infinity);
    case "resume":
      if (app.session) resumeSession();
      return;
    case "watch": {
      const code = readCode();
      if (code) app.request({ type: "watch", room: code }).catch(() => {});
      return;
    }
    case "daily":
      createRoom(true);
      return;
    case "hint":
      app.askHint();
      return;
    case "to-chat":
      e.preventDefault();
      toChat();
      render();
      return;
    case "mute":
      alerts.toggleMute();
      render();
      return;
    case "hint-use":
      if (app.hint && app.state && app.hint.version === app.state.version) app.act(app.hint.action);
      return;
    case "leave":
      if (app.room) app.net.request({ type: "leave", room: app.room }).catch(() => {});
      forget();
      goHome();
      return;
    case "copy":
      copyText(el.dataset.text);
      return;
    case "sit":
      sit(Number(el.dataset.seat));
      return;
    case "host": {
      const extra = {};
      if (el.dataset.seat != null) extra.seat = Number(el.dataset.seat);
      if (el.dataset.spectator != null) extra.spectator = Number(el.dataset.spectator);
      const level = app.prefs.level;
      if (el.dataset.op === "add_bot" || el.dataset.op === "fill_bots") extra.level = level;
      if (el.dataset.op === "start" && app.info.seats.some((s) => s.kind === "empty")) {
        // empty seats get bots of the level chosen on the home screen, not the server's default
        await app.host("fill_bots", { level });
      }
      app.host(el.dataset.op, extra);
      return;
    }
  }
  if (app.state && app.screen === "room") {
    if (e.detail === 2 && act === "card") return; // the double click is handled below
    GAMES[app.state.view.game].onAction(app, el);
  }
}

async function sit(seat) {
  const name = app.name || readName();
  if (!name) return;
  const code = app.room;
  try {
    await app.net.request({ type: "leave", room: code });
  } catch {
    /* not in the room: fine */
  }
  app.request({ type: "join", room: code, name, seat }).catch(() => {
    app.request({ type: "watch", room: code }).catch(() => {});
  });
}

function copyText(text) {
  const done = () => toast(t("lobby.copied"));
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else fallbackCopy(text, done);
}

function fallbackCopy(text, done) {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "sr-only";
  document.body.append(area);
  area.select();
  try {
    document.execCommand("copy");
    done();
  } catch {
    /* nothing to do */
  }
  area.remove();
}

function onSubmit(e) {
  e.preventDefault();
  const form = e.target;
  if (form.id === "join-form") {
    const name = readName();
    const code = name && readCode();
    if (code) {
      app.request({ type: "join", room: code, name }).catch((err) => {
        if (err.code === "game_in_progress" || err.code === "room_full" || err.code === "room_locked") {
          toast(errorText(err.code) + " " + t("home.watchInstead"), "error");
        }
      });
    }
  } else if (form.id === "create-form") {
    createRoom(false);
  } else if (form.id === "chat-form") {
    const input = document.getElementById("chat-text");
    const text = input.value.trim();
    if (!text || !app.room) return;
    app.request({ type: "chat", room: app.room, text }).then(() => {
      input.value = "";
    }, () => {});
  }
}

function onChange(e) {
  const el = e.target;
  if (el.id === "replay-game" && app.replay) {
    app.replay.g = Number(el.value);
    app.replay.step = 0;
    redrawPage();
    loadSteps(app.replay, app.replay.g);
    return;
  }
  if (el.id === "lang") {
    save(STORE.lang, el.value);
    setLang(el.value).then(() => {
      redrawAll();
      document.getElementById("lang")?.focus();
    });
    return;
  }
  if (el.name === "game") {
    const seats = document.getElementById("seats");
    if (seats) seats.disabled = el.value === "sheepshead";
  }
  if (el.dataset.act === "level") {
    app.host("set_bot_level", { seat: Number(el.dataset.seat), level: el.value });
  }
}

// Every screen drawn anew (in another language, or with English for a key its table lacks).
function redrawAll() {
  document.getElementById("main").innerHTML = "";
  if (app.screen === "room") buildRoom();
  render();
}

function onDblClick(e) {
  const el = e.target.closest('[data-act="card"]');
  if (el && app.state) GAMES[app.state.view.game].onEnter(app, el);
}

// Keys: arrows move along a row of cards; Enter on a card plays it (with the cards chosen
// with Space); h: the first card that can be chosen; p: play; u: pick up; r: ready; Esc: clear.
function onKey(e) {
  const target = e.target;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (target.closest && target.closest("input, textarea, select")) return;
  if (app.screen === "replay" && app.replay) {
    // arrows step through the replay; Home and End jump to its ends
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (!(e.key in moves)) return;
    const d = moves[e.key];
    replayStep(Math.abs(d) === Infinity ? d : app.replay.step + d);
    e.preventDefault();
    return;
  }
  const inTable = app.screen === "room" && app.state;
  if (!inTable) return;
  const area = document.getElementById("area");
  const isCard = target.dataset && target.dataset.act && target.classList.contains("card");
  if (e.key === "Enter" && isCard) {
    if (GAMES[app.state.view.game].onEnter(app, target)) e.preventDefault();
    return;
  }
  if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && isCard) {
    const row = [...area.querySelectorAll("button.card")];
    const i = row.indexOf(target);
    const next = row[i + (e.key === "ArrowRight" ? 1 : -1)];
    if (next) next.focus();
    e.preventDefault();
    return;
  }
  const click = (sel) => {
    const b = area.querySelector(sel);
    if (b && !b.disabled) b.click();
  };
  switch (e.key.toLowerCase()) {
    case "h": {
      const first = area.querySelector("button.card.playable") || area.querySelector(".actions button:not([disabled])");
      if (first) first.focus();
      break;
    }
    case "p":
      click('[data-act="play"]');
      break;
    case "u":
      click('[data-act="pickup"]');
      break;
    case "r":
      click('[data-act="ready"]');
      break;
    case "?":
      click('[data-act="hint"]');
      break;
    case "escape":
      app.sel = [];
      app.mode = null;
      toggleLastTrick(false);
      render();
      break;
    default:
      return;
  }
  e.preventDefault();
}

// ------------------------------------------------------------------------------ start

function resumeSession() {
  const s = app.session;
  if (!s || !app.online) return;
  const req = s.watch ? { type: "watch", room: s.room } : { type: "resume", room: s.room, token: s.token };
  app.net.request(req).catch((err) => {
    if (err.code === "bad_token" || err.code === "room_not_found") {
      forget();
      goHome();
      app.showError(err);
    }
  });
}

async function start() {
  // the chosen language's table first: every screen is drawn in it
  await setLang(load(STORE.lang, null) || detectLang(navigator.languages || [navigator.language]));
  onFallback(redrawAll);
  const m = location.pathname.match(/^\/r\/([A-Za-z0-9]{5})\/?$/);
  const linked = m ? m[1].toUpperCase() : null;
  if (linked && !(app.session && app.session.room === linked)) app.pendingCode = linked;
  // a room's own address takes you back to your seat; "/" shows home (with a way back)
  const rejoin = app.session && app.session.room === linked;
  if (rejoin) {
    app.screen = "room";
    app.room = app.session.room;
    app.seat = app.session.seat ?? null;
  }
  document.addEventListener("click", onClick);
  document.addEventListener("dblclick", onDblClick);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("change", onChange);
  document.addEventListener("keydown", onKey);
  document.addEventListener("input", (e) => {
    if (e.target.id === "replay-range") replayStep(Number(e.target.value));
  });
  window.addEventListener("popstate", () => {
    const ownPage = /^\/(leaderboard|r\/[A-Za-z0-9]{5}\/history)\/?$/.test(location.pathname);
    if (ownPage || PAGES[app.screen]) {
      route();
    } else if (location.pathname === "/" && app.screen === "room") {
      history.pushState(null, "", "/r/" + app.room);
    }
  });
  const url = location.origin.replace(/^http/, "ws") + "/";
  app.net = new Net(url, deviceToken());
  app.net.addEventListener("device", (e) => save(STORE.device, e.detail)); // the server's own
  app.net.addEventListener("message", (e) => onMessage(e.detail));
  app.net.addEventListener("up", () => {
    app.online = true;
    app.everOnline = true;
    drawNet();
    if (app.screen === "room" || (PAGES[app.screen] && app.room)) resumeSession();
    if (app.screen === "leaderboard") loadBoards();
  });
  app.net.addEventListener("down", () => {
    app.online = false;
    app.acting = false;
    app.awaiting = null;
    drawNet();
  });
  const page = location.pathname.match(/^\/(leaderboard|r\/([A-Za-z0-9]{5})\/history)\/?$/);
  if (page) {
    app.screen = page[2] ? "replay" : "leaderboard";
    if (page[2]) {
      app.replay = { code: page[2].toUpperCase(), games: null, g: 0, step: 0, error: null };
      loadReplay();
    }
  }
  render();
  app.net.start();
  setInterval(tick, 250);
  alerts.start(app, render);
  window.addEventListener("resize", () => {
    const area = document.getElementById("area");
    if (area && app.screen === "room") fitHands(area);
  });
  window.cardroom = app; // for tests and the curious: the client's state
}

start();
