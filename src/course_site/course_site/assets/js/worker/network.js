/* The worker's downloads: every fetch of Pyodide goes through here.
 *
 * fetch is replaced so that the big files start at once (prefetch) and are
 * fetched once, their bytes are counted for the progress bar, and versioned
 * files get an offline copy (the cache policy is in ../cache_policy.js).  The real
 * Response is handed on, so that WebAssembly.instantiateStreaming gets its URL
 * and cache entry and V8 can reuse compiled code on the next visit.
 */
import { OFFICIAL_STDLIB, offlineCacheFor } from "../cache_policy.js";
import { packageSizes, postProgress, progress } from "./progress.js";
import { downloadStarted } from "./boot_watch.js";
import { keyed } from "../strings.js";

/** The browser's fetch, for what is neither counted nor kept (the Python files). */
export const fetchDirect = self.fetch.bind(self);

const prefetched = new Map(); // absolute URL -> Promise<Response> (used once)
const integrity = new Map(); // absolute URL -> SRI integrity every fetch of it must pass
const beingKept = new Map(); // absolute URL -> Promise, settled once its offline copy is stored (or not)
let settings = null; // the worker's settings (boot.js), once read

/** Use `workerSettings` (boot.js) for cache names, the index URL, the preloaded packages and the font list. */
export function configure(workerSettings) {
  settings = workerSettings;
}

/* ---------------------------------------------------------------- offline copies */

function cacheNameFor(url) {
  const names = settings?.cacheNames;
  if (!names || !self.caches) return null;
  return offlineCacheFor(url, names);
}

/* The copy of a versioned file kept for offline use, if any. */
async function keptCopy(url) {
  return cacheNameFor(url) ? caches.match(url) : undefined;
}

/* Keep a copy of versioned `url` with `store(cache)`, unless one is kept already (then `skip()`). */
function keepOnce(url, store, skip = () => {}) {
  const keeping = caches.open(cacheNameFor(url))
    .then(async (cache) => ((await cache.match(url)) ? skip() : store(cache)))
    .catch(() => {});
  beingKept.set(url, keeping);
}

function keepInCache(response) {
  if (!response.ok || !response.url || !cacheNameFor(response.url)) return;
  const copy = response.clone();
  keepOnce(response.url, (cache) => cache.put(response.url, copy), () => copy.body?.cancel());
}

/** The network (or the HTTP cache); when that fails (offline), the kept copy; else an error naming the file. */
export async function fetchOrKept(input, init) {
  const url = absoluteURL(input);
  const download = downloadStarted(url); // until its headers come (countBody watches its body)
  try {
    return await fetchDirect(input, init);
  } catch (err) {
    const kept = await keptCopy(url);
    if (kept) return kept;
    throw downloadError(url, err);
  } finally {
    download.end();
  }
}

/**
 * The browser's fetch error for `url`, its message naming the file: browsers say only "Load failed"
 * (Safari), "Failed to fetch" (Chromium) or "NetworkError when attempting to fetch resource." (Firefox).
 * Same type (a TypeError for the network, a DOMException for an abort), the browser's error as `cause`.
 */
export function downloadError(url, err) {
  const path = new URL(url).pathname;
  const why = String(err && err.message ? err.message : err);
  if (why.includes(path)) return err;
  const named = err instanceof DOMException
    ? new DOMException("", err.name)
    : new (err instanceof TypeError ? TypeError : Error)("");
  named.cause = err;
  return keyed(named, "download.failed", { path, reason: why });
}

/* The browser's own words for `err` (a downloadError's cause), for a message that names the file itself. */
function browserReason(err) {
  const own = err && err.cause !== undefined ? err.cause : err;
  return String(own && own.message ? own.message : own);
}

/* ---------------------------------------------------------------- counting */

/** Keep an offline copy of `response` and count its bytes on a clone of its body; return it unchanged. */
export function countBody(response) {
  keepInCache(response);
  if (!response.ok || !response.body) return response;
  const reader = response.clone().body.getReader();
  const download = response.url ? downloadStarted(response.url) : { end() {} }; // a body made here: not watched
  download.body?.();
  (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      progress.loaded += chunk.value.byteLength;
      postProgress(false);
    }
  })().catch(() => {}).finally(() => download.end());
  return response;
}

