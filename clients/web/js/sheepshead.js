// The Sheepshead table: pick or pass, bury two, call, six tricks, the hand's result.
// Every move offered comes from the view (`legal`, and `bury_from` for burying).
import { backHTML, cardHTML, cardText, countHTML } from "./cards.js";
import { ruleChips, rulesHTML } from "./house.js";
import { t } from "./i18n.js";
import { arc, bubbleHTML, dealerChip, goneBadge, heldLine, holdingTrick, lastTrickButton, spotClass, toggleLastTrick, trickShown } from "./table.js";
import { esc, pointerKey } from "./ui.js";

// The order a hand is shown in: trumps high to low, then each fail suit (display only:
// what may be played always comes from the view).
const SHOW_ORDER = "QC QS QH QD JC JS JH JD AD TD KD 9D 8D 7D AC TC KC 9C 8C 7C AS TS KS 9S 8S 7S AH TH KH 9H 8H 7H".split(" ");

export function shown(cards) {
  return [...cards].sort((a, b) => SHOW_ORDER.indexOf(a) - SHOW_ORDER.indexOf(b));
}

// Trump (SS-1.2): every queen and jack, then the diamonds; the rest are the fail suits (SS-1.3).
export const TRUMPS = SHOW_ORDER.slice(0, 14);

export function isTrump(code) {
  return TRUMPS.includes(code);
}

// A hand card's marks: trump has its own edge, and a gap with a bar opens where trump ends
// (J♣ beside A♣ must not read as a club).
function trumpMarks(cards, i) {
  const trump = isTrump(cards[i]);
  if (trump) return { extra: "trump", note: t("ss.trumpCard") };
  return i > 0 && isTrump(cards[i - 1]) ? { extra: "fail-start" } : {};
}

// The trump chart, one tap away at the table: the trumps high to low, the fail suits' order
// and what each card counts.
let chartOpen = false;

function chartButton() {
  return `<button type="button" class="btn small chart-btn" data-act="trump-chart" data-key="btn:trump-chart" aria-expanded="${chartOpen}" aria-controls="trump-chart">${esc(t(chartOpen ? "ss.chartClose" : "ss.chartOpen"))}</button>`;
}

function chartHTML() {
  if (!chartOpen) return "";
  const fail = ["AC", "TC", "KC", "9C", "8C", "7C"];
  return (
    `<section class="trump-chart" id="trump-chart" aria-label="${esc(t("ss.chartTitle"))}">` +
    `<h2>${esc(t("ss.chartTitle"))}</h2>` +
    `<p class="lbl">${esc(t("ss.chartTrumps"))}</p><p class="cards">${TRUMPS.map((c) => cardHTML(c, { size: "xs" })).join("")}</p>` +
    `<p class="lbl">${esc(t("ss.chartFail"))}</p><p class="cards">${fail.map((c) => cardHTML(c, { size: "xs" })).join("")}</p>` +
    `<p>${esc(t("ss.chartPoints"))}</p>` +
    `<p class="muted">${esc(t("ss.chartHand"))}</p>` +
    `</section>`
  );
}

function legalOf(view, kind) {
  return view.legal.filter((a) => a.kind === kind);
}

function buryFrom(view) {
  if (Array.isArray(view.bury_from)) return view.bury_from;
  const all = new Set();
  for (const a of legalOf(view, "bury")) a.cards.forEach((c) => all.add(c));
  return [...all];
}

function options(v) {
  const calls = legalOf(v, "call");
  const unknown = legalOf(v, "call_unknown");
  const unknownAces = [...new Set(unknown.map((a) => a.cards[0]))];
  return {
    v,
    pick: legalOf(v, "pick").length > 0,
    pass: legalOf(v, "pass").length > 0,
    bury: v.phase === "bury" && v.legal.length ? buryFrom(v) : [],
    calls,
    unknown,
    unknownAces,
    alone: legalOf(v, "alone").length > 0,
    jd: legalOf(v, "jd_partner").length > 0,
    crack: legalOf(v, "crack").length > 0,
    recrack: legalOf(v, "recrack").length > 0,
    noCrack: legalOf(v, "no_crack").length > 0,
    plays: legalOf(v, "play").map((a) => a.cards[0]),
  };
}

