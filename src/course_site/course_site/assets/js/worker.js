/* Course cells: the Python side, in a classic Web Worker (one per page).
 *
 * A classic worker (not a module worker) so that pyodide.js can be loaded with
 * importScripts from any index URL (self-hosted or a CDN) in every browser that
 * runs Pyodide.  It boots as soon as it exists: it reads the site's runtime.json
 * (next to its own folder) and starts Pyodide without waiting for the page,
 * which may still be busy parsing (see starter.js).  The main-thread side is
 * kernel.js; the message protocol is documented there.  Python-side glue:
 * ../py/course_runtime.py (fetched as text and written into Pyodide's file system).
 */
"use strict";

const HOST_MODULE = "_course_host";
const RUNTIME_DIR = "/home/pyodide/.course";

let pyodide = null;
let runCellProxy = null;
let extraPackagesProxy = null;
let warmMatplotlibProxy = null;
let warmedMatplotlib = false;
let importPackages = null; // Python dict: module -> [package names], from runtime.json
let interruptView = null;
let config = null;
let queue = Promise.resolve();
let current = null; // { id, limits, ... } while a run executes
const cancelled = new Set(); // run ids dropped while their packages loaded

/* ------------------------------------------------------------------ progress */

// Bytes are counted as the response bodies stream in (decompressed, like the
// sizes in runtime.json).  `phase` is "core" while Pyodide boots, "packages"
// while a run loads wheels.
const progress = { phase: "core", loaded: 0, total: 0, id: null, packages: [] };
let lastProgressPost = 0;

function postProgress(force) {
  const now = performance.now();
  if (!force && now - lastProgressPost < 80) return;
  lastProgressPost = now;
  self.postMessage({
    type: "progress", phase: progress.phase, loaded: progress.loaded,
    total: progress.total, id: progress.id, packages: progress.packages,
  });
}

const nativeFetch = self.fetch.bind(self);
const prefetched = new Map(); // absolute URL -> Promise<Response> (used once)

/* Files whose content never changes under their URL.  They come from the network
 * and the browser's HTTP cache, never through the service worker, because only
 * then does V8 keep its compiled code for the wasm and pyodide.asm.js, which
 * makes a second visit much faster.  For offline use the worker keeps a copy of
 * each in the site's caches (cleaned by course-sw.js on upgrade) and falls back
 * to it when the network fails. */
const VERSIONED = /\/pyodide\/v[^/]+\/|\/assets\/course\/wheels\/[0-9a-f]+\/|\/assets\/course\/pyodide-lock-[0-9a-f]+\.json$/;

function cacheNameFor(url) {
  const names = config?.cacheNames;
  if (!names || !self.caches) return null;
  const path = new URL(url).pathname;
  if (!VERSIONED.test(path)) return null;
  return path.includes("/pyodide/v") ? names.pyodide : names.site;
}

/* The copy of a versioned file kept for offline use, if any. */
async function keptCopy(url) {
  return cacheNameFor(url) ? caches.match(url) : undefined;
}

/* Keep a copy of versioned `url` with `store(cache)`, unless one is kept already (then `skip()`). */
function keepOnce(url, store, skip = () => {}) {
  caches.open(cacheNameFor(url))
    .then(async (cache) => ((await cache.match(url)) ? skip() : store(cache)))
    .catch(() => {});
}

function keepInCache(response) {
  if (!response.ok || !response.url || !cacheNameFor(response.url)) return;
  const copy = response.clone();
  keepOnce(response.url, (cache) => cache.put(response.url, copy), () => copy.body?.cancel());
}

/* The network (or the HTTP cache); when that fails (offline), the kept copy. */
async function fetchOrKept(input, init) {
  try {
    return await nativeFetch(input, init);
  } catch (err) {
    const kept = await keptCopy(absoluteURL(input));
    if (kept) return kept;
    throw err;
  }
}

