// Fair deals in the page (docs/protocol.md, "Fair deals"): this client's random value for each
// deal, and the check of a finished game's deal in the replay: its seed hashes to the
// commitment shown before the deal, and its deck is the documented shuffle of the seed and the
// players' values. SHA-256 is computed here, in plain JS: crypto.subtle exists only on secure
// origins (a public server on plain http has none), and the replay draws synchronously.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const ror = (x, n) => (x >>> n) | (x << (32 - n));

// SHA-256 of a Uint8Array, as a Uint8Array of 32 bytes.
export function sha256(data) {
  const total = ((data.length + 9 + 63) >>> 6) << 6;
  const buf = new Uint8Array(total);
  buf.set(data);
  buf[data.length] = 0x80;
  const view = new DataView(buf.buffer);
  const bits = data.length * 8;
  view.setUint32(total - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(total - 4, bits >>> 0);
  const h = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      w[i] = w[i - 16] + (ror(x, 7) ^ ror(x, 18) ^ (x >>> 3)) + w[i - 7] + (ror(y, 17) ^ ror(y, 19) ^ (y >>> 10));
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh; // prettier-ignore
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  h.forEach((v, i) => ov.setUint32(4 * i, v));
  return out;
}

export const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export function fromHex(hex) {
  if (typeof hex !== "string" || !/^([0-9a-f]{2})*$/.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// 32 random bytes as hex: this client's value for a deal (works on plain http too).
export function randomValue() {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

const RANKS = "23456789TJQKA";
// The game's cards in code order: what a deal shuffles.
export function cardsOf(game) {
  const ranks = game === "sheepshead" ? RANKS.slice(RANKS.indexOf("7")) : RANKS;
  return [...ranks].flatMap((r) => [..."CDHS"].map((s) => r + s));
}

// The documented shuffle: Fisher–Yates driven by SHA-256 in counter mode, with rejection.
export function shuffle(cards, seed, contributions) {
  const parts = [new TextEncoder().encode("cardroom-deal-v1"), seed];
  for (const c of contributions) parts.push(c ? concat([Uint8Array.of(1), c]) : Uint8Array.of(0));
  const key = sha256(concat(parts));
  let block = 0;
  let words = null;
  let at = 8;
  const next = () => {
    if (at === 8) {
      const j = new Uint8Array(8);
      new DataView(j.buffer).setUint32(0, Math.floor(block / 2 ** 32));
      new DataView(j.buffer).setUint32(4, block >>> 0);
      words = new DataView(sha256(concat([key, j])).buffer);
      block += 1;
      at = 0;
    }
    return words.getUint32(4 * at++);
  };
  const deck = cards.slice();
  for (let i = deck.length - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let x = next();
    while (x >= limit) x = next();
    const j = x % bound;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// The commitment to a deal, hex: SHA-256 of the seed and the dealer's seat (one byte).
export function commitmentOf(seed, dealer) {
  const committed = new Uint8Array(seed.length + 1);
  committed.set(seed);
  committed[seed.length] = dealer;
  return toHex(sha256(committed));
}

// A finished game's deal checked: {state: "ok"} or "wrong" (with `why`, an i18n key),
// "hidden" (a daily hand before its day is over), "none" (no proof: not dealt fairly).
// `shown`: the commitment this page saw before the deal, if it did.
export function verifyGame(item, shown = null) {
  const proof = item.proof;
  if (!proof) return { state: "none" };
  if (proof.seed == null) return { state: "hidden" };
  try {
    const seed = fromHex(proof.seed);
    // the commitment is SHA-256 of the seed and the dealer's seat (one byte): the dealer says
    // which seat got which cards, so a proof without one proves no hand
    const dealer = proof.dealer;
    if (dealer == null || !item.deal || item.deal.dealer !== dealer) return { state: "wrong", why: "rp.dealBadDealer" };
    if (commitmentOf(seed, dealer) !== proof.commitment) return { state: "wrong", why: "rp.dealBadSeed" };
    if (shown && shown !== proof.commitment) return { state: "wrong", why: "rp.dealBadCommitment" };
    const values = proof.contributions.map((c) => (c == null ? null : fromHex(c)));
    const deck = shuffle(cardsOf(item.game), seed, values);
    const dealt = item.deal && item.deal.deck;
    if (!dealt || deck.join(" ") !== dealt.join(" ")) return { state: "wrong", why: "rp.dealBadDeck" };
  } catch {
    return { state: "wrong", why: "rp.dealBadDeck" };
  }
  return { state: "ok" };
}
