/* Starts the page's Python worker while the browser is still parsing the page.
 *
 * The course plugin inlines this script at the top of <head> on pages with cells,
 * as <script data-worker="…/assets/course/js/worker.js?v=…">.  The worker boots
 * Pyodide on its own (it reads runtime.json itself), so Python starts before the
 * theme, the editors and the math take the main thread.  boot.js adopts the
 * worker and replays the events it sent before anyone listened.
 */
(() => {
  const url = new URL(document.currentScript.dataset.worker, location.href).href;
  const worker = new Worker(url, { name: "course-python" });
  const events = [];
  worker.onmessage = worker.onerror = worker.onmessageerror = (event) => events.push(event);
  window.coursePython = { url, worker, events };
})();
