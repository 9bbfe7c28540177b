// An event's page (/e/CODE): who is in, the live standings, each table with a link to watch it,
// the round and the hands left; for a player, their table and the way to it; for the host, the
// commands; at the end, the final standings and each duplicate deal across its tables with its
// replays. Drawn from the server's `event` frame (docs/protocol.md): this page only shows it.
import { formHTML } from "./house.js";
import { lang, plural, t } from "./i18n.js";
import { paths } from "./routes.js";
import { esc } from "./ui.js";

const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

function standingsHTML(info, me) {
  if (!info.standings.length) return "";
  const dup = info.duplicate;
  const head =
    `<tr><th scope="col">${esc(t("lb.rank"))}</th><th scope="col">${esc(t("table.player"))}</th>` +
    `<th scope="col" class="num">${esc(t("lb.units"))}</th>` +
    (dup ? `<th scope="col" class="num">${esc(t("evt.against"))}</th><th scope="col" class="num">${esc(t("evt.matchpoints"))}</th>` : "") +
    `<th scope="col" class="num">${esc(t("lb.hands"))}</th></tr>`;
  const rows = info.standings.map((s) => {
    const mine = s.name === me;
    return (
      `<tr${mine ? ' class="mine" aria-current="true"' : ""}><td class="rank">${s.rank}</td>` +
      `<th scope="row">${esc(s.name)}${mine ? ` <span class="you-tag">(${esc(t("you"))})</span>` : ""}</th>` +
      `<td class="num">${s.units}</td>` +
      (dup ? `<td class="num">${num(s.against)}</td><td class="num">${num(s.matchpoints)}</td>` : "") +
      `<td class="num">${s.hands}</td></tr>`
    );
  });
  return `<section class="panel board" aria-labelledby="h-ev-st"><h2 id="h-ev-st">${esc(t(info.phase === "over" ? "evt.final" : "evt.standings"))}</h2>` +
    (dup ? `<p class="muted note">${esc(t("evt.dupNote"))}</p>` : "") +
    `<div class="scroll-x" tabindex="0"><table class="ev-standings"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table></div></section>`;
}

function tablesHTML(info) {
  if (info.round < 0 || info.phase === "over") return "";
  const seating = info.seatings[info.round];
  const tables = seating.tables.map((tb) => {
    const seats = tb.seats.map((s) => esc(s == null ? t("evt.bot") : s)).join(", ");
    const watch = tb.room ? `<a class="btn small ghost" href="${paths.room(tb.room)}">${esc(t("evt.watch"))}</a>` : "";
    return `<li class="ev-table"><strong>${esc(t("evt.table", { n: tb.table + 1 }))}</strong> ` +
      `<span class="muted">${esc(t("evt.played", { n: tb.played, of: info.hands }))}</span> ${watch}<div>${seats}</div></li>`;
  });
  return `<section class="panel board" aria-labelledby="h-ev-tb"><h2 id="h-ev-tb">${esc(t("evt.tables"))}</h2><ul class="ev-tables">${tables.join("")}</ul></section>`;
}

function dealsHTML(info) {
  if (!info.deals.length) return "";
  const deals = info.deals.map((d) => {
    const rows = d.tables.map((tb) => {
      const r = tb.result || {};
      const picker = r.picker != null && tb.seats[r.picker] ? tb.seats[r.picker].name || t("evt.bot") : null;
      const what = picker != null && r.picker_points != null
        ? t("evt.picked", { name: picker, points: r.picker_points })
        : t("evt.noPicker");
      const replay = tb.room ? ` <a href="${paths.replay(tb.room)}">${esc(t("evt.replay"))}</a>` : "";
      return `<li>${esc(t("evt.table", { n: tb.table + 1 }))}: ${esc(what)}${replay}</li>`;
    });
    return `<li><strong>${esc(t("evt.deal", { round: d.round + 1, hand: d.hand + 1 }))}</strong><ul>${rows.join("")}</ul></li>`;
  });
  return `<section class="panel board" aria-labelledby="h-ev-dl"><h2 id="h-ev-dl">${esc(t("evt.deals"))}</h2><ul class="ev-deals">${deals.join("")}</ul>` +
    `<p class="muted note">${esc(t("evt.seed"))} <code class="ev-seed">${esc(info.seed || "")}</code></p></section>`;
}

