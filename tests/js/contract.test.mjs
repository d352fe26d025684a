// contract.json against the scripts: protocol.js names exactly its message types, and every message the
// page, the Python worker and its runner send (each `postMessage({ … })`, `post({ … })` in their sources),
// the build's Node script (`send({ … })`) and the kernel to a cell (`onEvent({ … })`, `finish(job, { … })`)
// has a type of the contract and the fields the contract gives it, no more and, unless a spread adds them,
// no fewer.  The messages
// as they are sent, field types included, are checked by kernel.test.mjs and output.test.mjs (contract.mjs).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { CONTRACT, checkMessage, fieldsOf } from "./contract.mjs";

const { describeFatal } = await import("../../src/course_site/course_site/assets/js/worker/run.js");

const JS = new URL("../../src/course_site/course_site/assets/js/", import.meta.url);
const sources = [
  ...readdirSync(JS).filter((name) => name.endsWith(".js")),
  ...readdirSync(new URL("worker/", JS)).filter((name) => name.endsWith(".js")).map((name) => `worker/${name}`),
  "../../node/build_python.mjs",
].map((name) => [name, readFileSync(new URL(name, JS), "utf8")]);

/* Where messages are sent, and in which direction, by the file they are in. */
const SENDS = [
  { pattern: /(?:postMessage|\bpost)\(\s*\(?(?:\w+ = )?\{/g, direction: (file) => (file.startsWith("worker/") ? "toPage" : "toWorker") },
  { pattern: /\bsend\(\s*\{/g, direction: (file) => (file.includes("node/") ? "build" : null) },
  { pattern: /(?:onEvent\(|finish\(job,\s*)\{/g, direction: (file) => (file === "kernel.js" ? "toCell" : null) },
];

/* The index of the end of the comment that starts at `text[i]` ("//" or "/*"), or -1 if none starts there. */
function commentEnd(text, i) {
  if (text.startsWith("//", i)) return text.indexOf("\n", i);
  if (text.startsWith("/*", i)) return text.indexOf("*/", i) + 1;
  return -1;
}

/* Walk the code of `text` from `start`, past comments, strings and template literals: `visit(i, c, depth)`
 * for each other character, with the bracket depth once it is counted; the index where `visit` said
 * true, or -1. */
function walkCode(text, start, visit) {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (commentEnd(text, i) >= 0) {
      i = commentEnd(text, i);
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
      continue;
    }
    if ("{([".includes(c)) depth++;
    else if ("})]".includes(c)) depth--;
    if (visit(i, c, depth)) return i;
  }
  return -1;
}

/* The text of the balanced {…} that starts at `text[start]`. */
function objectLiteral(text, start) {
  const end = walkCode(text, start, (_, c, depth) => depth === 0);
  if (end < 0) throw new Error(`unbalanced literal at ${start}`);
  return text.slice(start, end + 1);
}

/* The top-level entries of an object literal's text: ["type: MessageType.X", "id", "...answer", …]. */
function entries(literal) {
  const body = literal.slice(1, -1);
  const parts = [];
  let from = 0;
  walkCode(body, 0, (i, c, depth) => {
    if (c === "," && depth === 0) {
      parts.push(body.slice(from, i));
      from = i + 1;
    }
    return false;
  });
  parts.push(body.slice(from));
  return parts.map((part) => part.replace(/\/\/.*$/gm, "").replace(/\/\*.*?\*\//gs, "").trim()).filter(Boolean);
}

/* Every `postMessage({…})` of the sources: {file, direction, types, keys, spreads}. */
function sentMessages() {
  const found = [];
  for (const [file, text] of sources) {
    for (const { pattern, direction } of SENDS) {
      if (direction(file)) found.push(...sentIn(file, text, pattern, direction(file)));
    }
  }
  return found;
}

/* The messages sent in `text` where `pattern` matches (ending at the literal's "{"), in `direction`. */
function sentIn(file, text, pattern, direction) {
  const found = [];
  for (const match of text.matchAll(pattern)) {
    const parts = entries(objectLiteral(text, match.index + match[0].length - 1));
    const keys = parts.filter((part) => !part.startsWith("...")).map((part) => part.split(":")[0].trim());
    const spreads = parts.filter((part) => part.startsWith("...")).map((part) => part.slice(3));
    const typePart = parts.find((part) => /^type\s*:/.test(part));
    if (!typePart && direction === "toCell" && spreads.includes("msg")) {
      // The kernel passes a worker's message on with fields of its own: a toCell type that has them.
      const types = Object.keys(CONTRACT.messages.toCell).filter((type) => {
        const names = Object.keys(CONTRACT.messages.toCell[type]).map((name) => name.replace(/\?$/, ""));
        return type !== "about" && keys.every((key) => names.includes(key));
      });
      assert.ok(types.length, `${file}: passes on a message with ${keys}, which no toCell message has`);
      found.push({ file, direction, types: types.slice(0, 1), keys, spreads });
      continue;
    }
    if (!typePart) {
      found.push({ file, untyped: true, keys });
      continue;
    }
    const value = typePart.replace(/^type\s*:\s*/, "");
    const named = /^MessageType\.(\w+)$/.exec(value);
    const literal = /^"([\w-]+)"$/.exec(value);
    // output.js's emit_text(kind, …): Python's cell_exec emits "result" or "error" (protocol.test.mjs).
    const types = named ? [MessageType[named[1]]] : literal ? [literal[1]] : [MessageType.RESULT, MessageType.ERROR];
    found.push({ file, direction, types, keys, spreads });
  }
  return found;
}

// The spreads whose fields the test can name: a fatal error's description.
const SPREAD_FIELDS = {
  "describeFatal(err)": Object.keys(describeFatal(new Error("x"))),
  details: Object.keys(describeFatal(new Error("x"))), // kernel.js's crash(): a worker's end, as fatal describes it
  "(dark ? { pngDark: dark } : {})": ["pngDark"],
};

test("protocol.js names exactly the contract's message types", () => {
  const contract = [...Object.keys(CONTRACT.messages.toWorker), ...Object.keys(CONTRACT.messages.toPage)];
  assert.deepEqual(new Set(Object.values(MessageType)), new Set(contract));
  assert.equal(contract.length, Object.values(MessageType).length, "a type in both directions");
});

test("every MessageType the scripts name exists", () => {
  for (const [file, text] of sources) {
    for (const [, name] of text.matchAll(/MessageType\.(\w+)/g)) assert.ok(name in MessageType, `${file}: MessageType.${name}`);
  }
});

test("every message the page and the worker send has the contract's fields", () => {
  const sent = sentMessages().filter((message) => !message.untyped);
  assert.ok(sent.length >= 25, `found ${sent.length}`);
  for (const { file, direction, types, keys, spreads } of sent) {
    for (const type of types) {
      const fields = fieldsOf(direction, type);
      assert.ok(fields, `${file}: ${type} is not a ${direction} message of contract.json`);
      const names = Object.keys(fields).map((name) => name.replace(/\?$/, ""));
      const given = [...keys.filter((key) => key !== "type"), ...spreads.flatMap((spread) => SPREAD_FIELDS[spread] ?? [])];
      for (const key of given) assert.ok(names.includes(key), `${file}: ${type} sends ${key}, which contract.json does not list`);
      if (spreads.every((spread) => spread in SPREAD_FIELDS)) {
        const required = Object.keys(fields).filter((name) => !name.endsWith("?"));
        for (const name of required) assert.ok(given.includes(name), `${file}: ${type} leaves out ${name}`);
      }
    }
  }
});

test("the messages with no type are the snapshot workers' own, not the Python worker's", () => {
  const untyped = sentMessages().filter((message) => message.untyped).map((message) => message.file);
  assert.deepEqual([...new Set(untyped)].sort(), ["worker/snapshot_maker.js", "worker/snapshot_reader.js"]);
});

test("a message is checked field by field", () => {
  assert.doesNotThrow(() => checkMessage("toPage", { type: "stream", id: 1, stream: "stdout", text: "hi" }));
  assert.throws(() => checkMessage("toPage", { type: "stream", id: 1, stream: "stdout" }), /text is missing/);
  assert.throws(() => checkMessage("toPage", { type: "stream", id: 1, stream: "out", text: "" }), /not stdout\|stderr/);
  assert.throws(() => checkMessage("toPage", { type: "ready", version: "0.27.7", extra: 1 }), /extra is not in contract/);
  assert.throws(() => checkMessage("toWorker", { type: "ready", version: "0.27.7" }), /no message type "ready"/);
  assert.doesNotThrow(() => checkMessage("toPage", { type: "done", id: 1, ok: true, status: "ok", ms: 1, totalMs: 2, check: undefined }));
});

test("the build's Node script sends every build message of the contract, and the kernel every toCell event", () => {
  const sentTypes = (direction) => new Set(sentMessages().filter((m) => m.direction === direction).flatMap((m) => m.types));
  const listed = (direction) => Object.keys(CONTRACT.messages[direction]).filter((type) => type !== "about");
  assert.deepEqual([...sentTypes("build")].sort(), listed("build").sort());
  for (const type of listed("toCell")) assert.ok(sentTypes("toCell").has(type) || type === "started", `toCell ${type} is never sent`);
});
