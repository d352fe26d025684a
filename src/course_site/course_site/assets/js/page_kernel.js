/* The page's kernel: adopts the Python worker that worker_prestart.js started in <head>.
 *
 * enhance.js calls boot() when it enhances the cells; by then the worker has
 * been booting Pyodide for a while.  Once Python is ready and has run what was
 * asked of it (whenPythonQuiet), the site's service worker is registered (offline
 * use): it does not compete with the boot or a first Run for the CPU.
 */
import { Kernel } from "./kernel.js";
import { cacheNames } from "./cache_policy.js";
import { QUIET_MS } from "./protocol.js";

let booting = null;

/** The page's kernel, created and started once: {kernel, withConsole (the page has a Python console)}. */
export function boot() {
  booting ??= start();
  return booting;
}

/** Forget the kernel (Material's instant navigation left the page). */
export function forget() {
  booting = null;
}

function start() {
  const early = window.coursePython;
  if (!early) throw new Error("course: this page has cells but not the worker_prestart script that the course plugin adds");
  delete window.coursePython;
  const kernel = new Kernel({ workerURL: early.url });
  reloadIfAnotherBuild(kernel, early);
  registerServiceWorkerOnceIdle(kernel);
  whenPythonQuiet(kernel, () => kernel.keepSnapshot());
  // With Data Saver on, Python is downloaded when a cell first runs (Kernel.run starts it then).
  if (!early.saveData) kernel.start(early);
  return { kernel, withConsole: early.withConsole !== false };
}

/* A page of another build than the deployed one reloads into it (worker_prestart.js holds the rule):
 * checked once the worker has read the settings, or, if the worker fails before it does (an older
 * build's worker whose files are gone from the host), by reading them here. */
function reloadIfAnotherBuild(kernel, early) {
  const reloaded = (yes) => yes && kernel.dispose(); // no cell runs with the other build's Python
  kernel.addEventListener("settings", () => reloaded(early.reloadFor(kernel.settings?.version)), { once: true });
  const failed = () => {
    if (kernel.state !== "failed") return;
    kernel.removeEventListener("state", failed);
    if (!kernel.settings) early.checkBuild().then(reloaded);
  };
  kernel.addEventListener("state", failed);
}

/** Run `fn` when the page is idle (or soon, where requestIdleCallback is missing). */
function whenIdle(fn) {
  if ("requestIdleCallback" in window) requestIdleCallback(() => fn(), { timeout: 2000 });
  else setTimeout(fn, 300);
}

/** Run `fn` once, at an idle moment after Python has been ready with no run waiting or
 * running for `quietMs` (a run in between starts the wait again). */
export function whenPythonQuiet(kernel, fn, quietMs = QUIET_MS) {
  let timer = 0;
  const wait = () => {
    clearTimeout(timer);
    if (!kernel.idle) return;
    timer = setTimeout(() => {
      if (!kernel.idle) return;
      kernel.removeEventListener("idle", wait);
      whenIdle(fn);
    }, quietMs);
  };
  kernel.addEventListener("idle", wait);
  wait();
}

/* The plugin's service worker (the settings' "service_worker"), a module: the
 * site's pages, scripts and styles offline, and cleaning of old caches on
 * upgrade.  The Python files are kept by the Python worker itself (worker/network.js). */
function registerServiceWorkerOnceIdle(kernel) {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  // Once Python is quiet: its install fetches the build's offline list, which a first Run need not wait for.
  whenPythonQuiet(kernel, () => {
    const settings = kernel.settings;
    if (!settings?.service_worker) return;
    const url = new URL(settings.service_worker, kernel.settingsURL);
    if (settings.version) url.searchParams.set("v", settings.version);
    if (settings.pyodide_version) url.searchParams.set("pyodide", settings.pyodide_version);
    // Pyodide from this site (not a CDN): every file is same-origin, so the pages can be cross-origin isolated.
    if (new URL(settings.pyodide_index_url || ".", kernel.settingsURL).origin === location.origin) url.searchParams.set("isolate", "1");
    navigator.serviceWorker.register(url, { type: "module" }).then(
      () => keepWorkerScript(kernel.options.workerURL, settings),
      (err) => console.warn("course: service worker not registered:", err),
    );
  }, 0);
}

/* The Python worker's own script, kept in the site cache for offline visits once the service
 * worker is active: a browser may fetch a worker's script without its service worker (WebKit does,
 * for the one worker_prestart.js starts while the page parses), and then nothing else keeps it. */
async function keepWorkerScript(workerURL, settings) {
  try {
    await navigator.serviceWorker.ready;
    const cache = await caches.open(cacheNames(settings.version || "dev", settings.pyodide_version || "dev").site);
    if (!(await cache.match(workerURL))) await cache.add(workerURL);
  } catch {
    // Storage full or denied: the page works online all the same.
  }
}
