// A few DOM calls, recorded: the stand-in for a browser's document that the tests of the page's
// modules give them in Node (elements found by the selectors a test names, text as text nodes).
import { readFile } from "node:fs/promises";
import "./english.mjs"; // the page's words: the English catalogue

/* fetch for file: URLs too, as a page's server answers them: dom_names.js fetches contract.json beside it. */
const networkFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const target = new URL(url instanceof Request ? url.url : url);
  if (target.protocol !== "file:") return networkFetch(url, init);
  return new Response(await readFile(target), { headers: { "Content-Type": "application/json" } });
};


export class FakeNode {
  constructor(name, text = null) {
    Object.assign(this, { nodeName: name, text, childNodes: [] });
  }

  get textContent() {
    return this.text ?? this.childNodes.map((node) => node.textContent).join("");
  }

  set textContent(value) {
    this.childNodes = [new FakeNode("#text", String(value))];
  }

  cloneNode(deep) {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this);
    copy.childNodes = deep ? this.childNodes.map((node) => node.cloneNode(true)) : [];
    return copy;
  }
}

export class FakeElement extends FakeNode {
  /* `found`: selector -> element(s), what querySelector and querySelectorAll answer. */
  constructor(name, found = {}) {
    super(name.toUpperCase());
    Object.assign(this, { found, dataset: {}, attributes: {}, hidden: false, id: "", className: "", listeners: {} });
    this.classList = {
      names: new Set(),
      toggle: (name, on) => (on ? this.classList.names.add(name) : this.classList.names.delete(name)),
      contains: (name) => this.classList.names.has(name),
    };
    this.focused = false;
  }

  querySelector(selector) {
    const found = this.found[selector];
    return (Array.isArray(found) ? found[0] : found) ?? null;
  }

  querySelectorAll(selector) {
    const found = this.found[selector] ?? [];
    return Array.isArray(found) ? found : [found];
  }

  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }

  getAttribute(name) {
    return this.attributes[name] ?? null;
  }

  removeAttribute(name) {
    delete this.attributes[name];
  }

  append(...nodes) {
    this.childNodes.push(...nodes.map((node) => (typeof node === "string" ? new FakeNode("#text", node) : node)));
  }

  replaceChildren(...nodes) {
    this.childNodes = [];
    this.append(...nodes);
  }

  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }

  dispatch(type, event = {}) {
    for (const listener of this.listeners[type] ?? []) listener({ type, target: this, ...event });
  }

  click() {
    this.dispatch("click");
  }

  focus() {
    this.focused = true;
  }
}

export const fakeDocument = {
  createElement: (name) => new FakeElement(name),
  createTextNode: (text) => new FakeNode("#text", text),
};

/* The child nodes of `element` as [name, text] pairs. */
export const children = (element) => element.childNodes.map((node) => [node.nodeName, node.textContent]);
