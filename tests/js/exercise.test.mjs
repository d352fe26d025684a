// An exercise's verdict after each run, its solved state, hints and solution (assets/js/exercise.js),
// on a stand-in document; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { FakeElement, children, fakeDocument } from "./fake_dom.mjs";
import { DENIED, MemoryStorage } from "./fake_storage.mjs";

globalThis.document = fakeDocument;
const { countSolved, enhanceExercise, showProgress, solvedKey } = await import(
  "../../src/course_site/course_site/assets/js/exercise.js"
);

const STOPPED = "The run was stopped before the checks ran.";
const NOT_CHECKED = "Your code did not finish, so the checks did not run.";

/* An exercise's markup (exercises_html.py) with `hints` hints, and a cell that records what it was asked. */
function exercise(hints = 2) {
  const el = (name, props = {}) => Object.assign(new FakeElement(name), props);
  const parts = {
    check: el("p"),
    solved: el("span", { hidden: true }),
    actions: el("div", { hidden: true }),
    hints: Array.from({ length: hints }, () => el("details")),
    hint: el("button"),
    count: el("span"),
    solution: el("details"),
    show: el("button"),
    use: el("button", { hidden: true }),
    note: el("p"),
  };
  const root = new FakeElement("div", {
    ".course-exercise__check": parts.check,
    ".course-exercise__solved": parts.solved,
    ".course-exercise__actions": parts.actions,
    "details.course-exercise__hint": parts.hints,
    'button[data-action="hint"]': parts.hint,
    ".course-exercise__hint-count": parts.count,
    "details.course-exercise__solution": parts.solution,
    'button[data-action="solution"]': parts.show,
    'button[data-action="use-solution"]': parts.use,
    ".course-exercise__solution-note": parts.note,
  });
  Object.assign(root, { id: "ex-rope" });
  Object.assign(root.dataset, { exerciseId: "rope-1", solution: "def rope(x):\n    return x\n" });
  const cell = { listeners: [], code: [] };
  cell.onRunDone = (listener) => cell.listeners.push(listener);
  cell.setEditorCode = (code) => cell.code.push(code);
  cell.finish = (outcome) => cell.listeners.forEach((listener) => listener(outcome));
  return { root, cell, parts };
}

let store;
beforeEach(() => {
  store = new MemoryStorage();
});

const passed = { status: "ok", check: { passed: true, message: "All checks passed." } };

test("a run whose check passes says so and keeps the exercise solved", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  assert.equal(root.dataset.solved, undefined);
  cell.finish(passed);
  assert.equal(parts.check.dataset.check, "pass");
  assert.deepEqual(children(parts.check), [["#text", "All checks passed."]]);
  assert.equal(root.dataset.solved, "true");
  assert.equal(parts.solved.hidden, false);
  assert.equal(store.getItem(solvedKey("rope-1")), "true");
});

test("a failed check shows its message, with the backquoted names as code", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  cell.finish({ status: "ok", check: { passed: false, message: "`rope(x)` returned `None`, expected an array." } });
  assert.equal(parts.check.dataset.check, "fail");
  assert.deepEqual(children(parts.check), [
    ["#text", ""], ["CODE", "rope(x)"], ["#text", " returned "], ["CODE", "None"], ["#text", ", expected an array."],
  ]);
  assert.equal(root.dataset.solved, undefined);
  assert.equal(parts.solved.hidden, true);
  assert.equal(store.getItem(solvedKey("rope-1")), null);
});

test("a stopped run fails, even if a check had passed", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  cell.finish({ ...passed, status: "stopped" });
  assert.equal(parts.check.dataset.check, "fail");
  assert.equal(parts.check.textContent, STOPPED);
  assert.equal(store.getItem(solvedKey("rope-1")), null);
});

test("code that did not finish fails: the checks did not run", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  cell.finish({ status: "error" });
  assert.equal(parts.check.dataset.check, "fail");
  assert.equal(parts.check.textContent, NOT_CHECKED);
});

test("each run's verdict replaces the last; a solved exercise stays solved", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  cell.finish(passed);
  cell.finish({ status: "error" });
  assert.equal(parts.check.dataset.check, "fail");
  assert.equal(parts.check.textContent, NOT_CHECKED);
  assert.equal(root.dataset.solved, "true");
});

