// A cell's status line (assets/js/cell_status.js): the texts of loading progress, durations and a
// dead Python, the data-state that follows the status, the progress bar, and progress text that
// changes at most every 250 ms; on a fake clock.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { FakeElement } from "./fake_dom.mjs";

const { CellStatus, crashText, formatDuration, loadingText, progressText } = await import(
  "../../src/course_site/course_site/assets/js/cell_status.js"
);

let now = 0;
Object.defineProperty(globalThis, "performance", { value: { now: () => now }, configurable: true });

function status() {
  const root = new FakeElement("div");
  const line = new CellStatus(root, new FakeElement("span"), new FakeElement("progress"), new FakeElement("span"));
  return [root, line];
}

test("the texts of progress, durations and a Python that died", () => {
  assert.equal(progressText("Loading numpy", 1_500_000, 3_000_000), "Loading numpy… 1.5 / 3.0 MB");
  assert.equal(progressText("Loading", 2_000_000, 0), "Loading… 2.0 MB");
  assert.equal(progressText("Loading", 0, 0), "Loading…");
  assert.equal(loadingText({ loaded: 5, total: 5 }, "Loading Python", "Starting Python…"), "Starting Python…");
  assert.equal(formatDuration(170.4), "170 ms");
  assert.equal(formatDuration(12_345), "12.3 s");
  assert.equal(crashText({ cause: "exit", exitStatus: 3 }), "Python exited with status 3.");
  assert.equal(crashText({ cause: "memory" }), "Python ran out of memory and stopped.");
  assert.match(crashText({ cause: "crash", message: "" }), /the worker crashed/);
});

test("the status sets the cell's data-state and the progress bar", () => {
  const [root, line] = status();
  line.set("Loading numpy…", "loading-packages", { progress: { loaded: 2, total: 4 } });
  assert.equal(line.node.textContent, "Loading numpy…");
  assert.equal(root.getAttribute("data-state"), "loading-packages");
  assert.equal(line.node.getAttribute("aria-busy"), "true");
  assert.deepEqual([line.progressBar.hidden, line.progressBar.max, line.progressBar.value], [false, 4, 2]);
  line.set("Done in 5 ms", "done");
  assert.equal(line.progressBar.hidden, true);
  assert.equal(line.node.getAttribute("aria-busy"), null);
  line.quiet = true; // a run for the inputs: the state follows, the text keeps still
  line.set("Running…", "running");
  assert.equal(line.node.textContent, "Done in 5 ms");
  assert.equal(root.getAttribute("data-state"), "running");
});

test("progress text changes at most every 250 ms, unless the state changes", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const [, line] = status();
    now = 1000;
    line.progress("Loading… 1 MB", "loading", { loaded: 1, total: 0 });
    now = 1100;
    line.progress("Loading… 2 MB", "loading", { loaded: 2, total: 0 });
    assert.equal(line.node.textContent, "Loading… 1 MB");
    now = 1250;
    line.progress("Loading… 3 MB", "loading", { loaded: 3, total: 0 });
    assert.equal(line.node.textContent, "Loading… 3 MB");
    now = 1260;
    line.progress("Waiting for Python…", "waiting", { loaded: 3, total: 0 });
    assert.equal(line.node.textContent, "Waiting for Python…");
  } finally {
    mock.timers.reset();
  }
});

test("a progress text held back shows once its 250 ms are over, unless a newer status came first", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const [root, line] = status();
    now = 1000;
    line.progress("Loading Python…", "loading", { loaded: 0, total: 0 });
    now = 1050;
    line.progress("Loading Python… 9.1 / 9.1 MB", "loading", { loaded: 9, total: 9 });
    assert.equal(line.node.textContent, "Loading Python…");
    mock.timers.tick(199);
    assert.equal(line.node.textContent, "Loading Python…");
    now = 1250;
    mock.timers.tick(1); // the last figure of the burst, at the end of its interval
    assert.equal(line.node.textContent, "Loading Python… 9.1 / 9.1 MB");
    now = 1300;
    line.progress("Starting Python…", "loading", { loaded: 9, total: 9 });
    line.set("Python is ready", "ready"); // newer than the held text, which is then not shown
    mock.timers.tick(250);
    assert.equal(line.node.textContent, "Python is ready");
    assert.equal(root.getAttribute("data-state"), "ready");
  } finally {
    mock.timers.reset();
  }
});

test("a flashed status shows for a while, then what was there, unless it changed meanwhile", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const [, line] = status();
    line.set("Python is ready", "ready");
    line.flash("Code copied");
    assert.equal(line.node.textContent, "Code copied");
    mock.timers.tick(2000);
    assert.equal(line.node.textContent, "Python is ready");
    line.flash("Code copied");
    line.set("Running…", "running");
    mock.timers.tick(2000);
    assert.equal(line.node.textContent, "Running…");
  } finally {
    mock.timers.reset();
  }
});
