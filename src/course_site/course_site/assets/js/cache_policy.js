/* The cache policy: what the service worker (course-sw.js), the Python worker (worker/network.js)
 * and the page (page_kernel.js) keep for offline use, and where.
 *
 * Versioned files never change under their URL: `pyodide/v<version>/…`,
 * `assets/course/wheels/<hash>/…` and `assets/course/pyodide-lock-<hash>.json`.
 * They come from the network and the browser's HTTP cache, never through the
 * service worker, because only then does V8 keep its compiled code for the wasm
 * and pyodide.asm.js, which makes a second visit much faster.  For offline use
 * the Python worker keeps a copy of each (Pyodide's in the Pyodide cache, the
 * rest in the site cache) and falls back to it when the network fails.
 * Everything else of the site's origin (pages, scripts, styles) the service
 * worker serves network-first, with the site cache as the offline fallback:
 * revalidated (a host's max-age would keep an old build's page), except files
 * named by their content (the runner's folder `assets/course/runner-<hash>/`,
 * build-time figures, the theme's hashed bundles), which never change.  Its
 * install keeps the files the build lists in `assets/course/offline-<version>.json`.
 * Caches of other versions are deleted when a new service worker activates,
 * but the newest of the older site caches (a page of that build may be open).
 *
 * Two files of Pyodide's are made, not shipped as is: the derived boot stdlib
 * (`pyodide/v<version>/python_stdlib-pyc-<hash>.zip`, made by the build, versioned like
 * the rest; the official python_stdlib.zip stays beside it, for the modules the boot does
 * not load (py/course_kernel/stdlib_finder.py) and as the fallback) and the
 * memory snapshot this browser makes of a bare interpreter, kept in the origin private
 * file system with the preloaded packages' installed files (worker/snapshot.js,
 * package_files.js; never fetched: it exists only in this browser).
 */

/** What the service worker adds to the pages and worker scripts it serves (with `isolate=1`), so that a
 * page it controls is cross-origin isolated: SharedArrayBuffer, and Stop as KeyboardInterrupt (kernel.js). */
export const ISOLATION_HEADERS = Object.freeze({
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
});

const VERSIONED = /\/pyodide\/v[^/]+\/|\/assets\/course\/wheels\/[0-9a-f]+\/|\/assets\/course\/pyodide-lock-[0-9a-f]+\.json$/;
const IMMUTABLE = /\/assets\/course\/runner-[0-9a-f]+\/|\/assets\/course\/figures\/[0-9a-f]+\.png$|\.[0-9a-f]{8,}\.min\.(js|css)$/;
const CACHE_PREFIX = "course-";
const SITE_CACHE_PREFIX = `${CACHE_PREFIX}site-`;

/** The official standard library's file name: the fallback for the derived one, and its id in a snapshot's record. */
export const OFFICIAL_STDLIB = "python_stdlib.zip";

/** The site's caches: one per site version, one per Pyodide version. */
export function cacheNames(siteVersion, pyodideVersion) {
  return { site: `${SITE_CACHE_PREFIX}${siteVersion}`, pyodide: `${CACHE_PREFIX}pyodide-${pyodideVersion}` };
}

/** True for a site cache (of any version). */
export function isSiteCache(name) {
  return name.startsWith(SITE_CACHE_PREFIX);
}

/** The build's list of what offline use needs, from the site's root (site_layout.offline_list_path). */
export function offlineListURL(siteVersion) {
  return `assets/course/offline-${encodeURIComponent(siteVersion)}.json`;
}

/** True if `url` (a URL) names a file by its content: it never changes, so it is not revalidated. */
export function isImmutable(url) {
  return IMMUTABLE.test(url.pathname);
}

/** True for a cache of the site's that `names` no longer use. */
export function isStaleCache(name, names) {
  return name.startsWith(CACHE_PREFIX) && name !== names.site && name !== names.pyodide;
}

/** True if the service worker serves `request` (network-first, site cache offline). */
export function servedByServiceWorker(request, origin) {
  const url = new URL(request.url);
  return request.method === "GET" && url.origin === origin && !VERSIONED.test(url.pathname);
}

/** The cache in which the Python worker keeps its offline copy of `url`, or null (not versioned). */
export function offlineCacheFor(url, names) {
  const path = new URL(url).pathname;
  if (!VERSIONED.test(path)) return null;
  return path.includes("/pyodide/v") ? names.pyodide : names.site;
}
