// Offline support for the course: the site's pages, scripts and styles network-first
// with a cached fallback; the caches of old versions are deleted on upgrade.
//
// Registered by boot.js, once Python is ready, as
// `course-sw.js?v=<site version>&pyodide=<pyodide version>`.
// Versioned files never change under their URL: `pyodide/v<version>/…`,
// `assets/course/wheels/<hash>/…` and `assets/course/pyodide-lock-<hash>.json`.
// They are left to the browser's HTTP cache: V8 keeps its compiled code for the
// wasm and pyodide.asm.js only for responses that come from there, which makes
// a second visit much faster than serving them from a cache here.  The Python
// worker (worker.js) keeps a copy of each in the caches named below and falls
// back to it when the network fails.
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
  if (VERSIONED.test(url.pathname)) return;
  event.respondWith(networkFirst(event.request));
});

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
