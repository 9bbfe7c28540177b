// The leaderboards: today's daily Sheepshead (your own rank highlighted) and the all-time
// tables of both games. The server ranks; this page only draws what `standings` says.
import { t } from "./i18n.js";
import { paths } from "./routes.js";
import { esc } from "./ui.js";

// Board name on the wire -> what its score counts.
export const BOARDS = [
  { board: "daily", title: "lb.daily", score: "lb.units", note: "lb.dailyNote" },
  { board: "sheepshead", title: "lb.sheepshead", score: "lb.units", note: "lb.sheepsheadNote" },
  { board: "shithead", title: "lb.shithead", score: "lb.gotOut", note: "lb.shitheadNote" },
];

function row(e, mine) {
  const you = mine ? ` <span class="you-tag">(${esc(t("you"))})</span>` : "";
  return (
    `<tr${mine ? ' class="mine" aria-current="true"' : ""}>` +
    `<td class="rank">${e.rank}</td><th scope="row">${esc(e.name)}${you}</th>` +
    `<td class="num">${e.score}</td><td class="num">${e.games}</td></tr>`
  );
}

function tableHTML(spec, data) {
  if (!data) return `<p class="muted">${esc(t("net.connecting"))}</p>`;
  if (data.error) return `<p class="muted">${esc(data.error)}</p>`;
  const you = data.you;
  const mineId = you ? you.player : null;
  const rows = data.entries.map((e) => row(e, e.player === mineId));
  // not among the best shown: your own line below them
  if (you && !data.entries.some((e) => e.player === mineId)) {
    rows.push(`<tr class="gap" aria-hidden="true"><td colspan="4">…</td></tr>`, row(you, true));
  }
  let yours = "";
  if (you) yours = `<p class="yours">${esc(t("lb.yourRank", { rank: you.rank, what: t(spec.score), score: you.score }))}</p>`;
  else if (spec.board === "daily") yours = `<p class="yours">${esc(t("lb.notYetDaily"))} <a href="${paths.home()}">${esc(t("lb.playDaily"))}</a></p>`;
  if (!data.entries.length) return `<p class="muted">${esc(t("lb.empty"))}</p>${yours}`;
  return (
    `<table><thead><tr><th scope="col">${esc(t("lb.rank"))}</th><th scope="col">${esc(t("table.player"))}</th>` +
    `<th scope="col" class="num">${esc(t(spec.score))}</th><th scope="col" class="num">${esc(t(spec.board === "shithead" ? "lb.games" : spec.board === "daily" ? "lb.matches" : "lb.hands"))}</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table>${yours}`
  );
}

// The day a daily board is for ("daily:2026-11-30"), shown in the chosen language.
function dayOf(data) {
  const m = data && /^daily:(\d{4})-(\d\d)-(\d\d)$/.exec(data.board || "");
  if (!m) return "";
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toLocaleDateString(document.documentElement.lang, { timeZone: "UTC", day: "numeric", month: "long", year: "numeric" });
}

// `boards`: board name -> its standings (or {error}), as they arrive.
export function render(boards) {
  const sections = BOARDS.map((spec) => {
    const data = boards[spec.board];
    const day = spec.board === "daily" ? dayOf(data) : "";
    return (
      `<section class="panel board${spec.board === "daily" ? " today" : ""}" data-board="${spec.board}" aria-labelledby="h-lb-${spec.board}">` +
      `<h2 id="h-lb-${spec.board}">${esc(t(spec.title))}${day ? ` <small>${esc(day)}</small>` : ""}</h2>` +
      `<p class="muted note">${esc(t(spec.note))}</p>` +
      tableHTML(spec, data) +
      `</section>`
    );
  }).join("");
  return (
    `<div class="boards">` +
    `<div class="page-head"><h1>${esc(t("lb.title"))}</h1><a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a></div>` +
    sections +
    `<p class="to-ladder"><a href="${paths.ladder()}" data-nav>${esc(t("ld.link"))}</a></p>` +
    `</div>`
  );
}
