/* The Python console's logic under Node: its history (console_history.js: ↑/↓, the draft, kept across
 * reloads, never broken by storage), its statements as runs of the page's kernel (console_session.js:
 * the same queue as the cells, "..." for an unfinished statement, Stop's rules), and the echo and key
 * helpers of console.js.  The browser tests (test_console.py, test_engines.py) drive the panel itself. */
import assert from "node:assert/strict";
import { test } from "node:test";

import "./fake_dom.mjs"; // fetch of contract.json beside the modules (dom_names.js)
import { DENIED, MemoryStorage } from "./fake_storage.mjs";

globalThis.localStorage = new MemoryStorage();
const JS = "../../src/course_site/course_site/assets/js";
const { ConsoleHistory, LIMIT, MAX_CHARS, readHistory } = await import(`${JS}/console_history.js`);
const { ConsoleSession, resetNotice, statementCode } = await import(`${JS}/console_session.js`);
const { echoText, isToggleKey } = await import(`${JS}/console.js`);
const { MessageType } = await import(`${JS}/protocol.js`);

const KEY = "course-console:/course/";

/* ------------------------------------------------------------------ history */

test("statements are kept, newest last, and browsed with ↑ then ↓ back to the draft", () => {
  localStorage.items.clear();
  const history = new ConsoleHistory("/course/");
  history.push("x = 41");
  history.push("x + 1\n"); // kept without its trailing blank
  history.edit("pri"); // being written
  assert.equal(history.previous("pri"), "x + 1");
  assert.equal(history.previous("x + 1"), "x = 41");
  assert.equal(history.previous("x = 41"), null, "the oldest: ↑ moves the caret instead");
  assert.equal(history.next(), "x + 1");
  assert.equal(history.next(), "pri", "past the newest: the draft as it was left");
  assert.equal(history.next(), null);
  assert.deepEqual(JSON.parse(localStorage.getItem(KEY)), { entries: ["x = 41", "x + 1"], draft: "pri" });
});

test("a reload finds the entries and the draft; browsing does not overwrite the draft", () => {
  localStorage.items.clear();
  const before = new ConsoleHistory("/course/");
  before.push("import numpy as np");
  before.edit("np.ar");
  const after = new ConsoleHistory("/course/");
  assert.equal(after.draft, "np.ar");
  assert.equal(after.previous("np.ar"), "import numpy as np");
  after.edit("import numpy as np  # changed while browsing");
  assert.equal(readHistory(localStorage.getItem(KEY)).draft, "np.ar");
});

test("the same statement twice in a row is one entry; a blank one or a huge one none", () => {
  localStorage.items.clear();
  const history = new ConsoleHistory("/course/");
  history.push("x");
  history.push("x");
  history.push("   \n");
  history.push("y".repeat(MAX_CHARS + 1));
  assert.deepEqual(history.entries, ["x"]);
});

test("at most LIMIT entries, the oldest go first; another tab's statements are kept", () => {
  localStorage.items.clear();
  const mine = new ConsoleHistory("/course/");
  const other = new ConsoleHistory("/course/");
  other.push("from the other tab");
  mine.push("mine");
  assert.deepEqual(mine.entries, ["from the other tab", "mine"]);
  for (let i = 0; i < LIMIT + 5; i += 1) mine.push(`s${i}`);
  assert.equal(mine.entries.length, LIMIT);
  assert.equal(mine.entries[0], "s5");
});

test("each site has its own history", () => {
  localStorage.items.clear();
  new ConsoleHistory("/course/").push("here");
  assert.deepEqual(new ConsoleHistory("/other/").entries, []);
});

test("unreadable or foreign entries read as an empty history", () => {
  assert.deepEqual(readHistory("{not json"), { entries: [], draft: "" });
  assert.deepEqual(readHistory(null), { entries: [], draft: "" });
  assert.deepEqual(readHistory('{"entries": [1, "", "ok", null], "draft": 3}'), { entries: ["ok"], draft: "" });
});

