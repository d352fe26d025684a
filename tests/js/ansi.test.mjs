// Terminal output as Jupyter's output area shows it (assets/js/ansi.js); run by tests/unit/test_ansi_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  TerminalOutput,
  TerminalText,
  appendSegments,
  render,
} from "../../src/course_site/course_site/assets/js/ansi.js";

/* Each line as [text, "class class", color, background] per segment; plain segments as their text. */
const styled = (s) => s.classes.length || s.color || s.background;
const view = (lines) =>
  lines.map((line) => line.map((s) => (styled(s) ? [s.text, s.classes.join(" "), s.color, s.background] : s.text)));
const shown = (text) => view(render(text));
const plainText = (text) => render(text).map((line) => line.map((s) => s.text).join(""));

test("plain text is one segment per line", () => {
  assert.deepEqual(shown("one\ntwo"), [["one"], ["two"]]);
  assert.deepEqual(shown("ends with a newline\n"), [["ends with a newline"], []]);
  assert.deepEqual(shown("tab\there"), [["tab\there"]]);
});

test("SGR colours, bold and reset", () => {
  assert.deepEqual(shown("a\x1b[31mred\x1b[0m b"), [["a", ["red", "ansi-red-fg", null, null], " b"]]);
  assert.deepEqual(shown("\x1b[92mbright\x1b[39m\x1b[44mon blue\x1b[49m\x1b[105mpink"), [
    [
      ["bright", "ansi-green-intense-fg", null, null],
      ["on blue", "ansi-blue-bg", null, null],
      ["pink", "ansi-magenta-intense-bg", null, null],
    ],
  ]);
  // Bold makes a basic colour the bright one, as Jupyter does; 22 ends bold.
  assert.deepEqual(shown("\x1b[1;34mB\x1b[22mb\x1b[mx"), [
    [["B", "ansi-blue-intense-fg ansi-bold", null, null], ["b", "ansi-blue-fg", null, null], "x"],
  ]);
  assert.deepEqual(shown("\x1b[3;4mi\x1b[23mu\x1b[24m."), [
    [["i", "ansi-italic ansi-underline", null, null], ["u", "ansi-underline", null, null], "."],
  ]);
});

test("256 colours and true colour", () => {
  assert.deepEqual(shown("\x1b[38;5;1ma\x1b[38;5;196mb\x1b[38;5;244mc\x1b[48;2;10;20;30md"), [
    [
      ["a", "ansi-red-fg", null, null],
      ["b", "", "rgb(255, 0, 0)", null],
      ["c", "", "rgb(128, 128, 128)", null],
      ["d", "", "rgb(128, 128, 128)", "rgb(10, 20, 30)"],
    ],
  ]);
  // An out-of-range colour is ignored, and the parameters after it still apply.
  assert.deepEqual(shown("\x1b[38;2;300;0;0;1mx"), [[["x", "ansi-bold", null, null]]]);
});

test("inverse swaps the colours, defaults included", () => {
  assert.deepEqual(shown("\x1b[7mx\x1b[31my\x1b[27mz"), [
    [
      ["x", "ansi-default-inverse-fg ansi-default-inverse-bg", null, null],
      ["y", "ansi-default-inverse-fg ansi-red-bg", null, null],
      ["z", "ansi-red-fg", null, null],
    ],
  ]);
});

test("carriage return overwrites the line, as a progress bar expects", () => {
  assert.deepEqual(plainText("progress 10%\rprogress 100%\ndone"), ["progress 100%", "done"]);
  assert.deepEqual(plainText("long old line\rnew"), ["newg old line"]);
  assert.deepEqual(plainText("windows\r\nline"), ["windows", "line"]);
  assert.deepEqual(plainText("50%\r\x1b[K7%"), ["7%"]);
  assert.deepEqual(plainText("abcdef\r\x1b[2K\x1b[3C"), [""]);
});

test("erase in line", () => {
  const terminal = new TerminalText();
  terminal.write("abcdef\r\x1b[2Kxy");
  assert.equal(terminal.openLine().map((s) => s.text).join(""), "xy");
  terminal.write("\rQ\x1b[1K!");
  assert.equal(terminal.openLine().map((s) => s.text).join(""), " !");
});

test("backspace erases the character before it, as in Jupyter", () => {
  assert.deepEqual(plainText("ab\bc\b"), ["a"]);
  assert.deepEqual(plainText("|\b/\b-\b\\"), ["\\"]);
  assert.deepEqual(plainText("\bx"), ["x"]);
  assert.deepEqual(plainText("abc\r\b\bX"), ["Xbc"]);
});

test("other escape sequences and control characters are dropped, never shown", () => {
  assert.deepEqual(plainText("a\x1b[2Jb\x1b[?25lc\x1b[1;1Hd\x07e\x00f\x1b7g\x1b(Bh\x1b]0;title\x1b\\i"), ["abcdefghi"]);
  assert.deepEqual(plainText("see \x1b]8;;https://example.org\x07the docs\x1b]8;;\x07."), ["see the docs."]);
  assert.deepEqual(plainText("\x1b[1:2m!"), ["!"]);
  // A malformed sequence ends where it stops being one; what follows is text.
  assert.deepEqual(plainText("a\x1b[12\nb"), ["a", "b"]);
  assert.deepEqual(plainText("a\x1b\nb"), ["a", "b"]);
  // An unfinished sequence at the end waits for the next chunk, unseen.
  assert.deepEqual(plainText("x\x1b[31;"), ["x"]);
});

