/* A run's output on its way to the host (the page, or the build under Node): stdout/stderr streams,
 * capped and batched, and the results and figures that Python emits (module _course_host, called
 * from course_kernel/bridge.py).  run.js hands it the host's `post`. */
import { MessageType } from "../protocol.js";
import { t } from "../strings.js";

const BURST_WRITES = 20; // more writes than this in BURST_MS: batch them
const BURST_MS = 100;
const BATCH_CHARS = 16384;
const BATCH_MS = 40;

let decoders = null;
let pendingText = "";
let pendingStream = null;
let lastFlush = 0;
let current = null; // the run whose output this is, between openRun and closeRun
let post = (message, transfer) => self.postMessage(message, transfer);

/** Send messages with `send(message, transfer?)` (the host's: postMessage, or a line on stdout). */
export function usePost(send) {
  post = send;
}

/** Start collecting the output of run `id`, within `maxLines` and `maxChars`; returns the run. */
export function openRun(id, maxLines, maxChars) {
  current = {
    id, maxLines, maxChars,
    lines: 0, chars: 0, capped: false,
    droppedLines: 0, droppedBytes: 0, lastDroppedNewline: true,
  };
  pendingText = "";
  pendingStream = null;
  decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  return current;
}

/** The id of the run whose output is being collected, or null. */
export function openRunId() {
  return current ? current.id : null;
}

/** True while `run`'s output is still being collected. */
export function isOpen(run) {
  return current === run;
}

/** Send what is pending and the totals of what was dropped; stop collecting. */
export function closeRun() {
  const c = current;
  flushStream();
  decoders.stdout.decode();
  decoders.stderr.decode();
  if (c.droppedBytes) {
    const lines = c.droppedLines + (c.lastDroppedNewline ? 0 : 1);
    post({ type: MessageType.DROPPED, id: c.id, lines, chars: c.droppedBytes });
  }
  current = null;
}

/** Stop collecting without a word (Pyodide died). */
export function abandonRun() {
  current = null;
}

/** Post the pending stream text. */
export function flushStream() {
  if (current && pendingText) {
    post({ type: MessageType.STREAM, id: current.id, stream: pendingStream, text: pendingText });
  }
  pendingText = "";
  pendingStream = null;
  lastFlush = performance.now();
}

function countNewlines(text) {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function dropBytes(buf) {
  const c = current;
  c.droppedBytes += buf.length;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) c.droppedLines++;
  c.lastDroppedNewline = buf.length ? buf[buf.length - 1] === 10 : c.lastDroppedNewline;
}

function announceCap() {
  flushStream();
  post({
    type: MessageType.CAPPED, id: current.id, maxLines: current.maxLines, maxChars: current.maxChars,
  });
}

/** Pyodide's raw write for `stream` ("stdout" | "stderr"): bytes in, bytes consumed out. */
export function writeStream(stream, buf) {
  const c = current;
  if (!c) return buf.length; // output outside a run (should not happen): discard
  if (c.capped) {
    dropBytes(buf);
    return buf.length;
  }
  const text = decoders[stream].decode(buf, { stream: true });
  if (!text) return buf.length;
  const newlines = countNewlines(text);
  if (c.lines + newlines > c.maxLines || c.chars + text.length > c.maxChars) {
    // Keep what fits, drop the rest, stop streaming for this run.
    let cut = Math.min(text.length, Math.max(0, c.maxChars - c.chars));
    let count = c.lines;
    if (count >= c.maxLines) cut = 0;
    for (let i = text.indexOf("\n"); i !== -1 && i < cut; i = text.indexOf("\n", i + 1)) {
      if (++count >= c.maxLines) { cut = i + 1; break; }
    }
    const kept = text.slice(0, cut);
    const dropped = text.slice(cut);
    c.capped = true;
    c.droppedBytes += dropped.length;
    c.droppedLines += countNewlines(dropped);
    c.lastDroppedNewline = dropped.endsWith("\n");
    if (kept) appendPending(stream, kept);
    announceCap();
    return buf.length;
  }
  c.lines += newlines;
  c.chars += text.length;
  appendPending(stream, text);
  return buf.length;
}

// The worker is busy running Python, so no timer can flush later: each write
// is posted at once, unless writes come fast (more than BURST_WRITES in
// BURST_MS), then they are batched (BATCH_CHARS or BATCH_MS).  The output cap
// bounds the total anyway.
let burstStart = 0;
let burstCount = 0;

function appendPending(stream, text) {
  if (pendingStream && pendingStream !== stream) flushStream();
  pendingStream = stream;
  pendingText += text;
  const now = performance.now();
  if (now - burstStart > BURST_MS) {
    burstStart = now;
    burstCount = 0;
  }
  if (++burstCount <= BURST_WRITES || pendingText.length > BATCH_CHARS || now - lastFlush > BATCH_MS) flushStream();
}

/** The JS module `_course_host` that course_kernel/bridge.py imports (with the host's `official_stdlib`). */
export const host = {
  emit_text(kind, text) {
    flushStream();
    if (!current) return;
    const over = text.length - current.maxChars;
    if (over > 0) text = `${text.slice(0, current.maxChars)}\n${t("output.cut", { count: over })}`;
    post({ type: kind, id: current.id, text });
  },
  /* A figure's PNG in its scheme, and (a run drawing both schemes: the build's) its `slate` PNG. */
  emit_figure(png, alt, scheme, textPx, pngDark) {
    flushStream();
    if (!current) return;
    const bytes = copy(png).buffer;
    const dark = pngDark ? copy(pngDark).buffer : null;
    const transfer = dark ? [bytes, dark] : [bytes];
    post({ type: MessageType.FIGURE, id: current.id, png: bytes, alt, scheme, textPx, ...(dark ? { pngDark: dark } : {}) }, transfer);
  },
};

/* A PNG handed over by Python (a Uint8Array over Pyodide's memory, or bytes): a copy of its own. */
function copy(png) {
  return png.slice ? png.slice() : new Uint8Array(png);
}
