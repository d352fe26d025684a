// The messages between page and worker as contract.json types them: checkMessage(direction, msg) throws
// unless `msg` is one of them with exactly its fields (a field typed "x?" may be left out or undefined).
import { readFileSync } from "node:fs";

export const CONTRACT = JSON.parse(
  readFileSync(new URL("../../src/course_site/course_site/assets/js/contract.json", import.meta.url), "utf8"),
);

/* Does `value` have the contract's `type` ("number", "string|null", "ok|error", "ArrayBuffer", …)? */
export function hasType(value, type) {
  return type.split("|").some((one) => {
    if (one === "null") return value === null;
    if (one === "array") return Array.isArray(value);
    if (one === "object") return value !== null && typeof value === "object" && !Array.isArray(value);
    if (one === "ArrayBuffer" || one === "SharedArrayBuffer") return value?.constructor?.name === one;
    if (["boolean", "number", "string"].includes(one)) return typeof value === one;
    return value === one; // one of a list of string values
  });
}

/** The contract's fields of message `type` sent `direction` ("toWorker" | "toPage"), or undefined. */
export function fieldsOf(direction, type) {
  return CONTRACT.messages[direction][type];
}

export function checkMessage(direction, msg) {
  const fields = fieldsOf(direction, msg?.type);
  if (!fields) throw new Error(`${direction}: no message type ${JSON.stringify(msg?.type)} in contract.json`);
  const wanted = new Map(Object.entries(fields).map(([name, type]) => [name.replace(/\?$/, ""), [type, name.endsWith("?")]]));
  for (const [name, value] of Object.entries(msg)) {
    if (name === "type") continue;
    if (!wanted.has(name)) throw new Error(`${msg.type}: field ${name} is not in contract.json`);
    const [type, optional] = wanted.get(name);
    if (!(optional && value === undefined) && !hasType(value, type)) {
      throw new Error(`${msg.type}: ${name} is ${JSON.stringify(value)}, not ${type}`);
    }
  }
  for (const [name, [, optional]] of wanted) {
    if (!optional && !(name in msg)) throw new Error(`${msg.type}: field ${name} is missing`);
  }
  return msg;
}
