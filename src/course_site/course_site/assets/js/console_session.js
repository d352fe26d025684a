/* The console's statements as runs of the page's kernel: the same worker, the same namespace and
 * the same queue as the cells (kernel.js), so a statement sent while a cell runs waits its turn,
 * and a cell's Run waits for a statement.  The view (console.js) shows them.
 *
 * Each Enter sends the whole input as a run with `console: true`.  The worker decides as Python's
 * own prompt does whether the statement is finished (course_kernel.cell_exec.needs_more_input):
 * if not, the run ends at once with status "incomplete" and the input goes on with a "..." line;
 * if so, it runs as a cell runs (an expression's value shown as its repr, figures, the output
 * limits, Stop and the page's time limit).  A statement is echoed into the log with its first
 * sign of running, so one that waits for more lines or is stopped while queued stays in the input.
 *
 * The view: {echo(source) -> a CellOutput for the statement's output, needMore(), settled(status),
 * status(text, state)}.
 */
import { crashText, formatDuration, freshPython, progressText, waitingText } from "./cell_status.js";
import { formatList, t } from "./strings.js";
import { MessageType } from "./protocol.js";

/* The statement's state once it has ended, from the kernel's run status (as a cell's data-status). */
const FINAL_STATUS = { ok: "ok", error: "error", stopped: "stopped", cancelled: "stopped", crashed: "error", failed: "error" };

/** What a statement runs: `name?` (IPython's and Jupyter's question for help) asks `help(name)`; anything
 * else runs as written. */
export function statementCode(source) {
  const asked = /^\s*([A-Za-z_][\w.]*)\s*\?\s*$/.exec(source);
  return asked ? `help(${asked[1]})` : source;
}

/** The notice after a Stop that restarted Python. */
export function resetNotice() {
  return t("console.stopped_reset");
}

export class ConsoleSession {
  /** @param {import("./kernel.js").Kernel} kernel the page's kernel */
  constructor(kernel, view) {
    this.kernel = kernel;
    this.view = view;
    this.job = null; // the statement sent, until it ends or waits for more
    this.count = 0; // statements sent: each has its own filename in tracebacks
  }

  /** A statement is queued, running or being judged. */
  get busy() {
    return Boolean(this.job);
  }

  /** Send `source` (the whole input); false if a statement is under way already or `source` is blank. */
  submit(source) {
    if (this.job || !source.trim()) return false;
    const entry = { source, out: null };
    this.count += 1;
    this.job = this.kernel.run({
      code: statementCode(source),
      setup: "",
      check: null,
      filename: `<console ${this.count}>`,
      console: true,
      packages: [],
      inputs: null,
      alt: "",
      onEvent: (msg) => this.onEvent(entry, msg),
    });
    return true;
  }

  /** Stop the statement under way, with a cell's rules (kernel.js): an interrupt, else a restart. */
  stop() {
    if (this.job) this.kernel.stop(this.job, "user");
  }

  onEvent(entry, msg) {
    if (msg.type === "queued") {
      this.showQueued(msg);
      return;
    }
    const done = msg.type === MessageType.DONE;
    if (!entry.out) {
      if (done && (msg.status === "incomplete" || msg.status === "cancelled")) {
        // Not run: the statement goes on (a "..." line) or, stopped while it waited, stays in the input.
        this.job = null;
        if (msg.status === "incomplete") this.view.needMore();
        else this.view.settled("stopped");
        return;
      }
      entry.out = this.view.echo(entry.source);
    }
    const out = entry.out;
    switch (msg.type) {
      case MessageType.PROGRESS:
        const shown = (msg.packages || []).slice(0, 2);
        const what = t("run.loading_packages", { packages: shown.length ? formatList(shown) : t("run.packages") });
        this.view.status(progressText(what, msg.loaded, msg.total), "loading-packages");
        break;
      case MessageType.STARTED:
        this.view.status(t("run.running"), "running");
        break;
      case "unresponsive":
        this.view.status(t("console.unresponsive", { seconds: msg.seconds }), "running");
        break;
      case "responsive":
        this.view.status(t("run.running"), "running");
        break;
      case "lost": // Python died after this statement, while idle
        out.notice(`${crashText(msg)} ${freshPython()}`, "error");
        break;
      case MessageType.DONE:
        this.finish(out, msg);
        break;
      default:
        out.show(msg); // stream text, a result, an error, a figure, the output limit's notices
    }
  }

  showQueued(msg) {
    if (msg.waitingForPython || this.kernel.state !== "ready") {
      this.view.status(waitingText(this.kernel.progress), "waiting");
    } else {
      this.view.status(msg.position > 1 ? t("run.queued_behind", { count: msg.position }) : t("run.queued"), "queued");
    }
  }

  finish(out, msg) {
    out.flush();
    this.job = null;
    const state = FINAL_STATUS[msg.status] || "error";
    switch (msg.status) {
      case "ok":
        this.view.status(t("run.done", { duration: formatDuration(msg.ms) }), "done");
        break;
      case "stopped":
        if (msg.reason === "timeout") out.notice(t("console.time_limit", { seconds: this.kernel.timeLimitS }), "stopped");
        if (msg.reset) out.notice(resetNotice(), "stopped");
        this.view.status(t("run.stopped"), "stopped");
        break;
      case "crashed":
        out.notice(`${crashText(msg)} ${freshPython()}`, "error");
        this.view.status(t("run.error"), "error");
        break;
      case "failed":
        out.notice(t("console.load_failed", { reason: msg.message || t("python.unknown_error") }), "error");
        this.view.status(t("run.error"), "error");
        break;
      default:
        this.view.status(t("run.error"), "error");
    }
    this.view.settled(state);
  }
}
