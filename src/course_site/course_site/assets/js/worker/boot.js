/* Python's boot in the worker: read the site's settings file, start every big
 * download, load Pyodide (from this browser's snapshot when one is kept, see
 * snapshot.js) and the preloaded packages (from the files kept with it, see
 * package_files.js), and import the Python side
 * (the package course_kernel from ../../py/, written into Pyodide's file system, and its bridge),
 * with the preloaded packages' bytecode that the build compiled (derived_bytecode.py) in place. */
import { cacheNames, OFFICIAL_STDLIB } from "../cache_policy.js";
import { MessageType } from "../protocol.js";
import {
  configure, countBody, downloadError, fetchDirect, fetchOrKept, fetchPackageBytecode, importScript, keepScriptsInCache,
  officialStdlibSync, prefetch, prefetchPreloaded, prefetchStdlib, provide, useLock,
} from "./network.js";
import { bootPyodide, dropSnapshot, keptSnapshot, missingStorage } from "./snapshot.js";
import { watchInstalls } from "./package_files.js";
import { postProgress, progress, setDownloadBytes } from "./progress.js";
import { bootStep } from "./boot_watch.js";
import { flushStream, host, openRunId, writeStream } from "./output.js";
import { describeFatal } from "./run.js";
import { BYTECODE_PREFIX, PYTHON_DIR, pythonURL } from "./places.js";
import { learnerError } from "../strings.js";

const HOST_MODULE = "_course_host";

/** The settings file at `url`, as the site wrote it, from `responsePromise` (its fetch). */
export async function readSettings(url, responsePromise) {
  const response = await responsePromise.catch((err) => {
    throw downloadError(url.href, err);
  });
  if (!response.ok) throw learnerError("download.http", { path: url.pathname, status: response.status });
  return response.json();
}

/** The settings the worker uses, from the settings `file` at `fileURL`, with absolute URLs. */
export function workerSettings(file, fileURL) {
  const at = (path) => new URL(path, fileURL).href;
  const sizes = file.download_bytes || {};
  const preload = file.preload_packages || [];
  // Offline copies where the page can register the service worker (page_kernel.js), which cleans them on upgrade.
  const offline = Boolean(file.service_worker && self.caches && self.isSecureContext);
  const publishedPython = (name) => {
    const url = pythonURL(name);
    if (file.version) url.searchParams.set("v", file.version);
    return url.href;
  };
  return {
    indexURL: at(file.pyodide_index_url).replace(/\/?$/, "/"),
    pyodideVersion: file.pyodide_version,
    buildId: file.pyodide_build_id || null,
    stdlib: file.stdlib ? { url: at(file.stdlib.url), sha256: file.stdlib.sha256 } : null,
    packageBytecode: file.package_bytecode ? { url: at(file.package_bytecode.url), sha256: file.package_bytecode.sha256 } : null,
    lockFileURL: file.lock_file_url ? at(file.lock_file_url) : null,
    importPackages: file.import_packages || {},
    moduleHint: file.module_hint || null,
    fontListURL: file.matplotlib_font_cache ? at(file.matplotlib_font_cache) : null,
    cacheNames: offline ? cacheNames(file.version, file.pyodide_version) : null,
    pythonFiles: (file.python_files || []).map((name) => [name, publishedPython(name)]), // contract.json's, by the build
    pythonBridge: file.python_bridge,
    preload,
    preloadWheels: file.preload_wheels || {},
    coreBytes: (Number(sizes.core) || 0) + preload.reduce((sum, name) => sum + (Number(sizes[name]) || 0), 0),
    downloadBytes: sizes,
  };
}

async function fetchText(url) {
  const response = await fetchDirect(url);
  if (!response.ok) throw learnerError("download.http", { path: new URL(url).pathname, status: response.status });
  return response.text();
}

/* Read the lock here too, to start the preloaded wheels (numpy) now rather
 * than after Python has booted, which is when loadPyodide would fetch them. */
function readLock(lockFileURL) {
  const lockText = fetchOrKept(lockFileURL).then(countBody).then((r) => {
    if (!r.ok) throw learnerError("download.http", { path: new URL(lockFileURL).pathname, status: r.status });
    return r.text();
  });
  provide(lockFileURL, lockText.then((text) => new Response(text, {
    status: 200, headers: { "Content-Type": "application/json" },
  })));
  useLock(lockText.then((text) => JSON.parse(text)));
}

