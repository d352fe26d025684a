/* Course cells: the main-thread side of the Python worker.
 *
 * One Kernel per page owns one worker (worker/main.js) and one Python
 * namespace.  Runs are queued in click order and sent to the worker one at a
 * time.  The first worker is the one worker_prestart.js created while the page
 * was parsed; a worker boots Pyodide by itself from the site's settings file.
 * The messages are in protocol.js.
 *
 * Events (EventTarget): "state" when `state` changes, "progress" while Python
 * boots, "idle" when Python is ready and no run waits or runs (see `idle`),
 * "settings" when the worker has read the site's settings file (`settings`),
 * "completions" (a MessageEvent) with each answer to a completion request (complete.js).
 *
 * Stop: with crossOriginIsolated, Int32Array(SharedArrayBuffer)[0] = 2 (SIGINT)
 * raises KeyboardInterrupt in the cell; if the run has not ended 2 s later (or
 * without isolation), the worker is terminated and a fresh one is started.
 *
 * Liveness (protocol.js LIVENESS): a ready worker that sends no message for
 * idleSilenceMs while no run is sent to it has died without an error event;
 * it is replaced, and the cell that ran last gets a "lost" event.  A running
 * cell's job gets "unresponsive" after runSilenceMs (and "responsive" when
 * Python answers again): it may be busy in one long call into C.
 *
 * Each job's "started" event carries `count`, the run's number since Python
 * started (Jupyter's execution count; a fresh Python counts from 1 again).
 */
import { LIVENESS, MessageType } from "./protocol.js";
import { pageScheme } from "./scheme.js";
import { catalogue, t } from "./strings.js";

const STOP_GRACE_MS = 2000;
/* Python took the interrupt (the worker clears the shared flag as Python reads it: worker/signals.js), but the run has
 * not ended yet: its end may wait behind a flood of output the page is still reading.  Up to this long
 * after Stop before Python is restarted all the same (a run that catches KeyboardInterrupt goes on). */
const STOP_GRACE_TAKEN_MS = 8000;

let nextRunId = 1;

export class Kernel extends EventTarget {
  /** @param {{workerURL: string}} options */
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
    this.silentStarts = 0; // workers in a row whose script never came
    this.isolated = Boolean(globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function");
    this.interruptView = null;
    this.runCount = 0; // runs started in this Python
    this.runsSent = 0; // runs sent to any worker of this page: what a completion's answer is checked against
    this.lastJob = null; // the job that ran last
    this.lastSign = 0; // performance.now() of the worker's last message
    this.lastCheck = 0;
    this.watchdog = null;
  }

  /** Python is ready, and no run waits or runs. */
  get idle() {
    return this.state === "ready" && !this.current && !this.queue.length;
  }

