// A run's output on its way to the page (assets/js/worker/output.js): the caps on lines and
// characters, exact at the limit for single- and many-line writes, and the totals of what was
// dropped; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { WorkerSelf } from "./fake_worker.mjs";
import "./english.mjs"; // the cut result's notice in the page's words

let clock = 0; // ms, performance.now() as output.js sees it
const worker = new WorkerSelf();
const { posted } = worker;
globalThis.self = worker;
Object.defineProperty(globalThis, "performance", { value: { now: () => clock }, configurable: true });
const { abandonRun, closeRun, host, isOpen, openRun, openRunId, writeStream } = await import(
  "../../src/course_site/course_site/assets/js/worker/output.js"
);

const RUN = 7;
const encoder = new TextEncoder();

/* Python's writes, each of `text` to `stream`; each returns the bytes consumed (all of them). */
function write(...texts) {
  for (const text of texts) {
    const bytes = encoder.encode(text);
    assert.equal(writeStream("stdout", bytes), bytes.length);
  }
}

/* Run `writes` in a run capped at `maxLines` and `maxChars`; what the page was sent. */
function runWith(maxLines, maxChars, writes) {
  openRun(RUN, maxLines, maxChars);
  writes();
  closeRun();
  const of = (type) => posted.filter((m) => m.type === type);
  assert.ok(posted.every((m) => m.id === RUN));
  return {
    text: of(MessageType.STREAM).map((m) => m.text).join(""),
    capped: of(MessageType.CAPPED),
    dropped: of(MessageType.DROPPED).map(({ lines, chars }) => ({ lines, chars })),
    order: posted.map((m) => m.type),
  };
}

const lines = (count, from = 1) => Array.from({ length: count }, (_, i) => `line ${from + i}\n`).join("");

beforeEach(() => {
  worker.clear();
  clock += 10_000; // each test starts long after the last one's writes
});

test("output within the caps is sent whole, with no notice", () => {
  const out = runWith(3, 1000, () => write("one\ntwo\n", "three\n"));
  assert.equal(out.text, "one\ntwo\nthree\n");
  assert.deepEqual(out.capped, []);
  assert.deepEqual(out.dropped, []);
});

test("one write of exactly maxLines lines is kept whole", () => {
  const out = runWith(5, 1000, () => write(lines(5)));
  assert.equal(out.text, lines(5));
  assert.deepEqual(out.capped, []);
  assert.deepEqual(out.dropped, []);
});

test("one write of many lines crossing the line cap keeps maxLines lines and counts the rest", () => {
  const out = runWith(5, 1000, () => write(lines(12)));
  assert.equal(out.text, lines(5));
  assert.deepEqual(out.capped.map(({ maxLines, maxChars }) => ({ maxLines, maxChars })), [{ maxLines: 5, maxChars: 1000 }]);
  assert.deepEqual(out.dropped, [{ lines: 7, chars: lines(7, 6).length }]);
});

test("a many-line write after earlier output keeps only the lines left", () => {
  const out = runWith(5, 1000, () => write(lines(3), lines(4, 4)));
  assert.equal(out.text, lines(5));
  assert.deepEqual(out.dropped, [{ lines: 2, chars: lines(2, 6).length }]);
});

test("one line per write: the write that would make maxLines + 1 is the first dropped", () => {
  const out = runWith(4, 1000, () => {
    for (let n = 1; n <= 10; n++) write(`line ${n}\n`);
  });
  assert.equal(out.text, lines(4));
  assert.equal(out.capped.length, 1);
  assert.deepEqual(out.dropped, [{ lines: 6, chars: lines(6, 5).length }]);
});

test("a line left open at the cap counts as a dropped line", () => {
  const out = runWith(2, 1000, () => write("a\nb\nc\nd"));
  assert.equal(out.text, "a\nb\n");
  assert.deepEqual(out.dropped, [{ lines: 2, chars: 3 }]);
  // And after the cap, a last write without a newline is one more line.
  const more = (worker.clear(), runWith(2, 1000, () => write("a\nb\nc\n", "d\n", "e")));
  assert.equal(more.text, "a\nb\n");
  assert.deepEqual(more.dropped, [{ lines: 3, chars: 5 }]);
});

test("a partial line after the last kept one stays within the line cap", () => {
  // maxLines counts line ends: text after the last one kept is part of the next line.
  const out = runWith(2, 1000, () => write("a\nb\nc"));
  assert.equal(out.text, "a\nb\nc");
  assert.deepEqual(out.dropped, []);
});

