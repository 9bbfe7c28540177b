// A finished game or hand, step by step, every seat's cards face up (the game is over).
// Each step's table comes from the server (`/api/rooms/CODE/history?game=N&steps=1`: the rules core
// replayed it); this page only draws it, like the tables draw a live view.
import { backHTML, cardHTML, cardsText, cardText, countHTML } from "./cards.js";
import { verifyGame } from "./deal.js";
import { ruleChips, rulesHTML } from "./house.js";
import { t } from "./i18n.js";
import { paths } from "./routes.js";
import * as sheepshead from "./sheepshead.js";
import * as shithead from "./shithead.js";
import { esc } from "./ui.js";

const GAMES = { shithead, sheepshead };

// The address of a room's history. Without `g`: the list of finished games; with it: that
// game, step by step (one game's steps a request). Never a token: a URL is logged by proxies,
// so the seat token goes in a header (historyHeaders).
export function historyURL(code, g = null) {
  const q = g != null ? "?game=" + encodeURIComponent(g) + "&steps=1" : "";
  return `/api/rooms/${encodeURIComponent(code)}/history` + q;
}

// The request headers of a history request: the seat token, when we sit at the table (its
// history is the players' alone until the room closes).
export function historyHeaders(token) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  return headers;
}

function nameOf(game, seat) {
  return (game.names && game.names[seat]) || t("lobby.seat", { n: seat + 1 });
}

// What one step did, in words (the game modules' event lines, else the action itself).
export function stepText(game, step) {
  if (step.seat == null) return t("rp.deal");
  const who = nameOf(game, step.seat);
  const mod = GAMES[game.game];
  const lines = step.events.map((e) => mod.eventText(e, (s) => nameOf(game, s))).filter(Boolean);
  if (lines.length) return lines.join(" · ");
  const a = step.action || {};
  if (a.kind === "swap") return t("rp.swapped", { name: who, cards: cardsText(a.cards || []) });
  return t("rp.acted", { name: who, action: [a.kind, cardsText(a.cards || [])].join(" ").trim() });
}

function handHTML(cards, label) {
  const inner = cards.length
    ? cards.map((c) => cardHTML(c, { size: "s" })).join("")
    : `<span class="muted">${esc(t("table.noHand"))}</span>`;
  return `<div class="rp-hand" role="group" aria-label="${esc(label)}">${inner}</div>`;
}

// Shithead: the face-up cards lying on the face-down ones, the face-down ones shown open.
function shTableCards(seat) {
  const n = Math.max(seat.face_down.length, seat.face_up.length);
  const stacks = [];
  for (let slot = 0; slot < n; slot++) {
    const up = seat.face_up[slot];
    const down = (seat.face_down_cards || [])[slot];
    const downHTML = down
      ? cardHTML(down, { size: "s", extra: "was-down" })
      : up
        ? ""
        : `<span class="card slot-empty size-s" aria-hidden="true"></span>`;
    const upHTML = up ? cardHTML(up, { size: "s" }) : "";
    stacks.push(`<span class="slot sz-s${up ? " has-up" : ""}${down ? " has-down" : ""}">${downHTML}${upHTML}</span>`);
  }
  return `<div class="tablecards" role="group" aria-label="${esc(t("rp.tableCards"))}">${stacks.join("")}</div>`;
}

function seatHTML(game, step, seat) {
  const v = step.view;
  const nm = nameOf(game, seat);
  const acted = step.seat === seat;
  const next = v.to_act.includes(seat) && v.phase !== "over";
  const badges = [];
  if (v.dealer === seat) badges.push(`<span class="badge">${esc(t("table.dealer"))}</span>`);
  if (game.game === "shithead") {
    const s = v.seats[seat];
    if (s.out) badges.push(`<span class="badge ok">${esc(t("table.out", { place: s.place }))}</span>`);
    if (v.outcome && v.outcome.loser === seat) badges.push(`<span class="badge bad">${esc(t("sh.loserBadge"))}</span>`);
  } else {
    if (v.picker === seat) badges.push(`<span class="badge gold">${esc(t("ss.picker"))}</span>`);
    if (v.partner === seat) badges.push(`<span class="badge gold">${esc(t("ss.partner"))}</span>`);
  }
  if (next) badges.push(`<span class="badge dim">${esc(t("rp.toAct"))}</span>`);
  // a Sheepshead hand as at the table: trump first, high to low, then each fail suit
  const hand = game.game === "sheepshead" ? sheepshead.shown(v.hands[seat] || []) : v.hands[seat] || [];
  let body = handHTML(hand, t("rp.handOf", { name: nm, n: hand.length }));
  if (game.game === "shithead") body = `<div class="rp-row">${shTableCards(v.seats[seat])}${body}</div>`;
  else body += `<span class="stats">${esc(t("ss.tricksN", { n: v.tricks_won[seat] }))} · ${esc(t("ss.pointsN", { n: v.visible_points[seat] }))}</span>`;
  return (
    `<section class="seatbox rp-seat${acted ? " acted" : ""}" data-seat="${seat}" aria-label="${esc(nm)}">` +
    `<header><span class="who">${esc(nm)}</span>${badges.join("")}</header>${body}</section>`
  );
}