// Drawing takes a scene, the data a table shows (the app builds it from its state): `view`
// and the `events` that made it, the viewer's `seat` (null: a spectator), the room's `info`
// (null in a replay), the cards chosen (`sel`) and the choosing `mode`, `name(seat)`, and the
// Hint box (`hint`) and what follows a result (`after`) as HTML. Input takes the app.

// The partner revealed, a trick taken, the blind picked: that seat flashes once.
function flash(d, seat) {
  const kinds = ["partner_revealed", "trick", "picked"];
  return d.events.some((e) => e.seat === seat && kinds.includes(e.kind)) ? " flash" : "";
}

function badges(d, seat) {
  const v = d.view;
  const info = d.info && d.info.seats[seat];
  const out = [];
  if (v.dealer === seat) out.push(dealerChip());
  if (v.picker === seat) out.push(`<span class="badge gold">${esc(t("ss.picker"))}</span>`);
  if (v.partner === seat || (seat === d.seat && v.you_are_partner)) {
    out.push(`<span class="badge gold">${esc(t("ss.partner"))}</span>`);
  }
  // SS-10.4: who raised the stakes, at their seat
  if (v.cracked === seat) out.push(`<span class="badge bad">${esc(t("ss.crackedBadge"))}</span>`);
  if (v.recracked === seat) out.push(`<span class="badge bad">${esc(t("ss.recrackedBadge"))}</span>`);
  if (v.phase === "pick" && v.passed.includes(seat)) out.push(`<span class="badge dim">${esc(t("ss.passedBadge"))}</span>`);
  if (v.phase === "play" && v.trick.leader === seat) out.push(`<span class="badge lead">${esc(t("ss.leads"))}</span>`);
  if (info && info.kind === "bot") out.push(`<span class="badge dim level">${esc(t("level." + info.bot_level))}</span>`);
  out.push(goneBadge(info));
  return out.join("");
}

function statsHTML(v, seat) {
  return `<span class="stats"><span>${esc(t("ss.tricksN", { n: v.tricks_won[seat] }))}</span><span class="sep"> · </span><span>${esc(t("ss.pointsN", { n: v.visible_points[seat] }))}</span></span>`;
}

function opponentHTML(d, seat, seats) {
  const v = d.view;
  const turn = v.to_act.includes(seat) && v.phase !== "over";
  const nm = d.name(seat);
  return (
    `<section class="seatbox ${spotClass(seats, seat)}${turn ? " turn" : ""}${flash(d, seat)}" data-seat="${seat}" aria-label="${esc(nm)}">` +
    `<header><span class="who">${esc(nm)}</span>${badges(d, seat)}</header>` +
    bubbleHTML(seat) +
    `<div class="row">${v.hand_counts[seat] ? countHTML(v.hand_counts[seat], t("table.handCount", { name: nm, n: v.hand_counts[seat] })) : ""}${statsHTML(v, seat)}</div>` +
    `</section>`
  );
}

