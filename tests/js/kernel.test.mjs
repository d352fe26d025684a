// The page's side of the Python worker (assets/js/kernel.js): runs queued in click order and sent
// one at a time, Stop, and the liveness watchdog (protocol.js LIVENESS) on a fake clock;
// run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";

import { LIVENESS, MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { CONTRACT } from "./contract.mjs";
import { FakeWorker } from "./fake_worker.mjs";
import "./english.mjs"; // the page's words: the English catalogue

globalThis.Worker = FakeWorker;
let asleep = 0; // ms the machine slept: performance.now() moved on, no timer ran
Object.defineProperty(globalThis, "performance", { value: { now: () => Date.now() + asleep }, configurable: true });
const { Kernel } = await import("../../src/course_site/course_site/assets/js/kernel.js");

let kernels;

beforeEach(() => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  FakeWorker.made = [];
  kernels = [];
  asleep = 0;
});

afterEach(() => {
  for (const kernel of kernels) kernel.dispose();
  mock.timers.reset();
});

function newKernel() {
  const kernel = new Kernel({ workerURL: "assets/course/js/worker/main.js" });
  kernels.push(kernel);
  return kernel;
}

/* The limits as the build writes them into worker-settings.json (contract.json's, by default). */
const SETTINGS = { output_max_lines: CONTRACT.limits.maxLines, output_max_chars: CONTRACT.limits.maxChars, time_limit_s: 0 };

/* A kernel whose worker has booted Python (with `settings`); returns [kernel, worker]. */
function readyKernel(settings = SETTINGS) {
  const kernel = newKernel();
  kernel.start();
  const worker = FakeWorker.made.at(-1);
  worker.send({ type: MessageType.SETTINGS, settings, url: "https://example.org/assets/course/worker-settings.json" });
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  return [kernel, worker];
}

/* A job whose events are recorded in `job.events`. */
function job(code = "print(1)") {
  const events = [];
  return { code, setup: "", check: null, filename: "<cell 1>", events, onEvent: (e) => events.push(e) };
}

const types = (j) => j.events.map((e) => e.type);
const lastEvent = (j) => j.events.at(-1);

/* Let `ms` pass, a millisecond at a time, calling `each()` after every step (one tick of many
 * milliseconds runs every timer due in it at its end, as if each one ran late). */
function pass(ms, each = () => {}) {
  for (let t = 0; t < ms; t++) {
    mock.timers.tick(1);
    each();
  }
}

/* Python runs `j` to its end: started, then done. */
function runToEnd(worker, j, status = "ok") {
  worker.send({ type: MessageType.STARTED, id: j.id });
  worker.send({ type: MessageType.DONE, id: j.id, ok: status === "ok", status, ms: 1, totalMs: 2 });
}

test("a run sent before Python is ready is queued, starts the worker, and is sent once Python is ready", () => {
  const kernel = newKernel();
  const first = kernel.run(job());
  assert.deepEqual(first.events, [{ type: "queued", position: 1, waitingForPython: true }]);
  assert.equal(kernel.state, "loading");
  const [worker] = FakeWorker.made;
  assert.deepEqual(worker.options, { name: "course-python" });
  assert.deepEqual(worker.runs(), []);
  worker.send({ type: MessageType.SETTINGS, settings: SETTINGS, url: "https://example.org/assets/course/worker-settings.json" });
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  assert.deepEqual(worker.runs(), [{
    type: MessageType.RUN, id: first.id, code: "print(1)", setup: "", check: null, filename: "<cell 1>",
    inputs: "", alt: "", maxLines: CONTRACT.limits.maxLines, maxChars: CONTRACT.limits.maxChars, schemes: ["default"], console: false,
  }]);
});

test("a queued run takes its inputs' values when it is sent: the latest ones", () => {
  const [kernel, worker] = readyKernel();
  let pos = 1;
  const a = kernel.run(job("a"));
  const b = kernel.run({ ...job("b"), inputs: () => `pos = ${pos}\n` });
  pos = 2;
  pos = 3;
  runToEnd(worker, a);
  assert.deepEqual(worker.runs().map((m) => [m.code, m.inputs]), [["a", ""], ["b", "pos = 3\n"]]);
  runToEnd(worker, b);
});

