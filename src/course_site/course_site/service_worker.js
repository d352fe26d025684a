// Offline support for the course, a module service worker: the site's pages,
// scripts and styles network-first with a cached fallback.  What it serves,
// what it revalidates and what it leaves to the HTTP cache and to the Python
// worker's offline copies: the cache policy in assets/course/js/protocol.js.
//
// Install keeps what offline use needs (the build's list, offline-<version>.json)
// in this version's site cache before it takes over, so the site works offline
// right after the first visit of a new version; activation then deletes the
// caches of older versions but the last one, which a page of that version
// still open in another tab may need for a script it has not loaded yet.
//
// Registered by page_kernel.js, once Python is ready, as
// `course-sw.js?v=<site version>&pyodide=<pyodide version>`, {type: "module"}.
// The build publishes it with protocol.js's path in its own runner folder.
import { cacheNames, isImmutable, isSiteCache, isStaleCache, offlineListURL, servedByServiceWorker } from "./assets/course/js/protocol.js";

const params = new URL(self.location.href).searchParams;
const VERSION = params.get("v") || "dev";
const CACHES = cacheNames(VERSION, params.get("pyodide") || "dev");

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
  event.respondWith(networkFirst(event.request));
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

/* The kept copy of `request` (in `cacheName`, or in any cache), or undefined. */
function kept(request, cacheName) {
  return caches.match(request, { ignoreSearch: true, ...(cacheName ? { cacheName } : {}) }).catch(() => undefined);
}