/* Count a download's bytes for the progress bar on a clone of its body, and hand
 * the original Response on: WebAssembly.instantiateStreaming then gets the real
 * response (its URL, its cache entry), which lets V8 reuse compiled code on the
 * next visit. */
function countBody(response) {
  keepInCache(response);
  if (!response.ok || !response.body) return response;
  const reader = response.clone().body.getReader();
  (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      progress.loaded += chunk.value.byteLength;
      postProgress(false);
    }
  })().catch(() => {});
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
  return fetchOrKept(input, init).then(countBody);
};

function hexToBase64(hex) {
  let bin = "";
  for (let i = 0; i < hex.length; i += 2) bin += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return btoa(bin);
}

/* Start downloading the wheels of `names` and their dependencies, with the
 * same URL and integrity that Pyodide's package loader will ask for. */
function prefetchPackages(lock, names, indexURL) {
  const packages = lock.packages || {};
  const seen = new Set();
  const visit = (name) => {
    const key = String(name).toLowerCase().replace(/[-_.]+/g, "-");
    const pkg = packages[key] || packages[name];
    if (!pkg || seen.has(key)) return;
    seen.add(key);
    (pkg.depends || []).forEach(visit);
    const url = new URL(pkg.file_name, indexURL).href;
    if (prefetched.has(url)) return;
    prefetch(url, pkg.sha256 ? { integrity: `sha256-${hexToBase64(pkg.sha256)}` } : {});
  };
  names.forEach(visit);
}

/* The parsed lock (set by init) and the packages whose wheels are already on their way. */
let lockPackages = null;
const prefetchedPackages = new Set();
const wantedEarly = new Set(); // asked for before the lock was known

/* Start downloading the wheels of `names` (numpy at start; a queued cell's
 * packages while Python boots), counted in the progress shown to the learner. */
function prefetchWheels(names) {
  if (!lockPackages) {
    names.forEach((name) => wantedEarly.add(name));
    return;
  }
  const fresh = names.filter((name) => !prefetchedPackages.has(name));
  if (!fresh.length) return;
  fresh.forEach((name) => prefetchedPackages.add(name));
  if (progress.phase === "core") progress.total += packageSizes(fresh.filter((n) => !(config.preload || []).includes(n)));
  if (fresh.includes("matplotlib")) fontList();
  const indexURL = new URL(config.indexURL, self.location.href).href.replace(/\/?$/, "/");
  lockPackages
    .then((lock) => prefetchPackages(lock, fresh, indexURL))
    .catch((err) => console.warn("course: could not prefetch packages", err));
}

function prefetch(url, init = {}) {
  const promise = fetchOrKept(url, init).then(countBody);
  prefetched.set(url, promise);
  promise.catch(() => prefetched.delete(url));
  return promise;
}

/* ------------------------------------------------------------------ output */

const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
let pendingText = "";
let pendingStream = null;
let lastFlush = 0;

function flushStream() {
  if (current && pendingText) {
    self.postMessage({ type: "stream", id: current.id, stream: pendingStream, text: pendingText });
  }
  pendingText = "";
  pendingStream = null;
  lastFlush = performance.now();
}

function countNewlines(text) {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function dropBytes(buf) {
  const c = current;
  c.droppedBytes += buf.length;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) c.droppedLines++;
  c.lastDroppedNewline = buf.length ? buf[buf.length - 1] === 10 : c.lastDroppedNewline;
}

function announceCap() {
  if (current.capNoticeSent) return;
  current.capNoticeSent = true;
  flushStream();
  self.postMessage({
    type: "capped", id: current.id, maxLines: current.maxLines, maxChars: current.maxChars,
  });
}

