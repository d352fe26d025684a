/* The worker's dispatch and its runs: boots Python as soon as it is loaded,
 * answers the page's messages (../protocol.js), and runs cells one at a time. */
import { MessageType, QUIET_MS } from "../protocol.js";
import { describeFatal, keepSnapshot, putOffSnapshot, readSettings, startPython, workerSettings } from "./boot.js";
import { fontList, prefetchWheels, provideStdlib } from "./network.js";
import { packageSizes, postProgress, progress } from "./progress.js";
import { abandonRun, closeRun, flushStream, isOpen, openRun } from "./output.js";
import { clearStopRequest, signals, startHeartbeat, useStopRequest } from "./signals.js";
import { requestCompletion } from "./complete.js";
import { bootStep, watchFor } from "./boot_watch.js";
import { catalogue, learnerError, messageOf, t, useCatalogue } from "../strings.js";

let python = null; // {pyodide, bridge, snapshot, importPackages, moduleHint} once booted
let catalogueArrived;
const catalogueCame = new Promise((resolve) => {
  catalogueArrived = resolve; // the page's strings (the kernel sends them first)
});
let warmedMatplotlib = false;
const cancelled = new Set(); // run ids dropped while their packages loaded
const scanned = new Set(); // sources whose imports are loaded: Run again does not parse them again

/* Load the wheels that `msg`'s setup and code import; progress goes to the page. */
async function loadPackages(msg) {
  const { pyodide, bridge, importPackages } = python;
  const requested = []; // every package Pyodide said it loads for this run
  const onMessage = (text) => {
    const m = /^Loading (.+)$/.exec(String(text));
    if (!m) return;
    const names = m[1].split(",").map((s) => s.trim()).filter(Boolean);
    progress.packages = names;
    requested.push(...names);
    progress.loaded = 0;
    progress.total = packageSizes(names);
    postProgress(true);
  };
  const quiet = { messageCallback: onMessage, errorCallback: () => {} };
  for (const source of [msg.setup, msg.code, msg.check]) {
    if (!source || scanned.has(source)) continue;
    await pyodide.loadPackagesFromImports(source, quiet);
    const extra = bridge.extra_packages(source, importPackages);
    const names = extra.toJs();
    extra.destroy();
    if (names.length) await pyodide.loadPackage(names, quiet);
    failIfMissing(requested);
    if (requested.length || bridge.stdlib_needed(source)) await provideStdlib(bridge);
    scanned.add(source);
  }
  if (pyodide.loadedPackages.matplotlib && !warmedMatplotlib) {
    warmedMatplotlib = true;
    bridge.warm_matplotlib(await fontList());
  }
}

/* Pyodide's loader reports a wheel it could not download only to errorCallback: name it in an error. */
function failIfMissing(names) {
  const missing = names.filter((name) => !python.pyodide.loadedPackages[name]);
  if (missing.length) throw learnerError("download.packages", { packages: missing.join(", ") });
}

