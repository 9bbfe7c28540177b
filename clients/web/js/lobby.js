// The lobby: the code to share, who sits where, the host's controls; and the seat list beside
// the table (the same controls between games). Each takes the room's scene: its `info`, the
// viewer's `seat`, whether the viewer is the `host`, and `name(seat)`.
import { notifyButton } from "./alerts.js";
import { rulesHTML } from "./house.js";
import { lang, ordinal, t } from "./i18n.js";
import { changesHTML } from "./player.js";
import { paths } from "./routes.js";
import { heldHTML } from "./table.js";
import { esc } from "./ui.js";

function seatLine(d, s) {
  const info = d.info;
  const iAmHost = d.host;
  const mine = s.seat === d.seat;
  const open = info.status === "lobby" || info.status === "between" || info.status === "over";
  let who;
  let state = "";
  if (s.kind === "empty") {
    who = `<span class="muted">${esc(t("lobby.empty"))}</span>`;
  } else if (s.kind === "bot") {
    who = `<span class="who">${esc(d.name(s.seat))}</span>`;
    // the host sees the level in its selector, but a daily's bots are the day's (fixed)
    if (!iAmHost || info.daily) state = `<span class="badge dim">${esc(t("lobby.botLevel", { level: t("level." + s.bot_level) }))}</span>`;
  } else {
    who = `<span class="who">${esc(s.name)}</span>${mine ? ` <span class="muted">(${esc(t("you"))})</span>` : ""}`;
    state = s.connected
      ? `<span class="badge ok">${esc(t("lobby.connected"))}</span>`
      : `<span class="badge bad">${esc(t("lobby.away"))}</span>`;
    // while the seat is held: when a bot plays for them (a lobby seat is freed instead)
    if (s.held_until) state += ` <span class="badge dim">${heldHTML(info.status === "lobby" ? "lobby.seatKept" : "lobby.botIn", s.held_until)}</span>`;
    if (s.playing_for) state += ` <span class="badge dim">${esc(t("lobby.playingFor"))}</span>`;
    if (s.muted) state += ` <span class="badge dim">${esc(t("lobby.muted"))}</span>`;
  }
  if (s.host) state += ` <span class="badge gold">${esc(t("lobby.host"))}</span>`;
  const controls = [];
  if (iAmHost) {
    if (s.kind === "empty" && open && !info.daily) {
      controls.push(`<button type="button" class="btn small" data-act="host" data-op="add_bot" data-seat="${s.seat}" data-key="add:${s.seat}">${esc(t("lobby.addBot"))}</button>`);
    }
    if (s.kind === "bot" && !info.daily) {
      const opts = ["random", "basic", "strong", "expert"]
        .map((l) => `<option value="${l}"${l === s.bot_level ? " selected" : ""}>${esc(t("level." + l))}</option>`)
        .join("");
      controls.push(`<select class="small" data-act="level" data-seat="${s.seat}" data-key="lvl:${s.seat}" aria-label="${esc(t("lobby.levelOf", { n: s.seat + 1 }))}">${opts}</select>`);
      if (info.status === "lobby") {
        controls.push(`<button type="button" class="btn small ghost" data-act="host" data-op="remove_bot" data-seat="${s.seat}" data-key="rm:${s.seat}" aria-label="${esc(t("lobby.removeBotN", { n: s.seat + 1 }))}">${esc(t("lobby.removeBot"))}</button>`);
      }
    }
    if (s.kind === "human" && s.held_until && !s.connected && info.status !== "lobby" && info.status !== "over") {
      // the table need not wait out the grace for a friend who is not coming back soon
      controls.push(`<button type="button" class="btn small" data-act="host" data-op="stand_in" data-seat="${s.seat}" data-key="stand_in:${s.seat}" aria-label="${esc(t("lobby.standInN", { name: s.name }))}">${esc(t("lobby.standIn"))}</button>`);
    }
    if (s.kind === "human" && !mine) {
      const op = s.muted ? "unmute" : "mute"; // the host silences (or lets speak) a seat's chat
      controls.push(`<button type="button" class="btn small ghost" data-act="host" data-op="${op}" data-seat="${s.seat}" data-key="${op}:${s.seat}" aria-label="${esc(t("lobby." + op + "N", { name: s.name }))}">${esc(t("lobby." + op))}</button>`);
      controls.push(kickHTML(d, s));
    }
  } else if (s.kind !== "human" && open && d.seat == null && !info.locked) {
    // a spectator may take a free seat (before the start or between games)
    controls.push(`<button type="button" class="btn small" data-act="sit" data-seat="${s.seat}" data-key="sit:${s.seat}">${esc(t("lobby.sit"))}</button>`);
  }
  return (
    `<li class="seat${mine ? " mine" : ""}"><span class="num">${s.seat + 1}</span>` +
    `<span class="desc">${who} ${state}</span><span class="ctl">${controls.join("")}</span></li>`
  );
}

