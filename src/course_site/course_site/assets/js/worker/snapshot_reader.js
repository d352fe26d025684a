/* A worker of its own that reads the site's kept snapshot file and hashes it (snapshot.js:
 * readKeptFile), so that the Python worker's thread, which loads Pyodide's scripts meanwhile,
 * spends none of its time on the 33 MB.  Started by main.js as soon as the Python worker runs;
 * posts readKeptFile's answer once (its buffers transferred, not copied) and ends.
 */
import { readKeptFile } from "./snapshot.js";

const answer = await readKeptFile();
const buffers = answer.file ? [answer.file.bytes.buffer, answer.file.packageBytes.buffer] : [];
self.postMessage(answer, buffers);
self.close();
