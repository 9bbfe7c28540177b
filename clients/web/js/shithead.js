// The Shithead table. Every move offered comes from the view: `legal` (swaps, ready, pick-ups,
// flips) and `play_sets` (the cards of one rank that may be played now, any subset of one set).
import { backHTML, cardHTML, cardsText, countHTML } from "./cards.js";
import { rulesHTML, ruleChips } from "./house.js";
import { ordinal, t } from "./i18n.js";
import { arc, bubbleHTML, dealerChip, goneBadge, heldLine, spotClass } from "./table.js";
import { esc, pointerKey } from "./ui.js";

// play_sets from the view; a server without it (older) still lists one play per rank.
function playSets(view) {
  if (Array.isArray(view.play_sets)) return view.play_sets;
  const byRank = new Map();
  for (const a of view.legal) {
    if (a.kind !== "play") continue;
    for (const c of a.cards) {
      const set = byRank.get(c[0]) || new Set();
      set.add(c);
      byRank.set(c[0], set);
    }
  }
  return [...byRank.values()].map((s) => [...s]);
}

function setOf(sets, code) {
  return sets.find((s) => s.includes(code)) || null;
}

function legalOf(view, kind) {
  return view.legal.filter((a) => a.kind === kind);
}

function sameAction(a, b) {
  return (
    a.kind === b.kind &&
    (a.slot ?? null) === (b.slot ?? null) &&
    (a.cards || []).join() === (b.cards || []).join()
  );
}

export function isLegal(view, action) {
  return view.legal.some((a) => sameAction(a, action));
}

// What the seat can do right now, derived from the view only.
function options(v) {
  const sets = v.phase === "play" ? playSets(v) : [];
  const swaps = legalOf(v, "swap");
  const pickups = legalOf(v, "pickup");
  return {
    v,
    sets,
    swaps,
    pickups,
    flips: legalOf(v, "flip"),
    ready: legalOf(v, "ready").length > 0,
    plainPickup: pickups.some((a) => !a.cards || a.cards.length === 0),
    giveUp: pickups.filter((a) => a.cards && a.cards.length === 1).map((a) => a.cards[0]),
  };
}

// --------------------------------------------------------------------------- drawing

// Drawing takes a scene, the data a table shows (the app builds it from its state): `view`
// and the `events` that made it, the viewer's `seat` (null: a spectator), the room's `info`
// (null in a replay), the cards chosen (`sel`) and the choosing `mode`, `name(seat)`, and the
// Hint box (`hint`) and what follows a result (`after`) as HTML. Input takes the app.

// A seat that just burned, picked up or went out flashes once (never blocks anything).
function flash(d, seat) {
  const kinds = ["burned", "picked_up", "flipped", "went_out"];
  return d.events.some((e) => e.seat === seat && kinds.includes(e.kind)) ? " flash" : "";
}

function badges(d, seat) {
  const v = d.view;
  const s = v.seats[seat];
  const info = d.info && d.info.seats[seat];
  const out = [];
  if (v.dealer === seat) out.push(dealerChip());
  if (v.phase === "swap" && s.ready) out.push(`<span class="badge ok">${esc(t("table.readyBadge"))}</span>`);
  // a narrow seat (a phone) says it short, "2nd out": the whole words did not fit its badge
  if (s.out) {
    const long = `<span class="long">${esc(t("table.out", { place: s.place }))}</span>`;
    out.push(`<span class="badge ok">${long}<span class="short">${esc(t("table.outShort", { place: ordinal(s.place) }))}</span></span>`);
  }
  if (v.outcome && v.outcome.loser === seat) out.push(`<span class="badge bad">${esc(t("sh.loserBadge"))}</span>`);
  if (info && info.kind === "bot") out.push(`<span class="badge dim level">${esc(t("level." + info.bot_level))}</span>`);
  out.push(goneBadge(info));
  return out.join("");
}

// Cards seen going into a hand (picked up from the pile): a labelled line of text, not card
// faces (they looked like more face-up cards), at most KNOWN_SHOWN of them and "+n".
const KNOWN_SHOWN = 4;

