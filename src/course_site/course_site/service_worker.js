// Offline support for the course: a cache-first store for versioned Python files,
// network-first with a cached fallback for everything else of this site.
//
// Registered by loader.js as `course-sw.js?v=<site version>&pyodide=<pyodide version>`.
// On a first visit the page's Python worker is not controlled yet; it puts what it
// downloads into the same caches (names below), so nothing is fetched twice.
// Versioned files never change under their URL: `pyodide/v<version>/…`,
// `assets/course/wheels/<hash>/…` and `assets/course/pyodide-lock-<hash>.json`.
const params = new URL(self.location.href).searchParams;
const SITE_CACHE = `course-site-${params.get("v") || "dev"}`;
const PYODIDE_CACHE = `course-pyodide-${params.get("pyodide") || "dev"}`;
const KEEP = new Set([SITE_CACHE, PYODIDE_CACHE]);
const VERSIONED = /\/pyodide\/v[^/]+\/|\/assets\/course\/wheels\/[0-9a-f]+\/|\/assets\/course\/pyodide-lock-[0-9a-f]+\.json$/;

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("course-") && !KEEP.has(name)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (VERSIONED.test(url.pathname)) {
    event.respondWith(cacheFirst(event.request, cacheFor(url)));
  } else {
    event.respondWith(networkFirst(event.request));
  }
});

function cacheFor(url) {
  return url.pathname.includes("/pyodide/v") ? PYODIDE_CACHE : SITE_CACHE;
}

async function cacheFirst(request, cacheName) {
  const cache = await caches.open(cacheName);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

async function networkFirst(request) {
  const cache = await caches.open(SITE_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const hit = await cache.match(request, { ignoreSearch: true });
    if (hit) return hit;
    throw error;
  }
}
