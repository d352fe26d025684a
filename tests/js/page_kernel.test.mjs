// When the page's background work starts (assets/js/page_kernel.js: whenPythonQuiet): once Python
// has been idle for QUIET_MS, never during a run; run by tests/unit/test_page_kernel_js.py.
import assert from "node:assert/strict";
import { beforeEach, mock, test } from "node:test";

import { whenPythonQuiet } from "../../src/course_site/course_site/assets/js/page_kernel.js";
import { QUIET_MS } from "../../src/course_site/course_site/assets/js/protocol.js";

const IDLE_CALLBACK_MS = 300; // page_kernel.js's fallback where requestIdleCallback is missing (as in Node)

/* The kernel as whenPythonQuiet sees it: an `idle` flag, and an "idle" event each time it becomes idle. */
class FakeKernel extends EventTarget {
  idle = false;

  becomeIdle() {
    this.idle = true;
    this.dispatchEvent(new Event("idle"));
  }

  startRun() {
    this.idle = false;
  }
}

let calls;
const work = () => calls.push(Date.now());

/* Python becomes idle and stays so: nothing starts before QUIET_MS, the work starts then. */
function expectWorkOnceQuiet(kernel) {
  kernel.becomeIdle();
  pass(QUIET_MS - 1);
  assert.equal(calls.length, 0);
  pass(1 + IDLE_CALLBACK_MS);
  assert.equal(calls.length, 1);
}

/* Let `ms` pass, one timer's deadline at a time (a timer set by a timer then fires in turn). */
function pass(ms) {
  const end = Date.now() + ms;
  mock.timers.tick(0);
  while (Date.now() < end) mock.timers.tick(1);
}

beforeEach(() => {
  globalThis.window ??= globalThis;
  mock.timers.reset();
  mock.timers.enable({ apis: ["setTimeout", "Date"] });
  calls = [];
});

test("the work waits until Python has been idle for QUIET_MS", () => {
  const kernel = new FakeKernel();
  whenPythonQuiet(kernel, work);
  pass(10 * QUIET_MS);
  assert.equal(calls.length, 0, "booting: not idle yet");
  expectWorkOnceQuiet(kernel);
});

test("a Python already idle starts the wait at once", () => {
  const kernel = new FakeKernel();
  kernel.idle = true;
  whenPythonQuiet(kernel, work);
  pass(QUIET_MS + IDLE_CALLBACK_MS);
  assert.equal(calls.length, 1);
});

test("a run during the wait starts it again from the run's end", () => {
  const kernel = new FakeKernel();
  whenPythonQuiet(kernel, work);
  kernel.becomeIdle();
  pass(QUIET_MS - 100);
  kernel.startRun(); // Run again, right after the first output
  pass(10 * QUIET_MS); // a long run: nothing starts while it runs
  assert.equal(calls.length, 0);
  expectWorkOnceQuiet(kernel);
});

test("the work runs once, however often Python is idle afterwards", () => {
  const kernel = new FakeKernel();
  whenPythonQuiet(kernel, work);
  for (let n = 0; n < 3; n += 1) {
    kernel.becomeIdle();
    pass(QUIET_MS + IDLE_CALLBACK_MS);
    kernel.startRun();
  }
  assert.equal(calls.length, 1);
});

test("with no quiet time asked, the work starts at the first idle moment", () => {
  const kernel = new FakeKernel();
  whenPythonQuiet(kernel, work, 0);
  kernel.becomeIdle();
  pass(IDLE_CALLBACK_MS);
  assert.equal(calls.length, 1);
});
