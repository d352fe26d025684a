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

/* A read of the buffer looks at the clock (for a heartbeat) at most every CLOCK_LOOK_MS and at
 * least every MAX_READS_BETWEEN_LOOKS reads: a busy loop reads it ~100 000 times a second, and
 * performance.now() on each read cost its Python 3-6 % (a cell that sleeps reads it rarely, and
 * then looks at each read). */
const CLOCK_LOOK_MS = 50;
const MAX_READS_BETWEEN_LOOKS = 16;

let stopRequest = null; // Int32Array over the page's SharedArrayBuffer (cross-origin isolated pages)
let lastBeat = -Infinity;
let lastLook = -Infinity;
let readsBetweenLooks = 1;
let readsLeft = 1; // until the next look at the clock

/** Post a heartbeat, at most one per LIVENESS.heartbeatMs. */
function beat(now = performance.now()) {
  if (now - lastBeat < LIVENESS.heartbeatMs) return;
  lastBeat = now;
  self.postMessage({ type: MessageType.HEARTBEAT });
}

/* A read of the buffer: every readsBetweenLooks reads, a heartbeat if one is due, and as many reads
 * until the next look as the last ones took CLOCK_LOOK_MS to come (1 to MAX_READS_BETWEEN_LOOKS). */
function onRead() {
  if (--readsLeft > 0) return;
  const now = performance.now();
  const readsPerMs = readsBetweenLooks / (now - lastLook);
  readsBetweenLooks = Math.min(MAX_READS_BETWEEN_LOOKS, Math.max(1, Math.floor(readsPerMs * CLOCK_LOOK_MS)));
  readsLeft = readsBetweenLooks;
  lastLook = now;
  beat(now);
}

/** The object given to pyodide.setInterruptBuffer: 2 (SIGINT) when Stop was pressed.
 *
 * Pyodide reads the buffer, then writes 0 back (`r = buf[0]; buf[0] = 0`).  Two steps: a Stop
 * stored by the page between them would be written over and lost (Python runs on, and the page
 * restarts it).  So the read takes the request and clears it in one atomic exchange, and the
 * write is ignored. */
export const signals = {
  get 0() {
    onRead();
    return stopRequest ? Atomics.exchange(stopRequest, 0, 0) : 0;
  },
  set 0(_value) {},
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
