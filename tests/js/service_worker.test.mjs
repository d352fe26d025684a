// The site's service worker (service_worker.js): network first with the kept copy offline, the pages
// and worker scripts it serves made cross-origin isolated, and a 304 that only the browser asked for
// (WebKit, on a reload: a worker's script revalidated through the service worker) never handed on.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { pathToFileURL } from "node:url";

const SOURCE = new URL("../../src/course_site/course_site/", import.meta.url);
const SITE = "https://learn.example.org/course/";
const RUNNER = `${SITE}assets/course/runner-0123abcd/`;

/* Cache Storage: caches of URL -> Response. */
class FakeCache {
  entries = new Map();
  async match(request) {
    const url = new URL(String(request.url ?? request));
    url.search = ""; // the worker looks up with ignoreSearch
    for (const [key, response] of this.entries) {
      const kept = new URL(key);
      kept.search = "";
      if (kept.href === url.href) return response.clone();
    }
    return undefined;
  }
  async put(request, response) {
    this.entries.set(String(request.url ?? request), response);
  }
}
const stores = new Map();
globalThis.caches = {
  async open(name) {
    if (!stores.has(name)) stores.set(name, new FakeCache());
    return stores.get(name);
  },
  async match(request, { cacheName } = {}) {
    for (const [name, cache] of stores) {
      if (cacheName && name !== cacheName) continue;
      const hit = await cache.match(request);
      if (hit) return hit;
    }
    return undefined;
  },
  async keys() {
    return [...stores.keys()];
  },
  async delete(name) {
    return stores.delete(name);
  },
};

/* The network: `answer(request)` gives each response; `fetched` lists the requests. */
let answer, fetched;
globalThis.fetch = async (request) => {
  fetched.push(request);
  return answer(request);
};

const listeners = {};
globalThis.self = {
  location: { href: `${SITE}course-sw.js?v=3f2a9c&pyodide=0.27.7&isolate=1`, origin: new URL(SITE).origin },
  registration: { scope: SITE },
  clients: { claim: async () => {} },
  skipWaiting: async () => {},
  addEventListener: (type, listener) => (listeners[type] = listener),
};

// The worker imports cache_policy.js from where the build publishes it: here, from the source.
const folder = mkdtempSync(join(tmpdir(), "course-sw-"));
const policy = pathToFileURL(new URL("assets/js/cache_policy.js", SOURCE).pathname).href;
const text = readFileSync(new URL("service_worker.js", SOURCE), "utf8").replace("./assets/course/js/cache_policy.js", policy);
writeFileSync(join(folder, "course-sw.mjs"), text);
await import(pathToFileURL(join(folder, "course-sw.mjs")).href);
const SITE_CACHE = "course-site-3f2a9c";

/* A request as the browser hands it to the service worker. */
function request(url, { destination = "", headers = {} } = {}) {
  const made = new Request(url, { headers });
  Object.defineProperty(made, "destination", { value: destination });
  return made;
}

/* What the service worker answers `req` with (undefined: it leaves the request to the browser). */
async function served(req) {
  let response;
  listeners.fetch({ request: req, respondWith: (promise) => (response = promise) });
  return response && (await response);
}

const ok = (body) => new Response(body, { status: 200 });
const notModified = () => new Response(null, { status: 304 });

beforeEach(() => {
  stores.clear();
  fetched = [];
  answer = () => ok("from the network");
});

test("a worker's script that the network answers 304 unasked is served from its kept copy, isolated", async () => {
  const url = `${RUNNER}js/worker/main.js?v=3f2a9c`;
  await (await caches.open(SITE_CACHE)).put(url, ok("kept main.js"));
  answer = notModified;
  const response = await served(request(url, { destination: "worker", headers: { "If-Modified-Since": "Fri, 04 Dec 2026 00:10:45 GMT" } }));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "kept main.js");
  assert.equal(response.headers.get("Cross-Origin-Embedder-Policy"), "require-corp");
  assert.equal(fetched.length, 1);
});

test("an unasked 304 with no kept copy, or for a file not named by its content, is fetched again unconditionally", async () => {
  answer = (req) => (req.cache === "reload" ? ok("the whole page") : notModified());
  const page = await served(request(`${SITE}lessons/32/`, { destination: "document", headers: { "If-Modified-Since": "x" } }));
  assert.equal(await page.text(), "the whole page");
  assert.equal(page.headers.get("Cross-Origin-Opener-Policy"), "same-origin");
  assert.deepEqual(fetched.map((req) => req.cache), ["no-cache", "reload"]);
  fetched = [];
  const script = await served(request(`${RUNNER}js/worker/dispatch.js`, { destination: "script" }));
  assert.equal(await script.text(), "the whole page");
  assert.deepEqual(fetched.map((req) => req.cache), ["default", "reload"]);
  assert.equal(await (await (await caches.open(SITE_CACHE)).match(`${SITE}lessons/32/`)).text(), "the whole page");
});

test("a script's own conditional fetch gets its 304", async () => {
  answer = notModified;
  const response = await served(request(`${SITE}search/search_index.json`, { headers: { "If-None-Match": '"abc"' } }));
  assert.equal(response.status, 304);
  assert.equal(fetched.length, 1);
});

test("offline, a file comes from its kept copy; one never kept fails as the network did", async () => {
  await (await caches.open(SITE_CACHE)).put(`${SITE}lessons/32/`, ok("kept page"));
  answer = () => Promise.reject(new TypeError("Load failed"));
  assert.equal(await (await served(request(`${SITE}lessons/32/`, { destination: "document" }))).text(), "kept page");
  await assert.rejects(served(request(`${SITE}lessons/33/`, { destination: "document" })), /Load failed/);
});

test("Pyodide's and the wheels' files are left to the Python worker", async () => {
  assert.equal(await served(request(`${SITE}pyodide/v0.27.7/pyodide.asm.wasm`)), undefined);
  assert.equal(fetched.length, 0);
});
