// The service worker: the app's shell kept for when the network is gone. Every file is asked of
// the network first (a new release is never hidden behind an old copy); the cache answers only
// when the network cannot, and then the page says it is offline. Nothing a game sends goes
// through here: the socket, the HTTP API, /healthz and /metrics are left to the browser.
const CACHE = "cardroom-shell";
const LIVE = /^\/(api\/|ws|healthz|metrics)/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.add("/")).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function ours(url) {
  return url.origin === self.location.origin && !LIVE.test(url.pathname);
}

// The page names the files it loaded before this worker ran (its first visit): kept too.
self.addEventListener("message", (event) => {
  const urls = (event.data && event.data.keep) || [];
  const files = urls.map((u) => new URL(u, self.location.origin)).filter((u) => ours(u) && u.pathname !== "/sw.js");
  event.waitUntil(caches.open(CACHE).then((c) => Promise.all(files.map((u) => c.add(u.pathname).catch(() => {})))));
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || !ours(url)) return;
  // every address of the app is the same page: offline, any of them is the cached "/"
  const page = req.mode === "navigate";
  if (page && url.pathname !== "/") {
    event.respondWith(fetch(req).catch(() => caches.match("/")));
    return;
  }
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          event.waitUntil(caches.open(CACHE).then((c) => c.put(url.pathname, copy)));
        }
        return res;
      })
      .catch(() => caches.match(url.pathname).then((hit) => hit || Response.error())),
  );
});

// A "your turn" notification tapped: back to the game's tab (or open it).
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const to = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      const tab = tabs.find((c) => new URL(c.url).pathname === new URL(to, self.location.origin).pathname) || tabs[0];
      return tab ? tab.focus() : self.clients.openWindow(to);
    }),
  );
});
