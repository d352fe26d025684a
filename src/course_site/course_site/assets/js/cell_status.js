/* A cell's status line (the build's .course-cell__status, its progress bar and run count) and the
 * texts it shows: the loading progress, a run's duration, why Python died.  The cell's data-state
 * follows what the status says (idle, loading, ready, waiting, queued, running, done, error, stopped). */
import names from "./dom_names.js";

const DATA = names.cellData;
const STATUS_PROGRESS_MS = 250; // progress text changes at most this often (aria-busy meanwhile)
const COPIED_MS = 2000; // how long a flashed status (the code was copied) shows

export function formatMB(bytes) {
  return (bytes / 1e6).toFixed(1);
}

export function formatDuration(ms) {
  return ms < 10000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function progressText(prefix, loaded, total) {
  if (total > 0) return `${prefix}… ${formatMB(Math.min(loaded, total))} / ${formatMB(total)} MB`;
  if (loaded > 0) return `${prefix}… ${formatMB(loaded)} MB`;
  return `${prefix}…`;
}

/** Byte progress while downloading; `done` once every byte is in (compiling, booting). */
export function loadingText(p, prefix, done) {
  return p.total > 0 && p.loaded >= p.total ? done : progressText(prefix, p.loaded, p.total);
}

/* One sentence on why Python died (kernel.js crash details). */
export function crashText(msg) {
  if (msg.cause === "exit") return `Python exited with status ${msg.exitStatus ?? "unknown"}.`;
  if (msg.cause === "memory") return "Python ran out of memory and stopped.";
  if (msg.cause === "silent") return "Python stopped answering, probably because the browser ended it to free memory.";
  return `Python stopped working (${msg.message || "the worker crashed"}).`;
}
export const FRESH_PYTHON = "A fresh Python starts for the next Run; the namespace was reset, so run earlier cells again if this one needs them.";

export class CellStatus {
  /** @param {HTMLElement} root the cell; `node`, `progressBar`, `countNode`: its status, progress and count */
  constructor(root, node, progressBar, countNode) {
    Object.assign(this, { root, node, progressBar, countNode });
    this.quiet = false; // a run for the inputs: their status says when it is done, this one keeps still
    this.lastStatusAt = 0;
  }

  /** Show `text` and set the cell's data-state; `progress` ({loaded, total}) shows the bar (indeterminate without a total). */
  set(text, state, { progress = null } = {}) {
    if (this.node.textContent !== text && !this.quiet) this.node.textContent = text;
    this.root.setAttribute(DATA.state, state);
    // While bytes count up, screen readers wait for the outcome instead of
    // reading every number.
    if (progress) this.node.setAttribute("aria-busy", "true");
    else this.node.removeAttribute("aria-busy");
    if (progress && progress.total > 0) {
      this.progressBar.hidden = false;
      this.progressBar.max = progress.total;
      this.progressBar.value = Math.min(progress.loaded, progress.total);
    } else if (progress) {
      this.progressBar.hidden = false;
      this.progressBar.removeAttribute("value"); // indeterminate
    } else {
      this.progressBar.hidden = true;
    }
  }

  /** Progress text: change it at most every STATUS_PROGRESS_MS. */
  progress(text, state, progress, force = false) {
    const now = performance.now();
    if (force || now - this.lastStatusAt >= STATUS_PROGRESS_MS || this.root.getAttribute(DATA.state) !== state) {
      this.lastStatusAt = now;
      this.set(text, state, { progress });
    } else {
      this.set(this.node.textContent, state, { progress });
    }
  }

  /** Jupyter's execution count and the time of the run: which run the output is from. */
  showCount(count) {
    const time = new Date().toLocaleTimeString("en-GB", { hour12: false });
    this.countNode.textContent = `[${count}] ${time}`;
    this.countNode.title = `Run ${count} since Python started, at ${time}`;
    this.countNode.hidden = false;
  }

  /** Show `text` for COPIED_MS, then what was there before (unless the status changed meanwhile). */
  flash(text) {
    const before = this.node.textContent;
    this.node.textContent = text;
    setTimeout(() => {
      if (this.node.textContent === text) this.node.textContent = before;
    }, COPIED_MS);
  }

}