function absoluteURL(input) {
  const raw = typeof input === "string" || input instanceof URL ? String(input) : input.url;
  return new URL(raw, self.location.href).href;
}

self.fetch = function courseFetch(input, init) {
  const url = absoluteURL(input);
  const early = prefetched.get(url);
  if (early) {
    prefetched.delete(url);
    return early;
  }
  const checked = integrity.has(url) ? { ...init, integrity: integrity.get(url) } : init;
  return fetchOrKept(input, checked).then(countBody);
};

/* ---------------------------------------------------------------- prefetch */

/** Start downloading `url`; the next fetch of it gets this response. */
export function prefetch(url, init = {}) {
  return handOnOnce(url, fetchOrKept(url, init).then(countBody));
}

/* Hand `promise` (of a response) to the next fetch of `url`; if it fails, that fetch tries again. */
function handOnOnce(url, promise) {
  prefetched.set(url, promise);
  promise.catch(() => prefetched.get(url) === promise && prefetched.delete(url));
  return promise;
}

/** Hand `response` to the next fetch of `url` (a file the worker has read itself). */
export function provide(url, response) {
  prefetched.set(url, response);
}

/** Hand the kept copy of `url` (else the network's) to its next fetch: a second boot reads no bytes twice. */
export function provideKept(url) {
  const kept = Promise.resolve(beingKept.get(url)).then(() => keptCopy(url)).catch(() => undefined);
  provide(url, kept.then((response) => response || fetchOrKept(url, { integrity: integrity.get(url) }).then(countBody)));
}

/**
 * Start the standard library's download: the derived pre-compiled zip that `derived`
 * ({url, sha256}, from the settings) names, checked by its sha256 (SRI) on every fetch.
 * Returns {url: loadPyodide's stdLibURL, sha256: a promise of the derived zip's sha256 if
 * it is the one used, else of OFFICIAL_STDLIB, handOn(forRestore)}.  Call handOn before each
 * loadPyodide: the next fetch of `url` then gets the zip, or, when it is missing or corrupt,
 * the official python_stdlib.zip in its place; for a restore (`forRestore`), whose heap fits
 * no other zip, that fetch fails instead.  The first boot reads the body that is on its way;
 * a second one (after a failed restore) fetches it again.
 */
export function prefetchStdlib(indexURL, derived) {
  const official = indexURL + OFFICIAL_STDLIB;
  if (!derived) {
    prefetch(official);
    return { url: official, sha256: Promise.resolve(OFFICIAL_STDLIB), handOn: () => {} };
  }
  const checked = fetchDerived(derived);
  let bodyTaken = false;
  const handOn = (forRestore) => {
    const zip = bodyTaken ? checked.then(() => fetchDerived(derived)) : checked;
    bodyTaken = true;
    provide(derived.url, forRestore ? zip : zip.catch((err) => {
      console.warn(`course: ${derived.url} not used (${browserReason(err)}); the official stdlib instead`);
      return fetchOrKept(official).then(countBody);
    }));
  };
  return { url: derived.url, sha256: checked.then(() => derived.sha256, () => OFFICIAL_STDLIB), handOn };
}

/**
 * The preloaded packages' derived bytecode, `derived` ({url, sha256} from the settings):
 * a promise of its bytes, checked by sha256 (SRI), or of null when it is missing or corrupt.
 */
export function fetchPackageBytecode(derived) {
  if (!derived) return Promise.resolve(null);
  return fetchDerived(derived).then((response) => response.arrayBuffer()).catch((err) => {
    console.warn(`course: ${derived.url} not used (${browserReason(err)}); the packages' .py are compiled instead`);
    return null;
  });
}

/** Check every later fetch of `url` against `sha256` (hex), as SRI. */
export function requireSha256(url, sha256) {
  integrity.set(url, `sha256-${hexToBase64(sha256)}`);
}

