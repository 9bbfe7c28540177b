// Drawing the store onto the page: the header, the home screen, a room (its lobby or its
// table, the seats, the log and the chat), and the pages of their own. Each renderer gets a
// scene (the data it draws), built here from the store.
import * as alerts from "./alerts.js";
import { hintHTML, markHint } from "./hints.js";
import * as events from "./events.js";
import * as home from "./home.js";
import { LANGS, lang, LANG_NAMES, langTag, t } from "./i18n.js";
import * as leaders from "./leaders.js";
import * as lobby from "./lobby.js";
import * as roomLog from "./log.js";
import { afterDraw } from "./motion.js";
import * as replay from "./replay.js";
import { isPage, paths } from "./routes.js";
import * as sheepshead from "./sheepshead.js";
import * as shithead from "./shithead.js";
import { isHost, nameOf, store } from "./store.js";
import { chatPill, chatWords, fitHands, unread } from "./table.js";
import { esc, formatSeconds, patch } from "./ui.js";

export const GAMES = { shithead, sheepshead };
// The pages of their own, by the class of their outer element (drawn once, then patched).
const PAGE_CLASS = { leaderboard: "boards", replay: "replay", event: "event-page" };

// ------------------------------------------------------------------------------ scenes

// A room as its lobby and seat list draw it.
export function roomScene() {
  const { info, seat } = store;
  return { info, seat, host: isHost(info, seat), name: (s) => nameOf(info, s), rank: store.dailyRank, again: store.again };
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
    hint: hintHTML({ info: room.info, seat: room.seat, state, hint, hinting }),
    after: lobby.afterGameHTML(room),
  };
}

function pageHTML() {
  if (store.screen === "leaderboard") return leaders.render(store.boards || {});
  if (store.screen === "event") return events.render(store.event);
  const s = store.session;
  const seated = !!s && s.room === store.replay.code && !s.watch;
  return replay.render(store.replay, seated, store.shown);
}

// ------------------------------------------------------------------------------ screens

function shell() {
  document.documentElement.lang = langTag();
  document.title = alerts.title(store.room ? `${store.room} · ${t("app.title")}` : t("app.title"));
  const langOpts = LANGS.map((l) => `<option value="${l}"${l === lang() ? " selected" : ""}>${LANG_NAMES[l]}</option>`).join("");
  const header = document.getElementById("top");
  // redrawn only when it changes: the language menu keeps focus while the game moves
  const { info, room } = store;
  const key = [lang(), store.screen, room, info && info.status, info && info.hints, info && info.daily_ranked, alerts.muted(), unread()].join("|");
  const inRoom = store.screen === "room";
  if (header.dataset.drawn === key) return drawNet();
  header.dataset.drawn = key;
  const roomBit = inRoom && room
    ? `<span class="roomcode" title="${esc(t("home.code"))}">${esc(room)}</span>` +
      (info ? `<span class="status">${esc(t("status." + info.status))}</span>` : "") +
      (info && info.hints ? `<span class="badge gold hints-on">${esc(t("table.hintsOn"))}</span>` : "") +
      // a daily match that cannot rank (not this player's first of the day), said from its start
      (info && info.daily_ranked === false ? `<span class="badge dim daily-unranked">${esc(t("table.dailyUnranked"))}</span>` : "") +
      alerts.muteButton() +
      chatPill() +
      `<span id="turn-timer" class="timer" role="timer" aria-live="off"></span>`
    : "";
  header.innerHTML =
    `<a class="brand" href="${paths.home()}">${esc(t("app.title"))}</a>${roomBit}<span class="spacer"></span>` +
    `<span id="net" class="net" role="status"></span>` +
    `<label class="lang"><span class="sr-only">${esc(t("lang.label"))}</span><select id="lang" data-key="lang">${langOpts}</select></label>`;
  drawNet();
}

export function drawNet() {
  const el = document.getElementById("net");
  if (!el) return;
  const down = !store.online;
  el.textContent = down ? (store.everOnline ? t("net.reconnecting") : t("net.connecting")) : "";
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
      const { prefs, session, name } = store;
      main.innerHTML = home.render({ prefs, code: store.pendingCode || "", session, name });
    }
    return;
  }
  if (!main.querySelector(".room")) buildRoom();
  const area = document.getElementById("area");
  const { info, state } = store;
  if (!info) {
    patch(area, `<p class="prompt">${esc(t("net.connecting"))}</p>`);
  } else if (state && info.status !== "lobby") {
    patch(area, GAMES[state.view.game].render(tableScene()));
    markHint(area, store.hint, state);
    fitHands(area);
    afterDraw(state, store.seat, area);
    drawLog();
  } else {
    patch(area, lobby.render(roomScene()));
  }
  const seats = document.getElementById("seats");
  if (seats) patch(seats, lobby.seatsHTML(roomScene()));
  tick();
}

export function buildRoom() {
  const main = document.getElementById("main");
  main.innerHTML = `
  <div class="room">
    <h1 class="sr-only">${esc(t("app.title"))} · ${esc(t("lobby.codeIs", { code: store.room || "" }))}</h1>
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
  if (!isPage(store.screen)) return;
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
  // a device clock behind the server's would show more than a whole turn: never more
  const whole = (info && info.turn_timer) || Infinity;
  const left = Math.min(d - Date.now() / 1000, whole);
  el.textContent = formatSeconds(left);
  el.className = "timer" + (left < 6 ? " urgent" : "");
  el.setAttribute("aria-label", t("table.secondsLeft", { n: Math.max(0, Math.ceil(left)) }));
}
