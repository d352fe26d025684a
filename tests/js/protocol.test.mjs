// The cache policy and cache names (assets/js/cache_policy.js): which requests the service worker
// serves, and where the Python worker keeps its offline copies; and the message types and liveness
// (assets/js/protocol.js); run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  OFFICIAL_STDLIB,
  cacheNames,
  isStaleCache,
  offlineCacheFor,
  servedByServiceWorker,
} from "../../src/course_site/course_site/assets/js/cache_policy.js";
import { LIVENESS, MessageType, QUIET_MS } from "../../src/course_site/course_site/assets/js/protocol.js";

const ORIGIN = "https://learn.example.org";
const SITE = `${ORIGIN}/course/`; // a site deployed under a path
const NAMES = cacheNames("3f2a9c", "0.27.7");

const get = (url) => ({ method: "GET", url });

/* The files whose URL names their version: Pyodide's, the site's wheels, the trimmed lock. */
const VERSIONED = {
  "Pyodide's wasm": `${SITE}pyodide/v0.27.7/pyodide.asm.wasm`,
  "Pyodide's script": `${SITE}pyodide/v0.27.7/pyodide.asm.js`,
  "Pyodide's loader": `${SITE}pyodide/v0.27.7/pyodide.js`,
  "Pyodide's wheel": `${SITE}pyodide/v0.27.7/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl`,
  "the derived stdlib": `${SITE}pyodide/v0.27.7/python_stdlib-pyc-0a1b2c3d.zip`,
  "the course's wheel": `${SITE}assets/course/wheels/0123456789abcdef/posenc-0.1.0-py3-none-any.whl`,
  "the lock": `${SITE}assets/course/pyodide-lock-89abcdef.json`,
};

/* The site's other files: served network-first by the service worker, with the site cache offline. */
const UNVERSIONED = {
  "a lesson page": `${SITE}lessons/32-positional-encoding/`,
  "the home page": SITE,
  "a runner script": `${SITE}assets/course/js/kernel.js`,
  "the worker settings": `${SITE}assets/course/worker-settings.json`,
  "a stylesheet": `${SITE}assets/stylesheets/main.css`,
  // Names that only look versioned: not in the versioned folders, or not of their form.
  "a page about Pyodide": `${SITE}pyodide/`,
  "a lock without its hash": `${SITE}assets/course/pyodide-lock.json`,
  "a lock's hash in upper case": `${SITE}assets/course/pyodide-lock-89ABCDEF.json`,
  "a lock's page": `${SITE}assets/course/pyodide-lock-89abcdef.json.html`,
  "a wheel folder that is not a hash": `${SITE}assets/course/wheels/latest/posenc.whl`,
  "a file beside the wheel folders": `${SITE}assets/course/wheels/index.json`,
  "a file beside Pyodide's folders": `${SITE}pyodide/v0.27.7`,
};

test("the cache names carry the site's and Pyodide's versions", () => {
  assert.deepEqual(NAMES, { site: "course-site-3f2a9c", pyodide: "course-pyodide-0.27.7" });
});

test("only the site's caches of other versions are stale", () => {
  assert.equal(isStaleCache("course-site-3f2a9c", NAMES), false);
  assert.equal(isStaleCache("course-pyodide-0.27.7", NAMES), false);
  assert.equal(isStaleCache("course-site-old", NAMES), true);
  assert.equal(isStaleCache("course-pyodide-0.26.4", NAMES), true);
  assert.equal(isStaleCache("course-anything", NAMES), true);
  // Another application's caches on the same origin are left alone.
  assert.equal(isStaleCache("workbox-precache-v2", NAMES), false);
  assert.equal(isStaleCache("my-course-site-old", NAMES), false);
});

for (const [what, url] of Object.entries(VERSIONED)) {
  test(`the service worker never serves ${what}, on any visit`, () => {
    assert.equal(servedByServiceWorker(get(url), ORIGIN), false);
    assert.equal(servedByServiceWorker(get(`${url}?v=2`), ORIGIN), false);
  });
}

test("the Python worker keeps Pyodide's files in the Pyodide cache, the site's versioned files in the site cache", () => {
  for (const what of ["Pyodide's wasm", "Pyodide's script", "Pyodide's loader", "Pyodide's wheel", "the derived stdlib"]) {
    assert.equal(offlineCacheFor(VERSIONED[what], NAMES), NAMES.pyodide, what);
  }
  assert.equal(offlineCacheFor(VERSIONED["the course's wheel"], NAMES), NAMES.site);
  assert.equal(offlineCacheFor(VERSIONED["the lock"], NAMES), NAMES.site);
});

