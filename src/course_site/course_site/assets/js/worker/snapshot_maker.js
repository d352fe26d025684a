/* A worker of its own that makes the memory snapshot (snapshot.js: makeSnapshot), so that
 * the learner's Python worker stays free: a Run clicked meanwhile starts at once.  Started
 * by boot.js (keepSnapshot) with one message, {settings, options, stdlibSha256, record, packages};
 * says {started} as its script runs, answers {made: {bytes} or {reason}} and is then terminated
 * (its other messages, {started} and network.js's progress, are not answers).  Classic, like
 * main.js: Pyodide's scripts load with importScripts (network.js: from the offline copies when offline).
 */
"use strict";

self.postMessage({ started: true }); // its script came: boot.js stops waiting for it to start

self.onmessage = async ({ data }) => {
  let endWatch = () => {};
  try {
    const { bootStep, watchFor } = await import("./boot_watch.js");
    endWatch = watchFor("the snapshot maker"); // a maker that hangs says what it waits for
    bootStep("loading Pyodide's scripts");
    const network = await import("./network.js");
    const { makeSnapshot } = await import("./snapshot.js");
    const { settings, options, stdlibSha256, record, packages } = data;
    network.configure(settings);
    for (const url of [settings.indexURL + "pyodide.js", settings.indexURL + "pyodide.asm.js"]) await network.importScript(url);
    // The wasm and the stdlib this boot used, from their offline copies (else fetched, the stdlib checked again).
    if (settings.stdlib && options.stdLibURL === settings.stdlib.url) network.requireSha256(options.stdLibURL, stdlibSha256);
    for (const url of [settings.indexURL + "pyodide.asm.wasm", options.stdLibURL]) network.provideKept(url);
    const quiet = { stdout: () => {}, stderr: () => {} };
    bootStep("booting Python and making its snapshot");
    self.postMessage({ made: await makeSnapshot({ ...options, ...quiet }, record, packages) });
  } catch (err) {
    self.postMessage({ made: { reason: `snapshot maker failed: ${err.message || err}` } });
  } finally {
    endWatch();
  }
};
