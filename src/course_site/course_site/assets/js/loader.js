/* Course cells and quizzes: the page entry point.
 *
 *   <script type="module" src="…/assets/course/js/loader.js"></script>
 *
 * Does nothing on a page without .course-cell or .course-quiz.  With cells it
 * reads ../runtime.json (next to js/), starts the Python worker (it loads in the
 * background, off the main thread), then turns each cell into an editor; a Run
 * clicked before Python is ready just waits for it.
 * Works with Material's instant navigation (document$) as well as plain loads.
 */

const RUNTIME_JSON = new URL("../runtime.json", import.meta.url);
const DEFAULTS = {
  pyodide_index_url: "../../pyodide/v0.27.7/",
  preload_packages: ["numpy"],
  download_bytes: {},
  import_packages: {},
  time_limit_s: 0,
  version: "",
};

let page = null; // { kernel, cells, path }

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

async function enhanceCells(roots) {
  // The editors (cell.js pulls in CodeMirror) load while Python starts.
  const cellModule = import("./cell.js");
  const [{ Kernel }, config] = await Promise.all([import("./kernel.js"), loadConfig()]);
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
  const { Cell } = await cellModule;
  const cells = [];
  for (const root of roots) {
    if (root.classList.contains("course-cell--live")) continue;
    try {
      cells.push(new Cell(root, kernel));
    } catch (err) {
      console.error("course: could not enhance", root, err); // the static block stays
    }
  }
  for (const cell of cells) if (cell.root.dataset.autorun === "true") cell.run();
  return { kernel, cells };
}

async function init() {
  const path = location.pathname;
  if (page && page.path !== path) {
    // Instant navigation replaced the content: the old page's Python goes away.
    page.kernel?.dispose();
    for (const cell of page.cells || []) cell.destroy();
    page = null;
  }
  const quizzes = document.querySelectorAll("form.course-quiz:not([data-course-quiz])");
  if (quizzes.length) {
    for (const form of quizzes) form.dataset.courseQuiz = "";
    import("./quiz.js").then(({ initQuizzes }) => initQuizzes(quizzes));
  }
  const roots = [...document.querySelectorAll(".course-cell:not(.course-cell--live)")];
  if (!roots.length || page) return;
  page = { path, cells: [], kernel: null };
  const current = page;
  const { kernel, cells } = await enhanceCells(roots);
  if (page === current) Object.assign(current, { kernel, cells });
  else kernel.dispose();
}

init();
if (window.document$ && typeof window.document$.subscribe === "function") {
  // Material's instant navigation swaps the page without reloading this module.
  window.document$.subscribe(() => init());
}
