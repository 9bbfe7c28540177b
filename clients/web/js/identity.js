// Whether this browser ranks on the boards, said before a match: a browser whose network
// (one address: a family, a dorm, a phone network) has used its free identities for the day
// gets none, and may earn one with a few seconds of work (the server's welcome offers it).
import { t } from "./i18n.js";
import { esc } from "./ui.js";

const state = { busy: false, failed: "" };

// The line under today's Sheepshead on the home page.
export function noteHTML(net) {
  if (!net || !net.ready) return "";
  if (net.identified) return `<p class="rank-note ok">${esc(t("rank.yes"))}</p>`;
  if (!net.work) return `<p class="rank-note">${esc(t("rank.none"))}</p>`;
  const button = state.busy
    ? `<button type="button" class="btn small" disabled>${esc(t("rank.earning"))}</button>`
    : `<button type="button" class="btn small" data-act="earn" data-key="earn">${esc(t("rank.earn"))}</button>`;
  const failed = state.failed ? ` <span class="why">${esc(state.failed)}</span>` : "";
  return `<p class="rank-note">${esc(t("rank.noFree"))} ${button}${failed}</p>`;
}

// Whether SHA-256 of `challenge:nonce` starts with `bits` zero bits (server/net/devices.py).
function leadingZeros(bytes, bits) {
  let i = 0;
  for (; bits >= 8; bits -= 8, i++) if (bytes[i] !== 0) return false;
  return bits === 0 || bytes[i] >> (8 - bits) === 0;
}

// Find the nonce for the welcome's work (hashed in batches: WebCrypto answers in promises).
export async function solve(work, batch = 512) {
  const enc = new TextEncoder();
  for (let base = 0; ; base += batch) {
    const tries = [];
    for (let n = base; n < base + batch; n++) {
      tries.push(crypto.subtle.digest("SHA-256", enc.encode(`${work.challenge}:${n}`)).then((d) => (leadingZeros(new Uint8Array(d), work.bits) ? n : -1)));
    }
    const found = (await Promise.all(tries)).find((n) => n >= 0);
    if (found !== undefined) return String(found);
  }
}

// Earn an identity: the work, then `identify`; `redraw` after each change.
export async function earn(net, redraw, errorText) {
  if (state.busy || !net.work) return;
  state.busy = true;
  state.failed = "";
  redraw();
  try {
    const work = net.work;
    await net.identify(work.challenge, await solve(work));
  } catch (err) {
    state.failed = err && err.code ? errorText(err.code, err.message) : "";
  } finally {
    state.busy = false;
    redraw();
  }
}