function writeStream(stream, buf) {
  const c = current;
  if (!c) return buf.length; // output outside a run (should not happen): discard
  if (c.capped) {
    dropBytes(buf);
    return buf.length;
  }
  let text = decoders[stream].decode(buf, { stream: true });
  if (!text) return buf.length;
  const newlines = countNewlines(text);
  if (c.lines + newlines > c.maxLines || c.chars + text.length > c.maxChars) {
    // Keep what fits, drop the rest, stop streaming for this run.
    let cut = Math.min(text.length, Math.max(0, c.maxChars - c.chars));
    let count = c.lines;
    if (count >= c.maxLines) cut = 0;
    for (let i = text.indexOf("\n"); cut > 0 && i !== -1 && i < cut; i = text.indexOf("\n", i + 1)) {
      if (++count >= c.maxLines) { cut = i + 1; break; }
    }
    const kept = text.slice(0, cut);
    const dropped = text.slice(cut);
    c.capped = true;
    c.droppedBytes += dropped.length;
    c.droppedLines += countNewlines(dropped);
    c.lastDroppedNewline = dropped.endsWith("\n");
    text = kept;
    c.lines += countNewlines(kept);
    c.chars += kept.length;
    if (text) appendPending(stream, text);
    announceCap();
    return buf.length;
  }
  c.lines += newlines;
  c.chars += text.length;
  appendPending(stream, text);
  return buf.length;
}

// The worker is busy running Python, so no timer can flush later: each write
// is posted at once, unless writes come fast (more than 20 in 100 ms), then
// they are batched (16 kB or 40 ms).  The output cap bounds the total anyway.
let burstStart = 0;
let burstCount = 0;

function appendPending(stream, text) {
  if (pendingStream && pendingStream !== stream) flushStream();
  pendingStream = stream;
  pendingText += text;
  const now = performance.now();
  if (now - burstStart > 100) {
    burstStart = now;
    burstCount = 0;
  }
  if (++burstCount <= 20 || pendingText.length > 16384 || now - lastFlush > 40) flushStream();
}

/* Called from Python (module _course_host). */
const host = {
  emit_text(kind, text) {
    flushStream();
    if (!current) return;
    if (text.length > current.maxChars) {
      text = text.slice(0, current.maxChars) + `\n… ${text.length - current.maxChars} characters dropped`;
    }
    self.postMessage({ type: kind, id: current.id, text });
  },
  emit_figure(png, alt) {
    flushStream();
    if (!current) return;
    const bytes = png.slice ? png.slice() : new Uint8Array(png);
    self.postMessage({ type: "figure", id: current.id, png: bytes.buffer, alt }, [bytes.buffer]);
  },
};

const GLUE = `
import sys, os, __main__
sys.path.insert(0, ${JSON.stringify(RUNTIME_DIR)})
os.environ["MPLBACKEND"] = "agg"
import course_runtime
from pyodide.ffi import to_js
from ${HOST_MODULE} import emit_text, emit_figure
course_runtime.install_input_guard()

def _emit(kind, payload):
    if kind == "figure":
        emit_figure(to_js(payload["png"]), payload["alt"])
    else:
        emit_text(kind, str(payload))

def _run(code, setup, filename):
    ns = __main__.__dict__
    ok = True
    if setup:
        ok = course_runtime.run_cell(setup, ns, filename="<setup>", emit=_emit)
    if ok:
        ok = course_runtime.run_cell(code, ns, filename=filename, emit=_emit)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    return ok

def _extra_packages(code, mapping):
    """Packages that the modules the code uses need beyond what an import scan shows."""
    names = course_runtime.module_references(code)
    return sorted({pkg for name in names for pkg in mapping.get(name, ())})

def _warm_matplotlib(font_list):
    """Install the site's prebuilt font list, then import matplotlib's font manager.

    Pyodide's matplotlib keeps its font cache beside the package (fontlist.json).
    The one in the 0.27.7 wheel was made by another matplotlib version
    (_version 390, not 330), so without ours every first import spends seconds
    rebuilding it.
    """
    if "matplotlib.font_manager" in sys.modules:
        return
    if font_list is not None:
        import importlib.util, pathlib
        target = pathlib.Path(importlib.util.find_spec("matplotlib").origin).with_name("fontlist.json")
        target.write_bytes(font_list.to_bytes())
    import matplotlib.font_manager  # noqa: F401

{"run": _run, "extra_packages": _extra_packages, "warm_matplotlib": _warm_matplotlib}
`;