test("a sequence split across chunks is applied once complete", () => {
  const terminal = new TerminalText();
  for (const chunk of ["plain \x1b", "[", "3", "1mred\x1b]0;ti", "tle\x07 still", " red\n"]) terminal.write(chunk);
  assert.deepEqual(view(terminal.takeFinishedLines()), [["plain ", ["red still red", "ansi-red-fg", null, null]]]);
  assert.deepEqual(terminal.takeFinishedLines(), []);
  terminal.write("\x1b[");
  assert.deepEqual(view([terminal.openLine()]), [[]]);
  terminal.write("0mnext");
  assert.deepEqual(view([terminal.openLine()]), [["next"]]);
});

test("an unfinished sequence is not held back forever", () => {
  const terminal = new TerminalText();
  terminal.write(`\x1b]never ended ${"x".repeat(300)}`);
  const text = terminal.openLine().map((s) => s.text).join("");
  assert.ok(text.startsWith("never ended x"), text);
  assert.ok(!text.includes("\x1b"));
});

test("finished lines are taken once; the open line changes", () => {
  const terminal = new TerminalText();
  terminal.write("first\nsec");
  assert.deepEqual(view(terminal.takeFinishedLines()), [["first"]]);
  assert.deepEqual(view([terminal.openLine()]), [["sec"]]);
  terminal.write("\rSE");
  assert.deepEqual(view([terminal.openLine()]), [["SEc"]]);
  assert.deepEqual(terminal.takeFinishedLines(), []);
});

/* The few DOM calls the module makes, recorded: a stand-in for a browser's document in Node. */
class Node_ {
  constructor(doc, name, text = null) {
    Object.assign(this, { ownerDocument: doc, nodeName: name, text, childNodes: [], className: "", style: {} });
  }
  appendChild(node) {
    if (node.nodeName === "#fragment") this.childNodes.push(...node.childNodes.splice(0));
    else this.childNodes.push(node);
    return node;
  }
  insertBefore(node, before) {
    const index = this.childNodes.indexOf(before);
    const added = node.nodeName === "#fragment" ? node.childNodes.splice(0) : [node];
    this.childNodes.splice(index, 0, ...added);
    return node;
  }
  replaceChildren() {
    this.childNodes = [];
  }
  get textContent() {
    return this.text ?? this.childNodes.map((c) => c.textContent).join("");
  }
}
class Document_ {
  createElement(name) {
    return new Node_(this, name.toUpperCase());
  }
  createTextNode(text) {
    return new Node_(this, "#text", text);
  }
  createDocumentFragment() {
    return new Node_(this, "#fragment");
  }
}

test("appendSegments builds text nodes and classed spans, never markup", () => {
  const pre = new Document_().createElement("pre");
  appendSegments(pre, render("<b>not bold</b> \x1b[1;31m<i>red</i>\x1b[38;2;1;2;3m!")[0]);
  assert.deepEqual(
    pre.childNodes.map((n) => [n.nodeName, n.className, n.style.color, n.textContent]),
    [
      ["#text", "", undefined, "<b>not bold</b> "],
      ["SPAN", "ansi-red-intense-fg ansi-bold", undefined, "<i>red</i>"],
      ["SPAN", "ansi-bold", "rgb(1, 2, 3)", "!"],
    ],
  );
  assert.ok(pre.childNodes.every((n) => n.childNodes.every((c) => c.nodeName === "#text")));
});

test("TerminalOutput keeps finished lines and redraws the open one", () => {
  const pre = new Document_().createElement("pre");
  const output = new TerminalOutput(pre);
  output.write("step 1/3\r");
  output.write("step 2/3\r");
  assert.equal(pre.textContent, "step 2/3");
  output.write("step 3/3\n\x1b[32mok\x1b[0m");
  assert.equal(pre.textContent, "step 3/3\nok");
  const nodes = pre.childNodes;
  assert.equal(nodes.at(-1).childNodes[0].className, "ansi-green-fg");
  output.write("\n");
  assert.equal(pre.textContent, "step 3/3\nok\n");
});

/* The first segment of `text` as [classes, color, background]. */
const look = (text) => {
  const [segment] = render(text)[0];
  return [segment.classes.join(" "), segment.color, segment.background];
};

