// A player's page (/p/ID): their rating per game (the cautious number shown, with mu and
// sigma), its history as a small plot, the games played, their recent rated games with their
// replays; and on your own page, moving your identity to another device with a one-time code.
// The server rates (docs/ratings.md); this page only draws what /api/players/ID says.
import { t } from "./i18n.js";
import { paths } from "./routes.js";
import { esc } from "./ui.js";

// Each game's people's pool, then its bots' ladder's (server/store/ratings.py POOLS).
const POOLS = ["shithead", "sheepshead", "ladder:shithead", "ladder:sheepshead"];
const W = 320;
const H = 96;
const PAD = 8;

// A new page for player `id`, before anything is loaded.
export function newPlayer(id) {
  return { id, data: null, error: null, move: { code: null, expires: null, error: null } };
}

// A line of `points` (oldest first) in a small SVG, its lowest and highest values written.
export function plotSVG(points, label) {
  if (!points.length) return "";
  if (points.length === 1) points = [0, points[0]]; // from a newcomer's 0
  const lo = Math.min(...points);
  const hi = Math.max(...points);
  const span = hi - lo || 1;
  const x = (i) => PAD + (i * (W - 2 * PAD)) / (points.length - 1);
  const y = (v) => H - PAD - ((v - lo) * (H - 2 * PAD)) / span;
  const d = points.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(v).toFixed(1)}`).join(" ");
  const last = points.length - 1;
  return (
    `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)}">` +
    `<line class="axis" x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}"></line>` +
    `<path d="${d}"></path>` +
    `<circle cx="${x(last).toFixed(1)}" cy="${y(points[last]).toFixed(1)}" r="3.5"></circle>` +
    `<text x="${PAD}" y="${PAD + 4}">${hi}</text><text x="${PAD}" y="${H - PAD - 3}">${lo}</text>` +
    `</svg>`
  );
}

function signed(n) {
  return (n > 0 ? "+" : n < 0 ? "−" : "±") + Math.abs(n);
}

// A pool's name: the game's, or its ladder's.
export function poolName(pool) {
  return pool.startsWith("ladder:") ? t("ld.pool", { game: t("game." + pool.slice(7)) }) : t("game." + pool);
}

export function botName(id) {
  const level = id.slice(4);
  return t("pl.botName", { level: t("level." + level) });
}

function gameHTML(game, r, history) {
  const points = history.filter((h) => h.game === game).map((h) => h.rating).reverse();
  const detail = t("pl.detail", { mu: r.mu.toFixed(1), sigma: r.sigma.toFixed(1), games: r.games });
  return (
    `<section class="panel rating-card" data-game="${game}" aria-labelledby="h-rt-${game.replace(":", "-")}">` +
    `<h2 id="h-rt-${game.replace(":", "-")}">${esc(poolName(game))}</h2>` +
    `<p class="rating-now"><span class="big" data-rating="${r.rating}">${r.rating}</span> <span class="muted">${esc(detail)}</span></p>` +
    plotSVG(points, t("pl.plot", { game: poolName(game) })) +
    `</section>`
  );
}

function recentHTML(recent) {
  if (!recent.length) return "";
  const rows = recent.map((g) => {
    const place = t("pl.placeOf", { place: g.place, of: g.of }) + (g.left ? ` (${t("pl.left")})` : "");
    const when = new Date(g.at * 1000).toLocaleDateString(document.documentElement.lang, { day: "numeric", month: "short" });
    return (
      `<tr><td>${esc(when)}</td><td>${esc(poolName(g.game))}</td><td>${esc(place)}</td>` +
      `<td class="num delta${g.delta > 0 ? " up" : g.delta < 0 ? " down" : ""}">${esc(signed(g.delta))}</td>` +
      `<td class="num rt">${g.rating}</td>` +
      `<td><a href="${paths.replay(g.room)}" data-nav>${esc(t("pl.replay"))}</a></td></tr>`
    );
  });
  return (
    `<section class="panel board recent" aria-labelledby="h-recent"><h2 id="h-recent">${esc(t("pl.recent"))}</h2>` +
    `<table><thead><tr><th scope="col">${esc(t("pl.when"))}</th><th scope="col">${esc(t("pl.game"))}</th><th scope="col">${esc(t("pl.place"))}</th>` +
    `<th scope="col" class="num">${esc(t("pl.change"))}</th><th scope="col" class="num rt">${esc(t("pl.rating"))}</th><th scope="col"><span class="sr-only">${esc(t("pl.replay"))}</span></th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></section>`
  );
}