test("a run carries the page's colour scheme, in which its figures are drawn", () => {
  const kernel = newKernel();
  const saved = globalThis.document;
  globalThis.document = { body: { getAttribute: (name) => (name === "data-md-color-scheme" ? "slate" : null) } };
  try {
    kernel.run(job());
    const worker = FakeWorker.made.at(-1);
    worker.send({ type: MessageType.READY, version: "0.27.7" });
    assert.deepEqual(worker.runs()[0].schemes, ["slate"]);
  } finally {
    globalThis.document = saved;
  }
});

test("runs are sent one at a time in click order; the waiting ones are told their place", () => {
  const [kernel, worker] = readyKernel({ output_max_lines: 10, output_max_chars: 500 });
  const [a, b, c] = [job("a"), job("b"), job("c")];
  for (const j of [a, b, c]) kernel.run(j);
  assert.deepEqual(worker.runs().map((m) => [m.code, m.maxLines, m.maxChars]), [["a", 10, 500]]);
  assert.deepEqual(b.events, [{ type: "queued", position: 1, waitingForPython: false }]);
  assert.deepEqual(c.events, [{ type: "queued", position: 2, waitingForPython: false }]);
  assert.equal(kernel.idle, false);
  runToEnd(worker, a);
  assert.deepEqual(worker.runs().map((m) => m.code), ["a", "b"]);
  assert.deepEqual(lastEvent(c), { type: "queued", position: 1 });
  runToEnd(worker, b);
  runToEnd(worker, c);
  assert.deepEqual(worker.runs().map((m) => m.code), ["a", "b", "c"]);
  assert.equal(kernel.idle, true);
});

test("each started run carries its count since Python started; messages of other runs are ignored", () => {
  const [kernel, worker] = readyKernel();
  const [a, b] = [kernel.run(job("a")), kernel.run(job("b"))];
  worker.send({ type: MessageType.STREAM, id: b.id, stream: "stdout", text: "not mine" });
  worker.send({ type: MessageType.STARTED, id: a.id });
  worker.send({ type: MessageType.STREAM, id: a.id, stream: "stdout", text: "mine" });
  worker.send({ type: MessageType.DONE, id: a.id, ok: true, status: "ok", ms: 1, totalMs: 2 });
  runToEnd(worker, b);
  assert.deepEqual(a.events.map((e) => [e.type, e.count ?? e.text ?? e.status]), [
    ["queued", undefined], ["started", 1], ["stream", "mine"], ["done", "ok"],
  ]);
  assert.equal(a.events.at(-1).reset, false);
  assert.equal(b.events.find((e) => e.type === "started").count, 2);
  assert.ok(!b.events.some((e) => e.text === "not mine"));
});

test("'idle' is dispatched when Python is ready and again after each last run", () => {
  const kernel = newKernel();
  let idles = 0;
  kernel.addEventListener("idle", () => idles++);
  kernel.start();
  const [worker] = FakeWorker.made;
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  assert.equal(idles, 1);
  const [a, b] = [kernel.run(job()), kernel.run(job())];
  runToEnd(worker, a);
  assert.equal(idles, 1, "b still waits");
  runToEnd(worker, b);
  assert.equal(idles, 2);
});

test("a queued run's packages are prefetched while Python starts", () => {
  const kernel = newKernel();
  kernel.run({ ...job(), packages: ["matplotlib"] });
  const [worker] = FakeWorker.made;
  assert.equal(worker.catalogue.lang, "en"); // the page's words (strings.js), for the worker's messages
  assert.deepEqual(worker.posted, [{ type: MessageType.PREFETCH, packages: ["matplotlib"] }]);
  kernel.run(job()); // without packages: nothing to prefetch
  assert.equal(worker.posted.length, 1);
});

