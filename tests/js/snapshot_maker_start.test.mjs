// The snapshot maker's start (assets/js/worker/boot.js: inMakerWorker): a maker whose script never
// comes is ended and put off after MAKER_START_MS; one that started is waited for as long as it works.
import assert from "node:assert/strict";
import { beforeEach, mock, test } from "node:test";

globalThis.self ??= globalThis; // boot.js is a worker's module

/* A Worker as inMakerWorker sees it: the job posted to it, terminate(), and what it says. */
class FakeWorker {
  static made = [];

  constructor(url) {
    this.url = String(url);
    this.terminated = false;
    FakeWorker.made.push(this);
  }

  postMessage(job) {
    this.job = job;
  }

  terminate() {
    this.terminated = true;
  }

  say(data) {
    this.onmessage?.({ data });
  }
}
globalThis.Worker = FakeWorker;

const { inMakerWorker, putOffSnapshot, MAKER_START_MS } = await import(
  "../../src/course_site/course_site/assets/js/worker/boot.js"
);

beforeEach(() => {
  FakeWorker.made = [];
  mock.timers.reset();
  mock.timers.enable({ apis: ["setTimeout"] });
});

/* The answer of `promise` if it has settled once pending callbacks ran, else "pending". */
async function settled(promise) {
  return Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve("pending")))]);
}

test("a maker whose script never comes is ended after MAKER_START_MS, and the snapshot put off", async () => {
  const made = inMakerWorker({ job: 1 });
  const [maker] = FakeWorker.made;
  assert.match(maker.url, /snapshot_maker\.js$/);
  assert.deepEqual(maker.job, { job: 1 });
  mock.timers.tick(MAKER_START_MS - 1);
  assert.equal(await settled(made), "pending");
  mock.timers.tick(1);
  assert.deepEqual(await made, { putOff: true, notStarted: true });
  assert.equal(maker.terminated, true);
});

test("a maker that started is waited for however long it works, and its answer is the result", async () => {
  const made = inMakerWorker({});
  const [maker] = FakeWorker.made;
  maker.say({ started: true });
  mock.timers.tick(10 * MAKER_START_MS);
  maker.say({ type: "progress", phase: "core" }); // not an answer
  assert.equal(await settled(made), "pending");
  maker.say({ made: { bytes: 42 } });
  assert.deepEqual(await made, { bytes: 42 });
  assert.equal(maker.terminated, true);
});

test("a run puts off a maker that has not started yet; its start timer then ends nothing", async () => {
  const made = inMakerWorker({});
  putOffSnapshot();
  assert.deepEqual(await made, { putOff: true });
  mock.timers.tick(MAKER_START_MS);
  const next = inMakerWorker({});
  FakeWorker.made[1].say({ started: true });
  mock.timers.tick(MAKER_START_MS);
  assert.equal(await settled(next), "pending");
  putOffSnapshot();
  assert.deepEqual(await next, { putOff: true });
});
