/* The floor's Python worker (see bare.html): what any page needs at least to
 * run a numpy (or matplotlib) cell with the site's self-hosted Pyodide.
 * Plain, documented Pyodide use: importScripts(pyodide.js), then loadPyodide
 * with the packages to preload, then the imports.  For matplotlib, the site's
 * prebuilt font list is installed first (as a well-made page would), then the
 * lesson's heatmap cell (its code from the page's query) runs with plain exec
 * and its figure is saved to PNG, twice: the second run is the floor of a
 * warm re-run. */
"use strict";

const FONT_LIST = "/lib/python3.12/site-packages/matplotlib/fontlist.json";

const RUN_CELL = `
import io
import matplotlib.pyplot as plt

def run_cell(setup, code):
    namespace = {}
    exec(setup, namespace)
    exec(code, namespace)
    for number in plt.get_fignums():
        plt.figure(number).savefig(io.BytesIO(), format="png", dpi=100)
    plt.close("all")

run_cell
`;

function mark(name) {
  self.postMessage({ type: "mark", name, t: performance.timeOrigin + performance.now() });
}

/* style=site (a diagnostic): load Pyodide the way the site's worker once did.  Every
 * response is passed through a TransformStream into a new Response (the site
 * counts downloaded bytes so), and pyodide.js and pyodide.asm.js are fetched as
 * text and run from blob: URLs.  A constructed Response and a blob: script have
 * no HTTP-cache entry behind them, so V8 can neither use nor store its code
 * cache for the compiled wasm and the 1.2 MB asm.js on a later visit. */
function wrapFetch() {
  const nativeFetch = self.fetch.bind(self);
  self.fetch = (input, init) => nativeFetch(input, init).then((response) => {
    if (!response.ok || !response.body) return response;
    const counter = new TransformStream({ transform: (chunk, controller) => controller.enqueue(chunk) });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  });
}

async function importFromBlobs(urls) {
  const texts = urls.map((url) => fetch(url).then((r) => r.text()));
  for (const text of texts) {
    const blobURL = URL.createObjectURL(new Blob([await text], { type: "text/javascript" }));
    importScripts(blobURL);
    URL.revokeObjectURL(blobURL);
  }
}

self.onmessage = async ({ data }) => {
  try {
    mark("worker running");
    const siteStyle = data.style === "site";
    if (siteStyle) wrapFetch();
    const matplotlib = data.mode === "matplotlib";
    const fontList = matplotlib && data.fontlist
      ? fetch(data.fontlist).then((r) => {
        if (!r.ok) throw new Error(`${data.fontlist}: HTTP ${r.status}`);
        return r.arrayBuffer();
      })
      : null;
    if (siteStyle) await importFromBlobs([data.index + "pyodide.js", data.index + "pyodide.asm.js"]);
    else importScripts(data.index + "pyodide.js");
    mark("pyodide.js evaluated");
    const pyodide = await self.loadPyodide({
      indexURL: data.index,
      lockFileURL: data.lock,
      packages: matplotlib ? ["numpy", "matplotlib", "posenc"] : ["numpy"],
      env: { MPLBACKEND: "agg" },
      stdout: () => {},
      stderr: () => {},
    });
    mark("loadPyodide done (packages loaded)");
    pyodide.runPython("import numpy");
    mark("numpy imported");
    if (matplotlib) {
      if (fontList) {
        pyodide.FS.writeFile(FONT_LIST, new Uint8Array(await fontList));
        mark("font list written");
      }
      pyodide.runPython("import matplotlib.pyplot");
      mark("matplotlib.pyplot imported");
      const runCell = pyodide.runPython(RUN_CELL);
      runCell(data.setup, data.code);
      mark("figure drawn to PNG");
      runCell(data.setup, data.code);
      mark("figure drawn again");
    }
    self.postMessage({ type: "done" });
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.stack ? err.stack : err) });
  }
};
