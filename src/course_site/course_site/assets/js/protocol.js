/* The protocol between the page (kernel.js) and the Python worker (worker/): the message types
 * (their fields: contract.json), the worker's liveness and when Python counts as quiet.
 *
 * Messages are plain objects with a `type` from MessageType; `id` is the run id.  What is kept
 * for offline use, where, and what the service worker serves: cache_policy.js.
 */

/** Every message between the page and the Python worker. */
export const MessageType = Object.freeze({
  // page -> worker
  STRINGS: "strings",
  INTERRUPT_BUFFER: "interrupt-buffer",
  RUN: "run",
  CANCEL: "cancel",
  PREFETCH: "prefetch",
  SNAPSHOT: "snapshot",
  COMPLETE: "complete",
  // worker -> page
  LOADED: "loaded",
  SETTINGS: "settings",
  PROGRESS: "progress",
  READY: "ready",
  INIT_ERROR: "init-error",
  STARTED: "started",
  STREAM: "stream",
  RESULT: "result",
  ERROR: "error",
  FIGURE: "figure",
  CAPPED: "capped",
  DROPPED: "dropped",
  DONE: "done",
  FATAL: "fatal",
  HEARTBEAT: "heartbeat",
  COMPLETIONS: "completions",
});

/* The messages' fields, page -> worker and worker -> page: contract.json ("messages"), the one
 * place for them; tests/js/contract.test.mjs checks what the scripts send against it. */

/**
 * A worker can die without an error event (the browser ends it to reclaim
 * memory).  It sends a heartbeat every `heartbeatMs` while it can: its event
 * loop is free, or Python runs code (worker/signals.js).  The page declares an
 * idle worker dead after `idleSilenceMs` without one; a running cell may be in
 * one long call into C, so after `runSilenceMs` the cell only says that Python
 * does not answer and Stop restarts it.  A new worker says "loaded" as its script
 * starts; one that has not after `startSilenceMs` never got its script (Chromium can
 * leave that request unanswered while a new service worker takes over the page, a
 * lost connection can too): it is replaced once, and then the cells say so.
 */
export const LIVENESS = Object.freeze({ heartbeatMs: 1000, idleSilenceMs: 4000, runSilenceMs: 15000, startSilenceMs: 15000 });

/** How long Python stays idle (no run sent, none running) before work that can wait starts:
 * the page's (page_kernel.js: the editor, the rest of the page, the snapshot request) and the
 * snapshot's (worker/dispatch.js).  A learner who runs again at once does not share the CPU with it. */
export const QUIET_MS = 1500;
