// Stand-ins for the two sides of the Python worker: the worker as the page sees it (FakeWorker, for kernel.js
// and what runs on it) and the worker's own global scope (WorkerSelf, for its modules), each message checked
// against contract.json.
import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { checkMessage } from "./contract.mjs";

/* The Python worker as the page sees it: what the page posts to it, and `send` to answer as the worker does. */
export class FakeWorker {
  static made = [];

  constructor(url, options) {
    Object.assign(this, { url, options, posted: [], terminated: false });
    FakeWorker.made.push(this);
  }

  /* `posted`: the messages about Python; the page's words (a "strings" message, sent first) are `catalogue`. */
  postMessage(message) {
    checkMessage("toWorker", message); // as contract.json types it
    if (message.type === "strings") this.catalogue = message.catalogue;
    else this.posted.push(message);
  }

  terminate() {
    this.terminated = true;
  }

  /* The worker sends `message` (ignored once terminated: the kernel has let go of it). */
  send(message) {
    this.onmessage?.({ data: checkMessage("toPage", message) });
  }

  runs() {
    return this.posted.filter((m) => m.type === MessageType.RUN);
  }
}

/* The Python worker's global scope (`self`) as its modules post to the page from it, with `properties` of
 * its own: each message, checked against contract.json, kept in `posted` and its transfer list in `transfers`. */
export class WorkerSelf {
  posted = [];
  transfers = [];

  constructor(properties = {}) {
    Object.assign(this, properties);
  }

  postMessage = (message, transfer) => {
    this.posted.push(checkMessage("toPage", message)); // as contract.json types it
    this.transfers.push(transfer);
  };

  /* Forget what was posted so far. */
  clear() {
    this.posted.length = 0;
    this.transfers.length = 0;
  }
}
