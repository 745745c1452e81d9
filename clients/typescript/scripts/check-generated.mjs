// Checks that src/schema.ts is what openapi-typescript generates from gateway/openapi.yaml today:
// CI runs it, so a stale copy fails with the one command that fixes it. An argument, if any, is
// an OpenAPI file to generate from instead (to try the check on a changed copy).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const spec = process.argv[2] ? resolve(process.argv[2]) : resolve(pkg, "../../gateway/openapi.yaml");
const committed = join(pkg, "src", "schema.ts");
const dir = mkdtempSync(join(tmpdir(), "inquiry-bot-schema-"));
try {
  const fresh = join(dir, "schema.ts");
  execFileSync(join(pkg, "node_modules", ".bin", "openapi-typescript"), [spec, "-o", fresh], { stdio: ["ignore", "ignore", "inherit"] });
  const want = readFileSync(fresh, "utf8");
  const have = readFileSync(committed, "utf8");
  if (want !== have) {
    const a = have.split("\n");
    const b = want.split("\n");
    let line = 0;
    while (line < a.length && line < b.length && a[line] === b[line]) line++;
    console.error(`clients/typescript/src/schema.ts is stale: it differs from what gateway/openapi.yaml generates from line ${line + 1} on;`);
    console.error(`  committed: ${JSON.stringify(a[line] ?? "(end of file)")}`);
    console.error(`  generated: ${JSON.stringify(b[line] ?? "(end of file)")}`);
    console.error("run npm run generate in clients/typescript and commit src/schema.ts");
    process.exit(1);
  }
  console.log("clients/typescript/src/schema.ts matches gateway/openapi.yaml");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