test("Stop on a queued run cancels it; the others keep their order", () => {
  const [kernel, worker] = readyKernel();
  const [a, b, c] = [kernel.run(job("a")), kernel.run(job("b")), kernel.run(job("c"))];
  kernel.stop(b);
  assert.deepEqual(lastEvent(b), { type: MessageType.DONE, status: "cancelled", reason: "user" });
  assert.deepEqual(c.events.slice(1), [{ type: "queued", position: 1 }], "c moved up");
  assert.deepEqual(types(a), ["queued"], "a, sent already, is not told");
  runToEnd(worker, a);
  assert.deepEqual(worker.runs().map((m) => m.code), ["a", "c"]);
});

test("Stop without isolation ends the worker at once and starts a fresh Python for the next run", () => {
  const [kernel, worker] = readyKernel();
  const [a, b] = [kernel.run(job("a")), kernel.run(job("b"))];
  worker.send({ type: MessageType.STARTED, id: a.id });
  kernel.stop(a);
  assert.equal(worker.terminated, true);
  assert.deepEqual(lastEvent(a), { type: MessageType.DONE, status: "stopped", reason: "user", reset: true });
  const fresh = FakeWorker.made.at(-1);
  assert.notEqual(fresh, worker);
  assert.equal(kernel.state, "loading");
  fresh.send({ type: MessageType.READY, version: "0.27.7" });
  assert.deepEqual(fresh.runs().map((m) => m.id), [b.id]);
  fresh.send({ type: MessageType.STARTED, id: b.id });
  assert.equal(lastEvent(b).count, 1, "a fresh Python counts from 1 again");
});

test("Stop while a run's packages load asks the worker to drop it, and ends the worker if it does not", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job("a"));
  kernel.stop(a);
  assert.deepEqual(worker.posted.at(-1), { type: MessageType.CANCEL, id: a.id });
  kernel.stop(a); // a second Stop is one Stop
  assert.equal(worker.posted.filter((m) => m.type === MessageType.CANCEL).length, 1);
  mock.timers.tick(1999);
  assert.equal(worker.terminated, false);
  mock.timers.tick(1);
  assert.equal(worker.terminated, true);
  assert.deepEqual(lastEvent(a), { type: MessageType.DONE, status: "stopped", reason: "user", reset: true });
});

test("a run the worker drops after Stop ends as stopped, and the worker is kept", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job("a"));
  kernel.stop(a);
  worker.send({ type: MessageType.DONE, id: a.id, ok: false, status: "cancelled", ms: 0, totalMs: 0 });
  assert.equal(lastEvent(a).status, "stopped");
  assert.equal(lastEvent(a).reason, "user");
  mock.timers.tick(5000);
  assert.equal(worker.terminated, false);
  assert.equal(kernel.idle, true);
});

test("the time limit stops a run that started, and only one that runs past it", () => {
  const [kernel, worker] = readyKernel({ time_limit_s: 2 });
  assert.equal(kernel.timeLimitS, 2);
  const quick = kernel.run(job("quick"));
  runToEnd(worker, quick);
  mock.timers.tick(5000);
  assert.equal(worker.terminated, false);
  const slow = kernel.run(job("slow"));
  worker.send({ type: MessageType.STARTED, id: slow.id });
  mock.timers.tick(1999);
  assert.equal(slow.events.at(-1).type, "started");
  mock.timers.tick(1);
  assert.deepEqual(lastEvent(slow), { type: MessageType.DONE, status: "stopped", reason: "timeout", reset: true });
});

test("a worker that dies mid-run ends the run as crashed; the next run gets a fresh Python", () => {
  const [kernel, worker] = readyKernel();
  const [a, b] = [kernel.run(job("a")), kernel.run(job("b"))];
  worker.send({ type: MessageType.STARTED, id: a.id });
  worker.send({ type: MessageType.FATAL, id: a.id, cause: "memory", exitStatus: null, message: "out of memory" });
  assert.deepEqual(lastEvent(a), {
    type: MessageType.DONE, status: "crashed", cause: "memory", exitStatus: null, message: "out of memory", reset: true,
  });
  assert.equal(worker.terminated, true);
  assert.notEqual(FakeWorker.made.at(-1), worker);
  assert.equal(kernel.state, "loading");
  FakeWorker.made.at(-1).send({ type: MessageType.READY, version: "0.27.7" });
  assert.deepEqual(FakeWorker.made.at(-1).runs().map((m) => m.id), [b.id]);
});

