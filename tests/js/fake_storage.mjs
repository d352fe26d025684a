// Web Storage stand-ins (localStorage, sessionStorage) for the tests of the page's modules that keep a
// learner's things in it: storage in memory, and storage that the browser turned off.

/* Storage in a Map (`items`), with its key(i) and length; `full(key)` makes a write of that key throw, as
 * full storage does. */
export class MemoryStorage {
  constructor(entries = {}) {
    this.items = new Map(Object.entries(entries));
    this.full = () => false;
  }

  get length() {
    return this.items.size;
  }

  key(i) {
    return [...this.items.keys()][i] ?? null;
  }

  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }

  setItem(key, value) {
    if (this.full(key)) throw new DOMException("full", "QuotaExceededError");
    this.items.set(key, String(value));
  }

  removeItem(key) {
    this.items.delete(key);
  }

  clear() {
    this.items.clear();
  }
}

/* Storage whose every call throws, as where the browser turned it off. */
export const DENIED = new Proxy(
  {},
  {
    get: () => {
      throw new DOMException("denied", "SecurityError");
    },
  },
);