// Removing a friend bans their device from the room: the button is set apart from Mute and
// styled as destructive, and it only asks; the removal is a second, explicit choice.
function kickHTML(d, s) {
  if (d.confirmKick !== s.seat) {
    return `<button type="button" class="btn small danger-ghost" data-act="kick-ask" data-seat="${s.seat}" data-key="kick:${s.seat}" aria-label="${esc(t("lobby.kickN", { name: s.name }))}">${esc(t("lobby.kick"))}</button>`;
  }
  return (
    `<span class="confirm" role="group" aria-labelledby="kick-ask-${s.seat}"><span id="kick-ask-${s.seat}" class="ask">${esc(t("lobby.kickAsk", { name: s.name }))}</span>` +
    `<button type="button" class="btn small danger" data-act="host" data-op="kick" data-seat="${s.seat}" data-key="kick-yes:${s.seat}">${esc(t("lobby.kickYes"))}</button>` +
    `<button type="button" class="btn small ghost" data-act="kick-keep" data-key="kick-keep:${s.seat}">${esc(t("lobby.kickKeep"))}</button></span>`
  );
}

export function seatsHTML(d) {
  const info = d.info;
  if (!info) return "";
  const totals = info.games_played
    ? `<p class="muted">${esc(t(info.game === "sheepshead" ? "lobby.handsPlayed" : "lobby.gamesPlayed", { n: info.games_played }))}</p>`
    : "";
  return (
    `<h2 id="h-seats">${esc(t("lobby.players"))}</h2>` +
    `<ul class="seats" aria-labelledby="h-seats">${info.seats.map((s) => seatLine(d, s)).join("")}</ul>` +
    `<p class="muted">${esc(t("lobby.watching", { n: info.spectators }))}${info.locked ? " · " + esc(t("lobby.locked")) : ""}</p>` +
    (d.seat == null ? `<p><span class="badge gold">${esc(t("lobby.spectator"))}</span></p>` : "") +
    totals +
    `<div class="hostbar">${hostBar(d)}${d.seat != null ? notifyButton() : ""}<button type="button" class="btn small ghost" data-act="leave" data-key="leave">${esc(t("lobby.leave"))}</button></div>` +
    `<p class="rules-link"><a href="${paths.rules(lang(), info.game)}" target="_blank" rel="noopener">${esc(t("rules." + info.game))}</a></p>`
  );
}

function hostBar(d) {
  const info = d.info;
  if (!d.host) return "";
  const b = [];
  const open = info.status === "lobby" || info.status === "between";
  if (open && info.seats.some((s) => s.kind === "empty")) {
    b.push(`<button type="button" class="btn small" data-act="host" data-op="fill_bots" data-key="fill">${esc(t("lobby.fill"))}</button>`);
  }
  if (info.status === "lobby" && !info.daily) {
    // before the first deal: the host makes the room rated or not (book rules only)
    const op = info.rated ? "unrated" : "rated";
    b.push(`<button type="button" class="btn small ghost" data-act="host" data-op="${op}" data-key="rated" aria-pressed="${info.rated}">${esc(t(info.rated ? "lobby.makeUnrated" : "lobby.makeRated"))}</button>`);
  }
  const lockOp = info.locked ? "unlock" : "lock";
  b.push(`<button type="button" class="btn small ghost" data-act="host" data-op="${lockOp}" data-key="lock">${esc(t(info.locked ? "lobby.unlock" : "lobby.lock"))}</button>`);
  return b.join("");
}

// The main area before the first game: the code, the link, start.
export function render(d) {
  const info = d.info;
  const code = info.room;
  const link = location.origin + paths.room(code);
  const start = d.host
    ? `<button type="button" class="btn primary wide" data-act="host" data-op="start" data-key="start">${esc(t("lobby.start"))}</button><p class="muted">${esc(t("lobby.startNote"))}</p>`
    : `<p class="prompt">${esc(d.seat == null ? t("lobby.spectator") : t("lobby.waitHost"))}</p>`;
  return `
  <div class="lobby">
    <section class="panel share" aria-labelledby="h-share">
      <h2 id="h-share">${esc(t("lobby.share"))}</h2>
      <p class="code" aria-label="${esc(t("lobby.codeIs", { code: code.split("").join(" ") }))}">${esc(code)}</p>
      <p class="link"><a href="${esc(paths.room(code))}">${esc(link)}</a></p>
      <div class="buttons">
        <button type="button" class="btn" data-act="copy" data-text="${esc(link)}" data-key="copy-link">${esc(t("lobby.copyLink"))}</button>
        <button type="button" class="btn ghost" data-act="copy" data-text="${esc(code)}" data-key="copy-code">${esc(t("lobby.copyCode"))}</button>
        ${navigator.share ? `<button type="button" class="btn" data-act="share" data-text="${esc(link)}" data-key="share">${esc(t("lobby.shareBtn"))}</button>` : ""}
      </div>
      <p class="muted">${esc(t("game." + info.game))} · ${esc(info.turn_timer ? t("timer.seconds", { n: info.turn_timer }) : t("timer.none"))}${info.rated ? " · " + esc(t("table.rated")) : ""}</p>
      ${rulesHTML(info.game, info.options)}
    </section>
    <section class="panel">${start}</section>
  </div>`;
}

