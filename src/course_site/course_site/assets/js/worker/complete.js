/* The editor's completions, in the Python worker: Jedi over the page's namespace.
 *
 * Nothing of it loads at boot.  The first "complete" message (../protocol.js) downloads
 * the jedi and parso wheels (kept for offline use like every wheel: network.js), then,
 * one step at a time, installs them, imports parso and imports ../../py/course_kernel/completion.py
 * (which imports Jedi).  Each step, and each answer, is a task on the worker's queue
 * (dispatch.js) that yields to runs: a task that finds a run waiting is put back behind it
 * (a loading step) or dropped (an answer: the page asks again as the learner types on).
 * A run sent while a step is under way waits for that one step only.  Only the newest
 * request is answered; older ones are dropped.
 */
import { MessageType } from "../protocol.js";
import { downloadWheels, fetchDirect, provideStdlib } from "./network.js";
import { PYTHON_DIR, pythonURL } from "./places.js";

const PACKAGES = ["jedi"]; // and parso, its dependency in the lock
const MODULE = "course_kernel.completion"; // contract.json's python.onFirstUse
const MODULE_PATH = "course_kernel/completion.py"; // in the runner's py/, and under the import path (boot.js)
const MODULE_URL = pythonURL(MODULE_PATH);

let completion = null; // completion.py's module, once imported
let loading = null; // the promise of it
let newest = 0; // the id of the newest request

/**
 * Answer the "complete" message `msg`. `python` is dispatch.js's booted Python (or null), `later(task)`
 * queues a task behind the runs, `runWaiting()` is true while a run waits to be run.
 */
export function requestCompletion(msg, { python, later, runWaiting }) {
  newest = msg.id;
  if (!python) return reply(msg, { dropped: true });
  loading ??= load(python, later, runWaiting).catch((err) => {
    loading = null; // the next request tries again (the connection may be back)
    throw err;
  });
  loading.then(
    () => later(() => answer(msg, runWaiting)),
    (err) => reply(msg, { dropped: true, error: String(err?.message ?? err).split("\n")[0] }),
  );
  return undefined;
}

/* The module, loaded in steps that each give way to a waiting run. */
async function load(python, later, runWaiting) {
  const { pyodide } = python;
  const source = fetchDirect(MODULE_URL).then((response) => {
    if (!response.ok) throw new Error(`could not load ${MODULE_URL.pathname}: HTTP ${response.status}`);
    return response.text();
  });
  // Jedi imports much of the standard library: its official zip comes with the wheels.
  await Promise.all([downloadWheels(PACKAGES), source, provideStdlib(python.bridge)]);
  const steps = [
    () => pyodide.loadPackage(PACKAGES, { messageCallback: () => {}, errorCallback: () => {}, checkIntegrity: true }),
    () => pyodide.pyimport("parso").destroy(),
    async () => {
      pyodide.FS.writeFile(`${PYTHON_DIR}/${MODULE_PATH}`, await source);
      completion = pyodide.pyimport(MODULE);
    },
  ];
  for (const step of steps) await inTurn(step, later, runWaiting);
}

/* Run `step` as a queued task once no run waits (a run that comes first goes first). */
function inTurn(step, later, runWaiting) {
  return new Promise((resolve, reject) => {
    const attempt = () => later(async () => {
      if (runWaiting()) {
        attempt();
        return;
      }
      try {
        resolve(await step());
      } catch (err) {
        reject(err);
      }
    });
    attempt();
  });
}

/* The completions for `msg`, unless a newer request or a run came since. */
function answer(msg, runWaiting) {
  if (msg.id !== newest || runWaiting()) return reply(msg, { dropped: true });
  let result;
  try {
    result = completion.complete(msg.code, msg.line, msg.column, msg.setup || "");
    const { from, options } = result.toJs({ dict_converter: Object.fromEntries });
    return reply(msg, { from, options, dropped: false });
  } catch (err) {
    // A completion Jedi cannot make (a bug of Jedi's on odd code) is no completion, not a broken worker.
    return reply(msg, { dropped: true, error: String(err?.message ?? err).trim().split("\n").pop() });
  } finally {
    result?.destroy();
  }
}

function reply(msg, answer) {
  self.postMessage({ type: MessageType.COMPLETIONS, id: msg.id, from: 0, options: [], ...answer });
}
