// The WebSocket connection: hello, requests matched to their replies by id, reconnection.
// It knows nothing of screens: the app listens for "message", "up" and "down".

const RETRY_MS = [250, 500, 1000, 2000, 3000, 5000];
// After the server said it is going away (a planned restart, `closing`): come back at once,
// then often, not with a dropped connection's backoff (another process is up, or this one soon).
const PLANNED_MS = [0, 50, 100, 200, 400, 1000];
const REPLY_TIMEOUT_MS = 10000;

// The WebSocket address for a room (/ws/CODE), or for no room yet (/ws): a proxy in front of
// several processes sends a room's players to the process that holds it (deploy/nginx.conf).
export function socketUrl(room) {
  return location.origin.replace(/^http/, "ws") + (room ? `/ws/${room}` : "/ws");
}

export class Net extends EventTarget {
  // device: this browser's device identity, sent in every hello (leaderboards know the
  // player by it; there are no accounts). The server issues it: a "device" event gives it.
  constructor(url, device = null) {
    super();
    this.url = url;
    this.device = device;
    this.ws = null;
    this.ready = false; // welcomed by the server
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.attempt = 0;
    this.retryTimer = null;
    this.moved = null; // the room a `moved` said lives at its own address (until up there)
    this.moving = false;
    this.planned = false; // told `closing` (a planned restart): reconnect at once, then often
    this.identified = false; // the welcome gave (or kept) an identity the server issued
    this.work = null; // else, maybe, the work that earns one (welcome.work)
  }

  start() {
    if (this.ws) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      const hello = { type: "hello", protocol: 1, client: "cardroom-web" };
      if (this.device) hello.device = this.device;
      this.request(hello, true).then(
        (welcome) => {
          // only an identity the server issued ranks a player: keep the one it gives
          if (welcome && welcome.device && welcome.device !== this.device) {
            this.device = welcome.device;
            this.dispatchEvent(new CustomEvent("device", { detail: welcome.device }));
          }
          // none given (the address's free ones are spent today): the work that earns one
          this.identified = !!(welcome && welcome.device);
          this.work = (welcome && welcome.work) || null;
          this.attempt = 0;
          this.ready = true;
          this.moved = null;
          this.planned = false;
          this.dispatchEvent(new Event("up"));
        },
        () => ws.close(),
      );
    });
    ws.addEventListener("message", (e) => this._receive(e.data));
    ws.addEventListener("close", () => this._closed(ws));
  }

  // Connect to another address of the same server (a room's own); resolves once welcomed there
  // (the app's "up" listener, added first, has resumed the seat by then).
  moveTo(url) {
    return new Promise((resolve) => {
      this.addEventListener("up", () => resolve(), { once: true });
      this.url = url;
      this.attempt = 0;
      this.moving = true;
      if (this.ws) this.ws.close();
      else this.start();
    });
  }

  // Resolves once the connection is up (welcomed), at once if it is; a request the player made
  // in the moment before (a join clicked as the page opened) waits for it, within a bound.
  whenUp(timeoutMs = REPLY_TIMEOUT_MS) {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const up = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.removeEventListener("up", up);
        reject({ code: "connection_lost" });
      }, timeoutMs);
      this.addEventListener("up", up, { once: true });
    });
  }

  // Close for good (no reconnection): a short-lived second connection (js/app.js playAgain).
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close();
  }

  _closed(ws) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.ready = false;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject({ code: "connection_lost" });
    }
    this.pending.clear();
    this.dispatchEvent(new Event("down"));
    if (this.stopped) return;
    const steps = this.planned ? PLANNED_MS : RETRY_MS;
    const wait = this.moving ? 0 : steps[Math.min(this.attempt, steps.length - 1)];
    this.moving = false;
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.start(), wait);
  }

  _receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.type === "moved") this.moved = msg.room; // the create's `joined` follows
    // the server is going away (not a room closed for good): reconnect without the backoff
    if (msg.type === "closing" && !/^room closed/.test(msg.reason || "")) this.planned = true;
    // Every message reaches the app (a `joined` sets the seat, an error is shown);
    // a reply also settles the request that asked for it.
    this.dispatchEvent(new CustomEvent("message", { detail: msg }));
    const waiting = msg.ref != null ? this.pending.get(String(msg.ref)) : undefined;
    if (waiting) {
      this.pending.delete(String(msg.ref));
      clearTimeout(waiting.timer);
      if (msg.type === "error") waiting.reject(msg);
      else waiting.resolve(msg);
    }
  }

  // The welcome's work done: an identity for this connection, kept as a welcome's.
  async identify(challenge, nonce) {
    const reply = await this.request({ type: "identify", challenge, nonce });
    this.device = reply.device;
    this.identified = true;
    this.work = null;
    this.dispatchEvent(new CustomEvent("device", { detail: reply.device }));
    return reply;
  }

  // Send a message with a fresh id; resolves with its reply, rejects with an error message.
  request(body, beforeHello = false) {
    return new Promise((resolve, reject) => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN || (!this.ready && !beforeHello)) {
        reject({ code: "connection_lost" });
        return;
      }
      const id = String(this.nextId++);
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject({ code: "timeout" });
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ ...body, id }));
    });
  }
}
