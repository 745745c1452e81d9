// The official MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios)
// against the /mcp of a real `bot serve` on a SQLite file of its own. The suite sends no
// credentials, so a small proxy in front of the bot adds the admin token's Authorization header
// and passes everything else (Host and Origin included) through untouched.
//
// Usage: node check.mjs BOT_BINARY WORK_DIR. Exits 1 unless every check of every scenario that
// applies is SUCCESS (or INFO): a WARNING fails too.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
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

// The scenarios that apply to this server. The others, and why not:
// - server-sse-polling, server-sse-multiple-streams: resumable SSE streams (SEP-1699) need a
//   session and a GET stream; /mcp is stateless streamable HTTP (every POST a session of its
//   own, GET 405, the direction of SEP-2567), so there is no stream to resume, and a priming
//   event (an id to resume from) and a retry field would promise what cannot be kept.
// - tools-call-*, resources-*, prompts-*, completion-complete, json-schema-2020-12,
//   elicitation-sep1034-defaults, elicitation-sep1330-enums: each calls a fixture of the
//   suite's own test server (a tool, resource or prompt of a given name) that this server does
//   not have; its tools are ask_human and get_answer, and it offers no resources, prompts or
//   completions.
const scenarios = ["server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"];

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

const cli = join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const version = JSON.parse(readFileSync(join(here, "node_modules/@modelcontextprotocol/conformance/package.json"), "utf8")).version;
console.log(`@modelcontextprotocol/conformance ${version}, node ${process.version}, against ${url}/mcp`);

let failed = 0;
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
  let checks = [];
  for (const d of readdirSync(outDir, { recursive: true })) {
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
if (failed > 0) {
  console.log(`${failed} of ${scenarios.length} scenarios failed`);
  process.exit(1);
}
console.log(`${scenarios.length} scenarios pass`);
