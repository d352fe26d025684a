/* What a slow boot is waiting for, said in the console: Python's boot names its step (bootStep) and
 * network.js its downloads under way (downloadStarted); once the boot has taken SLOW_MS, and every
 * SLOW_MS after, the worker says where it is and which downloads have not ended:
 *
 *   course: Python's boot has taken 60 s; now: restoring the snapshot; not ended: /pyodide/v0.27.7/python_stdlib.zip (request, 58 s)
 *
 * A boot that never ends (a request a browser leaves unanswered) then says what it waits for, to a
 * learner's bug report or a test's failure; a line that never comes says the worker's thread itself
 * is blocked.  The same words for a snapshot maker (watchFor "the snapshot maker").
 */

export const SLOW_MS = 60_000;

const downloads = new Map(); // absolute URL -> {since, stage: "request" | "body"}
let step = "starting";

/** The boot is now at `name` (words for the console line). */
export function bootStep(name) {
  step = name;
}

/** A download of `url` started: returns {body(), end()}, to call once its headers came and once it ended. */
export function downloadStarted(url) {
  const entry = { since: performance.now(), stage: "request" };
  downloads.set(url, entry);
  return {
    body: () => {
      entry.stage = "body";
    },
    end: () => downloads.get(url) === entry && downloads.delete(url),
  };
}

/** The console line for a boot of `who` that has taken `elapsedMs` (what is said at each SLOW_MS). */
export function slowLine(who, elapsedMs, now = performance.now()) {
  const pending = [...downloads].map(([url, { since, stage }]) => {
    const path = new URL(url).pathname;
    return `${path} (${stage}, ${Math.round((now - since) / 1000)} s)`;
  });
  const waiting = pending.length ? pending.join(", ") : "none";
  return `course: ${who} has taken ${Math.round(elapsedMs / 1000)} s; now: ${step}; not ended: ${waiting}`;
}

/** Say slowLine(who) every SLOW_MS until the returned function is called. */
export function watchFor(who) {
  const start = performance.now();
  const timer = setInterval(() => console.warn(slowLine(who, performance.now() - start)), SLOW_MS);
  return () => clearInterval(timer);
}