/** Run one cell or console statement (a "run" message): its packages, then its code; ends with "done". */
async function run(msg) {
  const c = openRun(msg.id, msg.maxLines, msg.maxChars);
  let ok = false;
  let status = "error";
  let check; // an exercise's verdict

  const t0 = performance.now();
  let t1 = t0;
  try {
    // A console's statement that is not finished yet (`def f():`) waits for its next line: nothing runs.
    if (msg.console && python.bridge.needs_more_input(msg.code)) {
      status = "incomplete";
      return;
    }
    // Wheels for the imports (numpy, matplotlib, posenc, …) that the lock knows.
    progress.phase = "packages";
    progress.id = msg.id;
    try {
      await loadPackages(msg);
    } catch (err) {
      // A wheel that could not be downloaded (offline?) is this run's error,
      // not a broken Python: say so and keep the worker.
      progress.id = null;
      const why = messageOf(err).split("\n")[0];
      self.postMessage({ type: MessageType.ERROR, id: msg.id, text: `${t("run.packages_failed", { reason: why })}\n` });
      return;
    }
    progress.id = null;
    progress.packages = [];
    if (cancelled.delete(msg.id)) {
      status = "cancelled";
      return;
    }
    clearStopRequest();
    self.postMessage({ type: MessageType.STARTED, id: msg.id });
    t1 = performance.now();
    // The run's session (worker_bridge.session): the page's colour scheme for its figures, the course's module hint.
    const session = [msg.scheme || "default", python.moduleHint];
    if (typeof msg.check === "string") {
      const result = python.bridge.run_exercise(msg.code, msg.setup || "", msg.check, msg.filename, ...session);
      ({ ok, check } = exerciseOutcome(result));
    } else {
      const run = python.bridge.run(msg.code, msg.setup || "", msg.filename, msg.inputs || "", ...session, msg.alt || "");
      ok = await outcome(run);
    }
    status = ok ? "ok" : "error";
  } catch (err) {
    // A Python exception escaping run_cell (KeyboardInterrupt arriving between
    // two statements of the bridge) or a fatal Pyodide error (on_fatal has
    // already told the page in that case).
    flushStream();
    const text = String(err && err.message ? err.message : err);
    if (/KeyboardInterrupt/.test(text)) {
      status = "error";
      self.postMessage({ type: MessageType.ERROR, id: msg.id, text: "KeyboardInterrupt\n" });
    } else if (isFatal(err)) {
      self.postMessage({ type: MessageType.FATAL, id: msg.id, ...describeFatal(err) });
      abandonRun();
      throw err;
    } else {
      self.postMessage({ type: MessageType.ERROR, id: msg.id, text });
    }
  } finally {
    if (isOpen(c)) {
      closeRun();
      self.postMessage({
        type: MessageType.DONE, id: c.id, ok, status, check,
        ms: Math.round(performance.now() - t1), totalMs: Math.round(performance.now() - t0),
      });
    }
  }
}

/* A cell's result: a bool, or (a cell that awaits at top level) a Python awaitable giving it. */
async function outcome(result) {
  if (!(result instanceof python.pyodide.ffi.PyProxy)) return result;
  try {
    return await result;
  } finally {
    result.destroy();
  }
}

/* An exercise's run, from worker_bridge.run_exercise: {ok, check: {passed, message}}. */
function exerciseOutcome(result) {
  try {
    const { ok, passed, message } = result.toJs({ dict_converter: Object.fromEntries });
    return { ok, check: { passed, message } };
  } finally {
    result.destroy();
  }
}

