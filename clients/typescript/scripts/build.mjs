// Builds the package twice from src/: ES modules into dist/ (package.json's "import") and
// CommonJS into dist/cjs/ ("require"), each with its own declarations. dist/cjs/package.json
// marks that folder CommonJS, since the package itself is "type": "module".
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(pkg, "node_modules", "typescript", "bin", "tsc");
rmSync(join(pkg, "dist"), { recursive: true, force: true });
for (const config of ["tsconfig.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", config], { cwd: pkg, stdio: "inherit" });
}
mkdirSync(join(pkg, "dist", "cjs"), { recursive: true });
writeFileSync(join(pkg, "dist", "cjs", "package.json"), '{\n  "type": "commonjs"\n}\n');