// Whose each card of the pile is, at step `upTo`: the seat whose "played" event put it there
// last (a card reaches the pile only by being played, and one deck holds each code once). The
// steps' events say it; the view holds the pile's cards only, as on the live table, where each
// card travels from its seat.
export function pileSeats(game, upTo) {
  const by = new Map();
  for (let k = 1; k <= upTo; k++) {
    for (const e of game.steps[k].events) if (e.kind === "played") for (const c of e.cards || []) by.set(c, e.seat);
  }
  return game.steps[upTo].view.pile.map((c) => (by.has(c) ? by.get(c) : null));
}

// The pile's top cards in runs by the seat that played them, each run captioned with its name
// (the replay's pile is not beside the seats, as the live one's cards are by their travel).
function pileRunsHTML(game, step, upTo) {
  const v = step.view;
  const fresh = new Set();
  for (const e of step.events) if (e.kind === "played" && e.cards) e.cards.forEach((c) => fresh.add(c));
  const owners = pileSeats(game, upTo).slice(-5);
  const runs = [];
  v.pile.slice(-5).forEach((c, i) => {
    const seat = owners[i];
    if (runs.length && runs[runs.length - 1].seat === seat) runs[runs.length - 1].cards.push(c);
    else runs.push({ seat, cards: [c] });
  });
  return runs
    .map(({ seat, cards }) => {
      const name = seat == null ? "" : nameOf(game, seat);
      const faces = cards.map((c) => cardHTML(c, { size: "m", extra: fresh.has(c) ? "fresh" : "" })).join("");
      return `<figure class="play pile-run" data-seat="${seat ?? ""}"><span class="fan">${faces}</span><figcaption title="${esc(name)}">${esc(name)}</figcaption></figure>`;
    })
    .join("");
}

function shCenter(game, step, upTo) {
  const v = step.view;
  const cards = v.pile.length
    ? `<div class="runs">${pileRunsHTML(game, step, upTo)}</div>`
    : `<div class="fan"><span class="card empty size-m">${esc(t("table.emptyPile"))}</span></div>`;
  const label = v.pile.length ? t("table.pileLabel", { n: v.pile.length, top: cardsText(v.pile.slice(-1)) }) : t("table.emptyPile");
  return (
    `<div class="center">` +
    `<div class="stock"><span class="lbl">${esc(t("table.stock"))}</span>${countHTML(v.stock, t("table.stockLabel", { n: v.stock }))}</div>` +
    `<div class="pile" role="group" aria-label="${esc(label)}"><span class="lbl">${esc(t("table.pile"))} · ${v.pile.length}</span>${cards}</div>` +
    `<div class="stock"><span class="lbl">${esc(t("table.burned"))}</span><span class="num">${v.burned}</span></div>` +
    `</div>`
  );
}

