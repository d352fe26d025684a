// What a slow boot says (assets/js/worker/boot_watch.js): its step and the downloads that have not
// ended, with their stage and age, every SLOW_MS on a fake clock, until the watch ends.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

let clock = 0; // ms, performance.now() as boot_watch.js sees it
Object.defineProperty(globalThis, "performance", { value: { now: () => clock }, configurable: true });
const { SLOW_MS, bootStep, downloadStarted, slowLine, watchFor } = await import(
  "../../src/course_site/course_site/assets/js/worker/boot_watch.js"
);

const WASM = "http://127.0.0.1:8000/pyodide/v0.27.7/pyodide.asm.wasm";
const ZIP = "http://127.0.0.1:8000/pyodide/v0.27.7/python_stdlib.zip";

test("the line names the step and each download not ended, its stage and how long it has taken", () => {
  bootStep("restoring Python from the snapshot");
  const wasm = downloadStarted(WASM);
  clock += 2000;
  const zip = downloadStarted(ZIP);
  zip.body();
  clock += 3000;
  assert.equal(
    slowLine("Python's boot", 60_000),
    "course: Python's boot has taken 60 s; now: restoring Python from the snapshot; not ended: "
      + "/pyodide/v0.27.7/pyodide.asm.wasm (request, 5 s), /pyodide/v0.27.7/python_stdlib.zip (body, 3 s)",
  );
  wasm.end();
  zip.end();
  assert.match(slowLine("Python's boot", 61_000), /; not ended: none$/);
});

test("a download of the same URL started again is not ended by the first one's end", () => {
  const first = downloadStarted(ZIP);
  const second = downloadStarted(ZIP);
  first.end();
  assert.match(slowLine("Python's boot", 0), /python_stdlib\.zip \(request/);
  second.end();
  assert.match(slowLine("Python's boot", 0), /not ended: none$/);
});

test("the watch says the line every SLOW_MS until it is ended, then nothing", () => {
  mock.timers.enable({ apis: ["setInterval"] });
  const said = [];
  const warn = mock.method(console, "warn", (line) => said.push(line));
  try {
    bootStep("installing numpy, posenc");
    const end = watchFor("the snapshot maker");
    mock.timers.tick(SLOW_MS - 1);
    assert.deepEqual(said, []);
    clock += SLOW_MS;
    mock.timers.tick(1);
    assert.deepEqual(said, ["course: the snapshot maker has taken 60 s; now: installing numpy, posenc; not ended: none"]);
    clock += SLOW_MS;
    mock.timers.tick(SLOW_MS);
    assert.equal(said.length, 2);
    assert.match(said[1], /has taken 120 s/);
    end();
    mock.timers.tick(5 * SLOW_MS);
    assert.equal(said.length, 2);
  } finally {
    warn.mock.restore();
    mock.timers.reset();
  }
});
