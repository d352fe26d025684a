// The learner's work in this browser (assets/js/storage.js: its keys, the guarded access) and the work
// file that takes it along (work_file.js): export, import with its merge rules and refusals, start over, and
// storage that throws or fills up part way; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import "./english.mjs";
import { DENIED, MemoryStorage } from "./fake_storage.mjs";

const storage = await import("../../src/course_site/course_site/assets/js/storage.js");
const { readItem, writeItem } = storage;
const {
  applyWork, clearWork, collectWork, countWork, planImport, readWorkFile, WorkFileError, workFile, workFileName, WORK_VERSION,
} = await import("../../src/course_site/course_site/assets/js/work_file.js");
const { summary, refusal } = await import("../../src/course_site/course_site/assets/js/work.js");

const ROOT = "/course/";
const SITE = "How transformers work";
const edit = (code, savedAt, codeHash = "aaaa0000") => JSON.stringify({ codeHash, code, savedAt });

function learnerStore() {
  return new MemoryStorage({
    "course-edit:/course/lessons/32/:3": edit("x = 2", 1000),
    "course-edit:/other-site/lessons/32/:3": edit("not this site's", 1000),
    "course-inputs:/course/lessons/32/:4": JSON.stringify({ d_model: 2 }),
    "course-quiz:/course/lessons/32/:quiz-1": JSON.stringify({ questionHash: "q", value: "1", savedAt: 5 }),
    "course-exercise-solved:lessons/32/#pairs": "true",
    "course-exercise-solved:lessons/33/#rope": "false",
    "course-exercise-tried:lessons/33/#rope": "true",
    "course-console:/course/": JSON.stringify({ entries: ["1 + 1", "import posenc"], draft: "pe" }),
    "unrelated": "kept",
  });
}

test("the work of this site is collected with paths from the site's root, and counted", () => {
  const work = collectWork(ROOT, learnerStore());
  assert.deepEqual(Object.keys(work.edits), ["lessons/32/:3"]);
  assert.deepEqual(work.inputs, { "lessons/32/:4": { d_model: 2 } });
  assert.deepEqual(Object.keys(work.quizzes), ["lessons/32/:quiz-1"]);
  assert.deepEqual(work.solved, ["lessons/32/#pairs"]);
  assert.deepEqual(work.tried, ["lessons/33/#rope"]);
  assert.deepEqual(work.console, { entries: ["1 + 1", "import posenc"], draft: "pe" });
  assert.deepEqual(countWork(work), { edits: 1, solved: 1, quizzes: 1, statements: 2 });
  assert.equal(summary(countWork(work)), "1 edited cell, 1 solved exercise, 1 quiz answer, 2 console statements");
  assert.equal(summary({ edits: 0, solved: 0, quizzes: 0, statements: 0 }), "no work yet");
});

test("the file names the site and the day, and reads back as the work it holds", () => {
  const day = new Date(2026, 11, 7, 23, 30); // the learner's local date
  assert.equal(workFileName(SITE, day), "How transformers work-work-2026-12-07.json");
  assert.equal(workFileName('a/b:c*"d"', day), "a-b-c-d--work-2026-12-07.json");
  const work = collectWork(ROOT, learnerStore());
  const text = workFile(SITE, work, day);
  const file = JSON.parse(text);
  assert.deepEqual([file.format, file.version, file.site, file.saved], ["course-work", WORK_VERSION, SITE, day.toISOString()]);
  assert.deepEqual(readWorkFile(text, SITE), work);
});

