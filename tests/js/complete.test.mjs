// The page's completion requests (assets/js/complete.js: Completer): asked only while Python is idle,
// answered once, dropped when the worker drops them or is replaced, and never shown when a run was sent
// after the request (the worker answers it once the run is over: its names are stale by then).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { checkMessage } from "./contract.mjs";
import { FakeWorker } from "./fake_worker.mjs";

const { Completer } = await import("../../src/course_site/course_site/assets/js/complete.js");

/* A kernel as the Completer sees it: idle or not, its worker and what was posted to it, runs sent, its events. */
class FakeKernel extends EventTarget {
  idle = true;
  runsSent = 0;
  worker = new FakeWorker();

  get posted() {
    return this.worker.posted;
  }

  answer(data) {
    this.dispatchEvent(Object.assign(new Event("completions"), { data: checkMessage("toPage", data) }));
  }
}

const REQUEST = { code: "posenc.si", setup: "", line: 1, column: 9 };
const ANSWER = { type: MessageType.COMPLETIONS, from: 7, options: [{ label: "sinusoidal" }], dropped: false };

test("a request while Python is idle is sent, and its answer comes back", async () => {
  const kernel = new FakeKernel();
  const answer = new Completer(kernel).ask(REQUEST);
  const [sent] = kernel.posted;
  assert.deepEqual(sent, { type: MessageType.COMPLETE, id: sent.id, ...REQUEST });
  kernel.answer({ ...ANSWER, id: sent.id });
  assert.equal((await answer).options[0].label, "sinusoidal");
});

test("a request while Python is busy is not sent: no completions, at once", async () => {
  const kernel = new FakeKernel();
  kernel.idle = false;
  assert.equal(await new Completer(kernel).ask(REQUEST), null);
  assert.deepEqual(kernel.posted, []);
});

test("an answer that comes after a run was sent is not shown", async () => {
  const kernel = new FakeKernel();
  const answer = new Completer(kernel).ask(REQUEST);
  kernel.runsSent += 1; // the learner pressed Run before the worker answered
  kernel.answer({ ...ANSWER, id: kernel.posted[0].id });
  assert.equal(await answer, null);
});

test("a dropped request, or a worker replaced, gives no completions", async () => {
  const kernel = new FakeKernel();
  const completer = new Completer(kernel);
  const dropped = completer.ask(REQUEST);
  kernel.answer({ type: MessageType.COMPLETIONS, id: kernel.posted[0].id, from: 0, options: [], dropped: true });
  assert.equal(await dropped, null);
  const lost = completer.ask(REQUEST);
  kernel.dispatchEvent(new Event("state"));
  assert.equal(await lost, null);
});
