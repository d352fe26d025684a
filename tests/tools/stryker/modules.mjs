// The browser modules that `make mutation-js` mutates, each with the Node test files
// (tests/js/<name>.test.mjs) that check it.  Run directly, it prints their names.
export const MODULES = {
  ansi: { file: "ansi.js", tests: ["ansi"] },
  exercise: { file: "exercise.js", tests: ["exercise"] },
  kernel: { file: "kernel.js", tests: ["kernel"] },
  network: { file: "worker/network.js", tests: ["network"] },
  output: { file: "worker/output.js", tests: ["output"] },
  page_kernel: { file: "page_kernel.js", tests: ["page_kernel", "page_kernel_boot"] },
  protocol: { file: "protocol.js", tests: ["protocol"] },
  cache_policy: { file: "cache_policy.js", tests: ["protocol", "service_worker"] },
  quiz: { file: "quiz.js", tests: ["quiz"] },
  signals: { file: "worker/signals.js", tests: ["signals"] },
  snapshot: { file: "worker/snapshot.js", tests: ["snapshot"] },
};

if (import.meta.url === new URL(`file://${process.argv[1]}`).href) console.log(Object.keys(MODULES).join(" "));