test("a file that is not JSON, not a work file, of another version or site, or damaged is refused, saying why", () => {
  const good = JSON.parse(workFile(SITE, collectWork(ROOT, learnerStore())));
  const cases = [
    ["{ not json", "work.not_json", /^it is not a work file \(it is damaged, or not JSON: /],
    [JSON.stringify({ cells: [] }), "work.not_work", /^it is not a work file saved by this course\.$/],
    [JSON.stringify({ ...good, version: 2 }), "work.version", /saved in version 2 of the work file's format, and this course reads version 1/],
    [JSON.stringify({ ...good, site: "Another course" }), "work.other_site", /another site, “Another course”/],
    [JSON.stringify({ ...good, work: { ...good.work, solved: "all" } }), "work.damaged", /its part “solved”/],
    [JSON.stringify({ ...good, work: { ...good.work, console: { entries: [1] } } }), "work.damaged", /“console”/],
    [JSON.stringify({ ...good, work: { ...good.work, edits: { "lessons/32/:3": { code: 5 } } } }), "work.damaged", /“edits: lessons\/32\/:3”/],
  ];
  for (const [text, key, words] of cases) {
    assert.throws(() => readWorkFile(text, SITE), (err) => err instanceof WorkFileError && err.key === key, key);
    try {
      readWorkFile(text, SITE);
    } catch (err) {
      assert.match(refusal(err), words);
    }
  }
});

test("loading into an empty browser writes everything, under this copy's root", () => {
  const work = collectWork(ROOT, learnerStore());
  const here = new MemoryStorage();
  const plan = planImport(work, "/preview/", here);
  assert.deepEqual(plan.conflicts, []);
  assert.ok(applyWork(plan, {}, here) > 0);
  assert.deepEqual(collectWork("/preview/", here), work);
});

test("the merge: a newer different edit asks, an older one leaves mine, solved is kept from either, the console merges", () => {
  const here = new MemoryStorage({
    "course-edit:/course/lessons/32/:3": edit("x = 3  # mine", 500), // older than the file's
    "course-edit:/course/lessons/32/:5": edit("y = 1  # mine, newer", 9000),
    "course-quiz:/course/lessons/32/:quiz-1": JSON.stringify({ questionHash: "q", value: "0", savedAt: 1 }),
    "course-exercise-solved:lessons/34/#bucket": "true",
    "course-console:/course/": JSON.stringify({ entries: ["import posenc", "mine"], draft: "" }),
  });
  const work = collectWork(ROOT, learnerStore());
  work.edits["lessons/32/:5"] = JSON.parse(edit("y = 0  # the file's, older", 100));
  work.edits["lessons/32/:6"] = JSON.parse(edit("z = 1", 100));
  const plan = planImport(work, ROOT, here);
  assert.deepEqual(plan.conflicts.map(({ page, cell }) => [page, cell]), [["lessons/32/", 3]]); // cell 3 (#cell-3)
  applyWork(plan, {}, here); // "Keep mine"
  assert.equal(JSON.parse(readItem("course-edit:/course/lessons/32/:3", here)).code, "x = 3  # mine");
  assert.equal(JSON.parse(readItem("course-edit:/course/lessons/32/:5", here)).code, "y = 1  # mine, newer");
  assert.equal(JSON.parse(readItem("course-edit:/course/lessons/32/:6", here)).code, "z = 1"); // only in the file
  assert.equal(JSON.parse(readItem("course-quiz:/course/lessons/32/:quiz-1", here)).value, "0"); // mine stays
  assert.deepEqual(collectWork(ROOT, here).solved.sort(), ["lessons/32/#pairs", "lessons/34/#bucket"]);
  assert.deepEqual(collectWork(ROOT, here).console, { entries: ["1 + 1", "import posenc", "mine"], draft: "pe" });
  applyWork(planImport(work, ROOT, here), { replace: true }, here); // "Use the file's edits"
  assert.equal(JSON.parse(readItem("course-edit:/course/lessons/32/:3", here)).code, "x = 2");
  assert.deepEqual(planImport(work, ROOT, here).writes.size, 0); // loaded twice: nothing new
});

test("storage that fills up part way through a load puts back what it wrote: nothing is lost or half-loaded", () => {
  const here = new MemoryStorage({ "course-edit:/course/lessons/32/:3": edit("x = 3  # mine", 500) });
  const before = new Map(here.items);
  const work = collectWork(ROOT, learnerStore());
  const plan = planImport(work, ROOT, here);
  let writes = 0;
  here.full = () => ++writes > 3;
  assert.throws(() => applyWork(plan, { replace: true }, here), (err) => err.key === "work.storage");
  assert.deepEqual(here.items, before);
});

test("storage that throws: nothing to collect, reads answer null, writes false, a load is refused", () => {
  assert.deepEqual(countWork(collectWork(ROOT, DENIED)), { edits: 0, solved: 0, quizzes: 0, statements: 0 });
  assert.equal(readItem("course-edit:/course/x/:1", DENIED), null);
  assert.equal(readItem("course-edit:/course/x/:1", DENIED, storage.UNREADABLE), storage.UNREADABLE);
  assert.equal(writeItem("course-edit:/course/x/:1", "{}", DENIED), false);
  assert.equal(readItem("k", null), null);
  const plan = planImport(collectWork(ROOT, learnerStore()), ROOT, DENIED);
  assert.throws(() => applyWork(plan, {}, DENIED), (err) => err.key === "work.storage");
  assert.equal(clearWork(ROOT, DENIED), 0);
});

test("start over clears this site's work and nothing else", () => {
  const here = learnerStore();
  const cleared = clearWork(ROOT, here);
  assert.equal(cleared, 7);
  assert.deepEqual([...here.items.keys()].sort(), ["course-edit:/other-site/lessons/32/:3", "unrelated"]);
});