test("a worker error event is a crash; a worker that fails to boot fails the waiting runs", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  let prevented = false;
  worker.onerror({ message: "", preventDefault: () => (prevented = true) });
  assert.equal(prevented, true);
  assert.equal(lastEvent(a).status, "crashed");
  assert.equal(lastEvent(a).message, "the Python worker stopped unexpectedly");
  const b = kernel.run(job());
  FakeWorker.made.at(-1).send({ type: MessageType.INIT_ERROR, message: "no WebAssembly" });
  assert.equal(kernel.state, "failed");
  assert.equal(kernel.failure, "no WebAssembly");
  assert.deepEqual(lastEvent(b), { type: MessageType.DONE, status: "failed", message: "no WebAssembly" });
});

test("a worker whose script does not load (an error event with no message before it spoke) is named", () => {
  const kernel = newKernel();
  kernel.start();
  FakeWorker.made[0].onerror({ message: "" });
  assert.equal(kernel.state, "failed");
  assert.match(kernel.failure, /^the Python worker's script \S*main\.js could not be loaded$/);
});

test("a worker that dies while it boots, with no run waiting, fails the kernel", () => {
  const kernel = newKernel();
  const states = [];
  kernel.addEventListener("state", () => states.push(kernel.state));
  kernel.start();
  FakeWorker.made[0].onmessageerror();
  assert.equal(kernel.state, "failed");
  assert.equal(kernel.failure, "a message from the Python worker could not be read");
  assert.deepEqual(states, ["loading", "failed"]);
});

test("a worker that cannot be created fails the run right after it is queued", () => {
  const kernel = newKernel();
  globalThis.Worker = class { constructor() { throw new Error("blocked by policy"); } };
  try {
    const a = kernel.run(job());
    assert.deepEqual(types(a), ["queued", "done"]);
    assert.equal(lastEvent(a).message, "the Python worker could not start (blocked by policy)");
  } finally {
    globalThis.Worker = FakeWorker;
  }
});

test("a worker already booting (worker_prestart.js) is adopted, with the events it sent meanwhile", () => {
  const early = new FakeWorker("early.js", {});
  const events = [{ type: "message", data: { type: MessageType.READY, version: "0.27.7" } }];
  const kernel = newKernel();
  kernel.start({ worker: early, events });
  assert.equal(FakeWorker.made.length, 1, "no second worker");
  assert.equal(kernel.state, "ready");
  assert.deepEqual(events, []);
  kernel.start(); // already started: nothing happens
  assert.equal(FakeWorker.made.length, 1);
});

test("the snapshot is asked for only when Python is ready", () => {
  const kernel = newKernel();
  kernel.start();
  kernel.keepSnapshot();
  const [worker] = FakeWorker.made;
  assert.deepEqual(worker.posted, []);
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  kernel.keepSnapshot();
  assert.deepEqual(worker.posted, [{ type: MessageType.SNAPSHOT }]);
});

/* ------------------------------------------------------------------ liveness */

test("a ready worker that vanishes is noticed within LIVENESS.idleSilenceMs plus one check", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  runToEnd(worker, a); // the worker's last message
  let noticedAfter = null;
  pass(LIVENESS.idleSilenceMs + LIVENESS.heartbeatMs + 1, () => {
    if (noticedAfter === null && lastEvent(a).type === "lost") noticedAfter = Date.now();
  });
  assert.notEqual(noticedAfter, null, "not noticed within the limits");
  const silence = noticedAfter - (Date.now() - (LIVENESS.idleSilenceMs + LIVENESS.heartbeatMs + 1));
  assert.ok(silence > LIVENESS.idleSilenceMs, `declared dead after ${silence} ms of silence`);
  assert.ok(silence <= LIVENESS.idleSilenceMs + LIVENESS.heartbeatMs, `noticed after ${silence} ms`);
  assert.deepEqual(lastEvent(a), {
    type: "lost", cause: "silent", exitStatus: null, message: "the Python worker stopped answering",
  });
  assert.equal(worker.terminated, true);
  assert.equal(kernel.state, "idle");
  assert.equal(FakeWorker.made.length, 1, "a fresh worker only for the next run");
  kernel.run(job());
  assert.equal(FakeWorker.made.length, 2);
});

