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

// The snapshot that this browser may keep (snapshot.js), where there is one, is read and hashed
// now, by a worker of its own: this thread's time goes to the modules and Pyodide's scripts.
// Without one (a first visit), no reader is started and the boot does not wait for it.
const keptSnapshot = import("./snapshot.js").then(
  async ({ missingSnapshotFile }) => {
    const missing = await missingSnapshotFile();
    return missing ? { reason: missing } : readKeptSnapshot();
  },
  () => ({ reason: "snapshot.js could not be loaded" }), // dispatch.js's import fails too, and says why
);

/* A promise of snapshot.js's readKeptFile() answer, from snapshot_reader.js, with `libraries`: a
 * promise of its compiled shared libraries (a Map, empty if none); {reason} if that worker fails. */
function readKeptSnapshot() {
  let compiled;
  const libraries = new Promise((resolve) => {
    compiled = resolve;
  });
  return new Promise((resolve) => {
    const failed = (why) => {
      resolve({ reason: `snapshot reader failed: ${why}` });
      compiled(new Map());
    };
    try {
      const reader = new Worker(new URL("./snapshot_reader.js", self.location.href), { type: "module", name: "course-snapshot-reader" });
      reader.onmessage = ({ data }) => (data.libraries ? compiled(data.libraries) : resolve({ ...data, libraries }));
      reader.onerror = (event) => {
        event.preventDefault();
        failed(event.message || "could not start");
      };
    } catch (err) {
      failed(err.message || err);
    }
  });
}

import("./dispatch.js").then(({ start }) => start(SETTINGS_URL, settings, early, keptSnapshot), (err) => {
  setTimeout(() => { throw err; }); // the page's Worker gets an "error" event and says why
});
