// The page's kernel as enhance.js boots it (assets/js/page_kernel.js: boot): it adopts the worker that
// worker_prestart.js started, renders the rest of the page and registers the service worker once
// Python is quiet, and asks for a snapshot then; run by tests/unit/test_runner_js.py.
import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";

import { MessageType, QUIET_MS } from "../../src/course_site/course_site/assets/js/protocol.js";

class FakeWorker {
  posted = [];
  postMessage(message) {
    this.posted.push(message);
  }
  terminate() {}
  send(message) {
    this.onmessage?.({ data: message });
  }
}

let registered, removed, idleCallbacks;
globalThis.Worker = FakeWorker;
globalThis.window = globalThis;
Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true });
globalThis.location = { origin: "https://learn.example.org", pathname: "/course/lessons/a/", reload: () => {} };
globalThis.document = { documentElement: { classList: { remove: (name) => removed.push(name) } } };
const { boot, forget } = await import("../../src/course_site/course_site/assets/js/page_kernel.js");

const SETTINGS = { service_worker: "../../course-sw.js", version: "3f2a9c", pyodide_version: "0.27.7" };
const SETTINGS_URL = "https://learn.example.org/course/assets/course/worker-settings.json";

/* A page whose worker_prestart script started `worker`; its service worker API records registrations. */
function page({ secure = true, serviceWorker = true } = {}) {
  const worker = new FakeWorker();
  globalThis.coursePython = { url: "assets/course/js/worker/main.js", worker, events: [] };
  globalThis.isSecureContext = secure;
  if (serviceWorker) navigator.serviceWorker = { register: async (url, options) => registered.push([String(url), options]) };
  else delete navigator.serviceWorker;
  return worker;
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
  [registered, removed, idleCallbacks] = [[], [], []];
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
  assert.equal(kernel.options.workerURL, "assets/course/js/worker/main.js");
  assert.equal(globalThis.coursePython, undefined, "taken from the page");
});

test("a page with cells but without worker_prestart says what is missing", () => {
  delete globalThis.coursePython;
  assert.throws(() => boot(), /^Error: course: this page has cells but not the worker_prestart script that the course plugin adds$/);
  forget();
  page();
});

test("once Python is quiet the page is rendered whole, the service worker registered and a snapshot asked for", async () => {
  const worker = page();
  boot();
  worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: SETTINGS_URL });
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  mock.timers.tick(QUIET_MS - 1);
  for (const callback of idleCallbacks.splice(0)) callback();
  assert.equal(registered.length, 1, "the service worker waits for no quiet time, only for an idle moment");
  assert.deepEqual(removed, []);
  assert.deepEqual(worker.posted.filter((m) => m.type === MessageType.SNAPSHOT), []);
  mock.timers.tick(1);
  for (const callback of idleCallbacks.splice(0)) callback();
  await Promise.resolve();
  assert.deepEqual(removed, ["course-booting"]);
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
  assert.deepEqual(removed, ["course-booting"]);
});

test("a Python that fails to start renders the page at once", () => {
  const worker = page();
  boot();
  worker.send({ type: MessageType.PROGRESS, phase: "core", loaded: 1, total: 2 });
  assert.deepEqual(removed, []);
  worker.send({ type: MessageType.INIT_ERROR, message: "no WebAssembly" });
  assert.deepEqual(removed, ["course-booting"]);
  worker.send({ type: MessageType.INIT_ERROR, message: "again" }); // said once
  assert.deepEqual(removed, ["course-booting"]);
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