/* ------------------------------------------------------------------ init */

/* The site's runtime.json; the paths in it are relative to it. */
const RUNTIME_JSON = new URL("../runtime.json", self.location.href);

async function readRuntime() {
  const response = await nativeFetch(RUNTIME_JSON, { cache: "no-cache" });
  if (!response.ok) throw new Error(`could not load ${RUNTIME_JSON.pathname}: HTTP ${response.status}`);
  return response.json();
}

/* init's settings, from runtime.json, with absolute URLs. */
function settings(runtime) {
  const at = (path) => new URL(path, RUNTIME_JSON).href;
  const sizes = runtime.download_bytes || {};
  const preload = runtime.preload_packages || [];
  // Offline copies where the page can register the service worker (boot.js), which cleans them on upgrade.
  const offline = Boolean(runtime.service_worker && self.caches && self.isSecureContext);
  const runtimeURL = new URL("../py/course_runtime.py", self.location.href);
  if (runtime.version) runtimeURL.searchParams.set("v", runtime.version);
  return {
    indexURL: at(runtime.pyodide_index_url).replace(/\/?$/, "/"),
    lockFileURL: runtime.lock_file_url ? at(runtime.lock_file_url) : null,
    importPackages: runtime.import_packages || {},
    fontListURL: runtime.matplotlib_font_cache ? at(runtime.matplotlib_font_cache) : null,
    cacheNames: offline
      ? { pyodide: `course-pyodide-${runtime.pyodide_version}`, site: `course-site-${runtime.version}` }
      : null,
    runtimeURL: runtimeURL.href,
    preload,
    coreBytes: (Number(sizes.core) || 0) + preload.reduce((sum, name) => sum + (Number(sizes[name]) || 0), 0),
    downloadBytes: sizes,
  };
}

async function init(cfg) {
  config = cfg;
  const indexURL = cfg.indexURL;
  const lockFileURL = cfg.lockFileURL || indexURL + "pyodide-lock.json";
  progress.phase = "core";
  progress.total = cfg.coreBytes || 0;
  postProgress(true);

  // Start every big download at once; loadPyodide picks the responses up from
  // `prefetched`, so each file is fetched once and its bytes are counted.
  for (const url of [indexURL + "pyodide.asm.wasm", indexURL + "python_stdlib.zip"]) prefetch(url);
  // The lock is read here too, to start the preloaded wheels (numpy) now rather
  // than after Python has booted, which is when loadPyodide would fetch them.
  const lockText = fetchOrKept(lockFileURL).then(countBody).then((r) => {
    if (!r.ok) throw new Error(`could not load ${lockFileURL}: HTTP ${r.status}`);
    return r.text();
  });
  prefetched.set(lockFileURL, lockText.then((text) => new Response(text, {
    status: 200, headers: { "Content-Type": "application/json" },
  })));
  lockPackages = lockText.then((text) => JSON.parse(text));
  prefetchWheels([...(cfg.preload || []), ...wantedEarly]);
  const runtimeSource = nativeFetch(cfg.runtimeURL).then((r) => {
    if (!r.ok) throw new Error(`could not load ${cfg.runtimeURL}: HTTP ${r.status}`);
    return r.text();
  });
  // pyodide.asm.js defines _createPyodideModule, so loadPyodide skips loading it.
  const scripts = [indexURL + "pyodide.js", indexURL + "pyodide.asm.js"];
  for (const url of scripts) await importScript(url);

  const py = await self.loadPyodide({
    indexURL,
    lockFileURL,
    packages: cfg.preload || [],
    env: { MPLBACKEND: "agg" },
    stdout: () => {}, stderr: () => {},
  });
  if (py._api) {
    // Pyodide calls this on a fatal error (a crash in C code, a wasm trap, a
    // stack overflow): it can no longer be used, so the page replaces the worker.
    py._api.on_fatal = (err) => {
      flushStream();
      self.postMessage({ type: "fatal", id: current ? current.id : null, message: String(err && err.message ? err.message : err) });
    };
  }
  py.setStdout({ write: (buf) => writeStream("stdout", buf) });
  py.setStderr({ write: (buf) => writeStream("stderr", buf) });
  if (interruptView) py.setInterruptBuffer(interruptView);
  py.FS.mkdirTree(RUNTIME_DIR);
  py.FS.writeFile(`${RUNTIME_DIR}/course_runtime.py`, await runtimeSource);
  py.registerJsModule(HOST_MODULE, host);
  const glue = py.runPython(GLUE, { globals: py.toPy({}) });
  runCellProxy = glue.get("run");
  extraPackagesProxy = glue.get("extra_packages");
  warmMatplotlibProxy = glue.get("warm_matplotlib");
  importPackages = py.toPy(cfg.importPackages || {});
  // Import what was preloaded (numpy: ~0.8 s) now, so that a first Run does not pay for it.
  for (const name of cfg.preload || []) py.pyimport(name.replace(/-/g, "_"));
  pyodide = py;
  progress.loaded = progress.total = Math.max(progress.loaded, progress.total);
  postProgress(true);
  keepScriptsInCache(scripts);
}

