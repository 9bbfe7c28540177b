// Cardroom in the browser, the controller: the messages from the server, the player's input,
// and where the page is. The state is in store.js, the addresses in routes.js, the drawing in
// screens.js (each renderer takes the data it draws), the pages of their own in pages.js.
import * as alerts from "./alerts.js";
import * as coach from "./coach.js";
import * as reacts from "./reacts.js";
import * as events from "./events.js";
import { randomValue } from "./deal.js";
import { current, heldKey } from "./hints.js";
import { detectLang, errorText, onFallback, setLang, t } from "./i18n.js";
import { onKey } from "./keys.js";
import * as roomLog from "./log.js";
import { Net, socketUrl } from "./net.js";
import { foldNew } from "./home.js";
import { readForm, syncForm, toggleChip } from "./house.js";
import { askMoveCode, claimMoveCode, loadBoards, loadLadder, loadPlayer, loadReplay, loadSteps, newReplay, replayStep, setSpeed, stopPlay, togglePlay } from "./pages.js";
import { newLadder } from "./ladder.js";
import { newPlayer } from "./player.js";
import { isPage, match, paths } from "./routes.js";
import * as identity from "./identity.js";
import * as view from "./view.js";
import { buildRoom, drawChat, drawNet, drawRankNote, GAMES, redrawAll, redrawPage, render, tick } from "./screens.js";
import { deviceToken, forget, KEYS, load, nameOf, save, store } from "./store.js";
import { fitHands, noteChat, noteReactionBubble, noteState, toChat, toggleLastTrick } from "./table.js";
import { cleanCode, toast } from "./ui.js";

