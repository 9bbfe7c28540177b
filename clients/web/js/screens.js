// Drawing the store onto the page: the header, the home screen, a room (its lobby or its
// table, the seats, the log and the chat), and the pages of their own. Each renderer gets a
// scene (the data it draws), built here from the store.
import * as alerts from "./alerts.js";
import { coachHTML, current as practiceOf } from "./coach.js";
import { hintHTML, markHint } from "./hints.js";
import * as events from "./events.js";
import * as reacts from "./reacts.js";
import * as home from "./home.js";
import * as identity from "./identity.js";
import { LANGS, lang, LANG_NAMES, langTag, t } from "./i18n.js";
import * as leaders from "./leaders.js";
import * as lobby from "./lobby.js";
import * as ladder from "./ladder.js";
import * as player from "./player.js";
import * as roomLog from "./log.js";
import { afterDraw } from "./motion.js";
import * as replay from "./replay.js";
import { isPage, paths } from "./routes.js";
import * as sheepshead from "./sheepshead.js";
import * as shithead from "./shithead.js";
import * as viewOpts from "./view.js";
import { isHost, nameOf, store } from "./store.js";
import { chatPill, chatWords, fitHands, tickHeld, unread } from "./table.js";
import { esc, formatSeconds, patch } from "./ui.js";

export const GAMES = { shithead, sheepshead };
// The pages of their own, by the class of their outer element (drawn once, then patched).
const PAGE_CLASS = { leaderboard: "boards", ladder: "ladder-page", replay: "replay", player: "player-page", event: "event-page", "event-new": "event-new" };

// ------------------------------------------------------------------------------ scenes

// A room as its lobby and seat list draw it.
export function roomScene() {
  const { info, seat } = store;
  const { confirmKick } = store;
  const identified = !store.net || store.net.identified; // a browser without one never ranks
  const event = (info && info.event) || null; // the event this room is a table of
  return { info, seat, host: isHost(info, seat), name: (s) => nameOf(info, s), rank: store.dailyRank, again: store.again, confirmKick, identified, event };
}

// The table as a game module draws it (see shithead.js).
export function tableScene() {
  const room = roomScene();
  const { state, hint, hinting } = store;
  return {
    ...room,
    view: state.view,
    events: store.events,
    sel: store.sel,
    mode: store.mode,
    hint: coachHTML(practiceOf(store.room), state.view, room.seat) + hintHTML({ info: room.info, seat: room.seat, state, hint, hinting }),
    after: lobby.afterGameHTML(room),
  };
}

function pageHTML() {
  if (store.screen === "leaderboard") return leaders.render(store.boards || {});
  if (store.screen === "ladder") return ladder.render(store.ladder);
  if (store.screen === "player") return player.render(store.player, store.player.id === store.me);
  if (store.screen === "event") return events.render(store.event);
  if (store.screen === "event-new") return events.newHTML({ name: store.name });
  const s = store.session;
  const seated = !!s && s.room === store.replay.code && !s.watch;
  return replay.render(store.replay, seated, store.shown);
}

// ------------------------------------------------------------------------------ screens

// Why a daily match does not rank: this browser has no identity, or it is not its first today.
function unrankedWhy() {
  return store.net && !store.net.identified ? "lb.noIdentity" : "lb.dailyUnranked";
}

// The room's status in words: a Sheepshead match is played in hands.
function statusKey(info) {
  return info.status === "between" && info.game === "sheepshead" ? "status.betweenHands" : "status." + info.status;
}

function shell() {
  document.documentElement.lang = langTag();
  document.title = alerts.title(store.room ? `${store.room} · ${t("app.title")}` : t("app.title"));
  const langOpts = LANGS.map((l) => `<option value="${l}"${l === lang() ? " selected" : ""}>${LANG_NAMES[l]}</option>`).join("");
  const header = document.getElementById("top");
  // redrawn only when it changes: the language menu keeps focus while the game moves
  const { info, room } = store;
  const key = [lang(), store.screen, room, info && info.status, info && info.hints, info && info.rated, info && info.daily_ranked, alerts.muted(), unread()].join("|");
  const inRoom = store.screen === "room";
  if (header.dataset.drawn === key) return drawNet();
  header.dataset.drawn = key;
  const roomBit = inRoom && room
    ? `<span class="roomcode" title="${esc(t("home.code"))}">${esc(room)}</span>` +
      (info ? `<span class="status">${esc(t(statusKey(info)))}</span>` : "") +
      (info && info.hints ? `<span class="badge gold hints-on">${esc(t("table.hintsOn"))}</span>` : "") +
      (info && info.rated ? `<span class="badge gold rated-on">${esc(t("table.rated"))}</span>` : "") +
      // a daily match that cannot rank (not this player's first of the day), said from its start
      (info && info.daily_ranked === false ? `<span class="badge dim daily-unranked" title="${esc(t(unrankedWhy()))}">${esc(t("table.dailyUnranked"))}</span>` : "") +
      alerts.muteButton() +
      chatPill() +
      `<span id="turn-timer" class="timer" role="timer" aria-live="off"></span>`
    : "";
  header.classList.toggle("in-room", inRoom);
  header.innerHTML =
    `<a class="brand" href="${paths.home()}">${esc(t("app.title"))}</a>${roomBit}<span class="spacer"></span>` +
    `<span id="net" class="net" role="status"></span>` +
    `<label class="lang"><span class="sr-only">${esc(t("lang.label"))}</span><select id="lang" data-key="lang">${langOpts}</select></label>`;
  drawNet();
}

