/* Python, started as early as a page allows.
 *
 * The plugin puts this module in the <head> of every page with cells, as
 * <script type="module" async>, so the worker (which loads Pyodide off the main
 * thread) starts while the page is still being parsed; loader.js imports the
 * same instance and hands the kernel to the cells.
 */
import { Kernel } from "./kernel.js";

const RUNTIME_JSON = new URL("../runtime.json", import.meta.url);
const DEFAULTS = {
  pyodide_index_url: "../../pyodide/v0.27.7/",
  preload_packages: ["numpy"],
  download_bytes: {},
  import_packages: {},
  time_limit_s: 0,
  version: "",
};


async function loadConfig() {
  try {
    const response = await fetch(RUNTIME_JSON, { cache: "no-cache" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return { ...DEFAULTS, ...(await response.json()) };
  } catch (err) {
    console.warn(`course: could not read ${RUNTIME_JSON} (${err}); using defaults`);
    return { ...DEFAULTS };
  }
}

function whenIdle(fn) {
  if ("requestIdleCallback" in window) requestIdleCallback(() => fn(), { timeout: 2000 });
  else setTimeout(fn, 300);
}

function versioned(url, version) {
  const u = new URL(url);
  if (version) u.searchParams.set("v", version);
  return u;
}

/* The plugin's service worker (runtime.json "service_worker") serves the versioned
 * Python files from its caches (offline too); the Python worker fills them as it
 * downloads, since on a first visit the service worker does not control it yet. */
function registerServiceWorker(config) {
  if (!config.service_worker || !("serviceWorker" in navigator) || !window.isSecureContext) return false;
  const url = new URL(config.service_worker, RUNTIME_JSON);
  if (config.version) url.searchParams.set("v", config.version);
  if (config.pyodide_version) url.searchParams.set("pyodide", config.pyodide_version);
  whenIdle(() => {
    navigator.serviceWorker.register(url).catch((err) => console.warn("course: service worker not registered:", err));
  });
  return true;
}

let booting = null;

/** The page's kernel and runtime config, created and started once. */
export function boot() {
  booting ??= start();
  return booting;
}

/** Forget the kernel (Material's instant navigation left the page). */
export function forget() {
  booting = null;
}

async function start() {
  const config = await loadConfig();
  const v = config.version;
  const offline = registerServiceWorker(config);
  const kernel = new Kernel({
    workerURL: versioned(new URL("./worker.js", import.meta.url), v),
    runtimeURL: versioned(new URL("../py/course_runtime.py", import.meta.url), v),
    indexURL: new URL(config.pyodide_index_url, RUNTIME_JSON).href,
    lockFileURL: config.lock_file_url ? new URL(config.lock_file_url, RUNTIME_JSON).href : null,
    importPackages: config.import_packages || {},
    cacheNames: offline ? { pyodide: `course-pyodide-${config.pyodide_version}`, site: `course-site-${v}` } : null,
    fontListURL: config.matplotlib_font_cache ? new URL(config.matplotlib_font_cache, RUNTIME_JSON).href : null,
    preload: config.preload_packages || [],
    downloadBytes: config.download_bytes || {},
    timeLimitS: Number(config.time_limit_s) || 0,
  });
  kernel.start();
  return { kernel, config };
}

boot();