test("storage that throws or is gone never breaks the console: the history lives in the page", () => {
  const kept = globalThis.localStorage;
  try {
    globalThis.localStorage = DENIED;
    const history = new ConsoleHistory("/course/");
    history.push("x = 1");
    history.push("x + 1");
    assert.equal(history.previous(""), "x + 1");
    assert.equal(history.previous("x + 1"), "x = 1", "each statement stays, though none could be stored");
    Object.defineProperty(globalThis, "localStorage", { get() { throw new Error("disabled"); }, configurable: true });
    const none = new ConsoleHistory("/course/");
    none.push("y = 2");
    none.edit("y");
    assert.equal(none.previous("y"), "y = 2");
    assert.equal(none.next(), "y");
  } finally {
    Object.defineProperty(globalThis, "localStorage", { value: kept, writable: true, configurable: true });
  }
});

/* ------------------------------------------------------------------ session */

/* The kernel as the session sees it: run() takes a job and returns it; stop() records. */
class FakeKernel {
  constructor() {
    Object.assign(this, { jobs: [], stopped: [], state: "ready", progress: { phase: "core", loaded: 0, total: 0 }, timeLimitS: 30 });
  }
  run(job) {
    this.jobs.push(job);
    return job;
  }
  stop(job, reason) {
    this.stopped.push([job, reason]);
  }
}

/* The view: what the session asked it to show. */
class FakeView {
  constructor() {
    Object.assign(this, { echoed: [], outputs: [], more: 0, settledAs: [], statuses: [] });
  }
  echo(source) {
    this.echoed.push(source);
    const out = { shown: [], notices: [], show: (msg) => out.shown.push(msg), notice: (text, kind) => out.notices.push([kind, text]), flush() {} };
    this.outputs.push(out);
    return out;
  }
  needMore() {
    this.more += 1;
  }
  settled(state) {
    this.settledAs.push(state);
  }
  status(text, state) {
    this.statuses.push([state, text]);
  }
}

function session() {
  const kernel = new FakeKernel();
  const view = new FakeView();
  return { kernel, view, session: new ConsoleSession(kernel, view) };
}

test("a statement is a console run of the page's kernel, with a filename of its own", () => {
  const { kernel, session: s } = session();
  assert.equal(s.submit("x = 41"), true);
  assert.equal(s.busy, true);
  assert.equal(s.submit("x + 1"), false, "one statement at a time: the next waits in the input");
  const [job] = kernel.jobs;
  assert.equal(job.code, "x = 41");
  assert.equal(job.console, true);
  assert.equal(job.check, null);
  assert.equal(job.filename, "<console 1>");
  job.onEvent({ type: MessageType.DONE, id: 1, ok: true, status: "ok", ms: 3, totalMs: 3 });
  assert.equal(s.busy, false);
  s.submit("x + 1");
  assert.equal(kernel.jobs[1].filename, "<console 2>");
});

test("'name?' asks for help(name), as in IPython; a '?' elsewhere is Python's to judge", () => {
  assert.equal(statementCode("posenc.sinusoidal?"), "help(posenc.sinusoidal)");
  assert.equal(statementCode("  np ? "), "help(np)");
  assert.equal(statementCode("x = 1?"), "x = 1?");
  assert.equal(statementCode("'?'"), "'?'");
  const { kernel, session: s } = session();
  s.submit("posenc?");
  assert.equal(kernel.jobs[0].code, "help(posenc)");
});

test("a blank input sends nothing", () => {
  const { kernel, session: s } = session();
  assert.equal(s.submit("  \n "), false);
  assert.deepEqual(kernel.jobs, []);
});

test("queued behind a cell, it says so; echoed when it starts; its output and value reach its entry", () => {
  const { kernel, view, session: s } = session();
  s.submit("x + 1");
  const [job] = kernel.jobs;
  job.onEvent({ type: "queued", position: 1 });
  assert.deepEqual(view.statuses.at(-1), ["queued", "Queued…"]);
  job.onEvent({ type: "queued", position: 2 });
  assert.deepEqual(view.statuses.at(-1), ["queued", "Queued (2 ahead)"]);
  assert.deepEqual(view.echoed, [], "not echoed while it waits");
  job.onEvent({ type: MessageType.STARTED, id: 1 });
  assert.deepEqual(view.echoed, ["x + 1"]);
  job.onEvent({ type: MessageType.RESULT, id: 1, text: "42" });
  job.onEvent({ type: MessageType.DONE, id: 1, ok: true, status: "ok", ms: 12, totalMs: 12 });
  assert.deepEqual(view.outputs[0].shown.map((m) => m.text), ["42"]);
  assert.deepEqual(view.settledAs, ["ok"]);
  assert.equal(view.statuses.at(-1)[0], "done");
});