// Before the daily: whether this browser will rank, and why not (js/identity.js).
export function drawRankNote() {
  const el = document.getElementById("rank-note");
  if (el) patch(el, identity.noteHTML(store.net));
}

export function drawNet() {
  const el = document.getElementById("net");
  if (!el) return;
  const down = !store.online;
  const gone = down && navigator.onLine === false; // the device has no network at all
  el.textContent = down ? t(gone ? "net.offline" : store.everOnline ? "net.reconnecting" : "net.connecting") : "";
  el.className = "net" + (down ? " down" : "");
  document.body.classList.toggle("offline", down);
}

export function render() {
  shell();
  const main = document.getElementById("main");
  if (isPage(store.screen)) {
    if (!main.querySelector("." + PAGE_CLASS[store.screen])) main.innerHTML = pageHTML();
    return;
  }
  if (store.screen === "home") {
    if (!main.querySelector(".home")) {
      const { prefs, session, name, queue } = store;
      main.innerHTML = home.render({ prefs, code: store.pendingCode || "", session, name, queue, open: store.newOpen });
    } else {
      patch(document.getElementById("play-now"), home.playNowHTML(store.queue));
    }
    drawRankNote();
    return;
  }
  if (!main.querySelector(".room")) buildRoom();
  const area = document.getElementById("area");
  const { info, state } = store;
  if (!info) {
    patch(area, `<p class="prompt">${esc(t("net.connecting"))}</p>`);
  } else if (state && info.status !== "lobby") {
    patch(area, waitingHTML() + GAMES[state.view.game].render(tableScene()));
    markHint(area, store.hint, state);
    fitHands(area);
    afterDraw(state, store.seat, area);
    drawLog();
  } else {
    patch(area, lobby.render(roomScene()));
  }
  const seats = document.getElementById("seats");
  if (seats) patch(seats, lobby.seatsHTML(roomScene()));
  const bar = document.getElementById("reacts");
  if (bar) patch(bar, info && info.status !== "lobby" ? reacts.barHTML(store.seat != null) : "");
  tick();
}

// A friend who arrived mid-game: what they wait for (they are seated when it ends).
function waitingHTML() {
  if (!store.waiting || store.seat != null) return "";
  return `<p class="waiting-note" role="status">${esc(t("table.waitingSeat"))}</p>`;
}

export function buildRoom() {
  const main = document.getElementById("main");
  main.innerHTML = `
  <div class="room">
    <h1 class="sr-only">${esc(t("app.title"))} · ${esc(t("lobby.codeIs", { code: store.room || "" }))}</h1>
    <div class="area-wrap"><div id="area" class="area"></div><div id="reacts"></div>
      <section class="log" aria-label="${esc(t("table.log"))}"><ol id="log"></ol></section>
      <details class="keys-help"><summary>${esc(t("keys.title"))}</summary><p>${esc(t("keys.list"))}</p></details>
      ${viewOpts.html()}</div>
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
  const name = (s) => nameOf(store.info, s);
  const lines = store.log.map((entry) => roomLog.text(entry, GAMES, name)).filter(Boolean);
  el.innerHTML = lines.slice(-6).map((l) => `<li>${esc(l)}</li>`).join("");
}

export function drawChat(scroll) {
  const el = document.getElementById("chat-lines");
  if (!el) return;
  const host = isHost(store.info, store.seat);
  // the host may mute a spectator by the number their lines carry
  const mute = (c) =>
    host && c.seat == null && c.spectator != null
      ? ` <button type="button" class="btn small ghost" data-act="host" data-op="mute" data-spectator="${c.spectator}" aria-label="${esc(t("chat.muteSpectator"))}">${esc(t("lobby.mute"))}</button>`
      : "";
  el.innerHTML = store.chat
    .map((c) => `<p><b>${esc(c.seat == null ? t("chat.spectator") : c.name)}:</b> ${esc(chatWords(c))}${mute(c)}</p>`)
    .join("");
  if (scroll) el.scrollTop = el.scrollHeight;
}

// Draw a page of its own again (new data, another language), keeping focus where it was.
export function redrawPage() {
  if (!isPage(store.screen) || store.screen === "event-new") return; // a form: drawn once
  patch(document.getElementById("main"), pageHTML());
}

// Every screen drawn anew (in another language, or with English for a key its table lacks).
export function redrawAll() {
  document.getElementById("main").innerHTML = "";
  if (store.screen === "room") buildRoom();
  render();
}

// The turn countdown, from the state's deadline (unix time).
export function tick() {
  tickHeld(document);
  const el = document.getElementById("turn-timer");
  if (!el) return;
  const { state, info } = store;
  const d = state && state.deadline;
  const phaseOver = state && state.view.phase === "over";
  if (!d || phaseOver) {
    el.textContent = "";
    el.className = "timer";
    return;
  }
  // a device clock behind the server's would show more than a whole turn (or the whole bank
  // being spent): never more
  const banking = info && info.banking != null && info.banks ? info.banks[info.banking] : null;
  const whole = banking ?? ((info && info.turn_timer) || Infinity);
  const left = Math.min(d - Date.now() / 1000, whole);
  el.textContent = banking != null ? t("bank.running", { time: formatSeconds(left) }) : formatSeconds(left);
  el.className = "timer" + (banking != null ? " bank" : "") + (left < 6 ? " urgent" : "");
  const said = t("table.secondsLeft", { n: Math.max(0, Math.ceil(left)) });
  el.setAttribute("aria-label", banking != null ? `${t("home.bank")}: ${said}` : said);
}