function ssCenter(game, step) {
  const v = step.view;
  let cards = v.trick.cards;
  let caption = v.trick.number ? t("ss.trick", { n: v.trick.number }) : "";
  let winner = null;
  if (!cards.length && v.tricks.length) {
    const done = v.tricks[v.tricks.length - 1];
    cards = done.cards;
    winner = done.winner;
    caption = t("ss.lastTrick", { name: nameOf(game, done.winner), points: done.points });
  }
  const plays = cards
    .map((p) => {
      const face = p.card == null ? backHTML({ size: "m", label: t("ss.unknownCard") }) : cardHTML(p.card, { size: "m" });
      return `<figure class="play${p.seat === winner ? " won" : ""}">${face}<figcaption>${esc(nameOf(game, p.seat))}</figcaption></figure>`;
    })
    .join("");
  const blind = v.phase === "pick"
    ? `<figure class="play"><span class="pair">${backHTML({ size: "m", label: t("ss.blind") })}${backHTML({ size: "m", label: t("ss.blind") })}</span><figcaption>${esc(t("ss.blind"))}</figcaption></figure>`
    : "";
  const info = [];
  if (v.leaster) info.push(esc(t("ss.leaster")));
  if (v.called) info.push(esc(t(v.unknown_call ? "ss.calledUnknown" : "ss.called", { card: cardText(v.called) })));
  if (v.alone && v.picker != null) info.push(esc(t("ss.calledAlone", { name: nameOf(game, v.picker) })));
  else if (v.jd_partner) info.push(esc(t("ss.jdCalled")));
  // SS-10.6: the stakes and who raised them
  if (v.multiplier > 1) info.push(esc(t("ss.multiplier", { n: v.multiplier })));
  if (v.cracked != null) info.push(esc(t("ss.crackedBy", { name: nameOf(game, v.cracked) })));
  if (v.recracked != null) info.push(esc(t("ss.recrackedBy", { name: nameOf(game, v.recracked) })));
  const small = (cs) => cs.map((c) => cardHTML(c, { size: "xs" })).join("");
  if (v.blind && v.phase !== "over") info.push(`${esc(t("ss.blind"))}: ${small(v.blind)}`);
  if (v.buried) info.push(`${esc(t("ss.buried"))}: ${small(v.buried)}`);
  if (v.unknown_card) info.push(`${esc(t("ss.unknownCard"))}: ${small([v.unknown_card])}`);
  return (
    `<div class="center trick" role="group" aria-label="${esc(caption || t("ss.trickArea"))}">` +
    `<span class="lbl">${esc(caption)}</span><div class="plays">${blind}${plays}</div></div>` +
    (info.length ? `<p class="info">${info.map((i) => `<span class="nowrap">${i}</span>`).join(" · ")}</p>` : "")
  );
}

// The table at the current step.
export function boardHTML(r) {
  const game = r.games[r.g];
  const step = game.steps[r.step];
  const seats = step.view.hands.map((_, s) => seatHTML(game, step, s)).join("");
  const center = game.game === "shithead" ? shCenter(game, step, r.step) : ssCenter(game, step);
  // the game's own result, drawn from the step's view (no room, no viewer: everything is open)
  const scene = { view: step.view, info: null, seat: null, name: (s) => nameOf(game, s) };
  const over = step.view.phase === "over" ? GAMES[game.game].resultHTML(scene) : "";
  // the house rules the game was played by (SH-7.5, SS-10.6), when it had some
  const o = step.view.options;
  const house = ruleChips(game.game, o).length ? rulesHTML(game.game, o) : "";
  return `<div class="felt replay-felt ${game.game}"><div class="rp-seats n${step.view.hands.length}">${seats}</div>${center}${house}${over}</div>`;
}

export function captionText(r) {
  const game = r.games[r.g];
  return t("rp.step", { n: r.step, total: game.steps.length - 1 }) + " · " + stepText(game, game.steps[r.step]);
}

// Whether the game's deal checks (deal.js: its seed against its commitment, and against the one
// this page saw before the deal, if it did; its cards against the shuffle), checked once.
// `shown`: that commitment, or null.
export function dealHTML(game, shown) {
  if (!game.deal) return ""; // a summary without its deal: checked once the game is loaded
  if (!game.check) game.check = verifyGame(game, shown);
  const c = game.check;
  const key = { ok: "rp.dealVerified", hidden: "rp.dealHidden", none: "rp.dealNone" }[c.state] || c.why;
  const cls = c.state === "ok" ? "ok" : c.state === "wrong" ? "bad" : "muted";
  const alert = c.state === "wrong" ? ' role="alert"' : "";
  return `<p class="rp-deal ${cls}" data-deal="${c.state}"${alert}>${c.state === "ok" ? "✓ " : ""}${esc(t(key))}</p>`;
}

function gameLabel(game) {
  const word = game.game === "sheepshead" ? "rp.hand" : "rp.game";
  return t(word, { n: game.g + 1 }) + " · " + t("game." + game.game);
}

// Auto-play's speeds, in steps a second.
export const SPEEDS = [0.5, 1, 2, 4];

