// The bots' ladder (/ladder): for each game, the bot identities and the house levels (its
// anchors) by rating, with its uncertainty and the games played, and the ladder's last games
// with their replays. The server rates (docs/ratings.md); this page draws /api/ladder.
import { t } from "./i18n.js";
import { paths } from "./routes.js";
import { esc } from "./ui.js";

export const GAMES = ["shithead", "sheepshead"];

// A new page, before anything is loaded: game -> its answer (or {error}).
export function newLadder() {
  return { games: {} };
}

function signed(n) {
  return (n > 0 ? "+" : n < 0 ? "−" : "±") + Math.abs(n);
}

// A house level by its level's name (its badge says it is the house's; a note such as the
// expert's thinking time is left to its page), a bot identity as it played.
function levelName(level) {
  return t("level." + level).replace(/\s*\(.*\)$/, "");
}

function nameOf(r) {
  return r.anchor ? levelName(r.anchor) : r.name || "?";
}

function rowHTML(r, i) {
  const tag = r.anchor
    ? ` <span class="badge anchor">${esc(t("ld.anchor"))}</span>`
    : ` <span class="badge bot-tag">${esc(t("ld.bot"))}</span>`;
  return (
    `<tr data-player="${esc(r.player)}"${r.anchor ? ' class="anchor"' : ""}>` +
    `<td class="rank">${i + 1}</td>` +
    `<th scope="row"><a href="${paths.player(r.player)}" data-nav>${esc(nameOf(r))}</a>${tag}</th>` +
    `<td class="num rt"><span class="rating">${r.rating}</span> <span class="sigma">±${(40 * r.sigma).toFixed(0)}</span></td>` +
    `<td class="num">${r.games}</td></tr>`
  );
}

function gamesHTML(game, games) {
  if (!games.length) return "";
  const items = games.map((g) => {
    const seats = [...g.seats].sort((a, b) => a.place - b.place);
    const who = seats
      .map((s) => `${s.place}. ${esc(s.player.startsWith("bot:") ? levelName(s.player.slice(4)) : s.name)} <span class="delta${s.delta > 0 ? " up" : s.delta < 0 ? " down" : ""}">${esc(signed(s.delta))}</span>`)
      .join(" · ");
    const when = new Date(g.at * 1000).toLocaleString(document.documentElement.lang, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
    return `<li><span class="muted">${esc(when)}</span> ${who} <a href="${paths.replay(g.room)}" data-nav>${esc(t("pl.replay"))}</a></li>`;
  });
  return `<h3 id="h-ldg-${game}">${esc(t("ld.recent"))}</h3><ul class="ladder-games" aria-labelledby="h-ldg-${game}">${items.join("")}</ul>`;
}

function sectionHTML(game, data) {
  let body;
  if (!data) body = `<p class="muted">${esc(t("net.connecting"))}</p>`;
  else if (data.error) body = `<p class="muted">${esc(data.error)}</p>`;
  else {
    body =
      `<p class="muted note">${esc(t("ld.count", { players: data.players }))}</p>` +
      `<table><thead><tr><th scope="col"><abbr title="${esc(t("lb.rank"))}">#</abbr></th><th scope="col">${esc(t("ld.bot"))}</th>` +
      `<th scope="col" class="num rt">${esc(t("pl.rating"))} <abbr class="sigma" title="${esc(t("ld.sigma"))}">±</abbr></th>` +
      `<th scope="col" class="num">${esc(t("ld.games"))}</th></tr></thead>` +
      `<tbody>${data.ladder.map(rowHTML).join("")}</tbody></table>` +
      gamesHTML(game, data.games);
  }
  return `<section class="panel board ladder" data-game="${game}" aria-labelledby="h-ld-${game}"><h2 id="h-ld-${game}">${esc(t("game." + game))}</h2>${body}</section>`;
}

// `l`: the page's state (newLadder).
export function render(l) {
  return (
    `<div class="ladder-page">` +
    `<div class="page-head"><h1>${esc(t("ld.title"))}</h1><a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a></div>` +
    `<p class="muted note">${esc(t("ld.explain"))}</p>` +
    GAMES.map((g) => sectionHTML(g, l.games[g])).join("") +
    `<p class="muted note">${esc(t("ld.write"))} <code>cardroom bot --ladder shithead</code></p>` +
    `</div>`
  );
}