function knownHTML(s) {
  const known = s.known_in_hand;
  if (!known.length) return "";
  const more = known.length > KNOWN_SHOWN ? ` +${known.length - KNOWN_SHOWN}` : "";
  return (
    `<p class="known" title="${esc(t("sh.known"))}"><span class="lbl" aria-hidden="true">${esc(t("sh.knownShort"))}</span> ` +
    `<span aria-hidden="true">${esc(cardsText(known.slice(0, KNOWN_SHOWN)))}${more}</span>` +
    `<span class="sr-only">${esc(t("sh.known"))}: ${esc(cardsText(known))}</span></p>`
  );
}

function opponentHTML(d, seat, seats) {
  const v = d.view;
  const s = v.seats[seat];
  const turn = v.to_act.includes(seat) && v.phase === "play";
  const nm = d.name(seat);
  const known = knownHTML(s);
  return (
    `<section class="seatbox ${spotClass(seats, seat)}${turn ? " turn" : ""}${s.out ? " done" : ""}${flash(d, seat)}" data-seat="${seat}" aria-label="${esc(nm)}">` +
    `<header><span class="who">${esc(nm)}</span>${badges(d, seat)}</header>` +
    bubbleHTML(seat) +
    // a seat that is out holds nothing: its name and place are enough
    (s.out ? "" : `<div class="row">${countHTML(s.hand_count, t("table.handCount", { name: nm, n: s.hand_count }))}${tableCardsHTML(s, "s")}</div>` + known) +
    `</section>`
  );
}

// Face-up cards lying on the face-down ones, as on the table: one stack per slot.
function tableCardsHTML(s, size, mine = null) {
  const n = Math.max(s.face_down.length, s.face_up.length);
  const stacks = [];
  for (let slot = 0; slot < n; slot++) {
    const up = s.face_up[slot];
    let down = "";
    if (s.face_down[slot]) {
      const flip = mine && mine.flips.some((a) => a.slot === slot);
      down = flip
        ? backHTML({ size, act: "flip", slot, playable: true, key: "down:" + slot, label: t("sh.flipSlot", { n: slot + 1 }) })
        : backHTML({ size, label: t("table.faceDownN", { n: slot + 1 }) });
    } else if (!up) {
      down = `<span class="card slot-empty size-${size}" aria-hidden="true"></span>`;
    }
    const face = up
      ? mine
        ? cardHTML(up, { size, zone: "up", key: "up:" + up, ...mine.cardState(up, "up") })
        : cardHTML(up, { size })
      : "";
    stacks.push(`<span class="slot sz-${size}${up ? " has-up" : ""}${s.face_down[slot] ? " has-down" : ""}">${down}${face}</span>`);
  }
  return `<div class="tablecards" role="group" aria-label="${esc(t("table.tableCards"))}">${stacks.join("")}</div>`;
}

function pileHTML(d) {
  const v = d.view;
  const fresh = new Set();
  for (const e of d.events) if (e.kind === "played" && e.cards) e.cards.forEach((c) => fresh.add(c));
  const burnedNow = d.events.some((e) => e.kind === "burned");
  const pickedNow = d.events.some((e) => e.kind === "picked_up" || e.kind === "flipped");
  const top = v.pile.slice(-5);
  const cards = top.length
    ? top.map((c) => cardHTML(c, { size: "m", extra: fresh.has(c) ? "enter" : "" })).join("")
    : `<span class="card empty size-m">${esc(burnedNow ? t("sh.burnedShort") : t("table.emptyPile"))}</span>`;
  const topText = v.pile.length ? cardsText(v.pile.slice(-1)) : "";
  const label = v.pile.length
    ? t("table.pileLabel", { n: v.pile.length, top: topText })
    : t("table.emptyPile");
  const fx = burnedNow ? " burn" : pickedNow ? " taken" : "";
  return (
    `<div class="center">` +
    `<div class="stock"><span class="lbl">${esc(t("table.stock"))}</span>${countHTML(v.stock, t("table.stockLabel", { n: v.stock }))}</div>` +
    `<div class="pile${fx}" role="group" aria-label="${esc(label)}"><span class="lbl">${esc(t("table.pile"))} · ${v.pile.length}</span><div class="fan">${cards}</div></div>` +
    `<div class="stock"><span class="lbl">${esc(t("table.burned"))}</span><span class="num">${v.burned}</span></div>` +
    // its own line under the row: beside the pile it pushed the burned pile off the row
    toBeatHTML(v) +
    `</div>`
  );
}