test("an exercise solved on an earlier visit shows as solved before any run", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, new MemoryStorage({ [solvedKey("rope-1")]: "true" }));
  assert.equal(root.dataset.solved, "true");
  assert.equal(parts.solved.hidden, false);
  assert.equal(parts.actions.hidden, false);
});

test("storage that throws only means the solved state is not kept", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, DENIED);
  cell.finish(passed);
  assert.equal(parts.check.dataset.check, "pass");
  assert.equal(root.dataset.solved, "true");
  assert.equal(countSolved(["rope-1"], DENIED), 0);
});

test("no storage at all (window.localStorage throws) is storage that keeps nothing", () => {
  globalThis.window = {
    get localStorage() {
      throw new DOMException("denied", "SecurityError");
    },
  };
  try {
    const { root, cell } = exercise();
    enhanceExercise(root, cell);
    cell.finish(passed);
    assert.equal(root.dataset.solved, "true");
    assert.equal(countSolved(["rope-1"]), 0);
  } finally {
    delete globalThis.window;
  }
});

test("the course's progress counts the solved exercises among its own", () => {
  const solved = new MemoryStorage({ [solvedKey("a")]: "true", [solvedKey("c")]: "true", [solvedKey("other")]: "true" });
  solved.setItem(solvedKey("b"), "false");
  assert.equal(countSolved(["a", "b", "c", "d"], solved), 2);
  const element = Object.assign(new FakeElement("p"), { hidden: true });
  element.dataset.exerciseIds = JSON.stringify(["a", "b", "c"]);
  showProgress(element, solved);
  assert.equal(element.textContent, "2 of 3 exercises solved");
  assert.equal(element.hidden, false);
  element.dataset.exerciseIds = JSON.stringify(["a"]);
  showProgress(element, solved);
  assert.equal(element.textContent, "1 of 1 exercise solved");
});

test("hints are shown one at a time; the count says which comes next", () => {
  const { root, cell, parts } = exercise(3);
  enhanceExercise(root, cell, store);
  assert.ok(parts.hints.every((hint) => hint.hidden));
  assert.equal(parts.count.id, "ex-rope-hint-count");
  assert.equal(parts.hint.getAttribute("aria-describedby"), "ex-rope-hint-count");
  assert.equal(parts.count.textContent, "1 of 3");
  parts.hint.click();
  assert.deepEqual(parts.hints.map((h) => [h.hidden, Boolean(h.open)]), [[false, true], [true, false], [true, false]]);
  assert.equal(parts.count.textContent, "2 of 3");
  parts.hint.click();
  assert.equal(parts.count.textContent, "3 of 3");
  assert.equal(parts.hint.getAttribute("aria-disabled"), null);
  parts.hint.click();
  assert.ok(parts.hints.every((hint) => !hint.hidden && hint.open));
  assert.equal(parts.count.textContent, "all 3 shown");
  assert.equal(parts.hint.getAttribute("aria-disabled"), "true");
  parts.hint.click(); // nothing more to show
  assert.equal(parts.count.textContent, "all 3 shown");
});

test("a count element with its own id keeps it", () => {
  const { root, cell, parts } = exercise(1);
  parts.count.id = "given";
  enhanceExercise(root, cell, store);
  assert.equal(parts.hint.getAttribute("aria-describedby"), "given");
});

test("an exercise without hints has no hint button to enhance", () => {
  const { root, cell, parts } = exercise(0);
  delete root.found['button[data-action="hint"]'];
  enhanceExercise(root, cell, store);
  assert.equal(parts.count.textContent, "");
  assert.equal(parts.actions.hidden, false);
});

test("the solution is shown on request, then can replace the learner's code", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  assert.equal(parts.solution.hidden, true);
  parts.show.click();
  assert.equal(parts.solution.hidden, false);
  assert.equal(parts.solution.open, true);
  assert.equal(parts.use.hidden, false);
  assert.equal(parts.use.focused, true);
  assert.equal(parts.show.hidden, true);
  assert.deepEqual(cell.code, []);
  parts.use.click();
  assert.deepEqual(cell.code, ["def rope(x):\n    return x\n"]);
});

