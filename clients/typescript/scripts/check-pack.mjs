// Checks what npm pack would publish: the built package (dist/ as ES modules, dist/cjs/ as
// CommonJS with the package.json that marks it so), its sources (src/, which the source maps
// name), README.md and package.json — no tests, no test data, no built bot, nothing
// else a working copy may hold (an .env, a token file). CI runs it after the build.
import { execFileSync } from "node:child_process";

const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
const files = JSON.parse(out)[0].files.map((f) => f.path);
const allowed = (p) => p === "README.md" || p === "package.json" || /^dist\/(cjs\/)?[a-z]+\.(js|d\.ts|js\.map)$/.test(p) || p === "dist/cjs/package.json" || /^src\/[a-z]+\.ts$/.test(p);
const stray = files.filter((p) => !allowed(p));
for (const want of ["dist/index.js", "dist/index.d.ts", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/cjs/package.json", "README.md"]) {
  if (!files.includes(want)) stray.push(`(missing) ${want}`);
}
if (stray.length > 0) {
  console.error(`npm pack would publish what it should not, or lacks what it needs: ${stray.join(", ")}; fix "files" in package.json`);
  process.exit(1);
}
console.log(`npm pack publishes ${files.length} files: dist/ (ES modules), dist/cjs/ (CommonJS), src/, README.md, package.json`);
