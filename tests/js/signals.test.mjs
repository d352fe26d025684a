// What Python's eval loop polls (assets/js/worker/signals.js): heartbeats while a cell runs, with
// the clock looked at on few of the reads of a busy loop; run by tests/unit/test_signals_js.py.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { LIVENESS, MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { WorkerSelf } from "./fake_worker.mjs";

let clock = 1000; // ms, performance.now() as signals.js sees it
let looks = 0; // how often it looked
Object.defineProperty(globalThis, "performance", { value: { now: () => (looks++, clock) }, configurable: true });
const worker = new WorkerSelf();
globalThis.self = worker;
const { clearStopRequest, signals, startHeartbeat, useStopRequest } = await import("../../src/course_site/course_site/assets/js/worker/signals.js");

const heartbeats = () => worker.posted.filter((message) => message.type === MessageType.HEARTBEAT).length;

/* `count` reads of the buffer, the clock moving `msEach` before each. */
function read(count, msEach) {
  for (let i = 0; i < count; i++) {
    clock += msEach;
    assert.equal(signals[0], 0);
  }
}

test("a busy loop looks at the clock on few of its reads, and still sends a heartbeat each second", () => {
  read(10, 500); // slow reads first: each one looks
  looks = 0;
  const before = heartbeats();
  read(100_000, 0.01); // 100 000 reads a second, for a second
  assert.ok(looks <= 100_000 / 16 + 1, `looked ${looks} times`);
  assert.ok(heartbeats() - before >= 1, "no heartbeat in a second of reads");
});

test("reads a second apart each send a heartbeat (a cell that sleeps)", () => {
  read(1, 2 * LIVENESS.heartbeatMs);
  read(16, 0.01); // a busy moment: the next looks are 16 reads apart
  const before = heartbeats();
  read(16, LIVENESS.heartbeatMs);
  const afterSlowdown = heartbeats() - before;
  assert.ok(afterSlowdown >= 1, "no heartbeat in 16 reads a second apart");
  const steady = heartbeats();
  read(10, LIVENESS.heartbeatMs);
  assert.equal(heartbeats() - steady, 10); // the rate is known again: each read looks
});

test("Stop's request is read and cleared through the page's buffer", () => {
  const view = new Int32Array(new SharedArrayBuffer(4));
  useStopRequest(view);
  Atomics.store(view, 0, 2);
  assert.equal(signals[0], 2);
  assert.equal(Atomics.load(view, 0), 0, "taken: read and cleared at once");
  signals[0] = 0; // Pyodide's write-back
  assert.equal(signals[0], 0);
  useStopRequest(null);
});

test("a Stop that comes between Pyodide's read and its write-back of 0 is not lost", () => {
  const view = new Int32Array(new SharedArrayBuffer(4));
  useStopRequest(view);
  assert.equal(signals[0], 0); // Pyodide reads: no request yet
  Atomics.store(view, 0, 2); // the page's Stop, on its own thread
  signals[0] = 0; // Pyodide writes 0 back
  assert.equal(signals[0], 2, "the next read gets the Stop");
  useStopRequest(null);
});

test("at most one heartbeat a second, however often the clock is looked at", () => {
  read(1, 2 * LIVENESS.heartbeatMs);
  const before = heartbeats();
  read(100, 100); // a look at nearly each read (they come slowly), ten seconds in all
  const sent = heartbeats() - before;
  assert.ok(sent >= 9 && sent <= 10, `${sent} heartbeats in 10 s`);
});

test("without the page's buffer (no isolation) there is never a Stop to read, and writing it does nothing", () => {
  useStopRequest(null);
  signals[0] = 2;
  assert.equal(signals[0], 0);
  clearStopRequest();
});

test("an earlier Stop is forgotten before a run starts", () => {
  const view = new Int32Array(new SharedArrayBuffer(4));
  useStopRequest(view);
  Atomics.store(view, 0, 2);
  clearStopRequest();
  assert.equal(Atomics.load(view, 0), 0);
  useStopRequest(null);
});

test("while the event loop is free a timer sends a heartbeat each second", () => {
  mock.timers.enable({ apis: ["setInterval"] });
  try {
    clock += 2 * LIVENESS.heartbeatMs;
    const before = heartbeats();
    startHeartbeat();
    assert.equal(heartbeats() - before, 1, "one at once");
    for (let n = 0; n < 3; n++) {
      clock += LIVENESS.heartbeatMs;
      mock.timers.tick(LIVENESS.heartbeatMs);
    }
    assert.equal(heartbeats() - before, 4);
  } finally {
    mock.timers.reset();
  }
});