/* A derived file's response, checked by its sha256 on every fetch; rejects when missing or corrupt. */
function fetchDerived(derived) {
  requireSha256(derived.url, derived.sha256);
  return fetchOrKept(derived.url, { integrity: integrity.get(derived.url) }).then((response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return countBody(response);
  });
}

function hexToBase64(hex) {
  let bin = "";
  for (let i = 0; i < hex.length; i += 2) bin += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return btoa(bin);
}

/**
 * Start downloading the preloaded packages' wheels (`wheels`: the settings' preload_wheels, their
 * lock entries by lock key) now, rather than once the lock has been read, unless `unneeded`
 * (a promise of a Set of wheel sha256) holds a wheel's sha256: then its fetch gets no bytes (a
 * restore writes that wheel's kept files instead: package_files.js) and it is not downloaded.
 */
export function prefetchPreloaded(wheels, unneeded) {
  for (const [name, wheel] of Object.entries(wheels)) {
    prefetchedPackages.add(name);
    const { url, init } = wheelRequest(wheel, settings.indexURL);
    const download = unneeded.then((shas) => (shas.has(wheel.sha256) ? new Response(new Uint8Array(0)) : fetchOrKept(url, init).then(countBody)));
    handOnOnce(url, download);
  }
}

/* The URL of a lock entry's wheel, and the fetch options that check it as Pyodide's loader would. */
function wheelRequest(pkg, indexURL) {
  return { url: new URL(pkg.file_name, indexURL).href, init: pkg.sha256 ? { integrity: `sha256-${hexToBase64(pkg.sha256)}` } : {} };
}

/* Start downloading the wheels of `names` and their dependencies, with the
 * same URL and integrity that Pyodide's package loader will ask for. */
function prefetchPackages(lock, names, indexURL) {
  for (const pkg of lockEntries(lock, names)) {
    const { url, init } = wheelRequest(pkg, indexURL);
    if (!prefetched.has(url)) prefetch(url, init);
  }
}

/* The lock entries of `names` and their dependencies, dependencies first. */
function lockEntries(lock, names) {
  const packages = lock.packages || {};
  const seen = new Set();
  const found = [];
  const visit = (name) => {
    const key = String(name).toLowerCase().replace(/[-_.]+/g, "-");
    const pkg = packages[key] || packages[name];
    if (!pkg || seen.has(key)) return;
    seen.add(key);
    (pkg.depends || []).forEach(visit);
    found.push(pkg);
  };
  names.forEach(visit);
  return found;
}

/**
 * Download the wheels of `names` and their dependencies, whole, and hand each to the next
 * fetch of it (Pyodide's loadPackage then reads no byte from the network); not counted in the
 * learner's progress, kept for offline use.  Rejects, naming the file, if one cannot be had.
 */
export async function downloadWheels(names) {
  if (!lockPackages) throw new Error("the lock is not read yet");
  const lock = await lockPackages;
  await Promise.all(lockEntries(lock, names).map(async (pkg) => {
    const { url, init } = wheelRequest(pkg, settings.indexURL);
    const response = await fetchOrKept(url, init);
    if (!response.ok) throw new Error(`could not download ${pkg.file_name}: HTTP ${response.status}`);
    keepInCache(response);
    const bytes = await response.arrayBuffer();
    provide(url, Promise.resolve(new Response(bytes, { status: 200, headers: { "Content-Type": "application/zip" } })));
  }));
}

/* The parsed lock (set by useLock) and the packages whose wheels are already on their way. */
let lockPackages = null;
const prefetchedPackages = new Set();
const wantedEarly = new Set(); // asked for before the lock was known

/** The lock is on its way: start the wheels asked for meanwhile (the preloaded ones are on their way: prefetchPreloaded). */
export function useLock(lock) {
  lockPackages = lock;
  prefetchWheels([...wantedEarly]);
}

/** Start downloading the wheels of `names` (numpy at start; a queued cell's
 * packages while Python boots), counted in the progress shown to the learner. */
