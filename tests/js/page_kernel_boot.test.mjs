// The page's kernel as enhance.js boots it (assets/js/page_kernel.js: boot): it adopts the worker that
// worker_prestart.js started, renders the rest of the page and registers the service worker once
// Python is quiet, and asks for a snapshot then; a page of another build than the deployed one reloads
// into it once; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, mock, test } from "node:test";

import { MessageType, QUIET_MS } from "../../src/course_site/course_site/assets/js/protocol.js";
import { MemoryStorage } from "./fake_storage.mjs";
import { FakeWorker } from "./fake_worker.mjs";

let registered, removed, idleCallbacks, reloads, fetched, session;
globalThis.Worker = FakeWorker;
globalThis.window = globalThis;
Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true });
globalThis.location = {
  origin: "https://learn.example.org",
  href: "https://learn.example.org/course/lessons/a/",
  pathname: "/course/lessons/a/",
  reload: () => reloads.push(location.href),
};
globalThis.document = { documentElement: { classList: { add: () => {}, remove: (name) => removed.push(name) } } };
let windowListeners = [];
globalThis.addEventListener = (type, listener, capture) => windowListeners.push({ type, listener, capture });
const PRESTART = readFileSync(new URL("../../src/course_site/course_site/worker_prestart.js", import.meta.url), "utf8");
const { boot, forget } = await import("../../src/course_site/course_site/assets/js/page_kernel.js");

const SETTINGS = { service_worker: "../../course-sw.js", version: "3f2a9c", pyodide_version: "0.27.7" };
const SETTINGS_URL = "https://learn.example.org/course/assets/course/worker-settings.json";

/* A page whose worker_prestart script (run here as the page runs it, inline) started `worker`; its
 * service worker API records registrations. */
function page({ secure = true, serviceWorker = true, version = null } = {}) {
  const url = "https://learn.example.org/course/assets/course/runner-1/js/worker/main.js";
  document.currentScript = { dataset: { worker: url, ...(version && { version }) } };
  windowListeners = [];
  new Function(PRESTART)();
  globalThis.isSecureContext = secure;
  if (serviceWorker) navigator.serviceWorker = { register: async (url, options) => registered.push([String(url), options]) };
  else delete navigator.serviceWorker;
  return globalThis.coursePython.worker;
}

/* A resource of the page that failed to load: the error event as the window's capture listeners get it. */
function failedToLoad(target) {
  for (const { type, listener, capture } of windowListeners) if (type === "error" && capture) listener({ target });
}

/* Python becomes ready with `settings`, then stays quiet for QUIET_MS and an idle moment. */
function readyAndQuiet(worker, settings = SETTINGS) {
  worker.send({ type: MessageType.SETTINGS, settings, url: SETTINGS_URL });
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  mock.timers.tick(QUIET_MS);
  for (const callback of idleCallbacks.splice(0)) callback();
}

beforeEach(() => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  [registered, removed, idleCallbacks, reloads, fetched, session] = [[], [], [], [], [], new MemoryStorage()];
  globalThis.sessionStorage = session;
  globalThis.fetch = async (url, options) => {
    fetched.push([String(url), options]);
    return { ok: true, json: async () => SETTINGS };
  };
  globalThis.requestIdleCallback = (callback, options) => {
    assert.deepEqual(options, { timeout: 2000 });
    idleCallbacks.push(callback);
  };
});

afterEach(() => {
  boot().kernel?.dispose();
  forget();
  mock.timers.reset();
});

test("boot adopts the worker that worker_prestart started, once", () => {
  const worker = page();
  const { kernel } = boot();
  assert.equal(boot().kernel, kernel);
  assert.equal(kernel.worker, worker);
  assert.equal(kernel.options.workerURL, "https://learn.example.org/course/assets/course/runner-1/js/worker/main.js");
  assert.equal(globalThis.coursePython, undefined, "taken from the page");
});

test("a page with cells but without worker_prestart says what is missing", () => {
  delete globalThis.coursePython;
  assert.throws(() => boot(), /^Error: course: this page has cells but not the worker_prestart script that the course plugin adds$/);
  forget();
  page();
});

test("once Python is quiet the service worker is registered and a snapshot asked for; the page's layout is left alone", async () => {
  const worker = page();
  boot();
  worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  mock.timers.tick(QUIET_MS - 1);
  for (const callback of idleCallbacks.splice(0)) callback();
  assert.equal(registered.length, 1, "the service worker waits for no quiet time, only for an idle moment");
  assert.deepEqual(worker.posted.filter((m) => m.type === MessageType.SNAPSHOT), []);
  mock.timers.tick(1);
  for (const callback of idleCallbacks.splice(0)) callback();
  await Promise.resolve();
  assert.deepEqual(removed, [], "no class is lifted: nothing of the page changes size under the reader");
  // Pyodide from the site itself (no index URL elsewhere): the pages it serves are cross-origin isolated.
  assert.deepEqual(registered, [["https://learn.example.org/course/course-sw.js?v=3f2a9c&pyodide=0.27.7&isolate=1", { type: "module" }]]);
  assert.deepEqual(worker.posted.filter((m) => m.type === MessageType.SNAPSHOT), [{ type: MessageType.SNAPSHOT }]);
});

test("without a site or Pyodide version the service worker's URL has none", () => {
  const worker = page();
  boot();
  readyAndQuiet(worker, { service_worker: "../../course-sw.js" });
  assert.deepEqual(registered.map(([url]) => url), ["https://learn.example.org/course/course-sw.js?isolate=1"]);
});