  /** The page's time limit for one run, in seconds (0: none). */
  get timeLimitS() {
    return Number(this.settings?.time_limit_s) || 0;
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
      this.fail(t("worker.not_started", { reason: err.message }));
      return;
    }
    this.worker = worker;
    this.runCount = 0;
    this.heard = false; // this worker has sent a message (its script came)
    this.unheardMs = 0; // time this worker has been checked on without a word from it
    this.lastSign = performance.now();
    this.watchdog ??= setInterval(() => this.checkLiveness(), LIVENESS.heartbeatMs);
    worker.onmessage = (event) => this.onMessage(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.crash(worker, { cause: "crash", message: event.message || this.silentError() });
    };
    worker.onmessageerror = () => this.crash(worker, { cause: "crash", message: t("worker.unreadable") });
    // The worker's words to the learner (its errors, Python's verdicts) in the page's language.
    worker.postMessage({ type: MessageType.STRINGS, catalogue: catalogue() });
    if (this.isolated) {
      const buffer = new SharedArrayBuffer(4);
      this.interruptView = new Int32Array(buffer);
      worker.postMessage({ type: MessageType.INTERRUPT_BUFFER, buffer });
    }
    this.emit("state");
    this.emit("progress");
    for (const event of early?.events.splice(0) ?? []) worker[`on${event.type}`]?.(event);
  }

  /** Queue a run. `job` = {code, setup, check (an exercise's; else null), filename, onEvent(msg), inputs?(), console?}; returns
   * the job.  `inputs()` gives the bindings of a cell's inputs, read when the run is sent, so that a queued run
   * takes the values its inputs have then (the latest wins). */
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
      this.announcePlaces(i);
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
      job.stopTimer = setTimeout(() => this.interruptGraceOver(job), STOP_GRACE_MS);
    } else {
      this.hardStop(job);
    }
  }

  /** The run has not ended STOP_GRACE_MS after the interrupt: wait longer if Python took it, else restart. */
  interruptGraceOver(job) {
    if (job !== this.current) return;
    if (this.interruptView && Atomics.load(this.interruptView, 0) === 0) {
      job.stopTimer = setTimeout(() => this.hardStop(job), STOP_GRACE_TAKEN_MS - STOP_GRACE_MS);
    } else {
      this.hardStop(job);
    }
  }

  hardStop(job) {
    if (job !== this.current) return;
    this.killWorker();
    this.current = null;
    this.finish(job, { type: MessageType.DONE, status: "stopped", reason: job.stopRequested, reset: true });
    this.spawn();
    this.pump();
  }

  /** The worker died: `why` = {cause: "exit"|"memory"|"crash"|"silent", exitStatus?, message}. */
  crash(worker, why) {
    if (worker !== this.worker) return;
    const job = this.current;
    this.killWorker();
    this.current = null;
    if (this.state === "loading" && !job) {
      this.fail(why.message);
      return;
    }
    const details = { cause: why.cause, exitStatus: why.exitStatus ?? null, message: why.message };
    if (job) this.finish(job, { type: MessageType.DONE, status: "crashed", ...details, reset: true });
    else this.lastJob?.onEvent({ type: "lost", ...details });
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

  /** Every heartbeatMs: is the ready worker still alive (see the top of this file)? */
  checkLiveness() {
    const now = performance.now();
    // A timer that ran late (a hidden tab, a laptop asleep) says nothing about the worker.
    const late = now - this.lastCheck > 3 * LIVENESS.heartbeatMs;
    if (late) this.lastSign = now;
    const step = late ? 0 : now - this.lastCheck;
    this.lastCheck = now;
    if (this.state === "loading" && this.worker && !this.heard) {
      this.unheardMs += step;
      if (this.unheardMs > LIVENESS.startSilenceMs) this.scriptNeverCame();
      return;
    }
    if (this.state !== "ready" || !this.worker) return;
    const silence = now - this.lastSign;
    const job = this.current;
    if (!job && silence > LIVENESS.idleSilenceMs) {
      this.crash(this.worker, { cause: "silent", message: t("worker.silent") });
    } else if (job && !job.unresponsive && silence > LIVENESS.runSilenceMs) {
      job.unresponsive = true;
      job.onEvent({ type: "unresponsive", seconds: Math.round(silence / 1000) });
    }
  }

  pump() {
    if (this.state !== "ready" || this.current || !this.queue.length) return;
    const job = this.queue.shift();
    this.current = job;
    job.phase = "sent";
    if (this.interruptView) Atomics.store(this.interruptView, 0, 0);
    this.runsSent += 1;
    this.worker.postMessage({
      type: MessageType.RUN, id: job.id, code: job.code, setup: job.setup || "", check: job.check ?? null, filename: job.filename,
      inputs: job.inputs?.() ?? "",
      alt: job.alt ?? "",
      console: Boolean(job.console), // a console's statement: it may wait for more lines ("done" with status "incomplete")
      // The site's limits (contract.json's by default), which the worker read from the settings before it was ready.
      maxLines: Number(this.settings?.output_max_lines),
      maxChars: Number(this.settings?.output_max_chars),
      schemes: [pageScheme()], // the run's figures are drawn in the page's colour scheme (the build asks for both)
    });
    this.announcePlaces(0);
  }

  /** Tell the waiting jobs from the `from`th on their new place in the queue. */
  announcePlaces(from) {
    for (let n = from; n < this.queue.length; n++) this.queue[n].onEvent({ type: "queued", position: n + 1 });
  }

  finish(job, msg) {
    clearTimeout(job.stopTimer);
    clearTimeout(job.limitTimer);
    job.phase = "done";
    job.onEvent(msg);
  }

  /* The worker has not said "loaded" in LIVENESS.startSilenceMs: its script never came.  A new
   * worker asks for it again, once; if that one is silent too, the cells say so (Run tries again). */
  scriptNeverCame() {
    const seconds = Math.round(LIVENESS.startSilenceMs / 1000);
    if (this.silentStarts >= 1) {
      this.silentStarts = 0;
      this.fail(t("worker.script_late", { path: this.workerPath(), seconds }));
      return;
    }
    this.silentStarts = 1;
    console.warn(`course: the Python worker's script did not arrive in ${seconds} s; a new worker asks for it again`);
    this.killWorker();
    this.spawn();
  }

  /* The worker script's path (its URL as given, where there is no page to resolve it against). */
  workerPath() {
    try {
      return new URL(this.options.workerURL, globalThis.location?.href).pathname;
    } catch {
      return String(this.options.workerURL);
    }
  }

  /* Why the worker ended with an error event that says nothing: its own script did not load when it
   * never spoke (a browser gives such an event no message), else it stopped. */
  silentError() {
    if (this.heard) return t("worker.stopped");
    return t("worker.script_failed", { path: this.workerPath() });
  }

  onMessage(worker, msg) {
    if (worker !== this.worker) return;
    if (!this.heard) {
      this.heard = true;
      this.silentStarts = 0;
    }
    this.lastSign = performance.now();
    if (this.current?.unresponsive) {
      this.current.unresponsive = false;
      this.current.onEvent({ type: "responsive" });
    }
    switch (msg.type) {
      case MessageType.LOADED:
      case MessageType.HEARTBEAT:
        return;
      case MessageType.SETTINGS:
        this.settings = msg.settings;
        this.settingsURL = msg.url;
        this.emit("settings");
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
        this.crash(worker, msg);
        return;
      case MessageType.COMPLETIONS: // complete.js's answers
        this.dispatchEvent(new MessageEvent("completions", { data: msg }));
        return;
      default:
        break;
    }
    const job = this.current;
    if (!job || msg.id !== job.id) return;
    if (msg.type === MessageType.STARTED) {
      job.phase = "started";
      this.lastJob = job;
      this.runCount += 1;
      job.onEvent({ ...msg, count: this.runCount });
      const limit = this.timeLimitS;
      if (limit > 0) job.limitTimer = setTimeout(() => this.stop(job, "timeout"), limit * 1000);
      return;
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
    clearInterval(this.watchdog);
    this.killWorker();
    this.state = "disposed";
    for (const job of this.queue.splice(0)) clearTimeout(job.stopTimer);
    this.current = null;
  }
}
