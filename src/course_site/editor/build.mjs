// Builds ../course_site/assets/vendor/codemirror.js (one minified ES module) and
// codemirror.LICENSE.txt (the licences of every npm package that ended up in it).
// Usage: cd src/course_site/editor && npm ci && node build.mjs
import { build } from "esbuild";
import { readFileSync, writeFileSync, mkdirSync, statSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, "..", "course_site", "assets", "vendor");
const outFile = join(outDir, "codemirror.js");
mkdirSync(outDir, { recursive: true });

const result = await build({
  entryPoints: [join(here, "entry.js")],
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  legalComments: "none",
  metafile: true,
  outfile: outFile,
  banner: { js: "/* CodeMirror 6 bundle for course_site; licences: codemirror.LICENSE.txt */" },
});

// Collect the packages that contributed code, with their versions and licences.
const pkgs = new Map();
const contributed = Object.values(result.metafile.outputs)[0].inputs;
for (const [input, info] of Object.entries(contributed)) {
  if (!info.bytesInOutput) continue;
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (!m) continue;
  const root = join(here, "node_modules", m[1]);
  if (pkgs.has(m[1])) continue;
  const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const licFile = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => join(root, f)).find(existsSync);
  pkgs.set(m[1], { version: meta.version, license: meta.license, text: licFile ? readFileSync(licFile, "utf8").trim() : "" });
}
let notice = "Third-party code bundled in codemirror.js (built by src/course_site/editor/build.mjs)\n\n";
for (const [name, p] of [...pkgs].sort()) notice += `- ${name} ${p.version} (${p.license})\n`;
for (const [name, p] of [...pkgs].sort()) notice += `\n\n==== ${name} ${p.version} ====\n\n${p.text}\n`;
writeFileSync(join(outDir, "codemirror.LICENSE.txt"), notice);

const size = statSync(outFile).size;
const gz = gzipSync(readFileSync(outFile)).length;
for (const [name] of [...pkgs].sort()) {
  const bytes = Object.entries(contributed).filter(([k]) => k.includes(`node_modules/${name}/`)).reduce((a, [, v]) => a + v.bytesInOutput, 0);
  console.log(`  ${name}: ${(bytes / 1024).toFixed(1)} KiB`);
}
console.log(`codemirror.js: ${(size / 1024).toFixed(1)} KiB (${(gz / 1024).toFixed(1)} KiB gzipped), ${pkgs.size} packages`);
