// The Python worker's downloads (assets/js/worker/network.js): which files get an offline copy and in
// which cache, each copy kept once, the kept copy used when the network fails, prefetched responses
// handed on once, the derived files checked by their sha256; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import "./english.mjs"; // the worker's words: the English catalogue the page sends

import { cacheNames } from "../../src/course_site/course_site/assets/js/cache_policy.js";
import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { WorkerSelf } from "./fake_worker.mjs";

const SITE = "https://learn.example.org/course/";
const INDEX = `${SITE}pyodide/v0.27.7/`;
const NAMES = cacheNames("3f2a9c", "0.27.7");

/* Cache Storage as Maps of URL -> Response; `broken` makes every open fail (storage denied). */
class FakeCaches {
  stores = new Map();
  broken = false;

  async open(name) {
    if (this.broken) throw new DOMException("denied", "SecurityError");
    if (!this.stores.has(name)) this.stores.set(name, new FakeCache());
    return this.stores.get(name);
  }

  async match(url) {
    for (const cache of this.stores.values()) {
      const hit = await cache.match(url);
      if (hit) return hit;
    }
    return undefined;
  }

  /* {cache name: [kept URL paths]} */
  kept() {
    return Object.fromEntries([...this.stores].map(([name, cache]) => [name, [...cache.entries.keys()].map((u) => new URL(u).pathname)]));
  }
}

class FakeCache {
  entries = new Map();
  puts = 0;

  async match(url) {
    return this.entries.get(String(url))?.clone();
  }

  async put(url, response) {
    this.puts++;
    this.entries.set(String(url), response);
  }

  async add(url) {
    const response = await network(url);
    if (!response.ok) throw new TypeError("bad response");
    await this.put(url, response);
  }
}

/* The network: `served` holds the bodies it answers (URL -> text); anything else is a 404, and
 * `offline` makes every fetch fail.  `fetched` lists what was asked, with the fetch options. */
let served, offline, fetched;
function network(input, init = {}) {
  const url = String(input.url ?? input);
  fetched.push({ url, integrity: init.integrity });
  if (offline) return Promise.reject(new TypeError("Failed to fetch"));
  const body = served.get(url);
  const response = new Response(body ?? "not found", { status: body === undefined ? 404 : 200 });
  Object.defineProperty(response, "url", { value: url });
  return Promise.resolve(response);
}

const caches = new FakeCaches();
let scripts; // what importScripts ran; a URL in `brokenScripts` throws, as offline
const brokenScripts = new Set();
globalThis.caches = caches;
const worker = new WorkerSelf({
  fetch: (...args) => network(...args),
  location: { href: `${SITE}assets/course/js/worker/main.js` },
  caches,
});
const { posted } = worker;
globalThis.self = worker;
globalThis.importScripts = (url) => {
  if (brokenScripts.has(url)) throw new TypeError(`NetworkError: ${url}`);
  scripts.push(url);
};
const net = await import("../../src/course_site/course_site/assets/js/worker/network.js");
const { progress, setDownloadBytes } = await import("../../src/course_site/course_site/assets/js/worker/progress.js");

/* Let the offline copies on their way be stored. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
const fetchedURLs = () => fetched.map((f) => f.url);
const text = async (response) => (await response).text();
const configure = (extra = {}) => net.configure({ cacheNames: NAMES, indexURL: INDEX, preload: [], ...extra });

/* A URL of its own for each test (the module remembers what it fetched, kept and handed on). */
let n = 0;
const fresh = (path) => `${path.replace("*", `x${++n}`)}`;

beforeEach(() => {
  served = new Map();
  offline = false;
  fetched = [];
  worker.clear();
  scripts = [];
  caches.broken = false;
  configure();
});

