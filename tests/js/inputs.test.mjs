// A cell's inputs (assets/js/inputs.js): the Python lines that bind their values, as the build writes
// them (inputs.py), the values kept and restored, Reset; on stand-in controls. Run by
// tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import "./fake_dom.mjs"; // fetch of contract.json beside the module

globalThis.CSS ??= { escape: (text) => text };
const { CellInputs } = await import("../../src/course_site/course_site/assets/js/inputs.js");

/* The build's specs (inputs.py Input.spec) of: n = slider(0, 63, value=10), f = slider(0.5, 2.0,
 * value=1.0, step=0.25), m = select(["linear", "yarn"], value="yarn"), s = select([2.0, 4.0]),
 * c = checkbox(True, label="show") */
const SPECS = [
  { name: "n", kind: "slider", label: "", default: 10, min: 0, max: 63, step: 1, float: false, scale: 1, imin: 0, istep: 1 },
  { name: "f", kind: "slider", label: "", default: 2, min: 0.5, max: 2.0, step: 0.25, float: true, scale: 100, imin: 50, istep: 25 },
  { name: "m", kind: "select", label: "", default: 1, choices: ["linear", "yarn"], python: ["'linear'", "'yarn'"] },
  { name: "s", kind: "select", label: "", default: 0, choices: ["2.0", "4.0"], python: ["2.0", "4.0"] },
  { name: "c", kind: "checkbox", label: "show", default: 1 },
];

class Control {
  constructor() {
    this.listeners = {};
    this.value = "";
    this.checked = false;
    this.output = { textContent: "" };
    this.parentElement = { querySelector: () => this.output };
  }
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }
  fire(type) {
    for (const fn of this.listeners[type] ?? []) fn();
  }
}

function make(kept = null) {
  const controls = Object.fromEntries(SPECS.map((spec) => [spec.name, new Control()]));
  const fieldset = {
    disabled: true,
    querySelector: (selector) => {
      const name = /data-input="([^"]+)"/.exec(selector);
      if (name) return controls[name[1]];
      if (selector.includes("announce")) return { textContent: "" };
      return null;
    },
  };
  const region = { getAttribute: () => JSON.stringify(SPECS) };
  const store = {
    kept,
    loadInputs() { return this.kept; },
    saveInputs(values) { this.kept = values; },
    forgetInputs() { this.kept = null; },
  };
  return { inputs: new CellInputs(region, fieldset, store), controls, store, fieldset };
}

test("the defaults bind as Python literals of their type, as the build writes them", () => {
  const { inputs, fieldset, controls } = make();
  assert.equal(inputs.bindings(), "n = 10\nf = 1.0\nm = 'yarn'\ns = 2.0\nc = True\n");
  assert.equal(fieldset.disabled, false);
  assert.equal(controls.n.output.textContent, "10");
  assert.equal(controls.c.output.textContent, "on");
  assert.equal(inputs.key, "10,2,1,0,1");
  assert.ok(inputs.atDefaults);
});

test("a change is read from its control, kept, and told once; the same value again is not", () => {
  const { inputs, controls, store } = make();
  let changes = 0;
  inputs.addEventListener("change", () => changes++);
  controls.f.value = "1.75";
  controls.f.fire("input");
  controls.f.fire("change");
  controls.c.checked = false;
  controls.c.fire("change");
  assert.equal(changes, 2);
  assert.equal(inputs.bindings(), "n = 10\nf = 1.75\nm = 'yarn'\ns = 2.0\nc = False\n");
  assert.deepEqual(store.kept, { n: 10, f: 5, m: 1, s: 0, c: 0 });
  assert.equal(controls.f.output.textContent, "1.75");
});

test("kept values are restored when they fit the inputs, and Reset brings back the defaults", () => {
  const { inputs, controls, store } = make({ n: 63, f: 99, m: "x", c: 0 });
  assert.equal(inputs.bindings(), "n = 63\nf = 1.0\nm = 'yarn'\ns = 2.0\nc = False\n");
  assert.equal(controls.n.value, "63");
  assert.equal(inputs.reset(), true);
  assert.equal(store.kept, null);
  assert.ok(inputs.atDefaults);
  assert.equal(inputs.reset(), false);
});