// The trick in the middle, each card by the seat that played it (the same columns as the arc,
// the bottom seat's card below); a trick just won stays a moment, and the last one can be
// opened again while the next is played.
function trickHTML(d, seats) {
  const v = d.view;
  const shownTrick = trickShown(v);
  const cards = shownTrick.cards;
  const done = shownTrick.done;
  const last = done != null;
  // a trick's number once it is played (not over the empty table of the pick)
  let caption = v.trick.number && v.phase === "play" ? t("ss.trick", { n: v.trick.number }) : "";
  if (done) {
    caption = t(shownTrick.opened ? "ss.lastTrickWas" : "ss.lastTrick", { name: d.name(done.winner), points: done.points });
  }
  const fresh = new Set();
  for (const e of d.events) if (e.kind === "played") fresh.add(e.seat);
  // a card played now comes in, also the one that completes a trick (not a held trick's)
  const justWon = d.events.some((e) => e.kind === "trick");
  const arriving = (seat) => fresh.has(seat) && (!last || (justWon && !shownTrick.opened));
  const winner = last ? done.winner : null;
  const plays = cards
    .map((p) => {
      const face =
        p.card == null
          ? backHTML({ size: "m", label: t("ss.unknownCard") })
          : cardHTML(p.card, { size: "m", extra: arriving(p.seat) ? "enter" : "" });
      const lead = last ? p.seat === done.leader : p.seat === v.trick.leader;
      return (
        `<figure class="play ${spotClass(seats, p.seat)}${p.seat === winner ? " won" : ""}${lead ? " led" : ""}" data-seat="${p.seat}">` +
        `${face}<figcaption>${esc(d.name(p.seat))}</figcaption></figure>`
      );
    })
    .join("");
  let blind = "";
  if (v.phase === "pick") {
    blind =
      `<figure class="play blind"><span class="pair">${backHTML({ size: "m", label: t("ss.blind") })}${backHTML({ size: "m", label: t("ss.blind") })}</span>` +
      `<figcaption>${esc(t("ss.blind"))}</figcaption></figure>`;
  }
  return (
    `<div class="center trick${last ? " last" : ""}${shownTrick.opened ? " opened" : ""}" role="group" aria-label="${esc(caption || t("ss.trickArea"))}">` +
    `<span class="lbl">${esc(caption)}${lastTrickButton(v)}</span><div class="plays n${seats.length}">${blind}${plays}</div>` +
    `</div>`
  );
}

function infoLine(d) {
  const v = d.view;
  const parts = [];
  if (v.leaster) parts.push(t("ss.leaster"));
  else if (v.picker != null && v.phase !== "pick" && v.phase !== "bury") {
    if (v.alone) parts.push(t("ss.calledAlone", { name: d.name(v.picker) }));
    else if (v.jd_partner) parts.push(t("ss.jdCalled"));
    else if (v.called) {
      parts.push(t(v.unknown_call ? "ss.calledUnknown" : "ss.called", { card: cardText(v.called) }));
    }
  }
  if (v.you_are_partner && v.partner == null) parts.push(t("ss.youPartner"));
  // SS-10.6: the stakes and who raised them, for everyone
  if (v.multiplier > 1) parts.push(t("ss.multiplier", { n: v.multiplier }));
  if (v.cracked != null) parts.push(t("ss.crackedBy", { name: d.name(v.cracked) }));
  if (v.recracked != null) parts.push(t("ss.recrackedBy", { name: d.name(v.recracked) }));
  if (d.info && d.info.match_length) {
    parts.push(t("ss.handOf", { n: Math.min(d.info.games_played + (v.phase === "over" ? 0 : 1), d.info.match_length), total: d.info.match_length }));
  }
  const secret = [];
  // the blind just picked up, named while burying (the cards are also marked in the hand)
  if (v.phase === "bury" && v.blind && v.blind.length) secret.push(`${esc(t("ss.blindWas"))}: ${v.blind.map((c) => cardHTML(c, { size: "xs" })).join("")}`);
  if (v.phase !== "over" && v.buried && v.buried.length) secret.push(`${esc(t("ss.buried"))}: ${v.buried.map((c) => cardHTML(c, { size: "xs" })).join("")}`);
  if (v.phase !== "over" && v.unknown_card) secret.push(`${esc(t("ss.unknownCard"))}: ${cardHTML(v.unknown_card, { size: "xs" })}`);
  const sep = parts.length && secret.length ? " · " : " ";
  return `<p class="info">${esc(parts.join(" · "))}${secret.length ? `${sep}<span class="secret">${secret.join(" ")}</span>` : ""}</p>`;
}

