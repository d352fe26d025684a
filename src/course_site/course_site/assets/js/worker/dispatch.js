/* The worker's dispatch and its runs: boots Python as soon as it is loaded,
 * answers the page's messages (../protocol.js), and runs cells one at a time. */
import { MessageType, QUIET_MS } from "../protocol.js";
import { keepSnapshot, putOffSnapshot, readSettings, startPython, workerSettings } from "./boot.js";
import { fontList, prefetchWheels, provideStdlib } from "./network.js";
import { packageSizes, postProgress, progress } from "./progress.js";
import { makeRunner } from "./run.js";
import { clearStopRequest, signals, startHeartbeat, useStopRequest } from "./signals.js";
import { requestCompletion } from "./complete.js";
import { bootStep, watchFor } from "./boot_watch.js";
import { catalogue, messageOf, useCatalogue } from "../strings.js";

let python = null; // {pyodide, bridge, snapshot} once booted
let catalogueArrived;
const catalogueCame = new Promise((resolve) => {
  catalogueArrived = resolve; // the page's strings (the kernel sends them first)
});
let runner = null; // run.js's, once Python is up
const cancelled = new Set(); // run ids dropped while their packages loaded (or Python booted)

/* The runner's host in the worker: messages to the page, downloads kept for offline use, progress. */
function workerHost() {
  return {
    post: (message, transfer) => self.postMessage(message, transfer),
    fontList,
    provideStdlib: () => provideStdlib(python.bridge),
    loading: (id, names) => {
      if (names === null) {
        progress.id = null;
        progress.packages = [];
        return;
      }
      progress.phase = "packages";
      progress.id = id;
      if (!names.length) return;
      progress.packages = names;
      progress.loaded = 0;
      progress.total = packageSizes(names);
      postProgress(true);
    },
    starting: clearStopRequest,
    cancelled,
  };
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
  python = { pyodide, bridge, snapshot };
  runner = makeRunner({ ...workerHost(), pyodide, bridge, importPackages: settings.importPackages, moduleHint: settings.moduleHint });
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
    queue = queue.then(() => runner.run(msg)).catch((err) => {
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