/**
 * Boot Pyodide with `settings` (workerSettings), from the snapshot that `keptSnapshotFile`
 * (a promise of snapshot.js's readKeptFile() answer) holds when it fits.  Returns {pyodide, bridge, snapshot}:
 * bridge is course_kernel.bridge (run, extra_packages, warm_matplotlib).
 */
export async function startPython(settings, keptSnapshotFile) {
  configure(settings);
  setDownloadBytes(settings.downloadBytes);
  const indexURL = settings.indexURL;
  const lockFileURL = settings.lockFileURL || indexURL + "pyodide-lock.json";
  progress.phase = "core";
  progress.total = settings.coreBytes || 0;
  postProgress(true);

  // Start every big download at once; loadPyodide picks the responses up from
  // the prefetched ones, so each file is fetched once and its bytes are counted.
  prefetch(indexURL + "pyodide.asm.wasm");
  const kept = snapshotFor(settings, keptSnapshotFile);
  // A restore writes the preloaded wheels' kept files and needs none of their bytes: where a
  // snapshot is kept, their download waits until the boot knows whether it restored (without
  // one, as on a first visit, `kept` says so at once and the download starts).
  let restoredFrom;
  const restoredWheels = new Promise((resolve) => {
    restoredFrom = resolve;
  });
  prefetchPreloaded(settings.preloadWheels, kept.then((found) => (found.bytes ? restoredWheels : new Set())));
  const stdlib = prefetchStdlib(indexURL, settings.stdlib);
  const packageBytecode = fetchPackageBytecode(settings.packageBytecode);
  readLock(lockFileURL);
  const pythonSources = settings.pythonFiles.map(([name, url]) => fetchText(url).then((text) => [name, text]));
  // pyodide.asm.js defines _createPyodideModule, so loadPyodide skips loading it.
  const scripts = [indexURL + "pyodide.js", indexURL + "pyodide.asm.js"];
  bootStep("loading Pyodide's scripts");
  for (const url of scripts) await importScript(url);

  const options = {
    indexURL, lockFileURL, stdLibURL: stdlib.url, env: { MPLBACKEND: "agg" }, stdout: () => {}, stderr: () => {},
  };
  bootStep("reading the kept snapshot");
  const keptBoot = await kept;
  const boot = await bootFrom(keptBoot, options, stdlib, settings);
  const keptFiles = boot.restored ? await keptBoot.packages : null;
  restoredFrom(new Set((keptFiles?.wheels || []).map((wheel) => wheel.sha256)));
  try {
    return await setUpPython(boot, settings, { options, stdlib, keptFiles, scripts, packageBytecode, pythonSources });
  } catch (err) {
    // A snapshot that restores and then fails would fail every visit: the next one boots normally.
    if (boot.restored) {
      console.info("course: the restored Python could not start: snapshot deleted");
      await dropSnapshot();
    }
    throw err;
  }
}

/* The rest of startPython, once Pyodide is up (`boot`, from bootFrom): the preloaded packages,
 * the Python side, the streams.  Returns {pyodide, bridge, snapshot}. */