function youHTML(info, you, host) {
  if (!you) {
    if (info.phase !== "lobby") return "";
    return `<div class="panel ev-join"><label>${esc(t("home.name"))} ` +
      `<input id="ev-name" name="name" maxlength="24" autocomplete="nickname" required></label> ` +
      `<button class="btn" type="button" data-act="event-join">${esc(t("evt.join"))}</button></div>`;
  }
  let out = "";
  if (you.room) {
    out += `<p class="ev-you">${esc(t("evt.yourTable", { n: yourTable(info, you) }))} ` +
      `<button class="btn" data-act="event-table">${esc(t("evt.toTable"))}</button></p>`;
  }
  if (info.phase === "lobby") { // the way others join: its link, or its code
    const link = location.origin + paths.event(info.code);
    out += `<p class="ev-invite">` +
      `<button type="button" class="btn small" data-act="copy" data-text="${esc(link)}">${esc(t("lobby.copyLink"))}</button> ` +
      `<button type="button" class="btn small ghost" data-act="copy" data-text="${esc(info.code)}">${esc(t("lobby.copyCode"))}</button></p>`;
  }
  if (host && info.phase !== "over") {
    const ops = info.phase === "lobby" ? ["start"] : [info.paused ? "resume" : "pause", "end"];
    out += `<p class="ev-host">` + ops.map((op) => `<button class="btn small" data-act="event-host" data-op="${op}">${esc(t("evt.op." + op))}</button>`).join(" ") + `</p>`;
  }
  return out;
}

function yourTable(info, you) {
  const seating = info.seatings[info.round];
  const table = seating && seating.tables.find((tb) => tb.room === you.room);
  return table ? table.table + 1 : "?";
}

// The bounds the server checks (server/rooms/event_settings.py): rounds and hands a round.
const MOST = 10;
const SIZES = { shithead: [2, 3, 4, 5], sheepshead: [5] };

function countOptions(n, chosen) {
  return Array.from({ length: n }, (_, i) => i + 1)
    .map((v) => `<option value="${v}"${v === chosen ? " selected" : ""}>${v}</option>`)
    .join("");
}

function radio(name, value, label, note, checked) {
  return `<label class="choice"><input type="radio" name="${name}" value="${value}"${checked ? " checked" : ""}> ` +
    `<span>${esc(label)}</span><small>${esc(note)}</small></label>`;
}

// /e/new: a host opens an event (docs/events.md, the host's settings): the game, players a
// table, rounds, hands a round, duplicate deals, how later rounds are seated, house rules,
// rated or not, and a start time or the host's own start. `name`: the name last used.
export function newHTML({ name }) {
  const sizes = SIZES.sheepshead.map((n) => `<option value="${n}" selected>${n}</option>`).join("");
  return `<div class="event-new">
    <div class="page-head"><h1>${esc(t("evt.newTitle"))}</h1><a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a></div>
    <p class="muted">${esc(t("evt.newNote"))}</p>
    <form id="event-form" class="panel">
      <label class="field"><span>${esc(t("home.name"))}</span>
        <input id="ev-host-name" name="name" maxlength="24" autocomplete="nickname" required value="${esc(name)}" placeholder="${esc(t("home.namePlaceholder"))}"></label>
      <fieldset class="games">
        <legend>${esc(t("home.game"))}</legend>
        ${radio("game", "sheepshead", t("game.sheepshead"), t("home.sheepsheadBlurb"), true)}
        ${radio("game", "shithead", t("game.shithead"), t("home.shitheadBlurb"), false)}
      </fieldset>
      <div class="grid3">
        <label class="field"><span>${esc(t("evt.tableSize"))}</span><select id="ev-size" name="table_size" data-game="sheepshead" disabled>${sizes}</select></label>
        <label class="field"><span>${esc(t("evt.rounds"))}</span><select id="ev-rounds" name="rounds">${countOptions(MOST, 3)}</select></label>
        <label class="field"><span>${esc(t("evt.hands"))}</span><select id="ev-hands" name="hands">${countOptions(MOST, 2)}</select></label>
      </div>
      <label class="choice"><input type="checkbox" id="ev-duplicate" name="duplicate" checked> <span>${esc(t("evt.dupChoice"))}</span><small>${esc(t("evt.dupChoiceNote"))}</small></label>
      <fieldset class="games">
        <legend>${esc(t("evt.reseat"))}</legend>
        ${radio("reseat", "standings", t("evt.reseat.standings"), t("evt.reseat.standingsNote"), true)}
        ${radio("reseat", "rotation", t("evt.reseat.rotation"), t("evt.reseat.rotationNote"), false)}
      </fieldset>
      ${formHTML("sheepshead")}
      <label class="choice rated-choice"><input type="checkbox" id="ev-rated" name="rated"> <span>${esc(t("evt.ratedChoice"))}</span><small>${esc(t("evt.ratedNote"))}</small></label>
      <fieldset class="games ev-start">
        <legend>${esc(t("evt.start"))}</legend>
        ${radio("start", "host", t("evt.startHost"), t("evt.startHostNote"), true)}
        ${radio("start", "at", t("evt.startAt"), t("evt.startAtNote"), false)}
        <label class="field"><span>${esc(t("evt.startTime"))}</span><input type="datetime-local" id="ev-start-time" name="start_time" disabled></label>
      </fieldset>
      <button type="submit" class="btn primary wide">${esc(t("evt.create"))}</button>
    </form>
  </div>`;
}

