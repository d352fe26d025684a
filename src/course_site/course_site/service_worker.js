// Offline support for the course, a module service worker: the site's pages,
// scripts and styles network-first with a cached fallback; the caches of old
// versions are deleted on upgrade.  What it serves and what it leaves to the
// HTTP cache and to the Python worker's offline copies: the cache policy in
// assets/course/js/protocol.js.
//
// Registered by page_kernel.js, once Python is ready, as
// `course-sw.js?v=<site version>&pyodide=<pyodide version>`, {type: "module"}.
import { cacheNames, isStaleCache, servedByServiceWorker } from "./assets/course/js/protocol.js";

const params = new URL(self.location.href).searchParams;
const CACHES = cacheNames(params.get("v") || "dev", params.get("pyodide") || "dev");

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (isStaleCache(name, CACHES)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  if (!servedByServiceWorker(event.request, self.location.origin)) return;
  event.respondWith(networkFirst(event.request));
});

async function networkFirst(request) {
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const hit = await caches.match(request, { ignoreSearch: true, cacheName: CACHES.site }).catch(() => undefined);
    if (hit) return hit;
    throw error;
  }
  if (response.ok) {
    // Storage full or denied: the page is served all the same, without its offline copy.
    const copy = response.clone();
    await caches.open(CACHES.site).then((cache) => cache.put(request, copy)).catch(() => {});
  }
  return response;
}
