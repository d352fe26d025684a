/* What Python's eval loop polls: Stop's interrupt request, and a chance to
 * send the page a heartbeat (../protocol.js LIVENESS).
 *
 * Pyodide reads `signals[0]` every few dozen checks of CPython's eval breaker
 * (then writes 0 back), so a cell that runs Python code sends heartbeats
 * although the worker's event loop is blocked; between runs a timer sends
 * them.  A single long call into C (time.sleep, one huge numpy operation)
 * sends none until it returns.
 */
import { LIVENESS, MessageType } from "../protocol.js";

let stopRequest = null; // Int32Array over the page's SharedArrayBuffer (cross-origin isolated pages)
let lastBeat = -Infinity;

/** Post a heartbeat, at most one per LIVENESS.heartbeatMs. */
function beat() {
  const now = performance.now();
  if (now - lastBeat < LIVENESS.heartbeatMs) return;
  lastBeat = now;
  self.postMessage({ type: MessageType.HEARTBEAT });
}

/** The object given to pyodide.setInterruptBuffer: 2 (SIGINT) when Stop was pressed. */
export const signals = {
  get 0() {
    beat();
    return stopRequest ? Atomics.load(stopRequest, 0) : 0;
  },
  set 0(value) {
    if (stopRequest) Atomics.store(stopRequest, 0, value);
  },
};

/** Use the page's interrupt buffer (an Int32Array over a SharedArrayBuffer). */
export function useStopRequest(view) {
  stopRequest = view;
}

/** Forget an earlier Stop before a run starts. */
export function clearStopRequest() {
  if (stopRequest) Atomics.store(stopRequest, 0, 0);
}

/** Heartbeats while the event loop is free (booting, idle, awaiting). */
export function startHeartbeat() {
  beat();
  setInterval(beat, LIVENESS.heartbeatMs);
}