test("heartbeats keep an idle worker alive", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  runToEnd(worker, a);
  for (let beat = 0; beat < 30; beat++) {
    mock.timers.tick(LIVENESS.heartbeatMs);
    worker.send({ type: MessageType.HEARTBEAT });
  }
  assert.equal(worker.terminated, false);
  assert.equal(kernel.state, "ready");
  assert.equal(lastEvent(a).type, "done");
});

test("a booting worker whose script came is not declared dead however long it is silent", () => {
  const kernel = newKernel();
  kernel.start();
  FakeWorker.made[0].send({ type: MessageType.LOADED });
  pass(2 * LIVENESS.startSilenceMs);
  assert.equal(kernel.state, "loading");
  assert.equal(FakeWorker.made[0].terminated, false);
  assert.equal(FakeWorker.made.length, 1);
});

test("a worker whose script never comes is replaced after startSilenceMs; a second one fails the waiting runs", () => {
  const kernel = newKernel();
  const a = kernel.run(job());
  const [first] = FakeWorker.made;
  pass(LIVENESS.startSilenceMs);
  assert.equal(FakeWorker.made.length, 1, "not before startSilenceMs");
  pass(LIVENESS.heartbeatMs);
  assert.equal(first.terminated, true);
  assert.equal(FakeWorker.made.length, 2);
  assert.equal(kernel.state, "loading");
  assert.deepEqual(types(a), ["queued"], "the run still waits, for the new worker");
  pass(LIVENESS.startSilenceMs + LIVENESS.heartbeatMs);
  assert.equal(FakeWorker.made[1].terminated, true);
  assert.equal(kernel.state, "failed");
  const failure = `the Python worker's script assets/course/js/worker/main.js did not arrive in ${LIVENESS.startSilenceMs / 1000} s`;
  assert.equal(kernel.failure, failure);
  assert.deepEqual(lastEvent(a), { type: MessageType.DONE, status: "failed", message: failure });
  // Run again: a new worker, and a new allowance of one replacement.
  const b = kernel.run(job());
  FakeWorker.made[2].send({ type: MessageType.LOADED });
  FakeWorker.made[2].send({ type: MessageType.READY, version: "0.27.7" });
  assert.deepEqual(FakeWorker.made[2].runs().map((m) => m.id), [b.id]);
});

test("a replaced worker that then answers boots as usual; a check that comes late does not count", () => {
  const kernel = newKernel();
  kernel.start();
  pass(LIVENESS.heartbeatMs);
  asleep = 10 * LIVENESS.startSilenceMs; // the clock jumps while no timer runs (a laptop asleep)
  pass(LIVENESS.heartbeatMs);
  assert.equal(FakeWorker.made.length, 1);
  pass(LIVENESS.startSilenceMs);
  assert.equal(FakeWorker.made.length, 2);
  FakeWorker.made[1].send({ type: MessageType.LOADED });
  pass(2 * LIVENESS.startSilenceMs);
  assert.equal(kernel.state, "loading");
  FakeWorker.made[1].send({ type: MessageType.READY, version: "0.27.7" });
  assert.equal(kernel.state, "ready");
});

test("a silent running cell is said unresponsive after runSilenceMs, responsive when Python answers; never killed", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  worker.send({ type: MessageType.STARTED, id: a.id });
  let saidAfter = null;
  const start = Date.now();
  pass(LIVENESS.runSilenceMs + LIVENESS.heartbeatMs, () => {
    if (saidAfter === null && lastEvent(a).type === "unresponsive") saidAfter = Date.now() - start;
  });
  assert.ok(saidAfter > LIVENESS.runSilenceMs && saidAfter <= LIVENESS.runSilenceMs + LIVENESS.heartbeatMs, `${saidAfter}`);
  assert.deepEqual(lastEvent(a), { type: "unresponsive", seconds: Math.round(saidAfter / 1000) });
  pass(2 * LIVENESS.runSilenceMs);
  assert.equal(a.events.filter((e) => e.type === "unresponsive").length, 1, "said once");
  assert.equal(worker.terminated, false);
  worker.send({ type: MessageType.HEARTBEAT });
  assert.deepEqual(lastEvent(a), { type: "responsive" });
  worker.send({ type: MessageType.HEARTBEAT });
  assert.equal(a.events.filter((e) => e.type === "responsive").length, 1);
});