test("a versioned file fetched is kept once, in its cache; other files are not kept", async () => {
  const wasm = fresh(`${INDEX}*.wasm`);
  const wheel = fresh(`${SITE}assets/course/wheels/0123abcd/*-py3-none-any.whl`);
  const lock = fresh(`${SITE}assets/course/pyodide-lock-*.json`).replace(/x(\d+)\.json$/, "a$1.json");
  const page = fresh(`${SITE}lessons/*/`);
  for (const url of [wasm, wheel, lock, page]) served.set(url, `bytes of ${url}`);
  for (const url of [wasm, wheel, lock, page]) assert.equal(await text(self.fetch(url)), `bytes of ${url}`);
  await settle();
  const kept = caches.kept();
  assert.ok(kept[NAMES.pyodide].includes(new URL(wasm).pathname));
  assert.ok(kept[NAMES.site].includes(new URL(wheel).pathname));
  assert.ok(kept[NAMES.site].includes(new URL(lock).pathname));
  assert.ok(!Object.values(kept).flat().includes(new URL(page).pathname));
  assert.equal(await text(caches.match(wasm)), `bytes of ${wasm}`);
});

test("a file fetched again is not kept twice", async () => {
  const wasm = fresh(`${INDEX}*.wasm`);
  served.set(wasm, "wasm");
  await text(self.fetch(wasm));
  await settle();
  const cache = await caches.open(NAMES.pyodide);
  const puts = cache.puts;
  await text(self.fetch(wasm));
  await settle();
  assert.equal(cache.puts, puts);
});

test("a failed response (404) is not kept", async () => {
  const missing = fresh(`${INDEX}*.js`);
  const response = await self.fetch(missing);
  assert.equal(response.status, 404);
  await settle();
  assert.equal(await caches.match(missing), undefined);
});

test("offline, a versioned file comes from its kept copy; a file without one fails as the network did", async () => {
  const wasm = fresh(`${INDEX}*.wasm`);
  served.set(wasm, "kept wasm");
  await text(self.fetch(wasm));
  await settle();
  offline = true;
  assert.equal(await text(self.fetch(wasm)), "kept wasm");
  assert.equal(await text(self.fetch(new URL(wasm))), "kept wasm");
  assert.equal(await text(self.fetch({ url: wasm })), "kept wasm");
  const missing = fresh(`${INDEX}*.wasm`);
  await assert.rejects(self.fetch(missing), (err) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, `could not load ${new URL(missing).pathname} (Failed to fetch)`);
    assert.equal(err.cause.message, "Failed to fetch");
    return true;
  });
});