export function prefetchWheels(names) {
  if (!lockPackages) {
    names.forEach((name) => wantedEarly.add(name));
    return;
  }
  const fresh = names.filter((name) => !prefetchedPackages.has(name));
  if (!fresh.length) return;
  fresh.forEach((name) => prefetchedPackages.add(name));
  if (progress.phase === "core") progress.total += packageSizes(fresh.filter((n) => !(settings.preload || []).includes(n)));
  if (fresh.includes("matplotlib")) fontList();
  lockPackages
    .then((lock) => prefetchPackages(lock, fresh, settings.indexURL))
    .catch((err) => console.warn("course: could not prefetch packages", err));
}

/* ---------------------------------------------------------------- the rest of the standard library */

let officialStdlib = null; // a promise of the official python_stdlib.zip's bytes, once asked for

/**
 * The official python_stdlib.zip (a Uint8Array), whose modules the boot stdlib lacks
 * (../../py/course_kernel/stdlib_finder.py): the copy kept for offline use, else downloaded and kept.
 * Python checks its sha256.  A failed attempt is not remembered: the next one tries again.
 */
export function officialStdlibBytes() {
  const url = settings.indexURL + OFFICIAL_STDLIB;
  officialStdlib ??= (async () => {
    const response = (await keptCopy(url).catch(() => undefined)) || (await fetchDirect(url));
    if (!response.ok) throw new Error(`could not download ${OFFICIAL_STDLIB}: HTTP ${response.status}`);
    keepInCache(response);
    return new Uint8Array(await response.arrayBuffer());
  })();
  officialStdlib.catch(() => {
    officialStdlib = null;
  });
  return officialStdlib;
}

/** Hand Python the official stdlib zip before a run that imports from it (or loads a package,
 * whose imports may): the kept copy, else downloaded.  If that fails, the import that needs it
 * tries again and its error names the module and says to check the connection. */
export async function provideStdlib(bridge) {
  try {
    bridge.provide_stdlib(await officialStdlibBytes());
  } catch (err) {
    console.info(`course: the rest of the stdlib not here yet (${String(err?.message ?? err).split("\n")[0]})`);
  }
}

/**
 * The official python_stdlib.zip's bytes at once, for an import that cannot wait (one that no
 * scan of a cell foresaw, or Jedi's): a synchronous request, as Pyodide's open_url makes.
 * Throws when it fails (offline, and the asynchronous copy above not read yet).
 */
export function officialStdlibSync() {
  const url = settings.indexURL + OFFICIAL_STDLIB;
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  if (request.status !== 200) throw new Error(`could not download ${OFFICIAL_STDLIB}: HTTP ${request.status}`);
  return new Uint8Array(request.response);
}

/* ---------------------------------------------------------------- scripts and the font list */

/** importScripts(url); offline, the copy kept in the site's caches, run from a blob: URL. */
export async function importScript(url) {
  try {
    importScripts(url);
  } catch (err) {
    const kept = await keptCopy(url);
    if (!kept) throw err;
    const blobURL = URL.createObjectURL(await kept.blob());
    try {
      importScripts(blobURL);
    } finally {
      URL.revokeObjectURL(blobURL);
    }
    return;
  }
  const timing = performance.getEntriesByName(url).pop();
  progress.loaded += timing?.decodedBodySize || 0;
  postProgress(false);
}

/** The scripts bypass fetch (importScripts), so keep their copies here. */
export function keepScriptsInCache(urls) {
  for (const url of urls) if (cacheNameFor(url)) keepOnce(url, (cache) => cache.add(url));
}

/* matplotlib's prebuilt font list (bytes), fetched once, or null when the site has none. */
let fontListBytes;

/** matplotlib's prebuilt font list (Uint8Array), or null when the site has none or it failed. */
export function fontList() {
  if (!settings.fontListURL) return Promise.resolve(null);
  fontListBytes ??= fetchOrKept(settings.fontListURL)
    .then((r) => {
      keepInCache(r);
      return r.ok ? r.arrayBuffer() : null;
    })
    .then((buf) => (buf ? new Uint8Array(buf) : null))
    .catch(() => null);
  return fontListBytes;
}
