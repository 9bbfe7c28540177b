// The home screen leads with the games: your name, Play now (a table with other people, or the
// wait for one), today's Sheepshead (always the book's rules, SS-10.1), a practice game; then
// friends: join or watch by code, a new room (its form, with the house rules, folded behind one
// button until asked for: `/#new` opens it unfolded); then the rules.
import { formHTML } from "./house.js";
import { lang, t } from "./i18n.js";
import { paths } from "./routes.js";
import { esc } from "./ui.js";

const TIMERS = [0, 15, 30, 60, 120];
const BANKS = [0, 30, 60, 120]; // each seat's reserve for a match, once a turn runs over

// `prefs`: the last room opened; `code`: a share link's room (or ""); `session`: the room to
// go back to; `name`: the name last used; `open`: the new room's form unfolded.
export function render({ prefs, code, session, name, queue, open }) {
  const timerOpts = TIMERS.map(
    (s) => `<option value="${s}"${prefs.timer === s ? " selected" : ""}>${esc(s ? t("timer.seconds", { n: s }) : t("timer.none"))}</option>`,
  ).join("");
  const bankOpts = BANKS.map(
    (s) => `<option value="${s}"${(prefs.bank || 0) === s ? " selected" : ""}>${esc(s ? t("bank.seconds", { n: s }) : t("bank.none"))}</option>`,
  ).join("");
  const levelOpts = ["random", "basic", "strong", "expert"]
    .map((l) => `<option value="${l}"${prefs.level === l ? " selected" : ""}>${esc(t("level." + l))}</option>`)
    .join("");
  const seatOpts = [2, 3, 4, 5]
    .map((n) => `<option value="${n}"${prefs.seats === n ? " selected" : ""}>${n}</option>`)
    .join("");
  const resume = session
    ? `<button type="button" class="btn primary wide" data-act="resume">${esc(t("home.resume", { code: session.room }))}</button>`
    : "";
  const invited = code
    ? `<p class="invite">${esc(t("home.invited", { code }))}</p>`
    : "";
  return `
  <div class="home">
    <section class="hero">
      <h1>${esc(t("app.title"))}</h1>
      <p>${esc(t("app.tagline"))}</p>
      ${resume}
    </section>
    <section class="panel" aria-labelledby="h-you">
      <h2 id="h-you">${esc(t("home.you"))}</h2>
      <label class="field"><span>${esc(t("home.name"))}</span>
        <input id="name" name="name" maxlength="24" autocomplete="nickname" value="${esc(name)}" placeholder="${esc(t("home.namePlaceholder"))}"></label>
    </section>
    <section class="panel play-now" id="play-now" aria-labelledby="h-play">${playNowHTML(queue)}</section>
    <section class="panel daily" aria-labelledby="h-daily">
      <h2 id="h-daily">${esc(t("home.dailyTitle"))}</h2>
      <p>${esc(t("home.dailyNote"))}</p>
      <p class="muted">${esc(t("house.daily"))}</p>
      <div id="rank-note" aria-live="polite"></div>
      <button type="button" class="btn wide" data-act="daily">${esc(t("home.daily"))}</button>
      <p class="to-boards"><a href="${paths.leaderboard()}" data-nav>${esc(t("lb.link"))}</a> · <a href="${paths.ladder()}" data-nav>${esc(t("ld.link"))}</a> · <button type="button" class="btn small ghost" data-act="my-page">${esc(t("pl.mine"))}</button></p>
    </section>
    <section class="panel learn" aria-labelledby="h-learn">
      <h2 id="h-learn">${esc(t("home.learnTitle"))}</h2>
      <p>${esc(t("home.learnNote"))}</p>
      <div class="buttons">
        <button type="button" class="btn" data-act="practice" data-game="shithead">${esc(t("home.practiceSh"))}</button>
        <button type="button" class="btn" data-act="practice" data-game="sheepshead">${esc(t("home.practiceSs"))}</button>
      </div>
    </section>
    <section class="panel${code ? " first" : ""}" aria-labelledby="h-join">
      <h2 id="h-join">${esc(t("home.join"))}</h2>
      ${invited}
      <form id="join-form" class="inline">
        <label class="field"><span>${esc(t("home.code"))}</span>
          <input id="code" name="code" maxlength="12" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${esc(code)}" placeholder="K7Q2M"></label>
        <div class="buttons">
          <button type="submit" class="btn primary" data-act="join">${esc(t("home.joinBtn"))}</button>
          <button type="button" class="btn" data-act="watch">${esc(t("home.watchBtn"))}</button>
        </div>
      </form>
      <p id="join-note" class="join-note" role="alert" hidden></p>
    </section>
    <section class="panel new-room${open ? " open" : ""}" aria-labelledby="h-new">
      <h2 id="h-new"><button type="button" class="btn wide fold" data-act="fold-new" aria-expanded="${open ? "true" : "false"}" aria-controls="create-form">${esc(t("home.new"))}</button></h2>
      <form id="create-form"${open ? "" : " hidden"}>
        <fieldset class="games">
          <legend>${esc(t("home.game"))}</legend>
          <label class="choice"><input type="radio" name="game" value="shithead"${prefs.game !== "sheepshead" ? " checked" : ""}> <span>${esc(t("game.shithead"))}</span><small>${esc(t("home.shitheadBlurb"))}</small></label>
          <label class="choice"><input type="radio" name="game" value="sheepshead"${prefs.game === "sheepshead" ? " checked" : ""}> <span>${esc(t("game.sheepshead"))}</span><small>${esc(t("home.sheepsheadBlurb"))}</small></label>
        </fieldset>
        <div class="grid3">
          <label class="field"><span>${esc(t("home.seats"))}</span><select id="seats" name="seats"${prefs.game === "sheepshead" ? " disabled" : ""}>${seatOpts}</select></label>
          <label class="field"><span>${esc(t("home.botLevel"))}</span><select id="level" name="level">${levelOpts}</select></label>
          <label class="field"><span>${esc(t("home.timer"))}</span><select id="timer" name="timer">${timerOpts}</select></label>
          <label class="field"><span>${esc(t("home.bank"))}</span><select id="bank" name="bank" title="${esc(t("bank.note"))}">${bankOpts}</select></label>
        </div>
        <label class="choice hints-choice"><input type="checkbox" id="hints" name="hints"${prefs.hints ? " checked" : ""}> <span>${esc(t("home.hints"))}</span><small>${esc(t("home.hintsNote"))}</small></label>
        <label class="choice rated-choice"><input type="checkbox" id="rated" name="rated"${prefs.rated ? " checked" : ""}> <span>${esc(t("home.rated"))}</span><small>${esc(t("home.ratedNote"))}</small></label>
        ${formHTML(prefs.game === "sheepshead" ? "sheepshead" : "shithead")}
        <button type="submit" class="btn primary wide" data-act="create">${esc(t("home.create"))}</button>
      </form>
      <p class="ev-open"><a href="${paths.newEvent()}" data-nav>${esc(t("evt.newLink"))}</a></p>
    </section>
    <section class="panel" aria-labelledby="h-rules">
      <h2 id="h-rules">${esc(t("home.rules"))}</h2>
      <ul class="links">
        <li><a href="${paths.rules(lang(), "shithead")}">${esc(t("rules.shithead"))}</a></li>
        <li><a href="${paths.rules(lang(), "sheepshead")}">${esc(t("rules.sheepshead"))}</a></li>
      </ul>
    </section>
  </div>`;
}