test("a write that reaches the character cap before the line cap is cut there", () => {
  const out = runWith(3, 5, () => write("ab\ncd\nef\n"));
  assert.equal(out.text, "ab\ncd");
  assert.deepEqual(out.dropped, [{ lines: 2, chars: 4 }]);
  // The character cap falls on a line end that would also reach the line cap: that line end is dropped.
  worker.clear();
  const atLineEnd = runWith(2, 5, () => write("ab\ncd\nef"));
  assert.equal(atLineEnd.text, "ab\ncd");
  assert.deepEqual(atLineEnd.dropped, [{ lines: 2, chars: 3 }]);
});

test("output of exactly maxChars characters is kept whole; one more is dropped", () => {
  const exact = runWith(100, 10, () => write("12345", "67890"));
  assert.equal(exact.text, "1234567890");
  assert.deepEqual(exact.capped, []);
  worker.clear();
  const over = runWith(100, 10, () => write("12345", "678901"));
  assert.equal(over.text, "1234567890");
  assert.equal(over.capped.length, 1);
  assert.deepEqual(over.dropped, [{ lines: 1, chars: 1 }]);
});

test("one write crossing the character cap keeps maxChars characters and counts the rest", () => {
  const out = runWith(100, 10, () => write("abc\ndef\nghijkl\nmn\n"));
  assert.equal(out.text, "abc\ndef\ngh");
  // Dropped: "ijkl\nmn\n", the end of a line and one whole line.
  assert.deepEqual(out.dropped, [{ lines: 2, chars: 8 }]);
});

test("a write that reaches the line cap before the character cap is cut at its line end", () => {
  const out = runWith(2, 12, () => write("ab\ncd\nefghijklmnop"));
  assert.equal(out.text, "ab\ncd\n");
  assert.deepEqual(out.dropped, [{ lines: 1, chars: 12 }]);
});

test("output that has used the whole character cap keeps nothing of the next write", () => {
  const out = runWith(100, 4, () => write("abcd", "\n"));
  assert.equal(out.text, "abcd");
  assert.deepEqual(out.dropped, [{ lines: 1, chars: 1 }]);
});

test("after the cap every write is dropped and counted; the notice is sent once, before the totals", () => {
  const out = runWith(1, 1000, () => write("a\nb\n", "c\n", "dd\n", "ee"));
  assert.equal(out.text, "a\n");
  assert.equal(out.capped.length, 1);
  assert.deepEqual(out.dropped, [{ lines: 4, chars: 9 }]);
  const at = (type) => out.order.indexOf(type);
  assert.ok(at(MessageType.STREAM) < at(MessageType.CAPPED) && at(MessageType.CAPPED) < at(MessageType.DROPPED));
  assert.equal(out.order.at(-1), MessageType.DROPPED);
});

test("the cap counts stdout and stderr together", () => {
  openRun(RUN, 2, 1000);
  writeStream("stdout", encoder.encode("out\n"));
  writeStream("stderr", encoder.encode("err\n"));
  writeStream("stdout", encoder.encode("late\n"));
  closeRun();
  const streams = posted.filter((m) => m.type === MessageType.STREAM).map((m) => [m.stream, m.text]);
  assert.deepEqual(streams, [["stdout", "out\n"], ["stderr", "err\n"]]);
  assert.deepEqual(posted.at(-1), { type: MessageType.DROPPED, id: RUN, lines: 1, chars: 5 });
});

test("characters split across writes are decoded whole", () => {
  const bytes = encoder.encode("é€\n");
  const out = runWith(10, 100, () => {
    for (const byte of bytes) writeStream("stdout", Uint8Array.of(byte));
  });
  assert.equal(out.text, "é€\n");
});

test("the run's id is known between openRun and closeRun, and output outside a run is discarded", () => {
  const run = openRun(RUN, 10, 100);
  assert.equal(openRunId(), RUN);
  assert.equal(isOpen(run), true);
  closeRun();
  assert.equal(openRunId(), null);
  assert.equal(isOpen(run), false);
  assert.equal(writeStream("stdout", encoder.encode("stray\n")), 6);
  host.emit_text(MessageType.RESULT, "stray");
  assert.deepEqual(posted, []);
  openRun(RUN + 1, 10, 100);
  abandonRun();
  assert.equal(openRunId(), null);
});

test("a result longer than maxChars is cut there and says how much was dropped", () => {
  openRun(RUN, 10, 5);
  write("ab");
  host.emit_text(MessageType.RESULT, "0123456789");
  host.emit_text(MessageType.ERROR, "01234");
  closeRun();
  assert.deepEqual(posted, [
    { type: MessageType.STREAM, id: RUN, stream: "stdout", text: "ab" },
    { type: MessageType.RESULT, id: RUN, text: "01234\n… 5 more characters not shown." },
    { type: MessageType.ERROR, id: RUN, text: "01234" },
  ]);
});