// What the table asks of the viewer now, as the prompt line says it (screen readers hear it
// when it changes: js/app.js). `d`: {view, seat, name, mode}.
export function promptText(d) {
  return prompt(d, options(d.view));
}

function prompt(d, o) {
  const v = o.v;
  if (v.phase === "over") return "";
  if (d.seat == null || !v.to_act.includes(d.seat) || !v.legal.length) {
    // what the seat to act is deciding: "Bot 5 to play" read wrong during the pick
    const key = { pick: "ss.pickTurnOf", bury: "ss.buryTurnOf", call: "ss.callTurnOf", crack: "ss.crackTurnOf" }[v.phase] || "table.turnOf";
    return v.to_act.length ? t(key, { name: d.name(v.to_act[0]) }) : "";
  }
  if (v.phase === "pick") return t("ss.pickHint");
  if (v.phase === "bury") return t("ss.buryHint");
  if (v.phase === "call" && o.jd) return t("ss.jdHint");
  if (v.phase === "call") return d.mode ? t("ss.unknownHint") : t("ss.callHint");
  if (v.phase === "crack") return o.recrack ? t("ss.recrackHint", { name: d.name(v.cracked) }) : t("ss.crackHint");
  return t(pointerKey("ss.playHint"));
}

function actionsHTML(d, o) {
  const b = [];
  const btn = (act, label, extra = "", cls = "btn") =>
    b.push(`<button type="button" class="${cls}" data-act="${act}" data-key="btn:${act}${extra ? ":" + extra : ""}"${extra ? ` data-card="${extra}"` : ""}>${esc(label)}</button>`);
  if (o.pick) btn("pick", t("ss.pick"), "", "btn primary");
  if (o.pass) btn("pass", t("ss.pass"));
  if (o.bury.length) {
    b.push(
      `<button type="button" class="btn primary" data-act="bury" data-key="btn:bury"${d.sel.length === 2 ? "" : " disabled"}>${esc(t("ss.buryN", { n: d.sel.length }))}</button>`,
    );
  }
  for (const a of o.calls) btn("call", t("ss.call", { card: cardText(a.cards[0]) }), a.cards[0], "btn primary");
  if (!d.mode) for (const ace of o.unknownAces) btn("callu", t("ss.callUnknownBtn", { card: cardText(ace) }), ace);
  if (o.jd) btn("jd_partner", t("ss.jdPartner"), "", "btn primary");
  if (o.alone) btn("alone", t("ss.alone"));
  // SS-10.4: a defender's crack, the picker's re-crack, or neither
  if (o.crack) btn("crack", t("ss.crack"), "", "btn primary");
  if (o.recrack) btn("recrack", t("ss.recrack"), "", "btn primary");
  if (o.noCrack) btn("no_crack", t("ss.noCrack"));
  const raised = d.sel.length === 1 && o.plays.includes(d.sel[0]) ? d.sel[0] : null;
  if (raised) btn("play", t("ss.playCard", { card: cardText(raised) }), raised, "btn primary");
  if (d.sel.length || d.mode) btn("cancel", t("table.cancel"), "", "btn ghost");
  return b.join("");
}

// The end of the match: every player by their total, best first (ties share a place).
function finalHTML(d) {
  const info = d.info;
  if (!info || info.status !== "over" || !info.totals) return "";
  const order = info.totals.map((total, seat) => ({ seat, total })).sort((a, b) => b.total - a.total || a.seat - b.seat);
  const rows = order
    .map((p) => {
      const place = 1 + order.filter((q) => q.total > p.total).length;
      const mine = p.seat === d.seat ? ' class="mine"' : "";
      return `<li${mine}><span class="place">${place}.</span> <span class="who">${esc(d.name(p.seat))}</span> <b>${p.total > 0 ? "+" : ""}${p.total}</b></li>`;
    })
    .join("");
  return `<section class="final" aria-labelledby="final-h"><h3 id="final-h">${esc(t("ss.finalStandings"))}</h3><ol>${rows}</ol></section>`;
}

