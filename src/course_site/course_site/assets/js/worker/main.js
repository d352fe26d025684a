/* Course cells: the Python side, in a Web Worker (one per page).
 *
 * A classic worker whose modules (dispatch.js and what it imports) come in with
 * import(): pyodide.js and pyodide.asm.js are then loaded with importScripts,
 * from any index URL (self-hosted or a CDN).  V8 keeps no code cache for them
 * here (pyodide.asm.js compiles in ~0.15 s on every visit), but loading them
 * with import() made later visits slower (docs/maintainers.md).  The worker
 * boots as soon as it exists, without
 * waiting for the page (see worker_prestart.js): the site's settings file is
 * requested here at once, while the modules load.  The page side is
 * ../kernel.js; the messages are in ../protocol.js.
 */
"use strict";

// First: the page's kernel then knows that this script came (MessageType.LOADED, ../protocol.js).
self.postMessage({ type: "loaded" });

// In assets/course/, beside this build's runner folder (assets/course/runner-<hash>/js/worker/).
const SETTINGS_URL = new URL("../../../worker-settings.json", self.location.href);
const settings = fetch(SETTINGS_URL, { cache: "no-cache" });
settings.catch(() => {}); // boot.js reads the failure and tells the page

// Messages that arrive while the modules load would find no listener: keep them.
const early = [];
self.onmessage = (event) => early.push(event.data);

/* How long each step of reading the kept snapshot may take: the file system's answer, the
 * reader's (the file read and hashed: well under a second), then the reader's compiled libraries.
 * Past it the boot goes on without (a normal boot; or the loader compiles the libraries itself):
 * a browser that leaves the reader's script, or the file, unanswered would otherwise hold
 * Python's boot for good. */
const READ_MS = 20000;

// The snapshot that this browser may keep (snapshot.js), where there is one, is read and hashed
// now, by a worker of its own: this thread's time goes to the modules and Pyodide's scripts.
// Without one (a first visit), no reader is started and the boot does not wait for it.
const keptSnapshot = import("./snapshot.js").then(
  async ({ missingSnapshotFile }) => {
    const missing = await withinReadTime(missingSnapshotFile(), "the file system", (why) => why);
    return missing ? { reason: missing } : readKeptSnapshot();
  },
  () => ({ reason: "snapshot.js could not be loaded" }), // dispatch.js's import fails too, and says why
);

/* `promise`, or late(why) once READ_MS have passed without its answer (`who` did not answer). */
function withinReadTime(promise, who, late) {
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve(late(`snapshot not read: ${who} did not answer in ${READ_MS / 1000} s`)), READ_MS);
  });
  return Promise.race([promise.finally(() => clearTimeout(timer)), deadline]);
}

/* A promise of snapshot.js's readKeptFile() answer, from snapshot_reader.js, with `libraries`: a
 * promise of its compiled shared libraries (a Map, empty if none); {reason} if that worker fails
 * or does not answer within READ_MS.  A reader past its time is ended, its libraries then none. */
function readKeptSnapshot() {
  let compiled;
  const libraries = new Promise((resolve) => {
    compiled = resolve;
  });
  let reader = null;
  const end = () => {
    reader?.terminate();
    compiled(new Map());
  };
  const answer = new Promise((resolve) => {
    const failed = (why) => {
      resolve({ reason: `snapshot reader failed: ${why}` });
      compiled(new Map());
    };
    try {
      reader = new Worker(new URL("./snapshot_reader.js", self.location.href), { type: "module", name: "course-snapshot-reader" });
      reader.onmessage = ({ data }) => (data.libraries ? compiled(data.libraries) : resolve({ ...data, libraries }));
      reader.onerror = (event) => {
        event.preventDefault();
        failed(event.message || "could not start");
      };
    } catch (err) {
      failed(err.message || err);
    }
  });
  answer.then(({ file }) => file && withinReadTime(libraries, "its compiler", end));
  return withinReadTime(answer, "its reader", (why) => (end(), { reason: why }));
}

import("./dispatch.js").then(({ start }) => start(SETTINGS_URL, settings, early, keptSnapshot), (err) => {
  setTimeout(() => { throw err; }); // the page's Worker gets an "error" event and says why
});