// Fold the new room's form out (`open`) or away: the button says which (aria-expanded).
export function foldNew(open) {
  const form = document.getElementById("create-form");
  const button = document.querySelector('[data-act="fold-new"]');
  if (!form || !button) return;
  form.hidden = !open;
  button.setAttribute("aria-expanded", open ? "true" : "false");
  button.closest("section").classList.toggle("open", open);
}

const PLAY_GAMES = ["shithead", "sheepshead"];

// Play now: a button per game, or, while waiting (`queue`: the last `queued` and when it came,
// js/app.js), how many wait, for how long, when bots fill the table, and Cancel.
export function playNowHTML(queue, now = Date.now()) {
  if (!queue) {
    const buttons = PLAY_GAMES.map(
      (g) => `<button type="button" class="btn primary" data-act="play-now" data-game="${g}" data-key="play-${g}">${esc(t("home.playNow", { game: t("game." + g) }))}</button>`,
    ).join("");
    return `<h2 id="h-play">${esc(t("home.playNowTitle"))}</h2>
      <p class="muted">${esc(t("home.playNowNote"))}</p>
      <div class="buttons">${buttons}</div>`;
  }
  const title = `<h2 id="h-play">${esc(t("queue.title", { game: t("game." + queue.game) }))}</h2>`;
  if (queue.found) return `${title}<p class="queue-found" role="status">${esc(t("queue.found"))}</p>`;
  const since = Math.max(0, (now - queue.at) / 1000);
  const waited = Math.floor(queue.waited + since);
  const fill = Math.max(0, Math.ceil(queue.fill_in - since));
  return `${title}
      <p class="queue-count" role="status">${esc(t("queue.waiting", { n: queue.waiting }))}</p>
      <p class="queue-time"><span class="spinner" aria-hidden="true"></span>${esc(t("queue.waited", { n: waited }))}</p>
      <p class="muted queue-fill">${esc(t("queue.fill", { n: fill }))}</p>
      <button type="button" class="btn wide" data-act="queue-cancel" data-key="queue-cancel">${esc(t("queue.cancel"))}</button>`;
}
