// A stand-in for the Python worker, for the tests of the page's side of it (kernel.js and what runs on
// it): what the kernel posts to it, checked against contract.json, and a way to answer.
import { MessageType } from "../../src/course_site/course_site/assets/js/protocol.js";
import { checkMessage } from "./contract.mjs";

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