async function setUpPython(boot, settings, { options, stdlib, keptFiles, scripts, packageBytecode, pythonSources }) {
  const pyodide = boot.pyodide;
  if (pyodide._api) {
    // Pyodide calls this on a fatal error (a crash in C code, a wasm trap, a
    // stack overflow): it can no longer be used, so the page replaces the worker.
    pyodide._api.on_fatal = (err) => {
      flushStream();
      self.postMessage({ type: MessageType.FATAL, id: openRunId(), ...describeFatal(err) });
    };
  }
  pyodide.setStdout({ write: (buf) => writeStream("stdout", buf) });
  pyodide.setStderr({ write: (buf) => writeStream("stderr", buf) });
  bootStep("the course's Python files");
  for (const [name, text] of await Promise.all(pythonSources)) {
    // course_kernel/cell_exec.py: the package, on the import path as the build's Python has it (node/build_python.mjs)
    pyodide.FS.mkdirTree(`${PYTHON_DIR}/${name}`.replace(/\/[^/]*$/, ""));
    pyodide.FS.writeFile(`${PYTHON_DIR}/${name}`, text);
  }
  // official_stdlib: what stdlib_finder.py imports the modules outside the boot stdlib from.
  pyodide.registerJsModule(HOST_MODULE, { ...host, official_stdlib: officialStdlibSync });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})`);
  // Imported first: it keeps the stdlib zip's directory, which each install would read again.
  const bridge = pyodide.pyimport(settings.pythonBridge);
  bootStep("the packages' bytecode");
  useBytecode(pyodide, await packageBytecode);
  const canKeep = keepsSnapshots(settings) && typeof pyodide.makeMemorySnapshot === "function";
  const packageFiles = await installPreloaded(pyodide, settings, { kept: boot.restored ? keptFiles : null, record: canKeep });
  // Import what was preloaded (numpy: ~0.8 s) now, so that a first Run does not pay for it.
  for (const name of settings.preload) importPreloaded(pyodide, name);
  progress.loaded = progress.total = Math.max(progress.loaded, progress.total);
  postProgress(true);
  keepScriptsInCache(scripts);
  const snapshot = { ...boot, options, stdlib, settings, packageFiles };
  return { pyodide, bridge, snapshot };
}

/* Install the preloaded packages (numpy, posenc): a wheel whose files `kept` holds
 * (the restored snapshot's, or null) from those, else unpacked; if `record` (this visit
 * may keep a snapshot), what they wrote is recorded.  Returns the files to keep with a new
 * snapshot (package_files.js), or null: a restore whose kept files held every wheel needs none. */
async function installPreloaded(pyodide, settings, { kept, record }) {
  bootStep(`installing ${settings.preload.join(", ")}`);
  const watch = watchInstalls(pyodide, { wanted: settings.preloadWheels, kept, record });
  try {
    await pyodide.loadPackage(settings.preload, { messageCallback: () => {}, checkIntegrity: true });
  } finally {
    watch.stop();
  }
  if (watch.used.length) {
    const libraries = `${watch.precompiled} shared libraries compiled meanwhile`;
    console.info(`course: ${watch.used.join(", ")} installed from the files kept with the snapshot (${libraries})`);
  }
  if (kept && !watch.outdated()) return null;
  if (kept) console.info("course: a preloaded package changed since the snapshot: a new one will be kept");
  return watch.recorded();
}

/* Let imports read the preloaded packages' .pyc from `zipBytes` (extracted under BYTECODE_PREFIX)
 * rather than compile their .py; unchecked-hash .pyc of the verified wheels.  Without it, they compile. */
function useBytecode(pyodide, zipBytes) {
  if (!zipBytes) return;
  try {
    pyodide.unpackArchive(zipBytes, "zip", { extractDir: BYTECODE_PREFIX });
    pyodide.runPython(`import sys; sys.pycache_prefix = ${JSON.stringify(BYTECODE_PREFIX)}`);
  } catch (err) {
    console.warn(`course: the packages' bytecode not used (${err.message || err})`);
  }
}

/* Import preloaded package `name`; loadPackage only logs a wheel it could not download, so name it here. */
function importPreloaded(pyodide, name) {
  try {
    pyodide.pyimport(name.replace(/-/g, "_"));
  } catch (err) {
    const lines = String(err && err.message ? err.message : err).trim().split("\n");
    const why = lines.filter((line) => /^\w+(Error|Exception)\b/.test(line)).pop() ?? lines.pop();
    throw learnerError("download.package_failed", { name, reason: why });
  }
}

/* ---------------------------------------------------------------- the snapshot */

/* What a kept snapshot must match: this Pyodide build and the stdlib it would boot with. */
function expectedSnapshot(settings) {
  return { pyodideVersion: settings.pyodideVersion, buildId: settings.buildId, stdlibSha256: settings.stdlib?.sha256 ?? OFFICIAL_STDLIB };
}

/* Whether this site keeps snapshots in this browser (it keeps offline copies, and names its Pyodide build). */
function keepsSnapshots(settings) {
  return Boolean(settings.cacheNames && settings.buildId);
}

/* The kept snapshot ({bytes, packages} or {reason}) from `reading` (a promise of snapshot.js's readKeptFile() answer). */
async function snapshotFor(settings, reading) {
  if (!keepsSnapshots(settings)) return { reason: "no offline storage" };
  return keptSnapshot(reading, expectedSnapshot(settings));
}

/* loadPyodide(options), from the kept snapshot when it fits the stdlib that arrives: the
 * restore starts at once, and is thrown away for a normal boot in the rare visit where the
 * derived stdlib failed (the snapshot pins the stdlib it was made with). */