test("every SGR colour code at the edges of its range, and just outside", () => {
  const cases = {
    30: ["ansi-black-fg", null, null], 37: ["ansi-white-fg", null, null], 38: ["", null, null],
    90: ["ansi-black-intense-fg", null, null], 97: ["ansi-white-intense-fg", null, null], 98: ["", null, null], 89: ["", null, null],
    40: ["ansi-black-bg", null, null], 47: ["ansi-white-bg", null, null], 48: ["", null, null],
    100: ["ansi-black-intense-bg", null, null], 107: ["ansi-white-intense-bg", null, null], 108: ["", null, null], 99: ["", null, null],
    29: ["", null, null], 39: ["", null, null], 49: ["", null, null],
  };
  for (const [code, expected] of Object.entries(cases)) assert.deepEqual(look(`\x1b[${code}mx`), expected, `SGR ${code}`);
  assert.deepEqual(look("\x1b[31;49;41;39mx"), ["ansi-red-bg", null, null]);
  assert.deepEqual(look("\x1b[41;49mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[48;2;1;2;3;49mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[48;2;1;2;3;31mx"), ["ansi-red-fg", null, "rgb(1, 2, 3)"]);
  assert.deepEqual(look("\x1b[;31mx"), ["ansi-red-fg", null, null], "an empty parameter is 0");
  assert.deepEqual(look("\x1b[31;mx"), ["", null, null]);
});

test("the 256-colour palette at each of its edges", () => {
  const colour = (n) => look(`\x1b[38;5;${n}mx`);
  assert.deepEqual(colour(7), ["ansi-white-fg", null, null]);
  assert.deepEqual(colour(8), ["ansi-black-intense-fg", null, null]);
  assert.deepEqual(colour(15), ["ansi-white-intense-fg", null, null]);
  assert.deepEqual(colour(16), ["", "rgb(0, 0, 0)", null]);
  assert.deepEqual(colour(17), ["", "rgb(0, 0, 95)", null]);
  assert.deepEqual(colour(22), ["", "rgb(0, 95, 0)", null]);
  assert.deepEqual(colour(52), ["", "rgb(95, 0, 0)", null]);
  assert.deepEqual(colour(231), ["", "rgb(255, 255, 255)", null]);
  assert.deepEqual(colour(232), ["", "rgb(8, 8, 8)", null]);
  assert.deepEqual(colour(255), ["", "rgb(238, 238, 238)", null]);
  assert.deepEqual(colour(256), ["", null, null]);
  assert.deepEqual(look("\x1b[31;38;5;256mx"), ["ansi-red-fg", null, null], "out of range: the colour before stays");
  assert.deepEqual(look("\x1b[38;5;0mx"), ["ansi-black-fg", null, null]);
  assert.deepEqual(look("\x1b[38;5;-1mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[38;2;0;0;255mx"), ["", "rgb(0, 0, 255)", null]);
  assert.deepEqual(look("\x1b[38;2;0;0;256mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[38;2;0;0;1.5mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[38;31mx"), ["ansi-red-fg", null, null], "38 without 5 or 2 uses only itself");
  assert.deepEqual(look("\x1b[48;5;196;1mx"), ["ansi-bold", null, "rgb(255, 0, 0)"]);
});

test("bold brightens only the basic colours; a CSS colour stays as it is", () => {
  assert.deepEqual(look("\x1b[1;37mx"), ["ansi-white-intense-fg ansi-bold", null, null]);
  assert.deepEqual(look("\x1b[1;97mx"), ["ansi-white-intense-fg ansi-bold", null, null]);
  assert.deepEqual(look("\x1b[1;38;5;200mx"), ["ansi-bold", "rgb(255, 0, 215)", null]);
});

test("erase in line: to its end, from its start through the cursor, or all of it; the cursor stays", () => {
  assert.deepEqual(plainText("abcdef\r\x1b[1K"), [" bcdef"]);
  assert.deepEqual(plainText("abcdef\rxy\x1b[0K"), ["xy"]);
  assert.deepEqual(plainText("abcdef\rxy\x1b[1K"), ["   def"]);
  assert.deepEqual(plainText("abcdef\rxy\x1b[2K"), ["  "]);
  assert.deepEqual(plainText("abcdef\rxy\x1b[2Kz"), ["  z"]);
  assert.deepEqual(plainText("abcdef\rxy\x1b[3K"), ["xycdef"], "no such mode: nothing erased");
});

test("the eight basic colours' class names, as Jupyter's", () => {
  const names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
  assert.deepEqual(names.map((_, n) => look(`\x1b[${30 + n}mx`)[0]), names.map((name) => `ansi-${name}-fg`));
  assert.deepEqual(names.map((_, n) => look(`\x1b[${100 + n}mx`)[0]), names.map((name) => `ansi-${name}-intense-bg`));
});

test("SGR parameters with other characters are ignored whole", () => {
  assert.deepEqual(look("\x1b[1;<3mx"), ["", null, null]);
  assert.deepEqual(look("\x1b[1;3?mx"), ["", null, null]);
});

test("a background colour is drawn as the span's background, the open line in a span of its own", () => {
  const pre = new Document_().createElement("pre");
  appendSegments(pre, render("\x1b[48;2;1;2;3mx")[0]);
  assert.deepEqual([pre.childNodes[0].nodeName, pre.childNodes[0].style.backgroundColor], ["SPAN", "rgb(1, 2, 3)"]);
  const output = new TerminalOutput(new Document_().createElement("pre"));
  output.write("open");
  assert.equal(output.open.nodeName, "SPAN");
});
