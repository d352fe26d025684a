/* A cell's status line (the build's .course-cell__status, its progress bar and run count) and the
 * texts it shows: the loading progress, a run's duration, why Python died.  The cell's data-state
 * follows what the status says (idle, loading, ready, waiting, queued, running, done, error, stopped). */
import names from "./dom_names.js";
import { formatDecimal, formatMegabytes, language, t } from "./strings.js";

const DATA = names.cellData;
const STATUS_PROGRESS_MS = 250; // progress text changes at most this often (aria-busy meanwhile)
const COPIED_MS = 2000; // how long a flashed status (the code was copied) shows

/** `bytes` in megabytes with one decimal, a bare number in the page's language ("8.8", "8,8"). */
export function formatMB(bytes) {
  return formatDecimal(bytes / 1e6, 1);
}

/** A run's duration: milliseconds under 10 s, else seconds with one decimal ("170 ms", "12.3 s"). */
export function formatDuration(ms) {
  return ms < 10000 ? t("duration.ms", { ms: Math.round(ms) }) : t("duration.s", { s: formatDecimal(ms / 1000, 1) });
}

/** "Loading numpy… 1.5 / 3.0 MB": `what` (a message) and the bytes in so far, of `total` when known. */
export function progressText(what, loaded, total) {
  if (total > 0) return t("progress.of", { what, loaded: formatMB(Math.min(loaded, total)), total: formatMegabytes(total) });
  if (loaded > 0) return t("progress.bytes", { what, loaded: formatMegabytes(loaded) });
  return t("progress.none", { what });
}

/** Byte progress while downloading (`what`, a message); `done` once every byte is in (compiling, booting). */
export function loadingText(p, what, done) {
  return p.total > 0 && p.loaded >= p.total ? done : progressText(what, p.loaded, p.total);
}

/** "Waiting for Python…" with its bytes, while another cell's run starts Python. */
export function waitingText(p) {
  return loadingText(p, t("python.waiting"), t("python.waiting_start"));
}

/** "Loading Python…" with its bytes, then "Starting Python…". */
export function bootText(p) {
  return loadingText(p, t("python.loading"), t("python.starting"));
}

/* One sentence on why Python died (kernel.js crash details). */
export function crashText(msg) {
  if (msg.cause === "exit") return t("crash.exit", { status: msg.exitStatus ?? t("crash.unknown_status") });
  if (msg.cause === "memory") return t("crash.memory");
  if (msg.cause === "silent") return t("crash.silent");
  return t("crash.other", { reason: msg.message || t("crash.worker") });
}

/** The sentence after a crash: the next Run starts a fresh Python. */
export function freshPython() {
  return t("crash.fresh_python");
}

export class CellStatus {
  /** @param {HTMLElement} root the cell; `node`, `progressBar`, `countNode`: its status, progress and count */
  constructor(root, node, progressBar, countNode) {
    Object.assign(this, { root, node, progressBar, countNode });
    this.quiet = false; // a run for the inputs: their status says when it is done, this one keeps still
    this.latest = null; // the timer that shows a progress text held back (progress())
    this.lastStatusAt = 0;
  }

  /** Show `text` and set the cell's data-state; `progress` ({loaded, total}) shows the bar (indeterminate without a total). */
  set(text, state, { progress = null } = {}) {
    clearTimeout(this.latest); // a newer status: the held progress text is outdated
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

  /** Progress text: change it at most every STATUS_PROGRESS_MS (the latest text held back shows at the end of one). */
  progress(text, state, progress, force = false) {
    const now = performance.now();
    if (force || now - this.lastStatusAt >= STATUS_PROGRESS_MS || this.root.getAttribute(DATA.state) !== state) {
      this.lastStatusAt = now;
      this.set(text, state, { progress });
    } else {
      this.set(this.node.textContent, state, { progress });
      // The latest text once the interval is over, unless a newer status comes first: else the last
      // figures of a burst (all of them, when it is quick) would never show.
      this.latest = setTimeout(() => this.progress(text, state, progress, true), this.lastStatusAt + STATUS_PROGRESS_MS - now);
    }
  }

  /** Jupyter's execution count and the time of the run: which run the output is from. */
  showCount(count) {
    const time = new Date().toLocaleTimeString(language(), { hour12: false });
    this.countNode.textContent = `[${count}] ${time}`;
    this.countNode.title = t("cell.count_title", { count, time });
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
