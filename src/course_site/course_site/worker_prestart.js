/* Starts the page's Python worker while the browser is still parsing the page.
 *
 * The course plugin inlines this script at the top of <head> on pages with cells,
 * as <script data-worker="…/assets/course/runner-<hash>/js/worker/main.js?v=…" data-version="…"> (and
 * data-console="off" where the author turned the page's Python console off).  The worker
 * boots Pyodide on its own (it reads worker-settings.json itself), so Python
 * starts before the theme, the editors and the math take the main thread.
 * page_kernel.js adopts the worker and replays the events it sent before anyone
 * listened.  With Data Saver on (navigator.connection.saveData) it starts nothing:
 * Python's download waits until the learner presses Run (the kernel starts the worker then).
 *
 * It also holds the rule by which a page of an older build reloads into the deployed one
 * (reloadFor, checkBuild): inline, it is there even when the older build's scripts are gone.
 */
(() => {
  const script = document.currentScript;
  const url = new URL(script.dataset.worker, location.href).href;
  const runner = new URL("../..", url).href; // this build's runner folder (…/runner-<hash>/)
  const version = script.dataset.version || null; // the page's build
  const events = [];
  const saveData = Boolean(navigator.connection && navigator.connection.saveData);
  let worker = null;
  if (!saveData) {
    try {
      worker = new Worker(url, { name: "course-python" });
      worker.onmessage = worker.onerror = worker.onmessageerror = (event) => events.push(event);
    } catch {
      // No worker here (e.g. a page opened from a file): the kernel tries again and says why.
    }
  }

  // A page kept by a browser cache may be an older build's, whose runner is gone from the host after
  // a deploy.  The settings file is always revalidated, so it is the deployed build's: a page of
  // another build reloads into it at once, before any cell runs, and only once per build and tab (a
  // host that keeps serving the old page must not make it reload for ever).
  const RELOADED_FOR = "course-reloaded-for"; // sessionStorage: the build a reload was made for
  const reloadFor = (deployed) => {
    if (!deployed || !version || deployed === version) return false;
    let reloaded = null;
    try {
      reloaded = sessionStorage.getItem(RELOADED_FOR);
      sessionStorage.setItem(RELOADED_FOR, deployed);
    } catch {
      reloaded = deployed; // no session storage: the reload's guard is lost, so do not reload
    }
    if (reloaded === deployed) {
      console.warn(`course: this page is build ${version}, the site's settings are build ${deployed}`);
      return false;
    }
    location.reload();
    return true;
  };
  // Read the settings, as the worker does (worker/main.js: from its own URL), and reload if they are
  // another build's: for a page whose runner's scripts failed to load, once.
  let checked = null;
  const checkBuild = () =>
    (checked ??= fetch(new URL("../../../worker-settings.json", url), { cache: "no-cache" })
      .then((response) => (response.ok ? response.json() : null))
      .then((settings) => reloadFor(settings && settings.version))
      .catch(() => false)); // offline or no file: the page stays as it is, its failure said by the cells
  // A script or stylesheet of this page's runner that fails to load (enhance.js gone with its build).
  addEventListener(
    "error",
    (event) => {
      const source = event.target && (event.target.src || event.target.href);
      if (typeof source === "string" && source.startsWith(runner)) checkBuild();
    },
    true,
  );
  const withConsole = script.dataset.console !== "off"; // the page's Python console (console.js), unless the author turned it off
  window.coursePython = { url, worker, events, saveData, version, reloadFor, checkBuild, withConsole };
})();
