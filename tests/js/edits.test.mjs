// A learner's edits (assets/js/edits.js) under Node: kept, offered back after a deploy changed the
// cell, shared by tabs, and never broken by storage; run by tests/unit/test_edits_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DENIED, MemoryStorage } from "./fake_storage.mjs";

const listeners = new Set();
globalThis.location = { pathname: "/lessons/a/" };
globalThis.localStorage = new MemoryStorage();
globalThis.addEventListener = (type, listener) => type === "storage" && listeners.add(listener);
globalThis.removeEventListener = (type, listener) => type === "storage" && listeners.delete(listener);
const { EditStore, codeHash, readEntry, writeEntry } = await import("../../src/course_site/course_site/assets/js/edits.js");

const KEY = "course-edit:/lessons/a/:2";

test("an edit is kept under the page and cell, and forgotten when the code is the lesson's again", () => {
  localStorage.items.clear();
  const store = new EditStore(2, "x = 1");
  assert.deepEqual(store.load(), { code: null, earlier: null });
  const before = Date.now();
  store.save("x = 2");
  const { savedAt, ...entry } = JSON.parse(localStorage.getItem(KEY));
  assert.deepEqual(entry, { codeHash: codeHash("x = 1"), code: "x = 2" });
  assert.ok(savedAt >= before && savedAt <= Date.now(), `savedAt ${savedAt}: when the edit was kept`);
  assert.deepEqual(new EditStore(2, "x = 1").load(), { code: "x = 2", earlier: null });
  store.forget();
  assert.equal(localStorage.getItem(KEY), null);
});

test("an edit of code that a deploy changed is kept as the earlier edit, not deleted", () => {
  localStorage.items.clear();
  new EditStore(2, "x = 1").save("x = 2  # mine");
  const after = new EditStore(2, "x = 10");
  assert.deepEqual(after.load(), { code: null, earlier: "x = 2  # mine" });
  after.save("x = 11"); // the learner edits the new code: the earlier edit stays
  assert.deepEqual(new EditStore(2, "x = 10").load(), { code: "x = 11", earlier: "x = 2  # mine" });
  after.forget(); // back to the lesson's code: still there
  assert.deepEqual(new EditStore(2, "x = 10").load(), { code: null, earlier: "x = 2  # mine" });
  after.forgetEarlier(); // Reset, or Restore my edit
  assert.equal(localStorage.getItem(KEY), null);
});

test("a second deploy keeps the newest edit as the earlier one", () => {
  assert.deepEqual(readEntry(writeEntry("aaaa", "mine", "older"), "bbbb"), { code: null, earlier: "mine" });
  assert.deepEqual(readEntry(writeEntry("aaaa", null, "older"), "bbbb"), { code: null, earlier: "older" });
});

test("entries written before earlier edits existed, and unreadable ones, read as expected", () => {
  const hash = codeHash("x = 1");
  assert.deepEqual(readEntry(JSON.stringify({ codeHash: hash, code: "x = 3" }), hash), { code: "x = 3", earlier: null });
  for (const raw of [null, "", "{", "null", "[]", '{"code": "x"}', JSON.stringify({ codeHash: 5, code: "x" })]) {
    assert.deepEqual(readEntry(raw, hash), { code: null, earlier: null }, raw);
  }
  assert.equal(writeEntry(hash, null, null), null);
});

test("another tab's save or reset of the cell reaches watch(), and nothing else does", () => {
  localStorage.items.clear();
  const store = new EditStore(2, "x = 1");
  const seen = [];
  const stop = store.watch((edit) => seen.push(edit));
  const send = (key, newValue) => listeners.forEach((listener) => listener({ key, newValue }));
  send(KEY, writeEntry(codeHash("x = 1"), "x = 5", null));
  send("course-edit:/lessons/a/:3", writeEntry(codeHash("x = 1"), "other cell", null));
  send(KEY, null); // reset in the other tab
  send(null, null); // the other tab cleared the storage
  assert.deepEqual(seen, [
    { code: "x = 5", earlier: null },
    { code: null, earlier: null },
    { code: null, earlier: null },
  ]);
  stop();
  send(KEY, writeEntry(codeHash("x = 1"), "x = 6", null));
  assert.equal(seen.length, 3);
});

test("storage that throws or is missing never breaks a cell", () => {
  for (const storage of [DENIED, undefined]) {
    globalThis.localStorage = storage;
    const store = new EditStore(1, "a");
    assert.deepEqual(store.load(), { code: null, earlier: null });
    store.save("b");
    store.forget();
    store.forgetEarlier();
  }
  globalThis.localStorage = new MemoryStorage();
});