test("a figure's bytes are copied and transferred, after the output before it", () => {
  openRun(RUN, 10, 100);
  write("before\n");
  const png = Uint8Array.of(137, 80, 78, 71);
  host.emit_figure(png, "a plot", "slate", 13);
  closeRun();
  const figure = posted.find((m) => m.type === MessageType.FIGURE);
  assert.deepEqual([...new Uint8Array(figure.png)], [137, 80, 78, 71]);
  assert.equal(figure.alt, "a plot");
  assert.notEqual(figure.png, png.buffer);
  assert.deepEqual(worker.transfers.at(-1), [figure.png]);
  assert.deepEqual(posted.map((m) => m.type), [MessageType.STREAM, MessageType.FIGURE]);
});

/* ------------------------------------------------------------------ batching */

const BURST_WRITES = 20; // output.js: more writes than this in BURST_MS are batched
const BURST_MS = 100;
const BATCH_CHARS = 16384; // a batch is posted once it holds more than this, or BATCH_MS after the last post
const BATCH_MS = 40;

/* The texts of the stream messages posted so far. */
const streamed = () => posted.filter((m) => m.type === MessageType.STREAM).map((m) => m.text);

/* `count` writes of one character each, at the same time. */
function burst(count, from = 0) {
  for (let k = 0; k < count; k++) write(String.fromCharCode(97 + ((from + k) % 26)));
}

test("each write is posted at once, up to BURST_WRITES writes in BURST_MS", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES);
  assert.equal(streamed().length, BURST_WRITES);
  burst(5, BURST_WRITES); // faster than that: held
  assert.equal(streamed().length, BURST_WRITES);
  closeRun();
  assert.deepEqual(streamed().slice(BURST_WRITES), ["uvwxy"]);
});

test("a batch is posted once more than BATCH_MS have passed since the last post", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES + 1);
  clock += BATCH_MS;
  write("b");
  assert.equal(streamed().length, BURST_WRITES, "not yet");
  clock += 1;
  write("c");
  assert.deepEqual(streamed().slice(BURST_WRITES), ["ubc"]);
  write("d"); // the batch starts again from that post
  assert.equal(streamed().length, BURST_WRITES + 1);
  closeRun();
});

test("a batch is posted once it holds more than BATCH_CHARS characters", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES);
  write("x".repeat(BATCH_CHARS));
  assert.equal(streamed().length, BURST_WRITES, "exactly BATCH_CHARS: held");
  write("y");
  assert.equal(streamed().length, BURST_WRITES + 1);
  assert.equal(streamed().at(-1), `${"x".repeat(BATCH_CHARS)}y`);
  closeRun();
});

test("the burst is counted again once BURST_MS have passed since it began", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES + 1);
  clock += BURST_MS; // not more than BURST_MS: the same burst (the first write is posted, BATCH_MS having passed)
  burst(3);
  assert.equal(streamed().length, BURST_WRITES + 1);
  clock += 1; // a new burst: each write is posted at once again
  burst(3);
  assert.equal(streamed().length, BURST_WRITES + 4);
  closeRun();
});

test("a batch of one stream is posted before another stream's write, in order", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES);
  write("o", "u");
  writeStream("stderr", encoder.encode("E"));
  writeStream("stderr", encoder.encode("F"));
  write("t");
  closeRun();
  const tail = posted.filter((m) => m.type === MessageType.STREAM).slice(BURST_WRITES).map((m) => [m.stream, m.text]);
  assert.deepEqual(tail, [["stdout", "ou"], ["stderr", "EF"], ["stdout", "t"]]);
});

test("a result or a figure first posts the output before it", () => {
  openRun(RUN, 1000, 100_000);
  burst(BURST_WRITES + 2);
  host.emit_text(MessageType.RESULT, "42");
  host.emit_figure(Uint8Array.of(1), "alt", "default", 12);
  closeRun();
  assert.deepEqual(posted.slice(BURST_WRITES).map((m) => [m.type, m.text]), [
    [MessageType.STREAM, "uv"], [MessageType.RESULT, "42"], [MessageType.FIGURE, undefined],
  ]);
});

test("a figure outside a run is discarded", () => {
  host.emit_figure(Uint8Array.of(1), "alt", "default", 12);
  assert.deepEqual(posted, []);
});