test("queued while Python loads, it waits for Python", () => {
  const { kernel, view, session: s } = session();
  kernel.state = "loading";
  s.submit("1");
  kernel.jobs[0].onEvent({ type: "queued", position: 1, waitingForPython: true });
  assert.equal(view.statuses.at(-1)[0], "waiting");
});

test("an unfinished statement is not echoed: the input goes on with a '...' line", () => {
  const { kernel, view, session: s } = session();
  s.submit("def f(a):");
  kernel.jobs[0].onEvent({ type: MessageType.DONE, id: 1, ok: false, status: "incomplete", ms: 0, totalMs: 0 });
  assert.equal(view.more, 1);
  assert.deepEqual(view.echoed, []);
  assert.equal(s.busy, false, "the next Enter sends the longer statement");
  assert.equal(s.submit("def f(a):\n    return a * 2\n"), true);
});

test("stopped while queued, it was not run: it stays in the input", () => {
  const { kernel, view, session: s } = session();
  s.submit("x");
  s.stop();
  assert.deepEqual(kernel.stopped, [[kernel.jobs[0], "user"]]);
  kernel.jobs[0].onEvent({ type: MessageType.DONE, id: 1, ok: false, status: "cancelled", ms: 0, totalMs: 0 });
  assert.deepEqual(view.echoed, []);
  assert.deepEqual(view.settledAs, ["stopped"]);
  assert.equal(s.busy, false);
});

test("Stop with a cell's rules: a restart says the namespace was reset, the time limit says so", () => {
  const { kernel, view, session: s } = session();
  s.submit("while True: pass");
  const [job] = kernel.jobs;
  job.onEvent({ type: MessageType.STARTED, id: 1 });
  job.onEvent({ type: MessageType.DONE, id: 1, ok: false, status: "stopped", reset: true, reason: "timeout", ms: 1, totalMs: 1 });
  assert.deepEqual(view.outputs[0].notices.map(([kind]) => kind), ["stopped", "stopped"]);
  assert.match(view.outputs[0].notices[0][1], /time limit of 30 s/);
  assert.equal(view.outputs[0].notices[1][1], resetNotice());
  assert.deepEqual(view.settledAs, ["stopped"]);
  s.stop(); // nothing under way: nothing to stop
  assert.equal(kernel.stopped.length, 0);
});

test("an error, a crash and Python that could not load each end as an error", () => {
  for (const [status, notice] of [["error", null], ["crashed", /Python stopped/i], ["failed", /could not be loaded: offline/]]) {
    const { kernel, view, session: s } = session();
    s.submit("1/0");
    const [job] = kernel.jobs;
    job.onEvent({ type: MessageType.STARTED, id: 1 });
    job.onEvent({ type: MessageType.DONE, id: 1, ok: false, status, message: "offline", ms: 1, totalMs: 1 });
    assert.deepEqual(view.settledAs, ["error"], status);
    if (notice) assert.match(view.outputs[0].notices[0][1], notice, status);
  }
});

/* ------------------------------------------------------------------ echo and keys */

test("the log echoes a statement with '>>>' then '...', as Python's prompt showed it", () => {
  assert.equal(echoText("x + 1"), ">>> x + 1");
  assert.equal(echoText("def f(a):\n    return a\n    "), ">>> def f(a):\n...     return a");
});

test("Ctrl+` opens and closes the console, by the key's place on any layout", () => {
  assert.equal(isToggleKey({ ctrlKey: true, code: "Backquote", key: "ö" }), true);
  assert.equal(isToggleKey({ ctrlKey: true, code: "IntlBackslash", key: "`" }), true);
  assert.equal(isToggleKey({ ctrlKey: false, code: "Backquote", key: "`" }), false);
  assert.equal(isToggleKey({ ctrlKey: true, altKey: true, code: "Backquote", key: "`" }), false);
  assert.equal(isToggleKey({ ctrlKey: true, metaKey: true, code: "Backquote", key: "`" }), false);
});