async function bootFrom(kept, options, stdlib, settings) {
  const bootNormally = () => {
    stdlib.handOn(false);
    return self.loadPyodide(options);
  };
  if (!kept.bytes) {
    bootStep("booting Python");
    console.info(`course: Python booted normally (${kept.reason})`);
    return { pyodide: await bootNormally(), restored: false };
  }
  stdlib.handOn(true);
  bootStep("restoring Python from the snapshot");
  const [boot, stdlibSha256] = await Promise.all([bootPyodide(options, kept.bytes, bootNormally), stdlib.sha256]);
  if (stdlibSha256 !== expectedSnapshot(settings).stdlibSha256) {
    // The restore failed for want of its stdlib, or ended on the wrong one: not the snapshot's fault.
    console.info("course: Python booted normally (the derived stdlib failed: snapshot not used)");
    return boot.restored ? { pyodide: await bootNormally(), restored: false } : boot;
  }
  if (boot.restored) console.info("course: Python restored from this browser's snapshot");
  else {
    console.info(`course: Python booted normally (${boot.reason})`);
    await dropSnapshot();
  }
  return boot;
}

/**
 * Keep a snapshot of a bare interpreter for the next visit (the page was idle), unless
 * this boot restored one whose package files held every preloaded wheel, or there is no
 * offline storage.  It is made in a worker of its
 * own (snapshot_maker.js), so that runs need not wait, and putOffSnapshot() stops it.
 * `snapshot` is what startPython returned under that name.  Resolves to false if it was
 * put off (to be made later), else true (kept, or it cannot be).
 */
export async function keepSnapshot(snapshot) {
  const { pyodide, restored, options, stdlib, settings, packageFiles } = snapshot;
  // A restore remakes the snapshot only when its kept package files are outdated (packageFiles).
  if ((restored && !packageFiles) || !keepsSnapshots(settings)) return true;
  const missing = missingStorage();
  if (missing) {
    console.info(`course: no snapshot kept (${missing})`);
    return true;
  }
  if (typeof pyodide.makeMemorySnapshot !== "function") {
    console.info("course: no snapshot kept (makeMemorySnapshot missing)");
    return true;
  }
  const stdlibSha256 = await stdlib.sha256;
  const stdLibURL = stdlibSha256 === OFFICIAL_STDLIB ? settings.indexURL + OFFICIAL_STDLIB : stdlib.url;
  const record = { pyodide_version: settings.pyodideVersion, build_id: settings.buildId, stdlib_sha256: stdlibSha256 };
  const { indexURL, lockFileURL, env } = options; // what can be posted (not the stdout callbacks)
  const job = { settings, options: { indexURL, lockFileURL, env, stdLibURL }, stdlibSha256, record, packages: packageFiles };
  console.info("course: making a snapshot for the next visit");
  const made = await inMakerWorker(job);
  if (made.notStarted && (makerStalls += 1) >= MAKER_TRIES) {
    console.info(`course: no snapshot kept (its worker did not start, ${MAKER_TRIES} times)`);
    return true;
  }
  if (made.putOff) {
    console.info(made.notStarted ? "course: snapshot put off (its worker did not start)" : "course: snapshot put off (a run started)");
    return false;
  }
  snapshot.packageFiles = null; // 12 MB for numpy, no longer needed
  console.info(made.bytes ? `course: snapshot kept for the next visit (${made.bytes} bytes)` : `course: no snapshot kept (${made.reason})`);
  return true;
}

let stopMaker = null; // ends the snapshot_maker.js worker at work, if any

/* A maker that has not said it started by then is ended and put off: Chromium can leave a worker's
 * script request unanswered when it comes as a new service worker takes over the page. */
export const MAKER_START_MS = 15000;
const MAKER_TRIES = 3; // makers that did not start, before this visit keeps no snapshot
let makerStalls = 0;

/** Stop making the snapshot now (a run needs the CPU); keepSnapshot resolves to false. */
export function putOffSnapshot() {
  stopMaker?.({ putOff: true });
}

/* Send `job` to a new snapshot_maker.js worker; its answer: {bytes}, {reason} or {putOff} (with
 * `notStarted` when the worker did not start within MAKER_START_MS). */
export function inMakerWorker(job) {
  return new Promise((resolve) => {
    const maker = new Worker(new URL("./snapshot_maker.js", import.meta.url), { name: "course-snapshot" });
    const end = (answer) => {
      clearTimeout(notStarted);
      stopMaker = null;
      maker.terminate();
      resolve(answer);
    };
    const notStarted = setTimeout(() => end({ putOff: true, notStarted: true }), MAKER_START_MS);
    stopMaker = end;
    maker.onmessage = (event) => {
      clearTimeout(notStarted); // its first message: {started}
      if (event.data?.made) end(event.data.made);
    };
    maker.onerror = (event) => end({ reason: `snapshot maker failed: ${event.message || "could not start"}` });
    maker.postMessage(job);
  });
}