test("a check that comes late (a hidden tab, a laptop asleep) does not declare the worker dead", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  runToEnd(worker, a);
  pass(LIVENESS.heartbeatMs);
  asleep = 10 * LIVENESS.idleSilenceMs; // the clock jumps while no timer runs
  pass(LIVENESS.heartbeatMs);
  assert.equal(kernel.state, "ready");
  assert.equal(worker.terminated, false);
  // From then on, silence counts again.
  pass(LIVENESS.idleSilenceMs + LIVENESS.heartbeatMs);
  assert.equal(lastEvent(a).type, "lost");
});

test("a disposed kernel stops its watchdog and its worker", () => {
  const [kernel, worker] = readyKernel();
  kernel.run(job());
  kernel.dispose();
  assert.equal(worker.terminated, true);
  assert.equal(kernel.state, "disposed");
  kernel.start();
  assert.equal(FakeWorker.made.length, 1);
});

/* ------------------------------------------------------------------ more of the contract with cell.js */

test("a job's phase: queued, sent, started, done", () => {
  const [kernel, worker] = readyKernel();
  const [a, b] = [kernel.run(job("a")), kernel.run(job("b"))];
  assert.deepEqual([a.phase, b.phase], ["sent", "queued"]);
  worker.send({ type: MessageType.STARTED, id: a.id });
  assert.equal(a.phase, "started");
  worker.send({ type: MessageType.DONE, id: a.id, ok: true, status: "ok", ms: 1, totalMs: 2 });
  assert.deepEqual([a.phase, b.phase], ["done", "sent"]);
});

test("a run's setup and an exercise's check are sent with it; none is an empty setup and a null check", () => {
  const [kernel, worker] = readyKernel();
  kernel.run({ ...job("a"), setup: "import numpy as np", check: "assert x" });
  kernel.run({ ...job("b"), setup: undefined, check: undefined });
  runToEnd(worker, { id: worker.runs()[0].id });
  assert.deepEqual(worker.runs().map((m) => [m.setup, m.check]), [["import numpy as np", "assert x"], ["", null]]);
});

test("the kernel says each change of state, and its download progress while Python boots", () => {
  const kernel = newKernel();
  const seen = [];
  kernel.addEventListener("state", () => seen.push(kernel.state));
  kernel.addEventListener("progress", () => seen.push(`${kernel.progress.phase} ${kernel.progress.loaded}/${kernel.progress.total}`));
  assert.deepEqual(kernel.progress, { phase: "core", loaded: 0, total: 0 });
  kernel.start();
  kernel.start(); // already loading: nothing more
  assert.equal(FakeWorker.made.length, 1);
  const [worker] = FakeWorker.made;
  worker.send({ type: MessageType.PROGRESS, phase: "core", loaded: 5, total: 10, id: null, packages: [] });
  assert.equal(kernel.idle, false, "not idle before Python is ready");
  worker.send({ type: MessageType.READY, version: "0.27.7" });
  worker.onerror({ message: "gone" });
  assert.deepEqual(seen, ["loading", "core 0/0", "core 5/10", "ready", "idle"]);
  assert.deepEqual(kernel.progress, { phase: "core", loaded: 5, total: 10 });
});

test("a run's package downloads are told to that run only; the kernel's progress follows them", () => {
  const [kernel, worker] = readyKernel();
  let progressEvents = 0;
  kernel.addEventListener("progress", () => progressEvents++);
  const [a, b] = [kernel.run(job("a")), kernel.run(job("b"))];
  const message = (id) => ({ type: MessageType.PROGRESS, phase: "packages", loaded: 3, total: 9, id, packages: ["numpy"] });
  worker.send(message(a.id));
  worker.send(message(b.id));
  assert.deepEqual(a.events.filter((e) => e.type === MessageType.PROGRESS), [message(a.id)]);
  assert.ok(!b.events.some((e) => e.type === MessageType.PROGRESS));
  assert.deepEqual(kernel.progress, { phase: "packages", loaded: 3, total: 9 });
  assert.equal(progressEvents, 0, "the boot's progress bar is not redrawn");
  runToEnd(worker, a);
  runToEnd(worker, b);
  worker.send(message(a.id)); // no run: told to no one
  assert.equal(a.events.filter((e) => e.type === MessageType.PROGRESS).length, 1);
});

