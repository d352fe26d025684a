/* Terminal output as Jupyter's output area shows it: styled text segments.
 *
 * Honoured: SGR colours (30–37, 90–97, 40–47, 100–107, 38;5;n, 48;5;n,
 * 38;2;r;g;b, 48;2;r;g;b, 39, 49), bold (shown as the bright colour too, as
 * Jupyter does), italic, underline, inverse and reset; "\r" returns to the
 * start of the line, whose next characters overwrite it; "\b" erases the
 * character before it (at the end of a line, as Jupyter does) or moves back;
 * ESC[K erases the line (from the cursor, up to it, or all).
 * Every other escape sequence and control character is dropped, never shown.
 * Text may arrive in chunks: a sequence split between two chunks is kept
 * until it is complete.
 *
 * Pure: no DOM except in appendSegments/TerminalOutput, which build text nodes
 * and <span class="ansi-…"> (never innerHTML). The classes are in ../css/ansi.css.
 */

/** @typedef {{text: string, classes: string[], color: string | null, background: string | null}} Segment */

const COLOUR_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255]; // the 6 x 6 x 6 colours 16–231 of the 256-colour palette
const MAX_SEQUENCE = 256; // longer unfinished sequences are dropped, not held back forever

const PLAIN = Object.freeze({ bold: false, italic: false, underline: false, inverse: false, fg: null, bg: null });

/* Class names of palette colour n (0–15), as in Jupyter: ansi-red-fg, ansi-red-intense-bg. */
function colourClass(n, layer) {
  const name = COLOUR_NAMES[n % 8] + (n >= 8 ? "-intense" : "");
  return `ansi-${name}-${layer}`;
}

/* A colour of the 256-colour palette: a palette number below 16, else "rgb(…)". */
function paletteColour(n) {
  if (n < 16) return n;
  if (n < 232) {
    const i = n - 16;
    return rgb(CUBE_LEVELS[Math.floor(i / 36)], CUBE_LEVELS[Math.floor(i / 6) % 6], CUBE_LEVELS[i % 6]);
  }
  const grey = 8 + 10 * (n - 232);
  return rgb(grey, grey, grey);
}

const rgb = (r, g, b) => `rgb(${r}, ${g}, ${b})`;
const isByte = (n) => Number.isInteger(n) && n >= 0 && n <= 255;

/* The colour that 38/48 parameters starting at codes[i] give, and how many codes they use. */
function extendedColour(codes, i) {
  if (codes[i + 1] === 5) {
    return isByte(codes[i + 2]) ? [paletteColour(codes[i + 2]), 3] : [undefined, 3];
  }
  if (codes[i + 1] === 2) {
    const [r, g, b] = codes.slice(i + 2, i + 5);
    return [r, g, b].every(isByte) ? [rgb(r, g, b), 5] : [undefined, 5];
  }
  return [undefined, 1];
}

/* The style after SGR parameters `params` ("1;31", "" = reset). */
function applySGR(style, params) {
  const codes = params === "" ? [0] : params.split(";").map((p) => (p === "" ? 0 : Number(p)));
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next.bold = false;
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 39) next.fg = null;
    else if (code === 49) next.bg = null;
    else if (code === 38 || code === 48) {
      const [colour, used] = extendedColour(codes, i);
      if (colour !== undefined) next[code === 38 ? "fg" : "bg"] = colour;
      i += used - 1;
    }
  }
  return Object.freeze(next);
}

/* How a style is drawn: classes for palette colours and attributes, CSS colours for the others. */
function describe(style) {
  let { fg, bg } = style;
  if (style.bold && typeof fg === "number" && fg < 8) fg += 8;
  if (style.inverse) [fg, bg] = [bg ?? "default-inverse", fg ?? "default-inverse"];
  const classes = [];
  let color = null;
  let background = null;
  if (fg === "default-inverse") classes.push("ansi-default-inverse-fg");
  else if (typeof fg === "number") classes.push(colourClass(fg, "fg"));
  else if (fg) color = fg;
  if (bg === "default-inverse") classes.push("ansi-default-inverse-bg");
  else if (typeof bg === "number") classes.push(colourClass(bg, "bg"));
  else if (bg) background = bg;
  if (style.bold) classes.push("ansi-bold");
  if (style.italic) classes.push("ansi-italic");
  if (style.underline) classes.push("ansi-underline");
  return { classes, color, background };
}

/* Where the escape sequence at text[start] (an ESC) ends: [end, final, params], or null if incomplete.
 * A malformed sequence ends where it stops being one (its bytes are dropped, what follows is text). */
function scanEscape(text, start) {
  const kind = text[start + 1];
  if (kind === undefined) return null;
  if (kind === "[") {
    // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
    return scanFinal(text, start + 2, /^[0-?]*[ -/]*/, /[@-~]/);
  }
  if ("]PX^_".includes(kind)) {
    // OSC, DCS, SOS, PM, APC: a string ended by BEL or ESC \ (a hyperlink's text stays, its markup goes).
    const end = /\x07|\x1b\\/.exec(text.slice(start + 2, start + 2 + MAX_SEQUENCE));
    if (end) return [start + 2 + end.index + end[0].length, "", ""];
    return text.length - start > MAX_SEQUENCE ? [start + 2, "", ""] : null;
  }
  // Other sequences: intermediate bytes 0x20–0x2F, then a final byte 0x30–0x7E ("ESC 7", "ESC ( B").
  const scanned = scanFinal(text, start + 1, /^[ -/]*/, /[0-~]/);
  return scanned && [scanned[0], "", ""];
}