// Under a house rule the card to beat may not be the top card (a glass 3 on it, SH-7.4), and a
// 7 asks for a lower card (SH-7.2): said under the pile. The book's game needs no such line.
function toBeatHTML(v) {
  const o = v.options || {};
  if (!v.to_beat || !(o.three_invisible || o.seven_lower)) return "";
  const lower = o.seven_lower && v.to_beat[0] === "7";
  const glass = o.three_invisible && v.to_beat !== v.pile[v.pile.length - 1];
  if (!lower && !glass) return "";
  const text = lower ? t("sh.toBeatLower", { card: cardsText([v.to_beat]) }) : t("sh.toBeat", { card: cardsText([v.to_beat]) });
  return `<span class="to-beat">${esc(text)}</span>`;
}

// What the table asks of the viewer now, as the prompt line says it (screen readers hear it
// when it changes: js/app.js). `d`: {view, seat, name, mode}.
export function promptText(d) {
  return prompt(d, options(d.view));
}

function prompt(d, o) {
  const v = o.v;
  if (v.phase === "over") return "";
  if (d.seat == null) return v.turn != null ? t("table.turnOf", { name: d.name(v.turn) }) : t("sh.swapWatch");
  if (v.phase === "swap") return o.ready ? t("sh.swapHint") : t("sh.waitOthers");
  if (!v.to_act.includes(d.seat)) return t("table.turnOf", { name: d.name(v.turn) });
  if (d.mode === "giveup") return t("sh.giveUpHint");
  if (o.flips.length) return t("sh.flipHint");
  if (!o.sets.length && o.pickups.length) return t("sh.mustPickup");
  return t(pointerKey(o.pickups.length ? "sh.playHint" : "sh.playHintEmpty")); // an empty pile: nothing to pick up
}

function actionsHTML(d, o) {
  const v = o.v;
  const b = [];
  if (d.seat == null || v.phase === "over") return "";
  if (v.phase === "swap" && o.ready) {
    b.push(`<button type="button" class="btn primary" data-act="ready" data-key="btn:ready" aria-keyshortcuts="r">${esc(t("table.ready"))}</button>`);
  }
  if (o.sets.length && d.mode !== "giveup") {
    const n = d.sel.length;
    b.push(
      `<button type="button" class="btn primary" data-act="play" data-key="btn:play" aria-keyshortcuts="p"${n ? "" : " disabled"}>` +
        `${esc(n > 1 ? t("table.playN", { n }) : t("table.play"))}</button>`,
    );
  }
  if (o.pickups.length) {
    b.push(`<button type="button" class="btn" data-act="pickup" data-key="btn:pickup" aria-keyshortcuts="u">${esc(t("table.pickup"))}</button>`);
  }
  if (d.sel.length || d.mode) {
    b.push(`<button type="button" class="btn ghost" data-act="cancel" data-key="btn:cancel">${esc(t("table.cancel"))}</button>`);
  }
  return b.join("");
}

// The game's end said to the viewer: "You lost this game", "You got out: Bob lost this game".
function loserHead(d, loser) {
  if (d.seat == null) return t("sh.loser", { name: d.name(loser) });
  return loser === d.seat ? t("sh.youLost") : t("sh.youGotOut", { name: d.name(loser) });
}