/* importScripts(url), so that V8 can keep its code cache for the script; offline,
 * the copy kept in the site's caches, run from a blob: URL. */
async function importScript(url) {
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

/* The scripts bypass fetch (importScripts), so keep their copies here. */
function keepScriptsInCache(urls) {
  for (const url of urls) if (cacheNameFor(url)) keepOnce(url, (cache) => cache.add(url));
}

/* ------------------------------------------------------------------ runs */

/* matplotlib's prebuilt font list (bytes), fetched once, or null when the site has none. */
let fontListBytes;
function fontList() {
  if (!config.fontListURL) return Promise.resolve(null);
  fontListBytes ??= fetchOrKept(config.fontListURL)
    .then((r) => {
      keepInCache(r);
      return r.ok ? r.arrayBuffer() : null;
    })
    .then((buf) => (buf ? new Uint8Array(buf) : null))
    .catch(() => null);
  return fontListBytes;
}

/* Expected bytes for a "Loading a, b, c" step.  runtime.json's download_bytes
 * are keyed by the package a learner imports ("matplotlib" = matplotlib and the
 * dependencies it adds beyond numpy), so sum the keys that appear in the list.
 * 0 means unknown (the page then shows the loaded bytes only). */
function packageSizes(names) {
  const sizes = config.downloadBytes || {};
  let total = 0;
  for (const name of names) {
    const size = sizes[name] ?? sizes[name.toLowerCase().replace(/_/g, "-")];
    if (name !== "core" && typeof size === "number") total += size;
  }
  return total;
}

async function run(msg) {
  const c = {
    id: msg.id, maxLines: msg.maxLines || 2000, maxChars: msg.maxChars || 200000,
    lines: 0, chars: 0, capped: false, capNoticeSent: false,
    droppedLines: 0, droppedBytes: 0, lastDroppedNewline: true,
  };
  current = c;
  pendingText = "";
  pendingStream = null;
  decoders.stdout = new TextDecoder();
  decoders.stderr = new TextDecoder();
  let ok = false;
  let status = "error";
  const t0 = performance.now();
  let t1 = t0;
  try {
    // Wheels for the imports (numpy, matplotlib, posenc, …) that the lock knows.
    progress.phase = "packages";
    progress.id = msg.id;
    const onMessage = (text) => {
      const m = /^Loading (.+)$/.exec(String(text));
      if (!m) return;
      const names = m[1].split(",").map((s) => s.trim()).filter(Boolean);
      progress.packages = names;
      progress.loaded = 0;
      progress.total = packageSizes(names);
      postProgress(true);
    };
    const quiet = { messageCallback: onMessage, errorCallback: () => {} };
    try {
      for (const source of [msg.setup, msg.code]) {
        if (!source) continue;
        await pyodide.loadPackagesFromImports(source, quiet);
        const extra = extraPackagesProxy(source, importPackages);
        const names = extra.toJs();
        extra.destroy();
        if (names.length) await pyodide.loadPackage(names, quiet);
      }
      if (pyodide.loadedPackages.matplotlib && !warmedMatplotlib) {
        warmedMatplotlib = true;
        warmMatplotlibProxy(await fontList());
      }
    } catch (err) {
      // A wheel that could not be downloaded (offline?) is this run's error,
      // not a broken Python: say so and keep the worker.
      progress.id = null;
      const why = String(err && err.message ? err.message : err).split("\n")[0];
      self.postMessage({
        type: "error", id: msg.id,
        text: `Could not load the packages this cell imports: ${why}\nCheck your connection and run the cell again.\n`,
      });
      return;
    }
    progress.id = null;
    progress.packages = [];
    if (cancelled.delete(msg.id)) {
      status = "cancelled";
      return;
    }
    if (interruptView) Atomics.store(interruptView, 0, 0);
    self.postMessage({ type: "started", id: msg.id });
    t1 = performance.now();
    ok = runCellProxy(msg.code, msg.setup || "", msg.filename);
    status = ok ? "ok" : "error";
  } catch (err) {
    // A Python exception escaping run_cell (KeyboardInterrupt arriving between
    // two statements of the glue) or a fatal Pyodide error (on_fatal has
    // already told the page in that case).
    flushStream();
    const text = String(err && err.message ? err.message : err);
    if (/KeyboardInterrupt/.test(text)) {
      status = "error";
      self.postMessage({ type: "error", id: msg.id, text: "KeyboardInterrupt\n" });
    } else if (isFatal(err)) {
      self.postMessage({ type: "fatal", id: msg.id, message: text });
      current = null;
      throw err;
    } else {
      self.postMessage({ type: "error", id: msg.id, text });
    }
  } finally {
    if (current === c) {
      flushStream();
      decoders.stdout.decode();
      decoders.stderr.decode();
      if (c.droppedBytes) {
        const lines = c.droppedLines + (c.lastDroppedNewline ? 0 : 1);
        self.postMessage({ type: "dropped", id: c.id, lines, chars: c.droppedBytes });
      }
      self.postMessage({
        type: "done", id: c.id, ok, status,
        ms: Math.round(performance.now() - t1), totalMs: Math.round(performance.now() - t0),
      });
      current = null;
    }
  }
}

function isFatal(err) {
  if (!pyodide) return true;
  const text = String(err);
  if (/fatal error|Aborted\(|RuntimeError: (unreachable|memory access out of bounds)|Maximum call stack/i.test(text)) return true;
  return !(err && err.constructor && err.constructor.name === "PythonError");
}

/* ------------------------------------------------------------------ messages */

const booting = readRuntime().then((runtime) => {
  self.postMessage({ type: "config", runtime });
  return init(settings(runtime));
});
queue = booting.then(
  () => self.postMessage({ type: "ready", version: pyodide.version }),
  (err) => {
    // The page shows the message and never sends a run to this worker.
    console.error("course worker: Python could not start", err);
    self.postMessage({ type: "init-error", message: String(err && err.message ? err.message : err).split("\n")[0] });
  },
);

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "interrupt-buffer") {
    interruptView = new Int32Array(msg.buffer);
    if (pyodide) pyodide.setInterruptBuffer(interruptView);
  } else if (msg.type === "prefetch") {
    prefetchWheels(msg.packages || []);
  } else if (msg.type === "cancel") {
    cancelled.add(msg.id);
  } else if (msg.type === "run") {
    // Runs are serialized here too, although the kernel only sends one at a time.
    queue = queue.then(() => run(msg)).catch((err) => {
      console.error("course worker:", err);
    });
  }
};