test("Python ready with runs waiting is not idle until they have run", () => {
  const kernel = newKernel();
  let idles = 0;
  kernel.addEventListener("idle", () => idles++);
  const a = kernel.run(job());
  FakeWorker.made[0].send({ type: MessageType.READY, version: "0.27.7" });
  assert.equal(idles, 0);
  runToEnd(FakeWorker.made[0], a);
  assert.equal(idles, 1);
});

test("a run is ended as Python says unless it was stopped, then it is stopped unless it had finished", () => {
  const [kernel, worker] = readyKernel();
  const failing = kernel.run(job());
  runToEnd(worker, failing, "error");
  assert.equal(lastEvent(failing).status, "error");
  assert.equal(lastEvent(failing).reason, undefined);
  const finished = kernel.run(job());
  kernel.stop(finished); // its packages still loading: the worker is asked to drop it, but it ran already
  worker.send({ type: MessageType.DONE, id: finished.id, ok: true, status: "ok", ms: 1, totalMs: 1 });
  assert.deepEqual([lastEvent(finished).status, lastEvent(finished).reason], ["ok", "user"]);
});

test("Stop on a run that has ended does nothing", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  runToEnd(worker, a);
  const posted = worker.posted.length;
  kernel.stop(a);
  mock.timers.tick(5000);
  assert.equal(worker.posted.length, posted);
  assert.equal(worker.terminated, false);
  assert.equal(a.events.length, 3);
});

test("a run after the kernel failed starts a fresh worker", () => {
  const kernel = newKernel();
  kernel.start();
  FakeWorker.made[0].send({ type: MessageType.INIT_ERROR, message: "no WebAssembly" });
  assert.equal(kernel.state, "failed");
  kernel.run(job());
  assert.equal(FakeWorker.made.length, 2);
  assert.equal(kernel.state, "loading");
});

test("a ready kernel sends a run's packages with the run, not as a prefetch", () => {
  const [kernel, worker] = readyKernel();
  kernel.run({ ...job(), packages: ["numpy"] });
  assert.deepEqual(worker.posted.map((m) => m.type), [MessageType.RUN]);
});

test("messages and errors still on their way from a replaced worker are ignored", () => {
  const [kernel, worker] = readyKernel();
  const { onmessage, onerror } = worker;
  const a = kernel.run(job());
  worker.send({ type: MessageType.STARTED, id: a.id });
  kernel.stop(a); // ends that worker; a fresh one boots
  const fresh = FakeWorker.made.at(-1);
  const b = kernel.run(job());
  onmessage({ data: { type: MessageType.READY, version: "0.27.7" } });
  onerror({ message: "late", preventDefault() {} });
  assert.equal(kernel.state, "loading");
  assert.equal(fresh.terminated, false);
  assert.deepEqual(types(b), ["queued"]);
});

test("a worker error without preventDefault (a replayed event) is a crash all the same", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  worker.onerror({ message: "boom" });
  assert.equal(lastEvent(a).message, "boom");
  assert.equal(lastEvent(a).cause, "crash");
});

test("a ready worker that vanishes before any run is replaced without a word", () => {
  const [kernel, worker] = readyKernel();
  pass(LIVENESS.idleSilenceMs + LIVENESS.heartbeatMs);
  assert.equal(worker.terminated, true);
  assert.equal(kernel.state, "idle");
});

test("a check exactly 3 heartbeats after the last one is not late: the silence still counts", () => {
  const [kernel, worker] = readyKernel(); // the watchdog looks every heartbeatMs from now on
  const a = kernel.run(job());
  runToEnd(worker, a);
  pass(LIVENESS.heartbeatMs);
  asleep = 2 * LIVENESS.heartbeatMs; // the next look comes 3 heartbeats after this one
  pass(2 * LIVENESS.heartbeatMs);
  assert.equal(lastEvent(a).type, "lost");
});

