/* Runs in every top-level document before its own scripts (an init script of
 * startup/browser.py).  CONFIGS holds one entry per visit of the tab
 * (sessionStorage counts them); an entry says which cell to watch and when to
 * click its Run button ("load", a delay in ms after load, or null).  MARKUP is
 * site_layout.CELL_MARKUP: what a cell's output, figure and Run button are. */
(() => {
  if (window.top !== window) return;
  const CONFIGS = __CONFIGS__;
  const MARKUP = __MARKUP__;
  let visit = 1;
  try {
    visit = Number(sessionStorage.getItem("__bench_visit") || 0) + 1;
    sessionStorage.setItem("__bench_visit", String(visit));
  } catch (err) { /* opaque origin */ }
  const cfg = CONFIGS[Math.min(visit, CONFIGS.length) - 1] || {};
  const B = (window.__bench = { visit, cfg, marks: {}, events: [], outputs: {}, done: [] });
  const mark = (name, t = performance.now()) => {
    if (!(name in B.marks)) B.marks[name] = t;
    B.events.push([Math.round(t), name]);
    return t;
  };
  B.mark = mark;
  document.addEventListener("DOMContentLoaded", () => {
    mark("domcontentloaded");
    B.controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  });
  addEventListener("load", () => mark("load"));

  // Time the Python worker's messages (first progress of each phase, all others).
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      const label = (options && options.name) || String(url);
      mark(`worker created: ${label}`);
      if (!(options && options.name)) return; // the theme's search worker
      this.addEventListener("message", (event) => {
        const m = event.data || {};
        if (m.type === "progress") {
          const names = m.packages && m.packages.length ? " " + m.packages.join(",") : "";
          const name = `worker progress: ${m.phase}${names}`;
          if (!(name in B.marks)) mark(name);
        } else if (m.type === "mark") {
          mark(`bare: ${m.name}`, m.t - performance.timeOrigin);
        } else if (m.type) {
          mark(`worker ${m.type}`);
          if (m.type === "done") B.done.push({ status: m.status, ms: m.ms, totalMs: m.totalMs, t: performance.now() });
        }
      });
    }
    postMessage(message, transfer) {
      if (message && message.type) mark(`page -> worker: ${message.type}`);
      return super.postMessage(message, transfer);
    }
  };

  // Live output of a cell: a MARKUP.liveOutput node not there when watching began,
  // in an output area that no longer holds the precomputed output.
  const watchers = [];
  B.watch = (cell, name, figure = false) => {
    const selector = `${cell} ${MARKUP.output} ${figure ? MARKUP.figure : MARKUP.liveOutput}`;
    watchers.push({ cell, name, selector, before: new Set(document.querySelectorAll(selector)) });
    check();
  };
  function check() {
    for (let i = watchers.length - 1; i >= 0; i--) {
      const w = watchers[i];
      const out = document.querySelector(`${w.cell} ${MARKUP.output}`);
      if (!out || out.getAttribute(MARKUP.precomputedAttribute) !== "false") continue;
      const node = [...document.querySelectorAll(w.selector)].find((n) => !w.before.has(n));
      if (!node) continue;
      watchers.splice(i, 1);
      mark(w.name);
      B.outputs[w.name] = { className: node.className || node.tagName, text: (node.textContent || "").slice(0, 120) };
      if (node.tagName === "IMG") node.decode().then(() => mark(`${w.name} decoded`), () => {});
    }
  }
  new MutationObserver(() => { if (watchers.length) check(); })
    .observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: [MARKUP.precomputedAttribute] });

  B.click = (cell, name) => {
    const button = document.querySelector(`${cell} ${MARKUP.runButton}`);
    mark(name);
    button.click();
  };
  // The build writes the button in a hidden toolbar; the page's script reveals it once
  // the cell is live (a click before that reaches no handler).  Polled every 10 ms.
  const whenButton = (cell, fn) => {
    const button = document.querySelector(`${cell} ${MARKUP.runButton}`);
    if (button && !button.closest("[hidden]")) {
      mark("run button ready");
      return fn();
    }
    setTimeout(() => whenButton(cell, fn), 10);
  };
  if (cfg.cell) {
    B.watch(cfg.cell, "output");
    if (cfg.figure) B.watch(cfg.cell, "figure", true);
    if (cfg.click != null) {
      addEventListener("load", () => {
        const delay = cfg.click === "load" ? 0 : Number(cfg.click);
        const go = () => whenButton(cfg.cell, () => B.click(cfg.cell, "click"));
        if (delay > 0) setTimeout(go, delay);
        else go();
      });
    }
  }
})();
