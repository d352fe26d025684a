// Offline support for the course, a module service worker: the site's pages,
// scripts and styles network-first with a cached fallback.  What it serves,
// what it revalidates and what it leaves to the HTTP cache and to the Python
// worker's offline copies: the cache policy in assets/course/js/cache_policy.js.
//
// Install keeps what offline use needs (the build's list, offline-<version>.json)
// in this version's site cache before it takes over, so the site works offline
// right after the first visit of a new version; activation then deletes the
// caches of older versions but the last one, which a page of that version
// still open in another tab may need for a script it has not loaded yet.
//
// With `isolate=1` (a self-hosted Pyodide: every file is the site's own), the pages
// and worker scripts it serves carry COOP and COEP headers, which a static host such
// as GitHub Pages cannot send: a page it controls is cross-origin isolated, so Stop
// interrupts Python (KeyboardInterrupt) instead of restarting it.
//
// Registered by page_kernel.js, once Python is ready, as
// `course-sw.js?v=<site version>&pyodide=<pyodide version>&isolate=1`, {type: "module"}.
// The build publishes it with cache_policy.js's path in its own runner folder.
import {
  cacheNames, ISOLATION_HEADERS, isImmutable, isSiteCache, isStaleCache, offlineListURL, servedByServiceWorker,
} from "./assets/course/js/cache_policy.js";

const params = new URL(self.location.href).searchParams;
const VERSION = params.get("v") || "dev";
const CACHES = cacheNames(VERSION, params.get("pyodide") || "dev");
const ISOLATE = params.get("isolate") === "1";

self.addEventListener("install", (event) => {
  event.waitUntil(keepForOffline().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const stale = (await caches.keys()).filter((name) => isStaleCache(name, CACHES));
      // keys() lists caches in the order they were made: the newest stale site cache is kept.
      const previousSite = stale.filter(isSiteCache).pop();
      for (const name of stale) if (name !== previousSite) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  if (!servedByServiceWorker(event.request, self.location.origin)) return;
  event.respondWith(networkFirst(event.request).then((response) => isolated(event.request, response)));
});

/* Fetch this version's offline list and keep every file it names, revalidated, in this
 * version's site cache.  A file that cannot be fetched fails the install: the service
 * worker in place (and its cache) stays until a later visit installs this one whole. */
async function keepForOffline() {
  if (VERSION === "dev") return;
  const listURL = new URL(offlineListURL(VERSION), self.registration.scope);
  const response = await fetch(listURL, { cache: "no-cache" });
  if (!response.ok) throw new Error(`course-sw: ${listURL.pathname}: HTTP ${response.status}`);
  const names = await response.json();
  const cache = await caches.open(CACHES.site);
  const missing = [];
  for (const name of names) {
    const url = new URL(name, self.registration.scope);
    if (!(await cache.match(url, { ignoreSearch: true }))) missing.push(url);
  }
  await cache.addAll(missing.map((url) => new Request(url, { cache: "no-cache" })));
}

async function networkFirst(request) {
  const url = new URL(request.url);
  let response;
  try {
    // Pages, settings and the search index are revalidated (a host's max-age would keep an old
    // build's); files named by their content are taken from the HTTP cache as they are.
    response = await fetch(isImmutable(url) ? request : new Request(request, { cache: "no-cache" }));
    if (response.status === 304 && !conditional(request)) response = await unmodified(request, url);
  } catch (error) {
    const hit = await kept(request, CACHES.site);
    if (hit) return hit;
    throw error;
  }
  if (response.ok) {
    // Storage full or denied: the page is served all the same, without its offline copy.
    const copy = response.clone();
    await caches.open(CACHES.site).then((cache) => cache.put(request, copy)).catch(() => {});
  } else if (response.status === 404 && isImmutable(url)) {
    // A page of the previous version, still open, asks for a file its build named and a deploy removed.
    return (await kept(request)) || response;
  }
  return response;
}

/* A 304 that nobody asked for: on a reload, WebKit sends a worker's script request to the service
 * worker with the HTTP cache's date in it (If-Modified-Since), and its fetch then hands on the
 * server's bare 304, which the worker cannot load (its script has no body).  Only a script's own
 * fetch() can carry conditions it wants answered (destination ""); any other request gets the file:
 * a file named by its content from its kept copy, the rest (or one not kept) from the server, unconditionally. */
async function unmodified(request, url) {
  const hit = isImmutable(url) ? await kept(request, CACHES.site) : undefined;
  return hit || fetch(new Request(request, { cache: "reload" }));
}

const CONDITIONS = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range"];

/* True if `request` is a script's fetch() with a condition of its own, which wants a 304 back. */
function conditional(request) {
  return request.destination === "" && CONDITIONS.some((name) => request.headers.has(name));
}

/* `response` with COOP and COEP added, for a page or a worker's script (with ISOLATE); else as it is. */
function isolated(request, response) {
  const document = request.mode === "navigate" || request.destination === "document";
  const worker = request.destination === "worker" || request.destination === "sharedworker";
  // An opaque redirect (a navigation answered with a redirect) cannot be rewritten: the browser follows it.
  if (!ISOLATE || !(document || worker) || response.type === "opaqueredirect" || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/* The kept copy of `request` (in `cacheName`, or in any cache), or undefined. */
function kept(request, cacheName) {
  return caches.match(request, { ignoreSearch: true, ...(cacheName ? { cacheName } : {}) }).catch(() => undefined);
}