/* ------------------------------------------------------------------ cross-origin isolated pages */

test("isolated, Stop raises KeyboardInterrupt through the shared buffer, and ends the worker only if the run goes on", () => {
  globalThis.crossOriginIsolated = true;
  try {
    const [kernel, worker] = readyKernel();
    const [buffer] = worker.posted.filter((m) => m.type === MessageType.INTERRUPT_BUFFER).map((m) => m.buffer);
    assert.ok(buffer instanceof SharedArrayBuffer);
    const flag = new Int32Array(buffer);
    const a = kernel.run(job("a"));
    worker.send({ type: MessageType.STARTED, id: a.id });
    kernel.stop(a);
    assert.equal(flag[0], 2, "SIGINT");
    assert.equal(worker.terminated, false);
    worker.send({ type: MessageType.DONE, id: a.id, ok: false, status: "error", ms: 1, totalMs: 1 });
    assert.deepEqual([lastEvent(a).status, lastEvent(a).reset], ["stopped", false]);
    mock.timers.tick(5000);
    assert.equal(worker.terminated, false, "the interrupt was enough");
    const b = kernel.run(job("b"));
    assert.equal(flag[0], 0, "cleared before the next run");
    worker.send({ type: MessageType.STARTED, id: b.id });
    kernel.stop(b);
    mock.timers.tick(1999);
    assert.equal(worker.terminated, false);
    mock.timers.tick(1);
    assert.equal(worker.terminated, true, "the run ignored KeyboardInterrupt");
    assert.deepEqual([lastEvent(b).status, lastEvent(b).reset], ["stopped", true]);
    // A fresh worker gets a buffer of its own.
    assert.equal(FakeWorker.made.at(-1).posted[0].type, MessageType.INTERRUPT_BUFFER);
  } finally {
    delete globalThis.crossOriginIsolated;
  }
});

test("isolated, a run whose Python took the interrupt gets up to 8 s to end (its end may wait behind its output)", () => {
  globalThis.crossOriginIsolated = true;
  try {
    const [kernel, worker] = readyKernel();
    const [buffer] = worker.posted.filter((m) => m.type === MessageType.INTERRUPT_BUFFER).map((m) => m.buffer);
    const flag = new Int32Array(buffer);
    const a = kernel.run(job("a"));
    worker.send({ type: MessageType.STARTED, id: a.id });
    kernel.stop(a);
    Atomics.store(flag, 0, 0); // Python raised KeyboardInterrupt
    mock.timers.tick(2000);
    mock.timers.tick(5999);
    assert.equal(worker.terminated, false, "Python took it: the page waits for the run's end");
    worker.send({ type: MessageType.DONE, id: a.id, ok: false, status: "error", ms: 1, totalMs: 1 });
    assert.deepEqual([lastEvent(a).status, lastEvent(a).reset], ["stopped", false]);
    mock.timers.tick(5000);
    assert.equal(worker.terminated, false);
    // A run that catches KeyboardInterrupt and goes on is ended 8 s after Stop all the same.
    const b = kernel.run(job("b"));
    worker.send({ type: MessageType.STARTED, id: b.id });
    kernel.stop(b);
    Atomics.store(flag, 0, 0);
    mock.timers.tick(2000); // the grace: Python took the interrupt
    mock.timers.tick(5999);
    assert.equal(worker.terminated, false);
    mock.timers.tick(1);
    assert.equal(worker.terminated, true, "the run went on after KeyboardInterrupt");
    assert.deepEqual([lastEvent(b).status, lastEvent(b).reset], ["stopped", true]);
  } finally {
    delete globalThis.crossOriginIsolated;
  }
});

test("a message from the worker that cannot be read ends the run as a crash", () => {
  const [kernel, worker] = readyKernel();
  const a = kernel.run(job());
  worker.onmessageerror();
  assert.deepEqual([lastEvent(a).cause, lastEvent(a).message], ["crash", "a message from the Python worker could not be read"]);
});
