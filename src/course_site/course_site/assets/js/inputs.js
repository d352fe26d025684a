/* A cell's inputs: sliders, selects and checkboxes that re-run the cell as the learner moves them.
 *
 * The build (inputs_html.py) writes, inside the cell's region (data-inputs="pos method"):
 *   <fieldset class="course-inputs" disabled><legend>the author's label, or the heading above</legend>
 *     <div class="course-inputs__item"><label for=…>…</label><input type="range" …>
 *       <output class="course-inputs__value">10</output></div> …   (a slider's readout; a select
 *     or a checkbox shows its own value)
 *     <p class="course-inputs__announce" role="status"></p>
 *     <template class="course-inputs__variant" data-combination="10,2,1"> that output </template> …
 *   </fieldset>
 * and the inputs' specs as JSON in data-inputs-spec (inputs.py: Input.spec).  A value is named by
 * its position in the input's list of values; a combination by the positions joined with commas.
 *
 * This module enables the fieldset, keeps the values (and restores them: edits.js), writes the
 * Python lines that bind them (`bindings()`, read by the kernel when the run is sent, so a queued
 * run takes the latest values), and tells the cell (cell.js) of every change.
 */
import names from "./dom_names.js";
import { t } from "./strings.js";

const INPUTS = names.inputs;

/** Python's literal of a slider's float: JS and Python both write the shortest repr; Python keeps ".0". */
function pythonFloat(value) {
  const text = String(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

/** The value of `spec` (a slider) at `position`, exactly as inputs.py computes it. */
function sliderValue(spec, position) {
  return spec.float ? (spec.imin + position * spec.istep) / spec.scale : spec.min + position * spec.step;
}

/** How many values input `spec` has. */
function countOf(spec) {
  if (spec.kind === "checkbox") return 2;
  if (spec.kind === "select") return spec.choices.length;
  return Math.round((spec.max - spec.min) / spec.step) + 1;
}

export class CellInputs extends EventTarget {
  /**
   * @param {HTMLElement} region the cell's region (data-inputs-spec)
   * @param {HTMLFieldSetElement} fieldset
   * @param {{loadInputs(): object|null, saveInputs(values: object): void, forgetInputs(): void}} store
   */
  constructor(region, fieldset, store) {
    super();
    this.fieldset = fieldset;
    this.store = store;
    this.specs = JSON.parse(region.getAttribute(INPUTS.spec) || "[]");
    this.defaults = this.specs.map((spec) => spec.default);
    this.controls = this.specs.map((spec) => fieldset.querySelector(`[${INPUTS.input}="${CSS.escape(spec.name)}"]`));
    this.outputs = this.controls.map((control) => control.parentElement.querySelector(`.${INPUTS.value}`));
    this.announcer = fieldset.querySelector(`.${INPUTS.announce}`);
    this.positions = this.restored();
    this.controls.forEach((control, i) => {
      this.show(i);
      control.addEventListener("input", () => this.changed(i));
      control.addEventListener("change", () => this.changed(i));
    });
    fieldset.disabled = false;
  }

  /** The kept positions, each checked against its input (else its default). */
  restored() {
    const kept = this.store.loadInputs() || {};
    return this.specs.map((spec, i) => {
      const position = kept[spec.name];
      return Number.isInteger(position) && position >= 0 && position < countOf(spec) ? position : this.defaults[i];
    });
  }

  /** True when every input is at its default. */
  get atDefaults() {
    return this.positions.every((position, i) => position === this.defaults[i]);
  }

  /** The combination as the page names it (data-combination). */
  get key() {
    return this.positions.join(",");
  }

  /** The Python lines that bind each input's name to its value. */
  bindings() {
    return this.specs.map((spec, i) => `${spec.name} = ${this.python(spec, this.positions[i])}\n`).join("");
  }

  python(spec, position) {
    if (spec.kind === "checkbox") return position ? "True" : "False";
    if (spec.kind === "select") return spec.python[position];
    const value = sliderValue(spec, position);
    return spec.float ? pythonFloat(value) : String(value);
  }

  /** `pos = 12, method = yarn`: the values, as the announcement says them. */
  describe() {
    return this.specs.map((spec, i) => t("inputs.value", { name: spec.label || spec.name, value: this.text(spec, this.positions[i]) })).join(", ");
  }

  text(spec, position) {
    if (spec.kind === "checkbox") return t(position ? "inputs.on" : "inputs.off");
    if (spec.kind === "select") return spec.choices[position];
    return String(sliderValue(spec, position));
  }

  /** The pre-rendered output of the current combination (a template), or null. */
  precomputed() {
    return this.fieldset.querySelector(`template.${INPUTS.variant}[${INPUTS.combination}="${this.key}"]`);
  }

  /** Read control `i`; on a new value, keep it and tell the cell ("change"). */
  changed(i) {
    const control = this.controls[i];
    const spec = this.specs[i];
    let position;
    if (spec.kind === "checkbox") position = control.checked ? 1 : 0;
    else if (spec.kind === "select") position = Number(control.value);
    else position = Math.round((Number(control.value) - spec.min) / spec.step);
    if (position === this.positions[i]) return;
    this.positions[i] = position;
    this.show(i);
    this.keep();
    this.dispatchEvent(new Event("change"));
  }

  /** Put control `i` and its shown value at the kept position. */
  show(i) {
    const spec = this.specs[i];
    const control = this.controls[i];
    const position = this.positions[i];
    if (spec.kind === "checkbox") control.checked = Boolean(position);
    else if (spec.kind === "select") control.value = String(position);
    else control.value = String(sliderValue(spec, position));
    if (this.outputs[i]) this.outputs[i].textContent = this.text(spec, position);
  }

  keep() {
    if (this.atDefaults) this.store.forgetInputs();
    else this.store.saveInputs(Object.fromEntries(this.specs.map((spec, i) => [spec.name, this.positions[i]])));
  }

  /** Back to the defaults (Reset); true if a value changed. */
  reset() {
    if (this.atDefaults) return false;
    this.positions = [...this.defaults];
    this.specs.forEach((_, i) => this.show(i));
    this.store.forgetInputs();
    this.dispatchEvent(new Event("change"));
    return true;
  }

  /** Say `text` once, politely (the fieldset's role="status"). */
  announce(text) {
    this.announcer.textContent = text;
  }
}
