/* A cell's output area (the build's .course-cell__output): stream text batched to one DOM update
 * per animation frame, results, tracebacks, figures and notices, a buffered run's output swapped in
 * whole, and the build's pre-rendered output.  Python's text only reaches the page as text nodes,
 * through ansi.js (terminal colours and "\r" as in Jupyter's output area). */
import { appendSegments, render, TerminalOutput } from "./ansi.js";
import { formatMegabytes, t } from "./strings.js";
import names from "./dom_names.js";
import { el } from "./element.js";
import { MessageType } from "./protocol.js";

const CELL = names.cell;
const DATA = names.cellData;

/* Text with terminal control sequences, rendered into `parent` as text nodes and spans. */
export function appendTerminalText(parent, text) {
  render(text).forEach((line, i) => {
    if (i) parent.append("\n");
    appendSegments(parent, line);
  });
}

export class CellOutput {
  /** @param {HTMLElement} node the cell's output element */
  constructor(node) {
    this.node = node; // where the run writes (a copy out of the page while a buffered run writes)
    this.shown = null; // the element on the page while a buffered run writes its copy
    this.objectURLs = [];
    this.shownURLs = [];
    this.figureCount = 0;
    this.pending = []; // [stream, text] waiting for the next animation frame
    this.frame = 0;
    this.lastPre = null;
    this.terminal = null;
  }

  /** Show a run's output message (stream text, a result, an error, a figure, the output limit's notices):
   * true if `msg` is one of those (a cell's and the console's runs show them alike). */
  show(msg) {
    switch (msg.type) {
      case MessageType.STREAM:
        this.write(msg.stream, msg.text);
        return true;
      case MessageType.RESULT:
        this.append("result", msg.text);
        return true;
      case MessageType.ERROR:
        this.append("error", msg.text);
        return true;
      case MessageType.FIGURE:
        this.appendFigure(msg.png, msg.alt, msg.scheme, msg.textPx);
        return true;
      case MessageType.CAPPED:
        this.flush();
        this.notice(t("output.capped", { lines: msg.maxLines, kilobytes: Math.round(msg.maxChars / 1000) }));
        return true;
      case MessageType.DROPPED:
        this.flush();
        this.notice(t("output.dropped", { count: msg.lines, size: formatMegabytes(msg.chars) }), "dropped");
        return true;
      default:
        return false;
    }
  }

  /** Stream text, written at the next animation frame (with what else came by then). */
  write(stream, text) {
    this.pending.push([stream, text]);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** A run starts writing: into the area, cleared, or (`buffered`) into a copy that commit() swaps in. */
  begin(buffered) {
    this.pending = [];
    if (!buffered) {
      this.clear();
      return;
    }
    // Written into a copy out of the page, swapped in when complete (commitOutput): no flicker.
    this.shown = this.node;
    this.shownURLs = this.objectURLs;
    this.objectURLs = [];
    this.figureCount = 0;
    this.lastPre = null;
    this.node = this.node.cloneNode(false);
  }

  /** A buffered run ended: its output replaces the one shown. */
  commit() {
    const shown = this.shown;
    if (!shown) return;
    const live = this.node;
    this.shown = null;
    this.node = shown;
    for (const url of this.shownURLs) URL.revokeObjectURL(url);
    this.shownURLs = [];
    shown.replaceChildren(...live.childNodes);
    shown.setAttribute(DATA.precomputed, "false");
    this.updateEmpty();
  }

  clear() {
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.objectURLs = [];
    this.figureCount = 0;
    this.node.replaceChildren();
    this.node.setAttribute(DATA.precomputed, "false");
    this.lastPre = null;
    this.updateEmpty();
  }

  /** Write batched stream text (one DOM update per animation frame). */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!this.pending.length) return;
    const stick = this.isScrolledToEnd();
    for (const [stream, text] of this.pending) {
      const last = this.lastPre;
      if (!(last && last.dataset.stream === stream && last === this.node.lastElementChild)) {
        const pre = el("pre", { class: `${CELL.out} ${CELL.out}--${stream}` });
        pre.dataset.stream = stream;
        this.node.append(pre);
        this.lastPre = pre;
        this.terminal = new TerminalOutput(pre);
      }
      this.terminal.write(text);
    }
    this.pending = [];
    this.updateEmpty();
    if (stick) this.node.scrollTop = this.node.scrollHeight;
  }

  append(kind, text) {
    this.flush();
    const stick = this.isScrolledToEnd();
    const pre = el("pre", { class: `${CELL.out} ${CELL.out}--${kind}` });
    appendTerminalText(pre, text);
    this.node.append(pre);
    this.lastPre = null;
    this.updateEmpty();
    if (stick) this.node.scrollTop = this.node.scrollHeight;
  }

  appendFigure(png, alt, scheme, textPx) {
    this.flush();
    this.figureCount += 1;
    const url = URL.createObjectURL(new Blob([png], { type: "image/png" }));
    this.objectURLs.push(url);
    // data-scheme: the colour scheme it was drawn in (course.css re-styles it if the palette switches)
    const img = el("img", {
      src: url, alt: alt || t("figure.alt", { number: this.figureCount }), "data-scheme": scheme || "default", "data-text-px": String(textPx ?? ""),
      ...pngSize(png), // its room is kept before it decodes, so nothing below it moves then (as the build's figures)
    });
    this.node.append(el("figure", { class: `${CELL.out} ${CELL.out}--figure` }, img));
    this.lastPre = null;
    this.updateEmpty();
  }

  notice(text, kind = "info", ...more) {
    this.flush();
    const parts = Array.isArray(text) ? text : [text];
    this.node.append(el("p", { class: `${CELL.notice} ${CELL.notice}--${kind}` }, ...parts, ...more.filter(Boolean)));
    this.lastPre = null;
    this.updateEmpty();
  }

  /** Show a pre-rendered combination's output in place of the output. */
  showVariant(template) {
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.objectURLs = [];
    const visible = this.shown ?? this.node;
    const label = visible.querySelector(`.${CELL.label}`);
    visible.replaceChildren(...(label ? [label] : []), template.content.cloneNode(true));
    if (label) label.hidden = false;
    visible.setAttribute(DATA.precomputed, "true");
    visible.hidden = false;
  }

  /** Build-time output as live output looks: terminal sequences rendered, not printed raw. */
  renderPrecomputed() {
    for (const pre of this.node.querySelectorAll(`pre.${CELL.out}`)) {
      const text = pre.textContent;
      if (!/[\x1b\r\b]/.test(text)) continue;
      pre.replaceChildren();
      appendTerminalText(pre, text);
    }
  }

  isScrolledToEnd() {
    const o = this.node;
    return o.scrollHeight - o.scrollTop - o.clientHeight < 24;
  }

  updateEmpty() {
    this.node.hidden = this.node.childElementCount === 0;
  }

  destroy() {
    if (this.frame) cancelAnimationFrame(this.frame);
    for (const url of [...this.objectURLs, ...this.shownURLs]) URL.revokeObjectURL(url);
  }
}


/** A PNG's `{width, height}` from its IHDR chunk (bytes 16–23, big-endian), as cells.py's _png_size; {} if not a PNG. */
export function pngSize(png) {
  const bytes = png instanceof Uint8Array ? png : new Uint8Array(png);
  const signature = [0x89, 0x50, 0x4e, 0x47];
  if (bytes.length < 24 || signature.some((byte, i) => bytes[i] !== byte)) return {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: String(view.getUint32(16)), height: String(view.getUint32(20)) };
}
