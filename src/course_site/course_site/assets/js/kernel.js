/* Course cells: the main-thread side of the Python worker.
 *
 * One Kernel per page owns one worker (worker/main.js) and one Python
 * namespace.  Runs are queued in click order and sent to the worker one at a
 * time.  The first worker is the one worker_prestart.js created while the page
 * was parsed; a worker boots Pyodide by itself from the site's settings file.
 * The messages are in protocol.js.
 *
 * Events (EventTarget): "state" when `state` changes, "progress" while Python
 * boots, "idle" when Python is ready and no run waits or runs (see `idle`).
 *
 * Stop: with crossOriginIsolated, Int32Array(SharedArrayBuffer)[0] = 2 (SIGINT)
 * raises KeyboardInterrupt in the cell; if the run has not ended 2 s later (or
 * without isolation), the worker is terminated and a fresh one is started.
 */
import { DEFAULT_LIMITS, MessageType } from "./protocol.js";

const STOP_GRACE_MS = 2000;

let nextRunId = 1;

export class Kernel extends EventTarget {
  /** @param {{workerURL: string, maxLines?: number, maxChars?: number}} options */
  constructor(options) {
    super();
    this.options = options;
    this.state = "idle"; // idle | loading | ready | failed | disposed
    this.worker = null;
    this.settings = null; // the settings file, as the worker read it
    this.settingsURL = null; // where it is: its paths are relative to it
    this.queue = []; // jobs waiting to be sent
    this.current = null; // job sent to the worker
    this.progress = { phase: "core", loaded: 0, total: 0 };
    this.failure = null;
    this.isolated = Boolean(globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function");
    this.interruptView = null;
  }

  /** Python is ready, and no run waits or runs. */
  get idle() {
    return this.state === "ready" && !this.current && !this.queue.length;
  }

  /** The page's time limit for one run, in seconds (0: none). */
  get timeLimitS() {
    return Number(this.settings?.time_limit_s) || DEFAULT_LIMITS.timeLimitS;
  }

  /**
   * Start the worker and Pyodide (idempotent).  `early` = {worker, events}: a
   * worker that is already booting (worker_prestart.js; null if it could not start)
   * and the events it has sent.
   */
  start(early = null) {
    if (this.state === "loading" || this.state === "ready" || this.state === "disposed") return;
    this.spawn(early);
  }

  spawn(early = null) {
    this.state = "loading";
    this.failure = null;
    this.progress = { phase: "core", loaded: 0, total: 0 };
    let worker = early?.worker;
    try {
      worker ??= new Worker(this.options.workerURL, { name: "course-python" });
    } catch (err) {
      this.fail(`the Python worker could not start (${err.message})`);
      return;
    }
    this.worker = worker;
    worker.onmessage = (event) => this.onMessage(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.crash(worker, event.message || "the Python worker stopped unexpectedly");
    };
    worker.onmessageerror = () => this.crash(worker, "a message from the Python worker could not be read");
    if (this.isolated) {
      const buffer = new SharedArrayBuffer(4);
      this.interruptView = new Int32Array(buffer);
      worker.postMessage({ type: MessageType.INTERRUPT_BUFFER, buffer });
    }
    this.emit("state");
    this.emit("progress");
    for (const event of early?.events.splice(0) ?? []) worker[`on${event.type}`]?.(event);
  }

  /** Queue a run. `job` = {code, setup, filename, onEvent(msg)}; returns the job. */
  run(job) {
    job.id = nextRunId++;
    job.phase = "queued";
    this.queue.push(job);
    job.onEvent({ type: "queued", position: this.queue.length, waitingForPython: this.state !== "ready" });
    // A worker that cannot even be created fails the job right here, after "queued".
    if (this.state === "idle" || this.state === "failed") this.spawn();
    // Python is still starting: let the worker download this cell's wheels meanwhile.
    if (this.state === "loading" && job.packages?.length) {
      this.worker.postMessage({ type: MessageType.PREFETCH, packages: job.packages });
    }
    this.pump();
    return job;
  }

  /** Python is idle: let the worker keep a snapshot of a bare interpreter for the next visit. */
  keepSnapshot() {
    if (this.state === "ready") this.worker.postMessage({ type: MessageType.SNAPSHOT });
  }

  /** Stop a queued or running job. reason: "user" | "timeout". */
  stop(job, reason = "user") {
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.finish(job, { type: MessageType.DONE, status: "cancelled", reason });
      return;
    }
    if (job !== this.current || job.stopRequested) return;
    job.stopRequested = reason;
    if (job.phase !== "started") {
      // Still loading packages: the worker drops the run before executing it.
      this.worker.postMessage({ type: MessageType.CANCEL, id: job.id });
      job.stopTimer = setTimeout(() => this.hardStop(job), STOP_GRACE_MS);
      return;
    }
    if (this.interruptView) {
      Atomics.store(this.interruptView, 0, 2); // SIGINT -> KeyboardInterrupt
      job.stopTimer = setTimeout(() => this.hardStop(job), STOP_GRACE_MS);
    } else {
      this.hardStop(job);
    }
  }

