/* A worker of its own that reads the site's kept snapshot file and hashes it (snapshot.js:
 * readKeptFile), then compiles the shared libraries among its package files (compileKeptLibraries),
 * so that the Python worker's thread, which loads Pyodide's scripts meanwhile, spends none of its
 * time on the 33 MB, and its install of numpy does not wait for a compile.  Started by main.js as
 * soon as the Python worker runs, where the file exists; posts readKeptFile's answer (its
 * buffers transferred, not copied), then {libraries: Map path -> WebAssembly.Module} (those
 * that compiled), and ends.
 */
import { compileKeptLibraries, readKeptFile } from "./snapshot.js";

const answer = await readKeptFile();
const compiling = answer.file ? compileKeptLibraries(answer.file) : new Map(); // before the bytes are handed on
self.postMessage(answer, answer.file ? [answer.file.bytes.buffer, answer.file.packageBytes.buffer] : []);
const libraries = new Map();
for (const [path, module] of compiling) {
  try {
    libraries.set(path, await module);
  } catch {
    // left to Pyodide's loader, which compiles it from the file and says what is wrong
  }
}
self.postMessage({ libraries });
self.close();