test("a download that fails names its file, keeping the error's type; an error that names it already is left", () => {
  const url = `${INDEX}pyodide.asm.wasm`;
  const safari = net.downloadError(url, new TypeError("Load failed"));
  assert.ok(safari instanceof TypeError);
  assert.equal(safari.message, "could not load /course/pyodide/v0.27.7/pyodide.asm.wasm (Load failed)");
  const aborted = net.downloadError(url, new DOMException("The operation was aborted.", "AbortError"));
  assert.ok(aborted instanceof DOMException);
  assert.equal(aborted.name, "AbortError");
  assert.match(aborted.message, /^could not load \/course\/pyodide\/v0\.27\.7\/pyodide\.asm\.wasm \(The operation/);
  const named = new Error("could not load /course/pyodide/v0.27.7/pyodide.asm.wasm: HTTP 404");
  assert.equal(net.downloadError(url, named), named);
});

test("offline, an unversioned file is never answered from a cache", async () => {
  const page = fresh(`${SITE}lessons/*/`);
  await (await caches.open(NAMES.site)).put(page, new Response("a copy the service worker kept"));
  offline = true;
  await assert.rejects(self.fetch(page), /Failed to fetch/);
});

test("without cache names (no offline support), nothing is kept and nothing is read from the caches", async () => {
  configure({ cacheNames: null });
  const wasm = fresh(`${INDEX}*.wasm`);
  served.set(wasm, "wasm");
  await text(self.fetch(wasm));
  await settle();
  assert.equal(await caches.match(wasm), undefined);
  await (await caches.open(NAMES.pyodide)).put(wasm, new Response("stale"));
  offline = true;
  await assert.rejects(self.fetch(wasm), /Failed to fetch/);
});

test("storage that cannot be opened only means no copy is kept", async () => {
  caches.broken = true;
  const wasm = fresh(`${INDEX}*.wasm`);
  served.set(wasm, "wasm");
  assert.equal(await text(self.fetch(wasm)), "wasm");
  await settle();
});

test("the scripts, run by importScripts, are kept by the worker itself, once, if versioned", async () => {
  const script = fresh(`${INDEX}*.js`);
  const other = fresh(`${SITE}assets/course/js/*.js`);
  served.set(script, "script");
  served.set(other, "other");
  net.keepScriptsInCache([script, other]);
  await settle();
  net.keepScriptsInCache([script]);
  await settle();
  assert.deepEqual(fetchedURLs(), [script]);
  assert.equal(await text(caches.match(script)), "script");
});

test("importScript runs the script; offline, its kept copy from a blob: URL", async () => {
  globalThis.performance.getEntriesByName ??= () => [];
  const script = fresh(`${INDEX}*.js`);
  net.importScript(script);
  assert.deepEqual(scripts, [script]);
  await (await caches.open(NAMES.pyodide)).put(script, new Response("kept script"));
  brokenScripts.add(script);
  await net.importScript(script);
  assert.equal(scripts.length, 2);
  assert.match(scripts[1], /^blob:/);
  const missing = fresh(`${INDEX}*.js`);
  brokenScripts.add(missing);
  await assert.rejects(net.importScript(missing), /NetworkError/);
});

test("a prefetched file is handed to its next fetch, once", async () => {
  const wheel = fresh(`${INDEX}*.whl`);
  served.set(wheel, "wheel");
  net.prefetch(wheel);
  assert.deepEqual(fetchedURLs(), [wheel]);
  assert.equal(await text(self.fetch(wheel)), "wheel");
  assert.deepEqual(fetchedURLs(), [wheel], "no second download");
  await text(self.fetch(wheel));
  assert.deepEqual(fetchedURLs(), [wheel, wheel], "handed on once");
});

test("a prefetch that fails leaves the next fetch to try again", async () => {
  const wheel = fresh(`${INDEX}*.whl`);
  served.set(wheel, "wheel");
  offline = true;
  await assert.rejects(net.prefetch(wheel));
  offline = false;
  assert.equal(await text(self.fetch(wheel)), "wheel");
  assert.equal(fetched.length, 2);
});

test("a file the worker read itself is handed to the next fetch of it", async () => {
  const url = fresh(`${INDEX}*.json`);
  net.provide(url, Promise.resolve(new Response("read already")));
  assert.equal(await text(self.fetch(url)), "read already");
  assert.deepEqual(fetched, []);
});

test("provideKept hands on the kept copy once it is stored, else the network's", async () => {
  const wasm = fresh(`${INDEX}*.wasm`);
  served.set(wasm, "wasm");
  await text(self.fetch(wasm)); // its copy is on its way
  net.provideKept(wasm);
  assert.equal(await text(self.fetch(wasm)), "wasm");
  assert.equal(fetched.length, 1, "read from the kept copy");
  const notKept = fresh(`${INDEX}*.wasm`);
  served.set(notKept, "from the network");
  net.requireSha256(notKept, "00ff");
  net.provideKept(notKept);
  assert.equal(await text(self.fetch(notKept)), "from the network");
  assert.deepEqual(fetched.at(-1), { url: notKept, integrity: "sha256-AP8=" });
});

test("a file whose sha256 is required is fetched with it as SRI integrity, every time", async () => {
  const url = fresh(`${INDEX}*.zip`);
  served.set(url, "zip");
  net.requireSha256(url, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  await text(self.fetch(url));
  await text(self.fetch(url, { method: "GET" }));
  assert.deepEqual(fetched.map((f) => f.integrity), Array(2).fill("sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="));
});

test("the bytes of each download are counted for the progress bar", async () => {
  const url = fresh(`${INDEX}*.whl`);
  served.set(url, "12345678");
  const before = progress.loaded;
  await text(self.fetch(url));
  await settle();
  assert.equal(progress.loaded - before, 8);
  assert.equal(posted.at(-1)?.type ?? MessageType.PROGRESS, MessageType.PROGRESS);
});

test("the derived stdlib is used when it passes its check, else the official one", async () => {
  const derived = { url: fresh(`${INDEX}python_stdlib-pyc-*.zip`), sha256: "00ff" };
  served.set(derived.url, "derived zip");
  const stdlib = net.prefetchStdlib(INDEX, derived);
  assert.equal(stdlib.url, derived.url);
  assert.equal(await stdlib.sha256, "00ff");
  stdlib.handOn(false);
  assert.equal(await text(self.fetch(derived.url)), "derived zip");
  assert.equal(fetched[0].integrity, "sha256-AP8=");
  // A second boot (after a failed restore) fetches it again.
  stdlib.handOn(false);
  assert.equal(await text(self.fetch(derived.url)), "derived zip");
  assert.equal(fetched.filter((f) => f.url === derived.url).length, 2);
});

test("a derived stdlib that is missing falls back to the official one; for a restore it fails instead", async () => {
  const warn = console.warn;
  console.warn = () => {};
  try {
    const derived = { url: fresh(`${INDEX}python_stdlib-pyc-*.zip`), sha256: "00ff" };
    served.set(`${INDEX}python_stdlib.zip`, "official zip");
    const stdlib = net.prefetchStdlib(INDEX, derived);
    assert.equal(await stdlib.sha256, "python_stdlib.zip");
    stdlib.handOn(false);
    assert.equal(await text(self.fetch(derived.url)), "official zip");
    stdlib.handOn(true);
    await assert.rejects(self.fetch(derived.url), /HTTP 404/);
  } finally {
    console.warn = warn;
  }
});

test("without a derived stdlib the official one is prefetched", async () => {
  served.set(`${INDEX}python_stdlib.zip`, "official zip");
  const stdlib = net.prefetchStdlib(INDEX, null);
  assert.equal(stdlib.url, `${INDEX}python_stdlib.zip`);
  assert.equal(await stdlib.sha256, "python_stdlib.zip");
  stdlib.handOn(true);
  assert.equal(await text(self.fetch(stdlib.url)), "official zip");
  assert.equal(fetched.length, 1);
});

test("the packages' derived bytecode is its bytes, or null when missing", async () => {
  const warn = console.warn;
  console.warn = () => {};
  try {
    const derived = { url: fresh(`${INDEX}packages-pyc-*.zip`), sha256: "00ff" };
    assert.equal(await net.fetchPackageBytecode(derived), null);
    served.set(derived.url, "pyc");
    const bytes = await net.fetchPackageBytecode(derived);
    assert.equal(new TextDecoder().decode(bytes), "pyc");
    assert.equal(await net.fetchPackageBytecode(null), null);
  } finally {
    console.warn = warn;
  }
});

test("the preloaded wheels start at once, but not those a restore brings", async () => {
  const wheels = {
    numpy: { file_name: "numpy-x.whl", sha256: "00ff" },
    posenc: { file_name: "../assets/course/wheels/ab/posenc.whl", sha256: "ff00" },
  };
  served.set(`${INDEX}numpy-x.whl`, "numpy");
  net.prefetchPreloaded(wheels, Promise.resolve(new Set(["ff00"])));
  assert.equal(await text(self.fetch(`${INDEX}numpy-x.whl`)), "numpy");
  assert.equal(await text(self.fetch(`${SITE}pyodide/assets/course/wheels/ab/posenc.whl`)), "");
  assert.deepEqual(fetched, [{ url: `${INDEX}numpy-x.whl`, integrity: "sha256-AP8=" }]);
});

test("wheels asked for before the lock is read start once it is, with their dependencies", async () => {
  setDownloadBytes({ matplotlib: 1000 });
  const lock = { packages: { matplotlib: { file_name: "mpl.whl", depends: ["Pillow", "numpy"] }, pillow: { file_name: "pillow.whl", sha256: "00ff" } } };
  configure({ fontListURL: null });
  net.prefetchWheels(["matplotlib"]);
  assert.deepEqual(fetched, []);
  const total = progress.total;
  net.useLock(Promise.resolve(lock));
  await settle();
  assert.equal(progress.total - total, 1000);
  assert.deepEqual(fetched, [{ url: `${INDEX}pillow.whl`, integrity: "sha256-AP8=" }, { url: `${INDEX}mpl.whl`, integrity: undefined }]);
  net.prefetchWheels(["matplotlib", "pillow"]); // on their way already
  await settle();
  assert.equal(fetched.length, 2);
});

test("matplotlib's font list is fetched once, kept if versioned, and null where the site has none", async () => {
  const url = fresh(`${INDEX}fontlist-*.json`);
  served.set(url, "[]");
  configure({ fontListURL: url });
  const first = net.fontList();
  assert.equal(net.fontList(), first);
  assert.equal(new TextDecoder().decode(await first), "[]");
  await settle();
  assert.equal(await text(caches.match(url)), "[]");
  configure({ fontListURL: null });
  assert.equal(await net.fontList(), null);
});

/* ------------------------------------------------------------------ the finer points */

/* Run `body` with console[`level`] recording its lines instead of printing them. */
async function quiet(level, body) {
  const said = [];
  const original = console[level];
  console[level] = (...args) => said.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  try {
    await body();
  } finally {
    console[level] = original;
  }
  return said;
}

/* A response of `chunks` (strings), each one read apart. */
function chunked(url, chunks) {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const response = new Response(stream, { status: 200 });
  Object.defineProperty(response, "url", { value: url });
  return response;
}

test("before the settings are read, fetches go through, and nothing is kept", async () => {
  net.configure(null);
  const url = fresh(`${INDEX}*.wasm`);
  served.set(url, "early");
  assert.equal(await text(self.fetch(url)), "early");
  await settle();
  assert.equal(await caches.match(url), undefined);
});

test("a copy already kept is not stored again, and the second copy's body is cancelled", async () => {
  const cancel = ReadableStream.prototype.cancel;
  let cancelled = 0;
  ReadableStream.prototype.cancel = function (...args) {
    cancelled++;
    return cancel.apply(this, args);
  };
  try {
    const wasm = fresh(`${INDEX}*.wasm`);
    served.set(wasm, "wasm");
    await text(self.fetch(wasm));
    await settle();
    assert.equal(cancelled, 0);
    await text(self.fetch(wasm));
    await settle();
    assert.equal(cancelled, 1);
  } finally {
    ReadableStream.prototype.cancel = cancel;
  }
});

test("a failed response's bytes are not counted", async () => {
  const before = progress.loaded;
  await text(self.fetch(fresh(`${INDEX}*.whl`)));
  await settle();
  assert.equal(progress.loaded, before);
});

test("the bytes are counted chunk by chunk, the progress posted at most every 80 ms", async () => {
  const url = fresh(`${INDEX}*.whl`);
  const before = progress.loaded;
  await new Promise((resolve) => setTimeout(resolve, 100)); // the last post is older than 80 ms
  net.countBody(chunked(url, ["ab", "cde", "f"]));
  await settle();
  assert.equal(progress.loaded - before, 6);
  assert.equal(posted.filter((m) => m.type === MessageType.PROGRESS).length, 1);
});

test("a failed prefetch does not drop a response handed on for the same file since", async () => {
  const url = fresh(`${INDEX}*.whl`);
  offline = true;
  const failing = net.prefetch(url);
  net.provide(url, Promise.resolve(new Response("provided")));
  await assert.rejects(failing);
  await settle();
  assert.equal(await text(self.fetch(url)), "provided");
});

test("a derived file that is not used says which and why", async () => {
  const stdlib = { url: fresh(`${INDEX}python_stdlib-pyc-*.zip`), sha256: "00ff" };
  const bytecode = { url: fresh(`${INDEX}packages-pyc-*.zip`), sha256: "00ff" };
  served.set(`${INDEX}python_stdlib.zip`, "official zip");
  const said = await quiet("warn", async () => {
    net.prefetchStdlib(INDEX, stdlib).handOn(false);
    await text(self.fetch(stdlib.url));
    await net.fetchPackageBytecode(bytecode);
    offline = true;
    await net.fetchPackageBytecode({ url: fresh(`${INDEX}packages-pyc-*.zip`), sha256: "00ff" });
  });
  assert.deepEqual(said.slice(0, 2), [
    `course: ${stdlib.url} not used (HTTP 404); the official stdlib instead`,
    `course: ${bytecode.url} not used (HTTP 404); the packages' .py are compiled instead`,
  ]);
  assert.match(said[2], /not used \(Failed to fetch\); the packages' \.py are compiled instead$/);
});

test("package names are looked up in the lock as normalised names (runs of - _ . as one -)", async () => {
  const lock = { packages: { "zope-interface": { file_name: "zope.whl" }, "ruamel-yaml": { file_name: "ruamel.whl" } } };
  net.useLock(Promise.resolve(lock));
  net.prefetchWheels(["zope__interface", "Ruamel.-Yaml"]);
  await settle();
  assert.deepEqual(fetchedURLs(), [`${INDEX}zope.whl`, `${INDEX}ruamel.whl`]);
});

test("a package's download size is counted once, during the boot only, and not for the preloaded packages", async () => {
  setDownloadBytes({ pkga: 100, pkgb: 10, pkgc: 1 });
  const lock = { packages: { pkga: { file_name: "a.whl" }, pkgb: { file_name: "b.whl" }, pkgc: { file_name: "c.whl" } } };
  configure({ preload: ["pkgb"] });
  net.useLock(Promise.resolve(lock));
  const total = progress.total;
  net.prefetchWheels(["pkga", "pkgb"]);
  net.prefetchWheels(["pkga"]);
  assert.equal(progress.total - total, 100);
  configure({ preload: undefined });
  progress.phase = "packages";
  try {
    net.prefetchWheels(["pkgc"]);
  } finally {
    progress.phase = "core";
  }
  assert.equal(progress.total - total, 100);
  await settle();
  assert.deepEqual(fetchedURLs().sort(), [`${INDEX}a.whl`, `${INDEX}b.whl`, `${INDEX}c.whl`]);
});

/* A second copy of the module, with state of its own (its font list is fetched once per worker). */
async function isolatedNetwork() {
  const fetch = self.fetch;
  try {
    return await import(`../../src/course_site/course_site/assets/js/worker/network.js?copy=${++n}`);
  } finally {
    self.fetch = fetch;
  }
}

test("matplotlib's wheels bring its font list along; other packages do not", async () => {
  const url = fresh(`${INDEX}fontlist-*.json`);
  served.set(url, "[]");
  const copy = await isolatedNetwork();
  copy.configure({ cacheNames: NAMES, indexURL: INDEX, preload: [], fontListURL: url });
  copy.useLock(Promise.resolve({ packages: {} }));
  copy.prefetchWheels(["numpy"]);
  assert.ok(!fetchedURLs().includes(url));
  copy.prefetchWheels(["matplotlib"]);
  assert.ok(fetchedURLs().includes(url));
});

test("a lock that cannot be read is said once, and no wheel is fetched", async () => {
  const said = await quiet("warn", async () => {
    net.useLock(Promise.reject(new Error("lock 404")));
    net.prefetchWheels(["pkg-without-lock"]);
    await settle();
  });
  assert.deepEqual(said, ["course: could not prefetch packages lock 404"]);
  assert.deepEqual(fetched, []);
});

test("a kept script run offline frees its blob: URL; a script run online counts its bytes", async () => {
  const revoked = [];
  const revoke = URL.revokeObjectURL;
  URL.revokeObjectURL = (url) => (revoked.push(url), revoke(url));
  const entries = globalThis.performance.getEntriesByName;
  globalThis.performance.getEntriesByName = (url) => [{ name: url, decodedBodySize: 1234 }];
  try {
    const script = fresh(`${INDEX}*.js`);
    await (await caches.open(NAMES.pyodide)).put(script, new Response("kept script"));
    brokenScripts.add(script);
    await net.importScript(script);
    assert.deepEqual(revoked, [scripts.at(-1)]);
    const online = fresh(`${INDEX}*.js`);
    const before = progress.loaded;
    await new Promise((resolve) => setTimeout(resolve, 100));
    worker.clear();
    await net.importScript(online);
    await net.importScript(online);
    assert.equal(progress.loaded - before, 2468);
    assert.equal(posted.length, 1, "posted at most every 80 ms");
  } finally {
    URL.revokeObjectURL = revoke;
    globalThis.performance.getEntriesByName = entries;
  }
});

test("a font list that cannot be fetched is null", async () => {
  offline = true;
  const url = fresh(`${INDEX}fontlist-*.json`);
  const isolated = await isolatedNetwork();
  isolated.configure({ cacheNames: NAMES, indexURL: INDEX, fontListURL: url });
  assert.equal(await isolated.fontList(), null);
});