for (const [what, url] of Object.entries(UNVERSIONED)) {
  test(`the service worker serves ${what}; the Python worker keeps no copy of it`, () => {
    assert.equal(servedByServiceWorker(get(url), ORIGIN), true);
    assert.equal(offlineCacheFor(url, NAMES), null);
  });
}

test("the service worker serves only GET requests of the site's origin", () => {
  const page = UNVERSIONED["a lesson page"];
  assert.equal(servedByServiceWorker({ method: "POST", url: page }, ORIGIN), false);
  assert.equal(servedByServiceWorker({ method: "HEAD", url: page }, ORIGIN), false);
  assert.equal(servedByServiceWorker(get("https://cdn.example.net/course/lessons/"), ORIGIN), false);
  assert.equal(servedByServiceWorker(get("http://learn.example.org/course/lessons/"), ORIGIN), false);
  assert.equal(servedByServiceWorker(get("https://learn.example.org:8443/course/lessons/"), ORIGIN), false);
});

test("a versioned path is read from the URL's path, not its query or its host", () => {
  assert.equal(servedByServiceWorker(get(`${SITE}lessons/?next=/pyodide/v0.27.7/pyodide.asm.wasm`), ORIGIN), true);
  assert.equal(offlineCacheFor(`${SITE}lessons/?next=/pyodide/v0.27.7/x`, NAMES), null);
});

const ROOT = new URL("../../", import.meta.url);
const read = (path) => readFileSync(new URL(path, ROOT), "utf8");

test("each message type has a name of its own", () => {
  const names = Object.values(MessageType);
  assert.ok(names.every((name) => /^[a-z]+(-[a-z]+)*$/.test(name)), names.join(" "));
  assert.equal(new Set(names).size, names.length);
  assert.ok(Object.isFrozen(MessageType));
});

test("the results and errors are named as Python's cell_exec emits them, the others as the page reads them", () => {
  const cellExec = read("src/course_site/course_kernel/cell_exec.py");
  for (const kind of [MessageType.RESULT, MessageType.ERROR]) assert.ok(cellExec.includes(`self.emit("${kind}"`), kind);
  assert.deepEqual(MessageType, {
    STRINGS: "strings", INTERRUPT_BUFFER: "interrupt-buffer", RUN: "run", CANCEL: "cancel", PREFETCH: "prefetch", SNAPSHOT: "snapshot",
    LOADED: "loaded", SETTINGS: "settings", PROGRESS: "progress", READY: "ready", INIT_ERROR: "init-error", STARTED: "started",
    STREAM: "stream", RESULT: "result", ERROR: "error", FIGURE: "figure", CAPPED: "capped", DROPPED: "dropped",
    DONE: "done", FATAL: "fatal", HEARTBEAT: "heartbeat", COMPLETE: "complete", COMPLETIONS: "completions",
  });
});

test("the default limits are the ones the authors' guide gives", () => {
  const guide = read("docs/authors.md");
  const { limits } = JSON.parse(read("src/course_site/course_site/assets/js/contract.json"));
  assert.deepEqual(limits, { maxLines: 2000, maxChars: 200000, timeLimitS: 0 });
  assert.ok(guide.includes("| `output_max_lines` | `2000` |") && guide.includes("| `output_max_chars` | `200000` |"));
});

test("a worker misses several heartbeats before it is declared dead, a running one many more", () => {
  assert.ok(LIVENESS.heartbeatMs > 0);
  assert.ok(LIVENESS.idleSilenceMs >= 3 * LIVENESS.heartbeatMs, "an idle worker");
  assert.ok(LIVENESS.runSilenceMs >= 3 * LIVENESS.idleSilenceMs, "a cell in one long call into C");
  assert.ok(LIVENESS.startSilenceMs >= 10 * LIVENESS.heartbeatMs, "a worker's script on a slow link");
  const main = read("src/course_site/course_site/assets/js/worker/main.js");
  assert.ok(main.includes(`self.postMessage({ type: "${MessageType.LOADED}" });`), "main.js says it loaded");
  assert.ok(Object.isFrozen(LIVENESS));
  assert.ok(QUIET_MS > 0);
});

test("the official standard library is the file Pyodide ships under that name", () => {
  const manifest = JSON.parse(read("pyodide_assets/manifest.json"));
  assert.equal(OFFICIAL_STDLIB, "python_stdlib.zip");
  assert.ok(JSON.stringify(manifest.files).includes(`"${OFFICIAL_STDLIB}"`), Object.keys(manifest.files).join(" "));
});
