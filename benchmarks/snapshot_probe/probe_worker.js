/* The probe's worker (see probe.html).  Modes, each timed to "numpy imported":
 *   standard  plain loadPyodide with numpy (the floor, like benchmarks/bare_worker.js)
 *   snapshot  the shipped snapshot through snapshot.js (loadSnapshotIfValid + bootPyodide)
 *   make      standard, then makeAndStoreSnapshot into Cache Storage (timed after)
 *   kept      the snapshot made in this browser by `make`, from Cache Storage
 * cfg.stdlib: another python_stdlib.zip URL (the .pyc lever, pyc_stdlib.mjs).
 * cfg.denyStorage: Cache Storage refuses (the "storage full or denied" fallback).
 * cfg.verify: after the import, also import matplotlib (and cfg.wheel, a posenc wheel)
 * and report hash("a"), random.random(), os.environ["MPLBACKEND"]. */
"use strict";

const KEPT_CACHE = "probe-snapshot";
const KEPT_KEY = "/probe/kept-snapshot.bin";

function mark(name) {
  self.postMessage({ type: "mark", name, t: performance.timeOrigin + performance.now() });
}

const VERIFY = `
import os, random, sys
import matplotlib.pyplot as plt
fig = plt.figure(); plt.plot([0, 1]); fig.canvas.draw(); plt.close(fig)
{"hash_a": hash("a"), "random": random.random(), "mplbackend": os.environ.get("MPLBACKEND"),
 "sys_path_blank": sys.path.count(""), "hash_randomization": sys.flags.hash_randomization}
`;

async function boot(cfg, snapshot) {
  const options = {
    indexURL: cfg.index, lockFileURL: cfg.lock, packages: ["numpy"],
    env: { MPLBACKEND: "agg" }, stdout: () => {}, stderr: () => {},
    ...(cfg.stdlib ? { stdLibURL: cfg.stdlib } : {}),
  };
  if (cfg.mode === "standard" || cfg.mode === "make") {
    return { pyodide: await self.loadPyodide(options), restored: false, reason: "standard boot" };
  }
  if (cfg.mode === "snapshot") {
    const bytes = snapshot.loadSnapshotIfValid(cfg.snapshot, fetch, (why) => mark(`refused: ${why}`));
    return snapshot.bootPyodide(options, bytes);
  }
  const kept = await snapshot.keptSnapshot(KEPT_CACHE, KEPT_KEY);
  mark(kept ? "kept snapshot read" : "no kept snapshot");
  return snapshot.bootPyodide(options, kept);
}

self.onmessage = async ({ data: cfg }) => {
  try {
    mark("worker running");
    if (cfg.denyStorage) caches.open = () => Promise.reject(new DOMException("denied by the probe", "SecurityError"));
    const snapshot = cfg.mode === "standard" ? null : await import(cfg.module);
    importScripts(cfg.index + "pyodide.js");
    mark("pyodide.js evaluated");
    const { pyodide, restored, reason } = await boot(cfg, snapshot);
    mark("loadPyodide done");
    pyodide.runPython("import numpy");
    mark("numpy imported");
    const info = { restored, reason };
    if (cfg.mode === "make") {
      const stored = await snapshot.makeAndStoreSnapshot(
        { indexURL: cfg.index, lockFileURL: cfg.lock, env: { MPLBACKEND: "agg" }, stdout: () => {}, stderr: () => {} },
        KEPT_CACHE, KEPT_KEY);
      mark("snapshot made and stored");
      info.stored_bytes = stored;
      info.live_after_make = pyodide.runPython("int(numpy.arange(4).sum())"); // the learner's interpreter still runs
    }
    if (cfg.verify) {
      await pyodide.loadPackage(["matplotlib", ...(cfg.wheel ? [cfg.wheel] : [])], { messageCallback: () => {} });
      if (cfg.wheel) pyodide.runPython("import posenc");
      info.verify = pyodide.runPython(VERIFY).toJs({ dict_converter: Object.fromEntries });
      info.posenc = Boolean(cfg.wheel);
      mark("verified");
    }
    self.postMessage({ type: "info", info });
    self.postMessage({ type: "done" });
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.stack ? err.stack : err) });
  }
};
