/* cell_output.js's pngSize: a live figure's <img> gets the PNG's width and height, as the build's do,
 * so that its room is kept before it decodes and nothing below it moves then. */
import assert from "node:assert/strict";
import { test } from "node:test";

import "./fake_dom.mjs"; // fetch of contract.json beside the module

const { pngSize } = await import("../../src/course_site/course_site/assets/js/cell_output.js");

function png(width, height) {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return bytes;
}

test("the size comes from the PNG's IHDR chunk, as text attributes", () => {
  assert.deepEqual(pngSize(png(500, 320)), { width: "500", height: "320" });
  assert.deepEqual(pngSize(png(70000, 3).buffer), { width: "70000", height: "3" }); // an ArrayBuffer too
});

test("what is not a PNG gets no size (the image then takes its own once decoded)", () => {
  assert.deepEqual(pngSize(new Uint8Array(10)), {});
  assert.deepEqual(pngSize(new Uint8Array(40).fill(1)), {});
});
