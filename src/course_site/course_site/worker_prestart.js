/* Starts the page's Python worker while the browser is still parsing the page.
 *
 * The course plugin inlines this script at the top of <head> on pages with cells,
 * as <script data-worker="…/assets/course/runner-<hash>/js/worker/main.js?v=…" data-version="…">.  The worker
 * boots Pyodide on its own (it reads worker-settings.json itself), so Python
 * starts before the theme, the editors and the math take the main thread.
 * page_kernel.js adopts the worker and replays the events it sent before anyone
 * listened.  Until Python is ready, the page renders only the blocks near the
 * viewport (the "course-booting" rules in course.css), so the two do not fight
 * over the CPU.  With Data Saver on (navigator.connection.saveData) it starts nothing:
 * Python's download waits until the learner presses Run (the kernel starts the worker then).
 */
(() => {
  const url = new URL(document.currentScript.dataset.worker, location.href).href;
  const events = [];
  const saveData = Boolean(navigator.connection && navigator.connection.saveData);
  let worker = null;
  if (!saveData) {
    document.documentElement.classList.add("course-booting");
    try {
      worker = new Worker(url, { name: "course-python" });
      worker.onmessage = worker.onerror = worker.onmessageerror = (event) => events.push(event);
    } catch {
      // No worker here (e.g. a page opened from a file): the kernel tries again and says why.
    }
  }
  // The page's build: a page whose build is not the settings' reloads once (page_kernel.js).
  window.coursePython = { url, worker, events, saveData, version: document.currentScript.dataset.version || null };
})();