export function resultHTML(d) {
  const v = d.view;
  const info = d.info;
  if (!v.outcome) return "";
  const loser = v.outcome.loser;
  const rows = v.seats
    .map((_, s) => {
      const place = v.outcome.out_order.indexOf(s);
      return (
        `<tr${s === loser ? ' class="bad"' : ""}><th scope="row">${esc(d.name(s))}</th>` +
        `<td>${place >= 0 ? place + 1 : "–"}</td><td>${info ? info.totals[s] ?? 0 : v.outcome.losses[s]}</td></tr>`
      );
    })
    .join("");
  return (
    `<section class="result" aria-label="${esc(t("table.result"))}">` +
    `<h2>${esc(loserHead(d, loser))}</h2>` +
    // SH-6.6: a game that reached its length cap says so
    (v.outcome.ended === "length_cap" ? `<p class="ended">${esc(t("sh.lengthCap"))}</p>` : "") +
    `<table><thead><tr><th scope="col">${esc(t("table.player"))}</th><th scope="col">${esc(t("sh.place"))}</th><th scope="col">${esc(t("sh.losses"))}</th></tr></thead><tbody>${rows}</tbody></table>` +
    (d.after ?? "") +
    `</section>`
  );
}

export function render(d) {
  const o = options(d.view);
  const v = o.v;
  const me = d.seat;
  const n = v.players;
  const others = arc(n, me);
  const over = v.phase === "over";
  const mine = me == null ? null : mineState(d, o);
  let myArea = "";
  if (me == null) {
    myArea = opponentHTML(d, 0, others); // a spectator: seat 0 at the bottom
  } else if (mine && !over) {
    const s = v.seats[me];
    const hand = (v.hand || [])
      .map((c) => cardHTML(c, { size: "l", zone: "hand", key: "hand:" + c, ...mine.cardState(c, "hand") }))
      .join("");
    const turn = v.to_act.includes(me);
    myArea =
      `<section class="me${turn ? " turn" : ""}${flash(d, me)}" aria-label="${esc(t("table.yourPlace"))}">` +
      `<header><span class="who">${esc(d.name(me))} <span class="you">(${esc(t("you"))})</span></span>${badges(d, me)}</header>` +
      bubbleHTML(me) +
      // the cards on the table beside the hand while both fit, the hand on its own row after
      `<div class="mine${(v.hand || []).length > 4 ? " wide" : ""}">` +
      tableCardsHTML(s, "m", mine) +
      `<div class="hand" role="group" aria-label="${esc(t("table.handLabel", { n: (v.hand || []).length }))}">${hand || `<span class="muted">${esc(t("table.noHand"))}</span>`}</div>` +
      `</div>` +
      `</section>`;
  }
  return (
    `<div class="felt shithead${over ? " over" : ""}">` +
    `<div class="opps n${others.length}">${others.map((s) => opponentHTML(d, s, others)).join("")}</div>` +
    (over ? "" : pileHTML(d) + houseLine(v) + `<p class="prompt" id="prompt">${esc(prompt(d, o))}</p>` + heldLine(d, v.to_act)) +
    resultHTML(d) +
    myArea +
    d.hint +
    `<div class="actions" role="toolbar" aria-label="${esc(t("table.actions"))}">${actionsHTML(d, o)}</div>` +
    `</div>`
  );
}

// The house rules in force (SH-7.5) on the felt, only when the table plays some.
function houseLine(v) {
  return ruleChips("shithead", v.options).length ? rulesHTML("shithead", v.options) : "";
}

// How each of my cards is drawn: playable (a button), selected.
function mineState(d, o) {
  const v = o.v;
  const swapSel = d.sel[0];
  return {
    flips: o.flips,
    cardState(code, zone) {
      if (v.phase === "swap") {
        const can = o.swaps.some((a) => (zone === "hand" ? a.cards[0] : a.cards[1]) === code);
        return can ? { act: "card", playable: true, selected: swapSel === code, pressable: true } : {};
      }
      if (d.mode === "giveup") {
        return zone === "up" && o.giveUp.includes(code) ? { act: "card", playable: true } : {};
      }
      if (setOf(o.sets, code)) {
        return { act: "card", playable: true, selected: d.sel.includes(code), pressable: true };
      }
      return {};
    },
  };
}

// --------------------------------------------------------------------------- input

