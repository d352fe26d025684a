/* Download progress, posted to the page while Python boots ("core") and while
 * a run loads wheels ("packages").  Bytes are counted as response bodies stream
 * in (decompressed, like the sizes in the settings file). */
import { MessageType } from "../protocol.js";

const MIN_INTERVAL_MS = 80;

export const progress = { phase: "core", loaded: 0, total: 0, id: null, packages: [] };
let lastPost = 0;

/** Tell the page; without `force`, at most every MIN_INTERVAL_MS. */
export function postProgress(force) {
  const now = performance.now();
  if (!force && now - lastPost < MIN_INTERVAL_MS) return;
  lastPost = now;
  self.postMessage({
    type: MessageType.PROGRESS, phase: progress.phase, loaded: progress.loaded,
    total: progress.total, id: progress.id, packages: progress.packages,
  });
}

/* The settings' download_bytes, keyed by the package a learner imports
 * ("matplotlib" = matplotlib and the dependencies it adds beyond numpy). */
let downloadBytes = {};

export function setDownloadBytes(sizes) {
  downloadBytes = sizes || {};
}

/** Expected bytes for a "Loading a, b, c" step: the sizes of the names that
 * have one; 0 means unknown (the page then shows the loaded bytes only). */
export function packageSizes(names) {
  let total = 0;
  for (const name of names) {
    const size = downloadBytes[name] ?? downloadBytes[name.toLowerCase().replace(/_/g, "-")];
    if (name !== "core" && typeof size === "number") total += size;
  }
  return total;
}