// After a change in the form: the game's table sizes, the start time's field on or off.
export function syncNew(root = document) {
  const game = root.querySelector('#event-form input[name="game"]:checked')?.value || "sheepshead";
  const size = root.getElementById("ev-size");
  if (size && size.dataset.game !== game) {
    const sizes = SIZES[game];
    const keep = sizes.includes(Number(size.value)) ? Number(size.value) : sizes.includes(4) ? 4 : sizes[0];
    size.innerHTML = sizes.map((n) => `<option value="${n}"${n === keep ? " selected" : ""}>${n}</option>`).join("");
    size.disabled = sizes.length === 1;
    size.dataset.game = game;
  }
  const at = root.getElementById("ev-start-time");
  if (at) {
    at.disabled = root.querySelector('#event-form input[name="start"]:checked')?.value !== "at";
    at.required = !at.disabled;
  }
}

// The form as an `event_create` (without its id); `options`: the house rules it holds.
export function readNew(form, options) {
  const game = form.querySelector('input[name="game"]:checked')?.value || "sheepshead";
  const msg = {
    type: "event_create",
    name: form.querySelector("#ev-host-name").value.trim(),
    game,
    table_size: Number(form.querySelector("#ev-size").value) || SIZES[game][0],
    rounds: Number(form.querySelector("#ev-rounds").value),
    hands: Number(form.querySelector("#ev-hands").value),
    duplicate: form.querySelector("#ev-duplicate").checked,
    reseat: form.querySelector('input[name="reseat"]:checked')?.value || "standings",
    options,
    rated: form.querySelector("#ev-rated").checked,
  };
  const at = form.querySelector("#ev-start-time");
  if (!at.disabled && at.value) msg.start_at = new Date(at.value).getTime() / 1000; // local time
  return msg;
}

function startsAt(info) {
  const when = new Date(info.start_at * 1000);
  return t("evt.startsAt", { time: when.toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" }) });
}

// `ev`: {code, frame: the last `event` frame or null, error}.
export function render(ev) {
  const head = `<div class="page-head"><h1>${esc(t("evt.title", { code: ev.code }))}</h1><a href="${paths.home()}" class="btn small ghost">${esc(t("page.home"))}</a></div>`;
  if (!ev.frame) return `<div class="event-page">${head}<p class="muted">${esc(ev.error || t("net.connecting"))}</p></div>`;
  const { info, you } = ev.frame;
  const host = !!you && you.name === info.host;
  const game = t(info.game === "sheepshead" ? "game.sheepshead" : "game.shithead");
  const where = info.phase === "lobby"
    ? t("evt.lobby", { n: info.people.length })
    : info.phase === "over"
      ? t("evt.over")
      : t("evt.round", { round: info.round + 1, rounds: info.rounds, left: plural("evt.handsLeft", info.hands_left) });
  const people = info.people.map((p) => `<li>${esc(p.name)}${p.stand_in || p.left ? ` <span class="muted">(${esc(t("evt.bot"))})</span>` : ""}</li>`).join("");
  return (
    `<div class="event-page">${head}` +
    `<p class="ev-where" role="status">${esc(game)} · ${esc(where)}${info.duplicate ? ` · ${esc(t("evt.duplicate"))}` : ""}` +
    `${info.rated ? ` · ${esc(t("evt.rated"))}` : ""}${info.phase === "lobby" && info.start_at ? ` · ${esc(startsAt(info))}` : ""}` +
    `${info.paused ? ` · ${esc(t("evt.paused"))}` : ""}</p>` +
    youHTML(info, you, host) +
    standingsHTML(info, you ? you.name : null) +
    tablesHTML(info) +
    dealsHTML(info) +
    `<section class="panel board" aria-labelledby="h-ev-pp"><h2 id="h-ev-pp">${esc(t("evt.people"))}</h2><ul class="ev-people">${people}</ul></section>` +
    `</div>`
  );
}