// Who won, said to the viewer in the second person ("Your side wins the hand").
function sidesHead(d, r) {
  const won = r.picker_points >= 61;
  const name = d.name(r.picker);
  const me = d.seat;
  if (me == null) return t(won ? "ss.pickerWins" : "ss.defendersWin", { name });
  const picking = me === r.picker || (me === r.partner && !r.alone);
  if (picking) return won ? t("ss.youWin") : t(me === r.picker ? "ss.defendersBeatYou" : "ss.defendersBeatYourSide");
  return won ? t("ss.pickerBeatsYou", { name }) : t("ss.youDefend", { name });
}

export function resultHTML(d) {
  const v = d.view;
  const r = v.result;
  if (!r) return "";
  const info = d.info;
  let head;
  if (r.row === "thrown_in") {
    head = t("ss.thrownIn"); // SS-10.3 doubler: nobody picked, nobody pays
  } else if (r.leaster) {
    if (r.leaster_winner == null) head = t("ss.leasterNone");
    else head = r.leaster_winner === d.seat ? t("ss.youWinLeaster") : t("ss.leasterWinner", { name: d.name(r.leaster_winner) });
  } else {
    head = sidesHead(d, r);
  }
  const lines = [];
  if (r.row === "thrown_in") {
    lines.push(t("ss.thrownInNote"));
  } else if (r.leaster) {
    // why a player with the fewest points may not have won (rule SS-8.2)
    lines.push(t("ss.leasterRule"));
    const none = r.seat_tricks ? r.seat_tricks.map((n, s) => (n === 0 ? d.name(s) : null)).filter(Boolean) : [];
    if (none.length) lines.push(t("ss.noTrick", { names: none.join(", ") }));
  } else {
    lines.push(t("ss.sides", { picker: r.picker_points, defenders: r.defender_points, pt: r.picker_tricks, dt: r.defender_tricks }));
    if (r.partner != null && !r.alone) lines.push(t("ss.partnerWas", { name: d.name(r.partner) }));
    if (r.alone) lines.push(t("ss.calledAlone", { name: d.name(r.picker) }));
    if (r.schwarz) lines.push(t("ss.schwarz"));
    else if (r.schneider) lines.push(t("ss.schneider"));
  }
  if (r.multiplier > 1 && r.row !== "thrown_in") lines.push(t("ss.stakesWere", { n: r.multiplier }));
  const buried = r.buried && r.buried.length ? `<p>${esc(t("ss.buried"))}: ${r.buried.map((c) => cardHTML(c, { size: "xs" })).join("")}</p>` : "";
  const rows = r.units
    .map((u, s) => {
      const total = info ? info.totals[s] : u;
      return `<tr><th scope="row">${esc(d.name(s))}</th><td>${r.seat_points[s]}</td><td class="${u > 0 ? "good" : u < 0 ? "bad" : ""}">${u > 0 ? "+" : ""}${u}</td><td>${total}</td></tr>`;
    })
    .join("");
  return (
    `<section class="result" aria-label="${esc(t("table.result"))}">` +
    `<h2>${esc(head)}</h2><div class="said">${lines.map((l) => `<p>${esc(l)}</p>`).join("")}${buried}</div>` +
    `<table><thead><tr><th scope="col">${esc(t("table.player"))}</th><th scope="col">${esc(t("ss.pointsCol"))}</th><th scope="col">${esc(t("ss.units"))}</th><th scope="col">${esc(t("ss.total"))}</th></tr></thead><tbody>${rows}</tbody></table>` +
    finalHTML(d) +
    (d.after ?? "") +
    `</section>`
  );
}

