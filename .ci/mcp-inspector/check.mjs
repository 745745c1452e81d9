// The MCP Inspector's CLI (`mcp-inspector --cli`) against a real bot: `bot mcp` over stdio and
// bot serve's /mcp over streamable HTTP. tools/list shows ask_human; get_answer of a question a
// person answered returns the answer; and in the modern protocol era (2026-07-28), where the
// Inspector declares the tasks extension, ask_human returns a task that the Inspector polls
// until the person's answer completes it, then prints ask_human's result.
//
// Usage: node check.mjs BOT_BINARY WORK_DIR, on Node.js 22.19 or later (the Inspector's need).
// Exits 1 when a check fails.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { botEnv, serve } from "../serve.mjs";

const [botBin, work] = process.argv.slice(2);
if (!botBin || !work) {
  console.error("usage: node check.mjs BOT_BINARY WORK_DIR");
  process.exit(2);
}
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`check.mjs runs on Node.js ${process.version} and the Inspector needs 22.19 or later: run it with bash .ci/mcp-inspector.sh`);
  process.exit(2);
}
const require = createRequire(import.meta.url);
// The Inspector's launcher, installed beside this file, and the Node.js 22 it needs: the one this
// check runs on (.ci/lib.sh's check_with_bot_node22).
const node22 = process.execPath;
const inspectorPkg = require.resolve("@modelcontextprotocol/inspector/package.json");
const launcher = join(dirname(inspectorPkg), require(inspectorPkg).bin["mcp-inspector"]);
const baseEnv = botEnv(work);

const served = serve(botBin, work, { BOT_DEFAULT_POLICY: "ask" });
const { bot } = served;
const { url, token: admin } = await served.ready;

let failed = false;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failed = true;
    console.log("     " + JSON.stringify(detail).slice(0, 2000));
  }
}

// inspector runs the Inspector's CLI with args and resolves to its exit code, stdout parsed as
// JSON (null when it is not) and stderr. Its home is the work directory.
function inspector(args) {
  return new Promise((ok) => {
    const p = spawn(node22, [launcher, "--cli", ...args], {
      env: { PATH: process.env.PATH, HOME: work }, stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "", err = "";
    p.stdout.on("data", (c) => { out += c; });
    p.stderr.on("data", (c) => { err += c; });
    const timer = setTimeout(() => p.kill("SIGTERM"), 120_000);
    p.on("exit", (code) => {
      clearTimeout(timer);
      let json = null;
      try { json = JSON.parse(out); } catch { /* not JSON: reported below */ }
      ok({ code, json, out, err });
    });
  });
}

// api calls bot serve's HTTP API with token (the admin's unless given).
async function api(method, path, body, token = admin) {
  const res = await fetch(url + path, {
    method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// answered asks a question as the agent's token (nobody waits) and answers it as the admin: a
// question a person answered, for the agent's get_answer to pick up.
async function answered(token, id, value) {
  const rec = await api("POST", "/v1/inquiries", {
    id, kind: "choice", question: "Merge PR #42 now?", options: ["Merge", "Hold"], default: "Hold",
    config: { policy: "ask", transport: "inbox" }, wait: 0,
  }, token);
  await api("POST", `/v1/inquiries/${encodeURIComponent(rec.key)}/answer`, { value });
  return rec.key;
}

// answerWhenAsked answers the question with id as soon as it is pending.
async function answerWhenAsked(id, value) {
  for (let i = 0; i < 600; i++) {
    const list = await api("GET", "/v1/inquiries?status=pending");
    const rec = (list.inquiries ?? []).find((r) => r.id === id);
    if (rec) {
      await api("POST", `/v1/inquiries/${encodeURIComponent(rec.key)}/answer`, { value });
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the question ${id} was never asked`);
}

try {
  const made = spawnSync(botBin, ["token", "create", "--name", "agent", "--scope", "ask"], {
    env: { ...baseEnv, BOT_URL: url, BOT_TOKEN: admin }, encoding: "utf8",
  });
  const token = made.stdout.split("\n").map((l) => l.trim()).find((l) => l.startsWith("bot_"));
  if (made.status !== 0 || !token) throw new Error(`bot token create: ${made.status}\n${made.stdout}${made.stderr}`);

  const version = spawnSync(node22, [launcher, "--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`@modelcontextprotocol/inspector ${version}, node ${spawnSync(node22, ["--version"], { encoding: "utf8" }).stdout.trim()}, against ${url}`);

  // The two ways to reach the tools: bot mcp on stdio, and /mcp with the bearer token.
  const targets = {
    stdio: ["-e", `BOT_URL=${url}`, "-e", `BOT_TOKEN=${token}`, "-e", "BOT_MCP_POLICY=ask", "-e", `HOME=${work}`, botBin, "mcp"],
    http: [`${url}/mcp`, "--header", `Authorization: Bearer ${token}`],
  };
  for (const [name, target] of Object.entries(targets)) {
    const listed = await inspector([...target, "--method", "tools/list"]);
    const names = (listed.json?.tools ?? []).map((t) => t.name);
    check(listed.code === 0 && names.includes("ask_human") && names.includes("get_answer"),
      `${name}: the Inspector's tools/list shows ask_human and get_answer`, { code: listed.code, names, err: listed.err.slice(-1000) });

    const key = await answered(token, `inspector-${name}:merge`, "Merge");
    const got = await inspector([...target, "--method", "tools/call", "--tool-name", "get_answer", "--tool-arg", `key=${key}`]);
    const sc = got.json?.structuredContent ?? {};
    check(got.code === 0 && !got.json?.isError && sc.status === "answered" && sc.answer === "Merge",
      `${name}: the Inspector's tools/call of get_answer returns the person's answer`, { code: got.code, out: got.out.slice(0, 1000), err: got.err.slice(-1000) });

    // The modern era: the Inspector declares the tasks extension, ask_human returns a task, and
    // the Inspector polls it while a person answers.
    const id = `inspector-${name}:task`;
    const [asked] = await Promise.all([
      inspector([...target, "--protocol-era", "modern", "--method", "tools/call", "--tool-name", "ask_human",
        "--tool-arg", "question=Deploy to production?", "kind=confirm", "default=no", `id=${id}`]),
      answerWhenAsked(id, "yes"),
    ]);
    const tc = asked.json?.structuredContent ?? {};
    // That it was a task, not a wait: the tools logged it so (bot mcp on its stderr, which the
    // Inspector passes on; /mcp in bot serve's log).
    const log = name === "stdio" ? asked.err : served.log();
    const task = log.split("\n").some((l) => l.includes('"msg":"mcp tool call"') && l.includes('"status":"task"') && l.includes(tc.key));
    check(asked.code === 0 && tc.status === "answered" && tc.answer === "yes" && task,
      `${name}: in the modern era ask_human is a task the Inspector polls until a person's answer completes it`, { code: asked.code, task, out: asked.out.slice(0, 1000), err: asked.err.slice(-1000) });
  }
} catch (e) {
  console.log(`FAIL ${e.stack ?? e}`);
  failed = true;
} finally {
  bot.kill("SIGTERM");
}
if (failed) {
  console.log("bot serve log (tail):\n" + served.log().slice(-4000));
}
process.exit(failed ? 1 : 0);