test("no service worker where the site has none, the browser has none, or the page is not secure", () => {
  for (const [options, settings] of [[{}, {}], [{ serviceWorker: false }, SETTINGS], [{ secure: false }, SETTINGS]]) {
    const worker = page(options);
    boot();
    readyAndQuiet(worker, settings);
    boot().kernel.dispose();
    forget();
  }
  assert.deepEqual(registered, []);
  page();
});

test("a service worker the browser refuses is said, and nothing else changes", async () => {
  const worker = page();
  const said = [];
  const warn = console.warn;
  console.warn = (...args) => said.push(args.map(String).join(" "));
  navigator.serviceWorker.register = async () => {
    throw new Error("denied");
  };
  try {
    boot();
    readyAndQuiet(worker);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(said, ["course: service worker not registered: Error: denied"]);
});

test("forget lets the next page boot a kernel of its own", () => {
  page();
  const first = boot().kernel;
  first.dispose();
  forget();
  page();
  assert.notEqual(boot().kernel, first);
});

test("with Pyodide from a CDN the service worker is asked for no isolation", () => {
  const worker = page();
  boot();
  readyAndQuiet(worker, { ...SETTINGS, pyodide_index_url: "https://cdn.example.net/pyodide/v0.27.7/full/" });
  assert.deepEqual(registered.map(([url]) => url), ["https://learn.example.org/course/course-sw.js?v=3f2a9c&pyodide=0.27.7"]);
});

test("a page of another build reloads once its worker has read the deployed settings, once per build", () => {
  const said = [];
  const warn = console.warn;
  console.warn = (...args) => said.push(args.join(" "));
  try {
    let worker = page({ version: "old111" });
    boot();
    worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
    assert.deepEqual(reloads, ["https://learn.example.org/course/lessons/a/"]);
    assert.equal(boot().kernel.state, "disposed", "no cell runs with the other build's Python");
    forget();
    // The host still serves the old page after the reload: no second reload, but it is said.
    worker = page({ version: "old111" });
    boot();
    worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
    assert.equal(reloads.length, 1);
    assert.deepEqual(said, ["course: this page is build old111, the site's settings are build 3f2a9c"]);
  } finally {
    console.warn = warn;
  }
});

test("a page of the deployed build does not reload", () => {
  const worker = page({ version: SETTINGS.version });
  boot();
  worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
  assert.deepEqual(reloads, []);
});

test("an older build's worker that fails before reading the settings: the page reads them and reloads", async () => {
  const worker = page({ version: "old111" });
  boot();
  worker.onerror({ message: "Failed to fetch dynamically imported module: …/runner-1/js/worker/dispatch.js" });
  assert.equal(boot().kernel.state, "failed");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, [["https://learn.example.org/course/assets/course/worker-settings.json", { cache: "no-cache" }]]);
  assert.deepEqual(reloads, ["https://learn.example.org/course/lessons/a/"]);
});

test("a worker of the deployed build that fails: the settings are read and nothing reloads", async () => {
  const worker = page({ version: SETTINGS.version });
  boot();
  worker.send({ type: MessageType.INIT_ERROR, message: "no WebAssembly" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fetched.length, 1);
  assert.deepEqual(reloads, []);
});

test("a failure after the worker read the settings, or with no settings to read, reloads nothing", async () => {
  let worker = page({ version: "old111" });
  session.setItem("course-reloaded-for", SETTINGS.version); // this tab reloaded for it already
  boot();
  const warn = console.warn;
  console.warn = () => {}; // said: the previous test
  try {
    worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
  } finally {
    console.warn = warn;
  }
  worker.send({ type: MessageType.INIT_ERROR, message: "no WebAssembly" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, [], "the worker's own reading was checked");
  boot().kernel.dispose();
  forget();
  session.clear();
  globalThis.fetch = async () => {
    throw new TypeError("Failed to fetch"); // offline
  };
  worker = page({ version: "old111" });
  boot();
  worker.send({ type: MessageType.INIT_ERROR, message: "offline" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(reloads, []);
});

test("a script of the page's runner that fails to load (an older build's page): the settings are read, the page reloads", async () => {
  page({ version: "old111" });
  failedToLoad({ src: "https://learn.example.org/course/assets/course/runner-1/js/enhance.js" });
  failedToLoad({ href: "https://learn.example.org/course/assets/course/runner-1/css/course.css" }); // read once
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, [["https://learn.example.org/course/assets/course/worker-settings.json", { cache: "no-cache" }]]);
  assert.deepEqual(reloads, ["https://learn.example.org/course/lessons/a/"]);
});

test("a failure to load anything else, or an error of a script that ran, reads no settings", async () => {
  page({ version: "old111" });
  failedToLoad({ src: "https://learn.example.org/course/assets/javascripts/bundle.js" });
  failedToLoad({ src: "https://learn.example.org/course/assets/course/runner-2/js/enhance.js" }); // not this page's
  failedToLoad(globalThis); // an uncaught error: its target is the window
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, []);
});

test("the cells' modules that fail to load on a page of the deployed build: nothing reloads", async () => {
  page({ version: SETTINGS.version });
  assert.equal(await globalThis.coursePython.checkBuild(), false);
  assert.equal(fetched.length, 1);
  assert.deepEqual(reloads, []);
});