export function render(d) {
  const o = options(d.view);
  const v = o.v;
  const me = d.seat;
  const others = arc(v.players || 5, me);
  // the hand's last trick is held in view a moment before the result covers the table
  const over = v.phase === "over" && !holdingTrick(v);
  let myArea = "";
  if (me == null) {
    myArea = opponentHTML(d, 0, others); // a spectator: seat 0 at the bottom
  } else if (!over) {
    const cards = shown(v.hand || []);
    const hand = cards
      .map((c, i) => {
        const fromBlind = v.phase === "bury" && (v.blind || []).includes(c);
        const marks = trumpMarks(cards, i);
        const extra = [marks.extra, fromBlind ? "from-blind" : ""].filter(Boolean).join(" ");
        return cardHTML(c, { size: "l", zone: "hand", key: "hand:" + c, ...cardState(d, o, c), extra, note: marks.note });
      })
      .join("") + underHTML(d, o);
    const turn = v.to_act.includes(me) && v.phase !== "over";
    myArea =
      `<section class="me${turn ? " turn" : ""}${flash(d, me)}" aria-label="${esc(t("table.yourPlace"))}">` +
      `<header><span class="who">${esc(d.name(me))} <span class="you">(${esc(t("you"))})</span></span>${badges(d, me)}${statsHTML(v, me)}</header>` +
      bubbleHTML(me) +
      `<div class="hand" role="group" aria-label="${esc(t("table.handLabel", { n: (v.hand || []).length }))}">${hand || `<span class="muted">${esc(t("table.noHand"))}</span>`}</div>` +
      `</section>`;
  }
  return (
    `<div class="felt sheepshead${over ? " over" : ""}">` +
    `<div class="opps n${others.length}">${others.map((s) => opponentHTML(d, s, others)).join("")}</div>` +
    (over ? "" : trickHTML(d, others) + infoLine(d) + houseLine(v) + `<div class="chart-row">${chartButton()}</div>` + chartHTML() + `<p class="prompt" id="prompt">${esc(prompt(d, o))}</p>` + heldLine(d, v.to_act)) +
    (over ? resultHTML(d) : "") +
    myArea +
    d.hint +
    `<div class="actions" role="toolbar" aria-label="${esc(t("table.actions"))}">${me != null ? actionsHTML(d, o) : ""}</div>` +
    `</div>`
  );
}

// The house rules in force (SS-10.6) on the felt, only when the table plays some.
function houseLine(v) {
  return ruleChips("sheepshead", v.options).length ? rulesHTML("sheepshead", v.options) : "";
}

// The picker's unknown card (rule SS-4.3), set aside out of the hand: drawn at the end of the
// hand, marked, and playable when the called suit is led (SS-6.4). Without it a picker whose
// only legal play is that card had nothing to press.
function underHTML(d, o) {
  const v = o.v;
  if (!v.unknown_card || v.phase !== "play") return "";
  // once played it lies face down in a trick
  const down = (t) => t.cards.some((p) => p.seat === d.seat && p.face_down);
  if (down(v.trick) || v.tricks.some(down)) return "";
  const code = v.unknown_card;
  return cardHTML(code, { size: "l", zone: "hand", key: "hand:" + code, ...cardState(d, o, code), extra: "unknown-card" });
}

function cardState(d, o, code) {
  if (o.bury.length) {
    return o.bury.includes(code) ? { act: "card", playable: true, selected: d.sel.includes(code), pressable: true } : {};
  }
  if (d.mode) {
    const ok = o.unknown.some((a) => a.cards[0] === d.mode && a.cards[1] === code);
    return ok ? { act: "card", playable: true } : {};
  }
  if (o.plays.includes(code)) return { act: "card", playable: true, selected: d.sel.includes(code), pressable: true };
  return {};
}