test("solved state is kept under course-exercise-solved:<id>, in the page's localStorage by default", () => {
  assert.equal(solvedKey("rope-1"), "course-exercise-solved:rope-1");
  const local = new MemoryStorage();
  globalThis.localStorage = local;
  try {
    const { root, cell } = exercise();
    enhanceExercise(root, cell);
    cell.finish(passed);
    assert.deepEqual([...local.items], [["course-exercise-tried:rope-1", "true"], ["course-exercise-solved:rope-1", "true"]]);
    assert.equal(countSolved(["rope-1", "rope-2"]), 1);
  } finally {
    delete globalThis.localStorage;
  }
});

test("an exercise without a solved badge is marked solved all the same", () => {
  const { root, cell } = exercise();
  delete root.found[".course-exercise__solved"];
  enhanceExercise(root, cell, new MemoryStorage({ [solvedKey("rope-1")]: "true" }));
  cell.finish(passed);
  assert.equal(root.dataset.solved, "true");
});

const failed = { status: "ok", check: { passed: false, message: "`pe` has shape (4,), expected shape (4, 8)" } };
const AFTER_CHECK = "The solution opens after your first check.";
const AFTER_PASS = "The solution opens once your code passes the check.";
const READY = "The solution is available now: Show solution.";

test("by default Show solution appears after the first check, the note saying when before and announcing it then", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, store);
  assert.equal(parts.show.hidden, true);
  assert.deepEqual(children(parts.note), [["#text", AFTER_CHECK]]);
  cell.finish(failed);
  assert.equal(parts.show.hidden, false);
  assert.deepEqual(children(parts.note), [["#text", READY]]);
  assert.equal(store.getItem("course-exercise-tried:rope-1"), "true");
  parts.show.click();
  assert.equal(parts.solution.hidden, false);
  assert.equal(parts.note.textContent, "");
});

test("a run stopped or raising counts as the first check too (its check could not run, the learner tried)", () => {
  for (const outcome of [{ status: "stopped" }, { status: "error" }]) {
    const { root, cell, parts } = exercise();
    enhanceExercise(root, cell, new MemoryStorage());
    cell.finish(outcome);
    assert.equal(parts.show.hidden, false, outcome.status);
  }
});

test("after-pass keeps the solution closed through failed checks, and opens it once the check passes", () => {
  const { root, cell, parts } = exercise();
  root.dataset.solutions = "after-pass";
  enhanceExercise(root, cell, store);
  assert.deepEqual(children(parts.note), [["#text", AFTER_PASS]]);
  cell.finish(failed);
  assert.equal(parts.show.hidden, true);
  assert.deepEqual(children(parts.note), [["#text", AFTER_PASS]]);
  cell.finish(passed);
  assert.equal(parts.show.hidden, false);
  assert.deepEqual(children(parts.note), [["#text", READY]]);
});

test("always shows the solution's button from the start, with no note", () => {
  const { root, cell, parts } = exercise();
  root.dataset.solutions = "always";
  enhanceExercise(root, cell, store);
  assert.equal(parts.show.hidden, false);
  assert.equal(parts.note.textContent, "");
});

test("a later visit: an exercise solved, or tried under after-check, has its solution at hand from the start", () => {
  for (const [rule, key] of [["after-pass", "solved"], ["after-check", "tried"], ["after-check", "solved"]]) {
    const { root, cell, parts } = exercise();
    root.dataset.solutions = rule;
    enhanceExercise(root, cell, new MemoryStorage({ [`course-exercise-${key}:rope-1`]: "true" }));
    assert.equal(parts.show.hidden, false, `${rule} ${key}`);
  }
  const { root, cell, parts } = exercise();
  root.dataset.solutions = "after-pass";
  enhanceExercise(root, cell, new MemoryStorage({ "course-exercise-tried:rope-1": "true" }));
  assert.equal(parts.show.hidden, true, "after-pass: tried is not enough");
});

test("storage that throws: the solution opens after the check all the same, for as long as the page is open", () => {
  const { root, cell, parts } = exercise();
  enhanceExercise(root, cell, DENIED);
  cell.finish(failed);
  assert.equal(parts.show.hidden, false);
});