  hardStop(job) {
    if (job !== this.current) return;
    this.killWorker();
    this.current = null;
    this.finish(job, { type: MessageType.DONE, status: "stopped", reason: job.stopRequested || "user", reset: true });
    this.spawn();
    this.pump();
  }

  crash(worker, message) {
    if (worker !== this.worker) return;
    const job = this.current;
    this.killWorker();
    this.current = null;
    if (this.state === "loading" && !job) {
      this.fail(message);
      return;
    }
    if (job) this.finish(job, { type: MessageType.DONE, status: "crashed", message, reset: true });
    // A fresh worker for the next run (the namespace is gone either way).
    this.state = "idle";
    this.emit("state");
    if (this.queue.length) this.spawn();
    this.pump();
  }

  fail(message) {
    this.killWorker();
    this.state = "failed";
    this.failure = message;
    const waiting = this.queue.splice(0);
    for (const job of waiting) this.finish(job, { type: MessageType.DONE, status: "failed", message });
    this.emit("state");
  }

  killWorker() {
    if (this.worker) {
      this.worker.onmessage = this.worker.onerror = this.worker.onmessageerror = null;
      this.worker.terminate();
    }
    this.worker = null;
    this.interruptView = null;
  }

  pump() {
    if (this.state !== "ready" || this.current || !this.queue.length) return;
    const job = this.queue.shift();
    this.current = job;
    job.phase = "sent";
    if (this.interruptView) Atomics.store(this.interruptView, 0, 0);
    this.worker.postMessage({
      type: MessageType.RUN, id: job.id, code: job.code, setup: job.setup || "", filename: job.filename,
      maxLines: this.options.maxLines || DEFAULT_LIMITS.maxLines, maxChars: this.options.maxChars || DEFAULT_LIMITS.maxChars,
    });
    for (const [n, other] of this.queue.entries()) other.onEvent({ type: "queued", position: n + 1 });
  }

  finish(job, msg) {
    clearTimeout(job.stopTimer);
    clearTimeout(job.limitTimer);
    job.phase = "done";
    job.onEvent(msg);
  }

  onMessage(worker, msg) {
    if (worker !== this.worker) return;
    switch (msg.type) {
      case MessageType.SETTINGS:
        this.settings = msg.settings;
        this.settingsURL = msg.url;
        return;
      case MessageType.PROGRESS:
        this.progress = { phase: msg.phase, loaded: msg.loaded, total: msg.total };
        if (msg.phase === "packages" && this.current && msg.id === this.current.id) {
          this.current.onEvent(msg);
        } else if (msg.phase === "core") {
          this.emit("progress");
        }
        return;
      case MessageType.READY:
        this.state = "ready";
        this.emit("state");
        this.pump();
        if (this.idle) this.emit("idle");
        return;
      case MessageType.INIT_ERROR:
        this.fail(msg.message);
        return;
      case MessageType.FATAL:
        this.crash(worker, msg.message);
        return;
      default:
        break;
    }
    const job = this.current;
    if (!job || msg.id !== job.id) return;
    if (msg.type === MessageType.STARTED) {
      job.phase = "started";
      const limit = this.timeLimitS;
      if (limit > 0) job.limitTimer = setTimeout(() => this.stop(job, "timeout"), limit * 1000);
    }
    if (msg.type === MessageType.DONE) {
      this.current = null;
      const status = job.stopRequested && msg.status !== "ok" ? "stopped" : msg.status;
      this.finish(job, { ...msg, status, reason: job.stopRequested || undefined, reset: false });
      this.pump();
      if (this.idle) this.emit("idle");
      return;
    }
    job.onEvent(msg);
  }

  emit(type) {
    this.dispatchEvent(new Event(type));
  }

  dispose() {
    this.killWorker();
    this.state = "disposed";
    for (const job of this.queue.splice(0)) clearTimeout(job.stopTimer);
    this.current = null;
  }
}