/* A sequence from text[from]: bytes that `body` matches, then one byte that `final` matches. */
function scanFinal(text, from, body, final) {
  const head = body.exec(text.slice(from, from + MAX_SEQUENCE))[0];
  const end = from + head.length;
  if (end >= text.length) return head.length >= MAX_SEQUENCE ? [end, "", ""] : null;
  if (!final.test(text[end])) return [end, "", ""];
  return [end + 1, text[end], head];
}

const CONTROL = /[\x00-\x1f\x7f]/g;

/** The text a terminal (and Jupyter's output area) shows for a stream written in chunks. */
export class TerminalText {
  constructor() {
    this.finished = []; // lines ended by "\n" and not yet taken: Segment[][]
    this.chars = []; // the open line, one entry per character…
    this.styles = []; // …and its style
    this.cursor = 0;
    this.style = PLAIN;
    this.held = ""; // the start of an escape sequence that the next chunk completes
  }

  /** Add a chunk of output (a string). */
  write(chunk) {
    const text = this.held + chunk;
    this.held = "";
    let i = 0;
    while (i < text.length) {
      CONTROL.lastIndex = i;
      const found = CONTROL.exec(text);
      const stop = found ? found.index : text.length;
      for (const char of text.slice(i, stop)) this.put(char);
      if (!found) break;
      i = this.control(text, stop);
      if (i < 0) {
        this.held = text.slice(stop);
        break;
      }
    }
  }

  /** The lines ended since the last call, each a list of segments; they will not change any more. */
  takeFinishedLines() {
    const lines = this.finished;
    this.finished = [];
    return lines;
  }

  /** The segments of the line still open (it changes with "\r", "\b" and what comes next). */
  openLine() {
    return segments(this.chars, this.styles);
  }

  put(char) {
    while (this.chars.length < this.cursor) {
      this.chars.push(" ");
      this.styles.push(PLAIN);
    }
    this.chars[this.cursor] = char;
    this.styles[this.cursor] = this.style;
    this.cursor++;
  }

  /* Apply the control character at text[i]; the index after it, or -1 if a sequence is incomplete. */
  control(text, i) {
    const char = text[i];
    if (char === "\n") {
      this.finished.push(this.openLine());
      this.chars = [];
      this.styles = [];
      this.cursor = 0;
    } else if (char === "\r") {
      this.cursor = 0;
    } else if (char === "\b") {
      this.backspace();
    } else if (char === "\t") {
      this.put(char);
    } else if (char === "\x1b") {
      const scanned = scanEscape(text, i);
      if (!scanned) return -1;
      const [end, final, params] = scanned;
      if (final === "m" && /^[0-9;]*$/.test(params)) this.style = applySGR(this.style, params);
      else if (final === "K" && /^[0-2]?$/.test(params)) this.eraseInLine(Number(params || 0));
      return end;
    }
    return i + 1;
  }

  backspace() {
    if (this.cursor === 0) return;
    if (this.cursor >= this.chars.length) {
      this.chars.length = this.styles.length = this.cursor - 1;
    }
    this.cursor--;
  }

  /* ESC[K: 0 erases from the cursor to the end of the line, 1 up to the cursor, 2 the whole line. */
  eraseInLine(mode) {
    if (mode === 0 || mode === 2) this.chars.length = this.styles.length = Math.min(this.chars.length, this.cursor);
    if (mode === 1 || mode === 2) {
      for (let i = 0; i < Math.min(this.cursor + 1, this.chars.length); i++) {
        this.chars[i] = " ";
        this.styles[i] = PLAIN;
      }
    }
  }
}

/* Runs of equal style as segments. */
function segments(chars, styles) {
  const out = [];
  let start = 0;
  for (let i = 1; i <= chars.length; i++) {
    if (i === chars.length || styles[i] !== styles[start]) {
      out.push({ text: chars.slice(start, i).join(""), ...describe(styles[start]) });
      start = i;
    }
  }
  return out;
}

/** All the lines of a whole text (each a list of segments), the last one included even if empty. */
export function render(text) {
  const terminal = new TerminalText();
  terminal.write(text);
  return [...terminal.takeFinishedLines(), terminal.openLine()];
}

/** Append segments to a DOM element as text nodes and <span>s with classes (never as HTML). */
export function appendSegments(parent, segs) {
  const doc = parent.ownerDocument;
  for (const segment of segs) {
    if (!segment.classes.length && !segment.color && !segment.background) {
      parent.appendChild(doc.createTextNode(segment.text));
      continue;
    }
    const span = doc.createElement("span");
    if (segment.classes.length) span.className = segment.classes.join(" ");
    if (segment.color) span.style.color = segment.color;
    if (segment.background) span.style.backgroundColor = segment.background;
    span.appendChild(doc.createTextNode(segment.text));
    parent.appendChild(span);
  }
}

/** A stream's output element (a <pre>) that shows written chunks as a terminal would. */
export class TerminalOutput {
  constructor(element) {
    this.element = element;
    this.terminal = new TerminalText();
    this.open = element.ownerDocument.createElement("span"); // the open line, redrawn on each write
    element.appendChild(this.open);
  }

  write(chunk) {
    this.terminal.write(chunk);
    const doc = this.element.ownerDocument;
    for (const line of this.terminal.takeFinishedLines()) {
      const done = doc.createDocumentFragment();
      appendSegments(done, line);
      done.appendChild(doc.createTextNode("\n"));
      this.element.insertBefore(done, this.open);
    }
    this.open.replaceChildren();
    appendSegments(this.open, this.terminal.openLine());
  }
}