// The play button drawn for the replay's state (auto-play on or off), without a redraw.
export function markPlaying(r) {
  const b = document.querySelector('[data-act="rp-play"]');
  if (!b) return;
  b.setAttribute("aria-pressed", r.playing ? "true" : "false");
  b.querySelector(".rp-icon").textContent = r.playing ? "❚❚" : "▷";
}

// The page: `r` the replay ({code, games, g, step, error}), `seated` whether this browser sits
// at the room's table (a way back to it), `shown` the commitments the room showed before its
// deals ("CODE:game" -> commitment).
export function render(r, seated, shown) {
  const back = seated
    ? `<a href="${esc(paths.room(r.code))}" class="btn small ghost" data-nav>${esc(t("rp.backToTable"))}</a>`
    : `<a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a>`;
  const head = `<div class="page-head"><h1>${esc(t("rp.title", { code: r.code }))}</h1>${back}</div>`;
  if (r.error) return `<div class="replay">${head}<p class="panel" role="alert">${esc(r.error)}</p></div>`;
  if (!r.games) return `<div class="replay">${head}<p class="muted">${esc(t("net.connecting"))}</p></div>`;
  const picker = r.games.length > 1
    ? `<label class="field rp-pick"><span>${esc(t("rp.choose"))}</span><select id="replay-game">${r.games
        .map((g, i) => `<option value="${i}"${i === r.g ? " selected" : ""}>${esc(gameLabel(g))}</option>`)
        .join("")}</select></label>`
    : `<p class="rp-one">${esc(gameLabel(r.games[r.g]))}</p>`;
  const deal = dealHTML(r.games[r.g], shown[`${r.code}:${r.games[r.g].g}`] || null);
  if (!r.games[r.g].steps) {
    return `<div class="replay">${head}${picker}${deal}<p class="muted">${esc(t("net.connecting"))}</p></div>`;
  }
  const total = r.games[r.g].steps.length - 1;
  const btn = (act, key, label, text, end) =>
    `<button type="button" class="btn${act === "rp-next" ? " primary" : ""}" data-act="${act}" data-key="${act}" aria-keyshortcuts="${key}" aria-label="${esc(label)}"${end ? ' aria-disabled="true"' : ""}>${text}</button>`;
  const speeds = SPEEDS.map((s) => `<option value="${s}"${s === r.speed ? " selected" : ""}>×${s}</option>`).join("");
  // the buttons and the caption stay at the bottom of the screen (sticky): on a phone the
  // table scrolls under them; the keys line only where there is a keyboard (app.css)
  return (
    `<div class="replay">${head}${picker}${deal}` +
    `<div id="replay-board">${boardHTML(r)}</div>` +
    `<div class="rp-dock">` +
    `<div class="rp-controls" role="toolbar" aria-label="${esc(t("rp.controls"))}">` +
    btn("rp-first", "Home", t("rp.first"), "«", r.step === 0) +
    btn("rp-prev", "ArrowLeft", t("rp.prev"), `◀ <span class="lbl">${esc(t("rp.prev"))}</span>`, r.step === 0) +
    `<input type="range" id="replay-range" min="0" max="${total}" value="${r.step}" aria-label="${esc(t("rp.slider"))}">` +
    btn("rp-next", "ArrowRight", t("rp.next"), `<span class="lbl">${esc(t("rp.next"))}</span> ▶`, r.step === total) +
    btn("rp-last", "End", t("rp.last"), "»", r.step === total) +
    `</div>` +
    `<div class="rp-auto">` +
    `<button type="button" class="btn small" data-act="rp-play" aria-pressed="${r.playing ? "true" : "false"}">` +
    `<span class="rp-icon" aria-hidden="true">${r.playing ? "❚❚" : "▷"}</span> ${esc(t("rp.auto"))}</button>` +
    `<label class="rp-speed"><span>${esc(t("rp.speed"))}</span><select id="replay-speed">${speeds}</select></label>` +
    `</div>` +
    `<p id="replay-caption" class="rp-caption" aria-live="polite">${esc(captionText(r))}</p>` +
    `</div>` +
    `<p class="muted rp-keys">${r.games[r.g].game === "shithead" ? `<span>${esc(t("rp.wasDown"))}</span> ` : ""}<span class="rp-keyline">${esc(t("rp.keys"))}</span></p>` +
    `</div>`
  );
}
