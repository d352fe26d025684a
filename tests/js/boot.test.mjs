// The worker's settings file (assets/js/worker/boot.js: readSettings): a download that fails or answers
// with an error status is a boot error naming the file, which the page shows as "Python could not be loaded: …".
import assert from "node:assert/strict";
import { test } from "node:test";

import "./english.mjs"; // the worker's words: the English catalogue the page sends

globalThis.self ??= globalThis; // boot.js is a worker's module

const { readSettings } = await import("../../src/course_site/course_site/assets/js/worker/boot.js");

const URL_ = new URL("https://learn.example.org/course/assets/course/worker-settings.json");

test("the settings file is read as JSON", async () => {
  const file = await readSettings(URL_, Promise.resolve(new Response('{"version": "3f2a9c"}')));
  assert.deepEqual(file, { version: "3f2a9c" });
});

test("a settings download that fails names the file and keeps the browser's words", async () => {
  await assert.rejects(readSettings(URL_, Promise.reject(new TypeError("Load failed"))), (err) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, "could not load /course/assets/course/worker-settings.json (Load failed)");
    return true;
  });
});

test("a settings file answered with an error status names the file and the status", async () => {
  await assert.rejects(
    readSettings(URL_, Promise.resolve(new Response("gone", { status: 404 }))),
    /^Error: could not load \/course\/assets\/course\/worker-settings\.json: HTTP 404$/,
  );
});