export function onAction(app, el) {
  const o = options(app.state.view);
  const act = el.dataset.act;
  switch (act) {
    case "pick":
    case "pass":
    case "alone":
    case "jd_partner":
    case "crack":
    case "recrack":
    case "no_crack":
      return app.act({ kind: act });
    case "call":
      return app.act({ kind: "call", cards: [el.dataset.card] });
    case "callu": {
      const ace = el.dataset.card;
      const choices = o.unknown.filter((a) => a.cards[0] === ace);
      if (choices.length === 1) return app.act(choices[0]);
      app.mode = ace;
      app.sel = [];
      return app.redraw();
    }
    case "cancel":
      app.sel = [];
      app.mode = null;
      return app.redraw();
    case "bury":
      if (app.sel.length === 2) return app.act({ kind: "bury", cards: [...app.sel] });
      return;
    case "play":
      if (app.sel.length === 1 && o.plays.includes(app.sel[0])) return app.act({ kind: "play", cards: [app.sel[0]] });
      return;
    case "card":
      return chooseCard(app, o, el.dataset.card);
    case "last-trick":
      toggleLastTrick();
      return app.redraw();
    case "trump-chart":
      chartOpen = !chartOpen;
      return app.redraw();
  }
}

function chooseCard(app, o, code) {
  if (o.bury.length) {
    if (app.sel.includes(code)) app.sel = app.sel.filter((c) => c !== code);
    else if (o.bury.includes(code)) app.sel = [...app.sel, code].slice(-2);
    return app.redraw();
  }
  if (app.mode) {
    const choice = o.unknown.find((a) => a.cards[0] === app.mode && a.cards[1] === code);
    if (choice) return app.act(choice);
    return;
  }
  // a card tapped once is raised; tapped again (or Play) it is played, as in Shithead
  if (!o.plays.includes(code)) return;
  if (app.sel.length === 1 && app.sel[0] === code) return app.act({ kind: "play", cards: [code] });
  app.sel = [code];
  return app.redraw();
}

export function onEnter(app, el) {
  const o = options(app.state.view);
  if (el.dataset.act === "card" && o.bury.length && app.sel.length === 1 && !app.sel.includes(el.dataset.card)) {
    app.sel = [...app.sel, el.dataset.card];
    app.act({ kind: "bury", cards: [...app.sel] });
    return true;
  }
  // Enter (or a double click) on a card that may be played plays it at once
  if (el.dataset.act === "card" && !o.bury.length && !app.mode && o.plays.includes(el.dataset.card)) {
    app.act({ kind: "play", cards: [el.dataset.card] });
    return true;
  }
  return false;
}

export function retryStale() {
  return false;
}

export function eventText(e, nameOf) {
  const who = e.seat != null ? nameOf(e.seat) : "";
  switch (e.kind) {
    case "passed":
      return t("ev.passed", { name: who });
    case "leaster":
      return t("ev.leaster");
    case "picked":
      return t("ev.picked", { name: who });
    case "buried":
      return t("ev.buried", { name: who });
    case "called":
      if (e.alone) return t("ev.alone", { name: who });
      // SS-10.2: the jack's partner names no card
      if (!e.cards || !e.cards.length) return t("ev.calledJack", { name: who });
      return t(e.unknown ? "ev.calledUnknown" : "ev.called", { name: who, card: cardText((e.cards || ["??"])[0]) });
    case "played":
      return e.face_down ? t("ev.playedDown", { name: who }) : t("ev.played", { name: who, cards: cardText(e.cards[0]) });
    case "partner_revealed":
      return t((e.cards || [])[0] === "JD" ? "ev.partnerJack" : "ev.partner", { name: who });
    case "thrown_in":
      return t("ev.thrownIn");
    case "cracked":
      return t("ev.cracked", { name: who });
    case "recracked":
      return t("ev.recracked", { name: who });
    case "no_crack":
      return t("ev.noCrack", { name: who });
    case "trick":
      return t("ev.trick", { name: who, points: e.points });
    case "hand_over":
      return t("ev.handOver");
    default:
      return "";
  }
}