function isFatal(err) {
  if (!python) return true;
  const text = String(err);
  if (/fatal error|Aborted\(|RuntimeError: (unreachable|memory access out of bounds)|Maximum call stack/i.test(text)) return true;
  return !(err && err.constructor && err.constructor.name === "PythonError");
}

async function boot(settingsURL, settingsResponse, keptSnapshot) {
  const endWatch = watchFor("Python's boot");
  try {
    await bootPython(settingsURL, settingsResponse, keptSnapshot);
  } finally {
    endWatch();
  }
}

async function bootPython(settingsURL, settingsResponse, keptSnapshot) {
  bootStep("reading the site's settings");
  const file = await readSettings(settingsURL, settingsResponse);
  self.postMessage({ type: MessageType.SETTINGS, settings: file, url: settingsURL.href });
  const settings = workerSettings(file, settingsURL);
  const { pyodide, bridge, snapshot } = await startPython(settings, keptSnapshot);
  pyodide.setInterruptBuffer(signals);
  python = { pyodide, bridge, snapshot, importPackages: pyodide.toPy(settings.importPackages), moduleHint: settings.moduleHint };
  tellPython();
}

/* Python's words to the learner (verdicts, figure descriptions) from the page's catalogue, once Python
 * is up and the catalogue came, whichever is last. */
function tellPython() {
  const { messages } = catalogue();
  if (python && Object.keys(messages).length) python.bridge.use_strings(JSON.stringify(messages));
}

let queue = null; // runs wait here behind the boot and each other

/**
 * Boot Python from the settings file at `settingsURL` (`settingsResponse`: its
 * fetch, under way; `keptSnapshot`: the kept snapshot being read, main.js's readKeptSnapshot()),
 * then handle the page's messages, `early` ones first.
 */
export function start(settingsURL, settingsResponse, early, keptSnapshot) {
  queue = boot(settingsURL, settingsResponse, keptSnapshot).then(
    () => self.postMessage({ type: MessageType.READY, version: python.pyodide.version }),
    async (err) => {
      // The page shows the message (in its words, once they came) and never sends a run to this worker.
      const reason = messageOf(err).split("\n")[0];
      // The reason in words too: a console that shows only the object's handle (a driver's log) still says why.
      console.error(`course worker: Python could not start: ${reason}`, err);
      await catalogueCame;
      self.postMessage({ type: MessageType.INIT_ERROR, message: reason });
    },
  );
  self.onmessage = (event) => receive(event.data);
  for (const msg of early.splice(0)) receive(msg);
  startHeartbeat();
}

function receive(msg) {
  if (msg.type === MessageType.STRINGS) {
    useCatalogue(msg.catalogue);
    tellPython();
    catalogueArrived();
  } else if (msg.type === MessageType.INTERRUPT_BUFFER) {
    useStopRequest(new Int32Array(msg.buffer));
  } else if (msg.type === MessageType.PREFETCH) {
    prefetchWheels(msg.packages || []);
  } else if (msg.type === MessageType.CANCEL) {
    cancelled.add(msg.id);
  } else if (msg.type === MessageType.SNAPSHOT) {
    snapshotDue = true;
    snapshotWhenQuiet(0); // the page asked once Python had been quiet for QUIET_MS
  } else if (msg.type === MessageType.COMPLETE) {
    requestCompletion(msg, { python, later: (task) => queueTask(task), runWaiting: () => runsPending > 0 });
  } else if (msg.type === MessageType.RUN) {
    // A run gets the CPU: a snapshot being made is put off until Python is quiet again.
    runsPending += 1;
    clearTimeout(snapshotTimer);
    putOffSnapshot();
    // Runs are serialized here too, although the kernel only sends one at a time.
    queue = queue.then(() => run(msg)).catch((err) => {
      console.error("course worker:", err);
    }).finally(() => {
      runsPending -= 1;
      snapshotWhenQuiet(QUIET_MS);
    });
  }
}

/* Work that yields to runs (the editor's completions): behind what is queued, a failure only logged. */
function queueTask(task) {
  queue = queue.then(task).catch((err) => console.error("course worker:", err));
}

/* ---------------------------------------------------------------- the snapshot for the next visit */

let snapshotDue = false; // the page asked for one (Python was quiet), and none is made yet
let snapshotTimer = 0;
let runsPending = 0;

/* Make the snapshot (in a worker of its own) once no run has come for `waitMs`; a run puts it off again. */
function snapshotWhenQuiet(waitMs) {
  clearTimeout(snapshotTimer);
  if (!snapshotDue) return;
  snapshotTimer = setTimeout(() => {
    queue.then(async () => {
      if (!python || !snapshotDue || runsPending) return;
      snapshotDue = !(await keepSnapshot(python.snapshot));
      if (snapshotDue && !runsPending) snapshotWhenQuiet(QUIET_MS); // its maker did not start: again
      // The rest of the stdlib, kept for offline use once Python is quiet (not with Data Saver on:
      // then it comes with the first import that needs it).
      if (!snapshotDue && !self.navigator.connection?.saveData) await provideStdlib(python.bridge);
    }).catch((err) => {
      snapshotDue = false;
      console.warn("course: no snapshot kept", err);
    });
  }, waitMs);
}