// Your own page: a code for another device, and a code from one.
function moveHTML(move) {
  let code = "";
  if (move.code) {
    const until = new Date(move.expires * 1000).toLocaleTimeString(document.documentElement.lang, { hour: "2-digit", minute: "2-digit" });
    code = `<p class="move-code" aria-live="polite">${esc(t("mv.code"))} <strong class="code" data-code="${esc(move.code)}">${esc(move.code)}</strong> <span class="muted">${esc(t("mv.until", { time: until }))}</span></p>`;
  }
  const error = move.error ? `<p class="error" role="alert">${esc(move.error)}</p>` : "";
  return (
    `<section class="panel move" aria-labelledby="h-move"><h2 id="h-move">${esc(t("mv.title"))}</h2>` +
    `<p class="muted">${esc(t("mv.note"))}</p>` +
    `<button type="button" class="btn" data-act="move-code">${esc(t("mv.give"))}</button>${code}` +
    `<form id="move-form" class="inline"><label class="field"><span>${esc(t("mv.enter"))}</span>` +
    `<input id="move-input" maxlength="24" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="K7Q2M9XA"></label>` +
    `<button type="submit" class="btn primary">${esc(t("mv.take"))}</button></form>${error}</section>`
  );
}

// `p`: the page's state (newPlayer); `mine`: whether it is this browser's own identity.
export function render(p, mine) {
  const d = p.data;
  const bot = p.id.startsWith("bot:");
  const robot = !bot && !!d && d.bot; // a bot identity: someone's program, rated on the ladder
  const title = bot ? botName(p.id) : d && d.name ? d.name : mine ? t("pl.mine") : t("pl.title");
  const tag = robot ? ` <span class="badge bot-tag">${esc(t("ld.bot"))}</span>` : "";
  let body;
  if (p.error) body = `<p class="muted panel">${esc(p.error)}</p>`;
  else if (!d) body = `<p class="muted panel">${esc(t("net.connecting"))}</p>`;
  else {
    const games = POOLS.filter((g) => d.ratings[g]);
    body = games.map((g) => gameHTML(g, d.ratings[g], d.history)).join("") + recentHTML(d.recent);
  }
  const you = mine ? ` <span class="you-tag">(${esc(t("you"))})</span>` : "";
  return (
    `<div class="player-page">` +
    `<div class="page-head"><h1>${esc(title)}${tag}${you}</h1><a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a></div>` +
    `<p class="muted note">${esc(bot ? t("pl.bot") : robot ? t("pl.robot") : t("pl.explain"))}</p>` +
    body +
    (mine ? moveHTML(p.move) : "") +
    `</div>`
  );
}

// The end of a rated game: each rated seat's change, linked to their page.
export function changesHTML(info, name) {
  if (!info || !info.ratings || !info.ratings.length) return "";
  const items = info.ratings.map((r) => {
    const cls = r.delta > 0 ? "up" : r.delta < 0 ? "down" : "";
    return `<li><a href="${paths.player(r.player)}" data-nav>${esc(name(r.seat))}</a> <span class="num">${r.after}</span> <span class="delta ${cls}">${esc(signed(r.delta))}</span></li>`;
  });
  return `<section class="rating-changes" aria-label="${esc(t("rt.title"))}"><h3>${esc(t("rt.title"))}</h3><ul>${items.join("")}</ul></section>`;
}
