// The official MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios)
// against the /mcp of a real `bot serve` on a SQLite file of its own. The suite sends no
// credentials, so a small proxy in front of the bot adds the admin token's Authorization header
// and passes everything else (Host and Origin included) through untouched.
//
// The scenarios come from the suite itself (`conformance list --server`): every one runs except
// those notApplicable names, so a release that adds a scenario fails here until it passes or is
// listed below with its reason. A listed name the suite no longer has fails too.
//
// Usage: node check.mjs BOT_BINARY WORK_DIR, on the Node.js the suite needs (22: fs.globSync).
// Exits 1 unless every check of every scenario that applies is SUCCESS (or INFO): a WARNING
// fails too.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../serve.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [botBin, work] = process.argv.slice(2);
if (!botBin || !work) {
  console.error("usage: node check.mjs BOT_BINARY WORK_DIR");
  process.exit(2);
}
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`check.mjs runs on Node.js ${process.version} and the suite needs 22 (fs.globSync): run it with bash .ci/mcp-conformance.sh`);
  process.exit(2);
}

// The server scenarios that do not apply to this server, and why. (resources-list and
// prompts-list do apply: the server declares neither capability, yet answers both methods with
// an empty list, which is what they check.)
const fixture = "calls a tool, resource, prompt or completion of the suite's own test server by its name (test_simple_text, json_schema_2020_12_tool, test://static-text, …); this server's tools are ask_human, get_answer and permission_prompt, and it offers no resources, prompts or completions";
const notApplicable = {
  // Resumable SSE streams (SEP-1699) need a session and a stream to resume; /mcp is stateless
  // streamable HTTP (every POST a session of its own, GET 405, the direction of SEP-2567), so
  // there is no session ID to give and a priming event (an id to resume from) or a retry field
  // would promise what cannot be kept. Both only warn (no session ID) and stop there;
  // server-sse-polling also needs the suite's test_reconnection tool, and is in its pending
  // suite, not its active one.
  "server-sse-polling": "resumable SSE needs a session; /mcp is stateless (every POST a session of its own)",
  "server-sse-multiple-streams": "resumable SSE needs a session; /mcp is stateless (every POST a session of its own)",
  "completion-complete": fixture,
  "tools-call-simple-text": fixture,
  "tools-call-image": fixture,
  "tools-call-audio": fixture,
  "tools-call-embedded-resource": fixture,
  "tools-call-mixed-content": fixture,
  "tools-call-with-logging": fixture,
  "tools-call-error": fixture,
  "tools-call-with-progress": fixture,
  "tools-call-sampling": fixture,
  "tools-call-elicitation": fixture,
  "json-schema-2020-12": fixture,
  "elicitation-sep1034-defaults": fixture,
  "elicitation-sep1330-enums": fixture,
  "resources-read-text": fixture,
  "resources-read-binary": fixture,
  "resources-templates-read": fixture,
  "resources-subscribe": fixture,
  "resources-unsubscribe": fixture,
  "prompts-get-simple": fixture,
  "prompts-get-with-args": fixture,
  "prompts-get-embedded-resource": fixture,
  "prompts-get-with-image": fixture,
};

const cli = join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const version = JSON.parse(readFileSync(join(here, "node_modules/@modelcontextprotocol/conformance/package.json"), "utf8")).version;

// The suite's server scenarios: the "  - name [versions]" lines of `list --server`.
const listed = spawnSync(process.execPath, [cli, "list", "--server"], { encoding: "utf8" });
const all = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
if (listed.status !== 0 || all.length === 0) {
  console.log(`FAIL conformance list --server (exit ${listed.status}) listed no scenario:\n${listed.stdout}${listed.stderr}`);
  process.exit(1);
}
const stale = Object.keys(notApplicable).filter((s) => !all.includes(s));
const scenarios = all.filter((s) => !(s in notApplicable));

// --- the real bot.
const served = serve(botBin, work);
const { bot } = served;
const { url, token } = await served.ready;

// --- the proxy that adds the token.
const target = new URL(url);
const proxy = http.createServer((req, res) => {
  const up = http.request({
    host: target.hostname, port: target.port, method: req.method, path: req.url,
    headers: { ...req.headers, authorization: `Bearer ${token}` },
  }, (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  up.on("error", (e) => { res.writeHead(502); res.end(String(e)); });
  req.pipe(up);
});
await new Promise((ok) => proxy.listen(0, "127.0.0.1", ok));
// localhost by name: dns-rebinding-protection needs a localhost URL and sends its Host back.
const mcpURL = `http://localhost:${proxy.address().port}/mcp`;

console.log(`@modelcontextprotocol/conformance ${version}, node ${process.version}, against ${url}/mcp`);
console.log(`${scenarios.length} of the suite's ${all.length} server scenarios apply; the others do not:`);
const byReason = Map.groupBy(Object.keys(notApplicable), (s) => notApplicable[s]);
for (const [why, names] of byReason) console.log(`  ${names.join(", ")}: ${why}`);

let failed = 0;
if (stale.length > 0) {
  console.log(`FAIL check.mjs lists scenarios the suite no longer has (${stale.join(", ")}): remove them from notApplicable`);
}
for (const scenario of scenarios) {
  const outDir = join(work, "results", scenario);
  // spawnSync would block the proxy in this same process: run the suite asynchronously.
  const { code, output } = await new Promise((ok) => {
    const p = spawn(process.execPath, [cli, "server", "--url", mcpURL, "--scenario", scenario, "-o", outDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    p.stdout.on("data", (c) => { output += c; });
    p.stderr.on("data", (c) => { output += c; });
    p.on("exit", (code) => ok({ code, output }));
  });
  // No results at all (the suite failed before its first check) fails below with its output.
  let checks = [];
  for (const d of existsSync(outDir) ? readdirSync(outDir, { recursive: true }) : []) {
    if (String(d).endsWith("checks.json")) checks.push(...JSON.parse(readFileSync(join(outDir, String(d)), "utf8")));
  }
  const bad = checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO");
  const passed = checks.filter((c) => c.status === "SUCCESS").length;
  if (code !== 0 || bad.length > 0 || passed === 0) {
    failed++;
    console.log(`FAIL ${scenario} (exit ${code}):`);
    for (const c of bad) console.log(`  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    if (bad.length === 0) console.log(output);
  } else {
    console.log(`ok   ${scenario}: ${passed} check${passed === 1 ? "" : "s"} passed`);
  }
}
proxy.close();
bot.kill("SIGTERM");
if (failed > 0 || stale.length > 0) {
  console.log(`${failed} of ${scenarios.length} scenarios failed`);
  process.exit(1);
}
console.log(`${scenarios.length} scenarios pass`);