// The store with what the game modules' input (and the tests) call: the controller.
const app = Object.assign(store, {
  nameOf(seat) {
    return nameOf(this.info, seat);
  },

  async request(body) {
    try {
      const reply = await this.net.request(body);
      // the room was made for another process: resume there before anything else is sent
      if (body.type === "create" && this.net.moved === reply.room) await this.net.moveTo(socketUrl(reply.room));
      return reply;
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

  async askHint() {
    if (this.hinting || !this.state || !this.room) return;
    this.hinting = true;
    this.redraw();
    try {
      const asked = this.state;
      const msg = await this.net.request({ type: "hint", room: this.room });
      // what this seat held when it asked: the answer holds while that stays (js/hints.js)
      const hint = { ...msg, held: asked.version === msg.version ? heldKey(asked.view, msg.seat) : null };
      if (current(hint, this.state)) this.hint = hint;
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

  redraw() {
    render();
  },
});

// ------------------------------------------------------------------------------ messages

// Fair deals: a seated player's value for each deal the room announces (`next_deal`), sent at
// once, before anything the player does next; and the commitment shown, for the replay's check.
const contributed = new Set();
function contribute(info) {
  const deal = info.next_deal;
  if (!deal || app.net.moved === info.room) return; // sent once resumed at the room's address
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
      app.waiting = !!msg.waiting; // watching until the game ends, then seated if one is free
      app.session = msg.seat != null ? { room: msg.room, token: msg.token, seat: msg.seat } : { room: msg.room, watch: true };
      save(KEYS.session, app.session);
      if (app.screen !== "room" || !app.info || app.info.room !== msg.room) {
        app.info = null;
        app.state = null;
        app.log = []; // the server's log follows (a `log` message, once the match has begun)
        app.chat = [];
      }
      if (isPage(app.screen)) break; // resumed behind the replay: the room waits
      app.screen = "room";
      if (location.pathname !== paths.room(msg.room)) history.replaceState(null, "", paths.room(msg.room));
      buildRoom();
      break;
    case "room":
      if (msg.room.room !== app.room) return;
      noteAgain(app.info, msg.room);
      app.info = msg.room;
      contribute(msg.room);
      if (msg.room.status === "over" && msg.room.daily && msg.room.daily_ranked !== false && app.seat != null) loadDailyRank(msg.room);
      render();
      break;
    case "log":
      if (msg.room !== app.room) return;
      app.log = roomLog.fromServer(msg, app.info ? app.info.game : null);
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
      if (!current(app.hint, msg)) app.hint = null;
      if (!prev || prev.view.phase !== msg.view.phase || !msg.view.to_act.includes(app.seat)) {
        app.sel = [];
        app.mode = null;
      }
      // drop chosen cards that are no longer held
      const held = new Set([...(msg.view.hand || []), ...((msg.view.seats && app.seat != null && msg.view.seats[app.seat].face_up) || [])]);
      app.sel = app.sel.filter((c) => held.has(c));
      logEvents(msg, prev);
      noteState(msg, app.seat, render);
      alerts.onState(msg, prev, app.seat);
      practiceHint();
      render();
      if (app.resend) {
        const action = app.resend;
        app.resend = null;
        if (GAMES[msg.view.game].retryStale(msg.view, action)) app.act(action);
      }
      break;
    }
    case "reaction": {
      if (msg.room !== app.room) return;
      const glyph = reacts.noteReaction(msg, (s) => nameOf(app.info, s));
      if (glyph) noteReactionBubble(msg.seat, glyph, render);
      render();
      break;
    }
    case "chat":
      if (msg.room !== app.room) return;
      app.chat.push(msg);
      if (app.chat.length > 100) app.chat.shift();
      drawChat(true);
      noteChat(msg, app.seat, render);
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
    case "queued":
      if (app.queue && !app.queue.found) noteQueued(msg);
      break;
    case "seated":
      takeSeat(msg);
      break;
    case "event":
      if (app.screen === "event-new" && app.openingEvent) {
        app.openingEvent = false; // the event just opened: its page
        navigate(paths.event(msg.info.code));
        return;
      }
      if (!app.event || msg.info.code !== app.event.code) return;
      app.event.frame = msg;
      app.event.error = null;
      redrawPage();
      break;
    case "closing":
      toast(t("net.closing"));
      // the room moved to another server process (a restart, a handover): the connection
      // stays open, take the seat back on it (a server going away closes it: "up" resumes)
      if (/moved/.test(msg.reason || "")) resumeSession();
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
  roomLog.add(app.log, msg, (app.info && app.info.games_played) || 0);
  // screen readers hear what happened, then what the table asks of them: when their turn
  // comes, when its question changes (the pick, then the bury, then the call), and after
  // their own move when they play again (a burn)
  const mine = (v) => v && app.seat != null && v.to_act.includes(app.seat) && v.legal.length > 0;
  const said = [...lines];
  if (mine(msg.view)) {
    const d = { view: msg.view, seat: app.seat, name: (s) => app.nameOf(s), mode: null };
    const ask = game.promptText(d) || t("table.yourTurn");
    const again = (msg.events || []).some((e) => e.seat === app.seat && game.eventText(e, d.name));
    if (!mine(prev && prev.view) || ask !== asked || again) said.push(ask);
    asked = ask;
  } else {
    asked = null;
  }
  announce(said);
}

// The prompt last said to the screen reader while it was this seat's turn.
let asked = null;

// Lines for screen readers, queued: each is added to the live region as a line of its own
// (read in turn), never written over the one before (bots move faster than a voice reads);
// the region keeps the last ANNOUNCED lines.
const ANNOUNCED = 24;

function announce(lines) {
  const live = document.getElementById("announce");
  if (!live || !lines.length) return;
  for (const line of lines) {
    const p = document.createElement("p");
    p.textContent = line;
    live.append(p);
  }
  while (live.childElementCount > ANNOUNCED) live.firstElementChild.remove();
}

// The daily's rank once its match is over, from the day's board (the server ranks this
// browser's device). The result is recorded a moment after the last card: asked a few times,
// further apart each time, then "not on today's table yet".
async function loadDailyRank(info) {
  if (app.dailyRank && app.dailyRank.room === info.room) return;
  const rank = { room: info.room, you: null, done: false };
  app.dailyRank = rank;
  for (let i = 0; i < 6 && app.dailyRank === rank; i++) {
    try {
      const msg = await app.net.request({ type: "leaderboard", board: "daily:" + info.daily, limit: 1 });
      if (msg.you) {
        rank.you = msg.you;
        rank.players = msg.players; // how many are on today's board: "3rd of 41"
        break;
      }
    } catch {
      break; // offline, or no such board: said as "not yet"
    }
    await new Promise((ok) => setTimeout(ok, 300 * (i + 1)));
  }
  rank.done = true;
  if (app.dailyRank === rank) render();
}

// Play again with the same table: a new room like this one (its game, seats, timer and hints,
// never a daily) with the same bots at the same seats, started at once when nobody else sat
// here. With friends, the new room is made on a second connection while this page is still at
// the old table, so it can tell them where to go (host `again`: the old room keeps the first
// one said, and their pages turn its `again` into a button); then this page takes the new
// seat with its token and waits in its lobby for them. (The server does not restart a match in
// place: a room keeps its history and results by game index.)
async function playAgain() {
  const info = app.info;
  const me = app.seat;
  if (!info || me == null) return;
  const name = app.name || info.seats[me].name;
  // the table turned so that we sit at seat 0 (the creator's): everyone keeps their
  // neighbours and the play order, bots (stand-ins for people who left too) and friends alike
  const bots = info.seats
    .map((s, i) => (s.kind === "bot" ? { seat: turned(i, me, info.seats.length), level: s.bot_level } : null))
    .filter(Boolean);
  const alone = info.seats.every((s, i) => i === me || s.kind === "bot");
  // the same house rules: the room's own options (never a daily's, which has none)
  const options = info.daily ? {} : info.options || {};
  const create = { type: "create", game: info.game, seats: info.seats.length, name, turn_timer: info.turn_timer || null, options, daily: false, hints: !!info.hints, rated: !!info.rated };
  if (!alone) return playAgainWithFriends(info, create, bots);
  await app.net.request({ type: "leave", room: info.room }).catch(() => {});
  forget();
  try {
    await app.request(create);
    for (const b of bots) {
      // a level the new room refuses (too many experts, say) becomes the default one
      await app.net.request({ type: "host", room: app.room, op: "add_bot", seat: b.seat, level: b.level })
        .catch(() => app.host("add_bot", { seat: b.seat, level: "basic" }));
    }
    await app.host("start");
  } catch {
    /* shown */
  }
}

async function playAgainWithFriends(info, create, bots) {
  // the bare address: the room stays on the process the side connection reached (no `moved`)
  const side = new Net(location.origin.replace(/^http/, "ws") + "/", app.net.device);
  try {
    await new Promise((ok, fail) => {
      side.addEventListener("up", ok, { once: true });
      setTimeout(() => fail({ code: "timeout" }), 5000);
      side.start();
    });
    const joined = await side.request(create);
    for (const b of bots) {
      const bot = { type: "host", room: joined.room, op: "add_bot", seat: b.seat };
      await side.request({ ...bot, level: b.level }).catch(() => side.request({ ...bot, level: "basic" }).catch(() => {}));
    }
    await app.net.request({ type: "host", room: info.room, op: "again", to: joined.room }).catch(() => {});
    await app.net.request({ type: "leave", room: info.room }).catch(() => {});
    app.session = { room: joined.room, token: joined.token, seat: joined.seat };
    save(KEYS.session, app.session);
    await app.request({ type: "resume", room: joined.room, token: joined.token });
  } catch (err) {
    app.showError(err);
  } finally {
    side.stop();
  }
}

// Seat ``i`` of a table turned so that seat ``host`` is seat 0 (of ``n``).
function turned(i, host, n) {
  return (i - host + n) % n;
}

// A friend's page: where the room says the table plays again (the first host to say so), kept
// for the end screen's button and told once in the chat box as a line of the host's.
function noteAgain(before, info) {
  const again = info.again;
  if (!again || (before && before.again) || again.seat === app.seat) return;
  app.again = { from: info.room, room: again.room, name: again.name, host: again.seat };
  app.chat.push({ type: "chat", room: info.room, seat: again.seat, name: again.name, again: again.room, text: "" });
  drawChat(true);
}

// Follow the host to the new table: leave this room, take our seat in that one (the table
// turned as the host's page turned it, playAgain); taken meanwhile, any free seat.
async function followAgain() {
  const again = app.again;
  if (!again || app.seat == null) return;
  const name = app.name || app.info.seats[app.seat].name;
  const seat = turned(app.seat, again.host, app.info.seats.length);
  await app.net.request({ type: "leave", room: app.room }).catch(() => {});
  forget();
  app.again = null;
  app.net.request({ type: "join", room: again.room, name, seat }).catch((err) => {
    if (err && err.code === "seat_taken") app.request({ type: "join", room: again.room, name }).catch(() => {});
    else app.showError(err);
  });
}

// ------------------------------------------------------------------------------ where we are

// Where an address inside the app leads: the leaderboards, a replay, a player, a room, home.
function route() {
  const path = location.pathname;
  const main = document.getElementById("main");
  const to = match(path);
  if (to.name === "leaderboard") {
    app.screen = "leaderboard";
    main.innerHTML = "";
    render();
    loadBoards();
  } else if (to.name === "ladder") {
    app.screen = "ladder";
    app.ladder = newLadder();
    main.innerHTML = "";
    render();
    loadLadder();
  } else if (to.name === "replay") {
    app.screen = "replay";
    app.replay = newReplay(to.code);
    main.innerHTML = "";
    render();
    loadReplay();
  } else if (to.name === "player") {
    app.screen = "player";
    app.player = newPlayer(to.code);
    main.innerHTML = "";
    render();
    loadPlayer();
  } else if (to.name === "event-new") {
    app.screen = "event-new";
    main.innerHTML = "";
    render();
  } else if (to.name === "event") {
    app.screen = "event";
    app.event = { code: to.code, frame: null, error: null };
    main.innerHTML = "";
    render();
    watchEvent();
  } else if (to.name === "room" && app.room === to.code) {
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

function goHome() {
  app.screen = "home";
  app.room = null;
  app.seat = null;
  app.info = null;
  app.state = null;
  if (location.pathname !== paths.home()) history.pushState(null, "", paths.home());
  document.getElementById("main").innerHTML = "";
  render();
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
  save(KEYS.name, nm);
  return nm;
}

// Why a join was refused, said in the join form (role=alert) rather than a toast.
function joinNote(text) {
  const el = document.getElementById("join-note");
  if (!el) return;
  el.textContent = text;
  el.hidden = !text;
}

function readCode() {
  const code = cleanCode(formValue("code"));
  if (!code) {
    toast(t("home.badCode"), "error");
    document.getElementById("code")?.focus();
  }
  return code;
}

// A code from this player's other device: this browser is that player from now on (its token
// kept for every hello); the page starts again as them, on their page.
async function takeIdentity(code) {
  const found = await claimMoveCode(code);
  if (!found) return;
  save(KEYS.device, found.device);
  forget(); // a seat held as the identity before is not this one's
  toast(t("mv.done"));
  location.assign(paths.player(found.player));
}

// ------------------------------------------------------------------------------ Play now

// Wait for a table of `game` with other people (leaving the room this page is in, if any).
async function playNow(game) {
  const name = document.getElementById("name") ? readName() : app.name;
  if (!name) return;
  if (app.room) {
    app.net.request({ type: "leave", room: app.room }).catch(() => {});
    forget();
    goHome();
  }
  try {
    await app.net.whenUp();
    noteQueued(await app.request({ type: "queue", game, name }));
  } catch {
    /* shown */
  }
}

// The last `queued`, and when it came: the panel counts the seconds on from it.
function noteQueued(msg) {
  app.queue = { game: msg.game, waiting: msg.waiting, waited: msg.waited, fill_in: msg.fill_in, at: Date.now(), found: false };
  render();
}

// A table was found: the seat is ours with its token, resumed at the room's own address.
async function takeSeat(msg) {
  if (app.queue) app.queue.found = true;
  render();
  app.session = { room: msg.room, token: msg.token, seat: msg.seat };
  save(KEYS.session, app.session);
  app.queue = null;
  app.screen = "room";
  app.room = msg.room;
  app.seat = msg.seat;
  app.info = null;
  app.state = null;
  history.pushState(null, "", paths.room(msg.room));
  render();
  await app.net.moveTo(socketUrl(msg.room)); // welcomed there, "up" resumes the seat
}

// Back online while waiting (the connection dropped: the server let the place go): queue again.
function queueAgain() {
  const q = app.queue;
  if (!q || q.found) return;
  app.net.request({ type: "queue", game: q.game, name: app.name }).then(noteQueued, (err) => {
    if (err.code === "already_queued") return; // the place is still ours
    app.queue = null;
    app.showError(err);
    render();
  });
}

async function createRoom(daily) {
  const name = readName();
  if (!name) return;
  const game = daily ? "sheepshead" : document.querySelector('input[name="game"]:checked')?.value || "shithead";
  const level = formValue("level") || "basic";
  const timer = Number(formValue("timer")) || 0;
  const bank = Number(formValue("bank")) || 0; // a reserve only with a turn timer
  const seats = game === "sheepshead" ? 5 : Number(formValue("seats")) || 4;
  // a daily game is played without hints (the server refuses them there)
  const hints = daily ? app.prefs.hints : !!document.getElementById("hints")?.checked;
  const rated = daily ? app.prefs.rated : !!document.getElementById("rated")?.checked;
  app.prefs = { game, seats: game === "sheepshead" ? app.prefs.seats : seats, level, timer, bank, hints, rated };
  save(KEYS.prefs, app.prefs);
  try {
    // a create clicked as the page opened waits for the connection, as a join does (atRoom)
    await app.net.whenUp().catch((err) => {
      app.showError(err);
      throw err;
    });
    // the house rules chosen in the form; a daily plays the book's (SS-10.1: the server refuses
    // options there as daily_options)
    const options = daily ? {} : readForm(game);
    const time_bank = timer && bank ? bank : null;
    await app.request({ type: "create", game, seats, name, turn_timer: timer || null, time_bank, options, daily: !!daily, hints: !daily && hints, rated: !daily && rated });
    // a daily room's bots are the day's (the server fills them at the start, fixed)
    if (daily) await app.host("start");
  } catch {
    /* shown */
  }
}
// An event opened from its form (/e/new): its page follows once its first frame comes.
async function createEvent(form) {
  const game = form.querySelector('input[name="game"]:checked')?.value || "sheepshead";
  const msg = events.readNew(form, readForm(game));
  if (!msg.name) return;
  app.name = msg.name;
  save(KEYS.name, msg.name);
  try {
    await app.net.whenUp().catch((err) => {
      app.showError(err);
      throw err;
    });
    app.openingEvent = true;
    await app.request(msg);
  } catch {
    app.openingEvent = false; // refused: shown, the form stays as it was
  }
}

// A practice game: the player, bots of the default level, the hints on, no timer, book rules;
// the coach (js/coach.js) explains each moment the first time it comes.
async function practise(game) {
  const name = readName();
  if (!name) return;
  try {
    await app.net.whenUp().catch((err) => {
      app.showError(err);
      throw err;
    });
    const seats = coach.PRACTICE_SEATS[game];
    await app.request({ type: "create", game, seats, name, turn_timer: null, options: {}, daily: false, hints: true });
    coach.begin(app.room, game);
    await app.host("fill_bots", { level: "basic" });
    await app.host("start");
  } catch {
    /* shown */
  }
}

// In practice every decision of the seat comes with the hint, asked for as it becomes ours;
// asked again (a few times) when the table moved while it was worked out and the answer no
// longer holds (in the swap, the bots get ready meanwhile).
async function practiceHint() {
  const practice = coach.current(app.room);
  if (!practice || app.hinting) return;
  for (let tries = 0; tries < 3; tries++) {
    if (!coach.wantsHint(practice, app.state.view, app.seat) || current(app.hint, app.state)) return;
    const asked = app.state.version;
    await app.askHint();
    if (app.state.version === asked) return; // answered (or refused) for this very state
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
    case "rp-play":
      return togglePlay();
    case "resume":
      if (app.session) resumeSession();
      return;
    case "watch": {
      const code = readCode();
      if (code) atRoom(code).then(() => app.request({ type: "watch", room: code })).catch(() => {});
      return;
    }
    case "daily":
      createRoom(true);
      return;
    case "fold-new":
      // kept while the page lives: back home from the room it made, the form is still out
      app.newOpen = el.getAttribute("aria-expanded") !== "true";
      foldNew(app.newOpen);
      return;
    case "my-page":
      if (app.me) navigate(paths.player(app.me));
      else toast(t("net.connecting"), "error");
      return;
    case "move-code":
      askMoveCode();
      return;
    case "play-now":
      playNow(el.dataset.game);
      return;
    case "queue-cancel":
      app.net.request({ type: "queue_cancel" }).catch(() => {});
      app.queue = null;
      render();
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
    case "practice":
      practise(el.dataset.game);
      return;
    case "react":
      app.request({ type: "react", room: app.room, emote: el.dataset.emote }).catch(() => {});
      return;
    case "react-hide":
      reacts.toggleHidden();
      render();
      return;
    case "coach-ok":
      coach.dismiss(coach.current(app.room));
      render();
      return;
    case "notify":
      alerts.toggleNotify().then(render);
      return;
    case "hint-use":
      if (current(app.hint, app.state)) app.act(app.hint.action);
      return;
    case "again":
      playAgain();
      return;
    case "follow":
      followAgain();
      return;
    case "leave":
      if (app.room) app.net.request({ type: "leave", room: app.room }).catch(() => {});
      forget();
      goHome();
      return;
    case "copy":
      copyText(el.dataset.text);
      return;
    case "share":
      // the phone's share sheet (messages, chat apps); where it is not, the button is not drawn
      navigator.share({ title: t("app.title"), text: t("lobby.shareText", { code: app.room }), url: el.dataset.text }).catch(() => {});
      return;
    case "event-join":
    case "event-host":
    case "event-table":
      eventAct(act, el);
      return;
    case "sit":
      sit(Number(el.dataset.seat));
      return;
    case "earn":
      identity.earn(app.net, drawRankNote, errorText);
      return;
    case "chip":
      toggleChip(el.dataset.chip);
      render();
      return;
    case "kick-ask":
      app.confirmKick = Number(el.dataset.seat);
      render();
      document.querySelector(`[data-key="kick-keep:${app.confirmKick}"]`)?.focus();
      return;
    case "kick-keep": {
      const seat = app.confirmKick;
      app.confirmKick = null;
      render();
      document.querySelector(`[data-key="kick:${seat}"]`)?.focus();
      return;
    }
    case "host": {
      if (el.dataset.op === "kick") app.confirmKick = null;
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

// A typed code is joined or watched at the room's own address (/ws/CODE), where a proxy in
// front of several processes sends it to the process that holds the room (deploy/nginx.conf).
async function atRoom(code) {
  const url = socketUrl(code);
  if (app.net.url !== url) await app.net.moveTo(url);
  else await app.net.whenUp();
}

function onSubmit(e) {
  e.preventDefault();
  const form = e.target;
  if (form.id === "join-form") {
    const name = readName();
    const code = name && readCode();
    if (code) {
      // a game on: watch it and take a free seat when it ends (no refusal to read); a room
      // that has no seat to give says so beside the form, never over its Watch button
      joinNote("");
      atRoom(code)
        .then(() => app.net.request({ type: "join", room: code, name, wait: true }))
        .catch((err) => {
          if (!err || !err.code) return;
          const watch = ["game_in_progress", "room_full", "room_locked"].includes(err.code);
          joinNote(errorText(err.code, err.message) + (watch ? " " + t("home.watchInstead") : ""));
        });
    }
  } else if (form.id === "create-form") {
    createRoom(false);
  } else if (form.id === "event-form") {
    createEvent(form);
  } else if (form.id === "move-form") {
    const code = document.getElementById("move-input").value.trim();
    if (code) takeIdentity(code);
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
  if (el.dataset.view) {
    view.set(el.dataset.view, el.checked);
    fitHands(document.getElementById("area") || document.body); // the cards' size changed
    return;
  }
  if (el.id === "replay-speed") {
    setSpeed(Number(el.value));
    return;
  }
  if (el.id === "replay-game" && app.replay) {
    stopPlay(app.replay);
    app.replay.g = Number(el.value);
    app.replay.step = 0;
    redrawPage();
    loadSteps(app.replay, app.replay.g);
    return;
  }
  if (el.id === "lang") {
    save(KEYS.lang, el.value);
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
  if (el.closest && el.closest("#create-form")) syncForm();
  if (el.closest && el.closest("#event-form")) {
    events.syncNew();
    syncForm();
  }
  if (el.dataset.act === "level") {
    app.host("set_bot_level", { seat: Number(el.dataset.seat), level: el.value });
  }
}

function onDblClick(e) {
  const el = e.target.closest('[data-act="card"]');
  if (el && app.state) GAMES[app.state.view.game].onEnter(app, el);
}

// What the keys can do where the page is (keys.js).
const KEYS_HERE = {
  replay: () => app.screen === "replay" && !!app.replay,
  step: (d) => replayStep(Math.abs(d) === Infinity ? d : app.replay.step + d),
  table: () => (app.screen === "room" && app.state ? document.getElementById("area") : null),
  enter: (card) => GAMES[app.state.view.game].onEnter(app, card),
  clear() {
    app.sel = [];
    app.mode = null;
    toggleLastTrick(false);
    render();
  },
};

// ------------------------------------------------------------------------------ start

// Follow the event of the page: its frames come on every change (with your place in it).
function watchEvent() {
  const ev = app.event;
  if (!ev || !app.online) return;
  app.net.request({ type: "event_watch", event: ev.code }).catch((err) => {
    ev.error = errorText(err.code, err.message);
    redrawPage();
  });
}

// The event's commands: join it by name, the host's, and to your table (your seat's token
// kept as the room's session, then the room's page resumes it).
async function eventAct(act, el) {
  const ev = app.event;
  if (!ev) return;
  if (act === "event-join") {
    const name = (document.getElementById("ev-name") || {}).value || "";
    await app.request({ type: "event_join", event: ev.code, name: name.trim() }).catch(() => {});
  } else if (act === "event-host") {
    await app.request({ type: "event_host", event: ev.code, op: el.dataset.op }).catch(() => {});
  } else if (act === "event-table" && ev.frame && ev.frame.you && ev.frame.you.room) {
    const you = ev.frame.you;
    app.session = { room: you.room, token: you.token, seat: you.seat };
    save(KEYS.session, app.session);
    location.assign(paths.room(you.room));
  }
}

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

// The address of the home page with the new room's form unfolded.
const NEW_ROOM = "#new";

async function start() {
  // the chosen language's table first: every screen is drawn in it
  await setLang(load(KEYS.lang, null) || detectLang(navigator.languages || [navigator.language]));
  onFallback(redrawAll);
  const here = match(location.pathname);
  app.newOpen = location.hash === NEW_ROOM; // a link to the new room's form shows it
  const linked = here.name === "room" ? here.code : null;
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
  view.apply();
  document.addEventListener("keydown", (e) => onKey(e, KEYS_HERE));
  document.addEventListener("input", (e) => {
    if (e.target.id === "replay-range") replayStep(Number(e.target.value));
  });
  window.addEventListener("hashchange", () => {
    if (location.hash !== NEW_ROOM || app.screen !== "home") return;
    app.newOpen = true;
    foldNew(true);
    document.getElementById("create-form")?.scrollIntoView({ block: "nearest" });
  });
  window.addEventListener("popstate", () => {
    const to = match(location.pathname).name;
    if (isPage(to) || isPage(app.screen)) {
      route();
    } else if (to === "home" && app.screen === "room") {
      history.pushState(null, "", paths.room(app.room));
    }
  });
  // a room's own address when the page is for one (a link, a reload): its process serves it
  app.net = new Net(socketUrl(linked || (app.session && app.session.room) || null), deviceToken());
  app.net.addEventListener("device", (e) => save(KEYS.device, e.detail)); // the server's own
  app.net.addEventListener("message", (e) => onMessage(e.detail));
  app.net.addEventListener("up", () => {
    app.online = true;
    app.everOnline = true;
    drawNet();
    drawRankNote();
    if (app.screen === "room" || (isPage(app.screen) && app.room)) resumeSession();
    if (app.screen === "leaderboard") loadBoards();
    const me = app.net.player;
    if (me !== app.me) {
      app.me = me;
      if (app.screen === "player") redrawPage(); // your own page has the identity move
    }
    queueAgain();
    if (app.screen === "event") watchEvent();
  });
  app.net.addEventListener("down", () => {
    app.online = false;
    app.acting = false;
    app.awaiting = null;
    drawNet();
  });
  if (isPage(here.name)) {
    app.screen = here.name;
    if (here.name === "replay") {
      app.replay = newReplay(here.code);
      loadReplay();
    }
    if (here.name === "player") {
      app.player = newPlayer(here.code);
      loadPlayer();
    }
    if (here.name === "ladder") {
      app.ladder = newLadder();
      loadLadder();
    }
    if (here.name === "event") app.event = { code: here.code, frame: null, error: null };
  }
  render();
  app.net.start();
  setInterval(tick, 250);
  setInterval(() => app.queue && app.screen === "home" && render(), 1000); // the wait's seconds
  alerts.start(render);
  window.addEventListener("resize", () => {
    const area = document.getElementById("area");
    if (area && app.screen === "room") fitHands(area);
  });
  window.addEventListener("online", drawNet);
  window.addEventListener("offline", drawNet);
  keepShell();
  window.cardroom = app; // for tests and the curious: the client's state
}

// The service worker keeps the app's shell for when the network is gone (clients/web/sw.js);
// told the files this first visit loaded before it ran.
function keepShell() {
  const sw = navigator.serviceWorker;
  if (!sw) return;
  sw.register("/sw.js")
    .then(() => sw.ready)
    .then((reg) => {
      const keep = performance.getEntriesByType("resource").map((e) => e.name);
      if (reg.active) reg.active.postMessage({ keep: [location.origin + "/", ...keep] });
    })
    .catch(() => {}); // no worker (a private window, an old browser): the app works without one
}

start();