// What follows a game's result: its replay (players only while the room is open), today's
// table once a daily match is over, and the next game (the host starts it).
export function afterGameHTML(d) {
  if (!d.info) return "";
  // the end of a match: your rank today and the same table again before the links
  const rated = changesHTML(d.info, d.name);
  if (d.info.status === "over" && d.event) return eventButton(d) + rated + afterGameLinks(d) + nextGameButton(d);
  if (d.info.status === "over") return rated + dailyRankHTML(d) + againButton(d) + afterGameLinks(d) + nextGameButton(d);
  return rated + afterGameLinks(d) + nextGameButton(d);
}

// An event's table that has played its round's hands: back to the event's page (the next
// round's table is given there), instead of this table again or Play now.
function eventButton(d) {
  if (!d.event) return "";
  return `<a class="btn primary wide to-event" href="${paths.event(d.event)}">${esc(t("evt.back"))}</a>`;
}

// After a game: a table of strangers for the same game (js/app.js playNow leaves this room),
// beside the replay. Between the hands of a Sheepshead match it would leave the match (a
// leaver of a rated one is ranked last): only once it is over.
function playNowButton(d) {
  const info = d.info;
  const done = info.status === "over" || (info.status === "between" && info.game === "shithead");
  if (d.seat == null || info.daily || d.event || !done) return ""; // (an event: its next round)
  return `<button type="button" class="btn" data-act="play-now" data-game="${info.game}" data-key="play-now">${esc(t("queue.again"))}</button>`;
}

function nextGameButton(d) {
  const info = d.info;
  if (info.status === "over") return `<p class="muted">${esc(t("ss.matchOver"))}</p>`;
  if (info.status !== "between") return "";
  if (d.host) {
    const label = info.game === "sheepshead" ? t("table.nextHand") : t("table.next");
    return `<button type="button" class="btn primary wide" data-act="host" data-op="next_game" data-key="next">${esc(label)}</button>`;
  }
  return `<p class="muted">${esc(t("table.waitNext"))}</p>`;
}

// The daily's end: this browser's rank on today's board (asked once the match is over; the
// server records the result a moment after the last card).
function dailyRankHTML(d) {
  const info = d.info;
  if (!info.daily || d.seat == null) return "";
  if (info.daily_ranked === false) return `<p class="daily-rank">${esc(t(d.identified ? "lb.dailyUnranked" : "lb.noIdentity"))}</p>`;
  const r = d.rank && d.rank.room === info.room ? d.rank : null;
  let text = t("lb.rankToday", { rank: "…", score: "…" });
  const score = r && r.you ? (r.you.score > 0 ? "+" : "") + r.you.score : "";
  if (r && r.you && r.players) text = t("lb.rankTodayOf", { rank: ordinal(r.you.rank), players: r.players, score });
  else if (r && r.you) text = t("lb.rankToday", { rank: r.you.rank, score });
  else if (r && r.done) text = t("lb.notYetDaily");
  const rank = r && r.you ? ` data-rank="${r.you.rank}"` : "";
  return `<p class="daily-rank" aria-live="polite"${rank}>${esc(text)}</p>`;
}

// One tap to play again with the same table: a new room like this one (js/app.js playAgain),
// or, once the host has made it, a seat at it.
function againButton(d) {
  if (d.seat == null) return "";
  if (d.again && d.again.from === d.info.room) {
    return `<button type="button" class="btn primary wide" data-act="follow" data-key="follow">${esc(t("table.follow", { name: d.again.name }))}</button>`;
  }
  return `<button type="button" class="btn primary wide" data-act="again" data-key="again">${esc(t("table.again"))}</button>`;
}

export function afterGameLinks(d) {
  const info = d.info;
  if (info.status !== "between" && info.status !== "over") return "";
  const links = [];
  if (d.seat != null) {
    const label = info.game === "sheepshead" ? t("rp.replayHand") : t("rp.replayGame");
    links.push(`<a class="btn" href="${esc(paths.replay(info.room))}" data-nav data-key="replay">${esc(label)}</a>`);
  }
  if (info.daily && info.status === "over") {
    links.push(`<a class="btn" href="${paths.leaderboard()}" data-nav data-key="leaders">${esc(t("lb.seeToday"))}</a>`);
  }
  const playNow = playNowButton(d);
  if (playNow) links.push(playNow);
  return links.length ? `<p class="after-links">${links.join("")}</p>` : "";
}