export function onAction(app, el) {
  const o = options(app.state.view);
  const act = el.dataset.act;
  if (act === "ready") return app.act({ kind: "ready" });
  if (act === "cancel") {
    app.sel = [];
    app.mode = null;
    return app.redraw();
  }
  if (act === "flip") return app.act({ kind: "flip", slot: Number(el.dataset.slot) });
  if (act === "play") {
    if (app.sel.length) return app.act({ kind: "play", cards: [...app.sel] });
    return;
  }
  if (act === "pickup") {
    if (o.plainPickup) return app.act({ kind: "pickup" });
    if (o.giveUp.length === 1) return app.act({ kind: "pickup", cards: [o.giveUp[0]] });
    app.mode = app.mode === "giveup" ? null : "giveup";
    app.sel = [];
    return app.redraw();
  }
  if (act === "card") return chooseCard(app, o, el.dataset.card, el.dataset.zone, false);
}

// A card was chosen (click or Space); with play=true (Enter, double click) the selection is
// played at once.
function chooseCard(app, o, code, zone, play) {
  const v = o.v;
  if (v.phase === "swap") {
    const first = app.sel[0];
    if (first && first !== code) {
      const firstZone = (v.hand || []).includes(first) ? "hand" : "up";
      if (firstZone !== zone) {
        const pair = zone === "up" ? [first, code] : [code, first];
        const swap = { kind: "swap", cards: pair };
        if (o.swaps.some((a) => sameAction(a, swap))) {
          app.sel = [];
          return app.act(swap);
        }
      }
    }
    app.sel = first === code ? [] : [code];
    return app.redraw();
  }
  if (app.mode === "giveup") {
    if (o.giveUp.includes(code)) return app.act({ kind: "pickup", cards: [code] });
    return;
  }
  const set = setOf(o.sets, code);
  if (!set) return;
  const sameSet = app.sel.length && set.includes(app.sel[0]);
  if (play) {
    const cards = sameSet ? [...new Set([...app.sel, code])] : [code];
    return app.act({ kind: "play", cards });
  }
  // tapped once a card is raised (with others of its rank: several at once); a raised card
  // tapped again plays what is raised, as in Sheepshead
  if (sameSet && app.sel.includes(code)) return app.act({ kind: "play", cards: [...app.sel] });
  if (!sameSet) app.sel = [code];
  else app.sel = [...app.sel, code];
  app.redraw();
}

// Enter on a card, or a double click: choose it and play at once.
export function onEnter(app, el) {
  const o = options(app.state.view);
  if (el.dataset.act === "card" && o.v.phase === "play") {
    chooseCard(app, o, el.dataset.card, el.dataset.zone, true);
    return true;
  }
  return false;
}

// Swap-phase actions may go stale when another seat moves: resend the same one if it is
// still legal in the fresh view (our own cards did not change).
export function retryStale(view, action) {
  return view.phase === "swap" && isLegal(view, action);
}

// --------------------------------------------------------------------------- events

export function eventText(e, nameOf) {
  const who = e.seat != null ? nameOf(e.seat) : "";
  switch (e.kind) {
    case "ready":
      return t("ev.ready", { name: who });
    case "started":
      return t("ev.started", { name: who });
    case "played":
      return e.source === "face_down"
        ? t("ev.playedBlind", { name: who, cards: cardsText(e.cards) })
        : t("ev.played", { name: who, cards: cardsText(e.cards) });
    case "burned":
      return t(e.reason === "four" ? "ev.burnedFour" : "ev.burned", { name: who });
    case "picked_up":
      return t("ev.pickedUp", { name: who, n: (e.cards || []).length });
    case "flipped":
      return t("ev.flipped", { name: who, cards: cardsText(e.cards || []) });
    case "went_out":
      return t("ev.wentOut", { name: who, place: e.place });
    case "skipped":
      return t("ev.skipped", { name: who });
    case "game_over":
      return t(e.ended === "length_cap" ? "ev.gameCapped" : "ev.gameOver", { name: nameOf(e.loser) });
    default:
      return ""; // swaps and draws are not worth a line
  }
}
