// docs/MCP.md's harness configurations, read from the document itself so that it and this check
// cannot drift, loaded by the real harnesses' CLIs and connected to a real bot: Claude Code
// (`claude mcp add` as written, and `.mcp.json`, checked with `claude mcp list` and `claude mcp
// get`, which connect to each server and say whether they did) and Codex (each config.toml,
// loaded by `codex app-server`, whose mcpServerStatus/list connects to every configured server
// and lists its tools, and whose mcpServer/tool/call calls ask_human through it). Neither needs a model or an account for this. Each snippet runs in a home
// and a project of its own, with the document's address and token (`http://127.0.0.1:8080`,
// `bot_…`) replaced by the bot's, and the bot under test first on PATH as `bot`.
//
// Usage: node check.mjs BOT_BINARY WORK_DIR (.ci/harness-configs.sh). Exits 1 when a check fails.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { botEnv, serve } from "../serve.mjs";

const [botBin, work] = process.argv.slice(2);
if (!botBin || !work || !botBin.endsWith("/bot")) {
  console.error("usage: node check.mjs BOT_BINARY WORK_DIR (the binary named bot, as the snippets run it)");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkgBin = (pkg, name) => {
  const p = require.resolve(`${pkg}/package.json`);
  const b = require(p).bin;
  return join(dirname(p), typeof b === "string" ? b : b[name]);
};
const claudeBin = pkgBin("@anthropic-ai/claude-code", "claude");
const codexBin = pkgBin("@openai/codex", "codex");

// The snippets as docs/MCP.md gives them: the fenced blocks of a language after a line that
// starts with a bold title, up to the next such title.
const doc = readFileSync(join(here, "../../docs/MCP.md"), "utf8");
function blocks(title, lang) {
  const start = doc.indexOf(`\n${title}`);
  if (start < 0) throw new Error(`docs/MCP.md has no paragraph starting ${title}`);
  const rest = doc.slice(start + 1);
  const next = rest.slice(title.length).search(/\n\*\*/);
  const part = next < 0 ? rest : rest.slice(0, title.length + next);
  return [...part.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}
const DOC_URL = "http://127.0.0.1:8080", DOC_TOKEN = "bot_…";

let failed = false;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failed = true;
    console.log("     " + String(detail).replaceAll("\n", "\n     ").slice(0, 3000));
  }
}

// words splits one shell command line of the document into its words: spaces separate them,
// double quotes group them (the snippets use nothing else).
function words(line) {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

let n = 0;
// fresh makes a home and a project directory of their own for one snippet.
function fresh() {
  const dir = join(work, `h${++n}`);
  const home = join(dir, "home"), project = join(dir, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { home, project };
}
// The harnesses' environment: their own home, the bot under test first on PATH (the snippets run
// `bot`), and no traffic a check does not need.
function harnessEnv(home, extra = {}) {
  return {
    PATH: `${dirname(botBin)}:${process.env.PATH}`, HOME: home, XDG_CONFIG_HOME: join(home, ".config"),
    DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...extra,
  };
}
function run(bin, args, cwd, env) {
  const r = spawnSync(bin, args, { cwd, env, encoding: "utf8", timeout: 90_000 });
  return { code: r.status, out: r.stdout ?? "", err: r.stderr ?? "", all: `$ ${[bin, ...args].join(" ")}\n${r.stdout}${r.stderr}` };
}

// claudeConnected checks that Claude Code, in home and project, connects to the server inquiry:
// `claude mcp list` prints "inquiry: … - ✔ Connected", `claude mcp get inquiry` "Status: ✔ Connected".
function claudeConnected(what, home, project) {
  const env = harnessEnv(home);
  const list = run(claudeBin, ["mcp", "list"], project, env);
  const line = list.out.split("\n").find((l) => l.startsWith("inquiry: ")) ?? "";
  console.log(`     claude mcp list: ${line || "(no line for inquiry)"}`);
  check(list.code === 0 && line.endsWith("- ✔ Connected"), `Claude Code ${what}: claude mcp list connects to inquiry`, list.all);
  const get = run(claudeBin, ["mcp", "get", "inquiry"], project, env);
  check(get.code === 0 && /^\s*Status: ✔ Connected$/m.test(get.out), `Claude Code ${what}: claude mcp get inquiry says it connected`, get.all);
  return line;
}

// mcpJson writes servers (a .mcp.json's JSON) as the project's .mcp.json and records the
// project's approval of inquiry in ~/.claude.json, as answering Claude Code's dialog for a
// project's servers does (without it, list shows "Pending approval" and connects to nothing).
function mcpJson(text, home, project) {
  writeFileSync(join(project, ".mcp.json"), text);
  writeFileSync(join(home, ".claude.json"), JSON.stringify({
    projects: { [project]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["inquiry"] } },
  }));
}

// codex starts `codex app-server` in a Codex home of its own holding config (a config.toml) and
// returns request, which sends one JSON-RPC request and resolves to its result (or rejects with
// its error), and close. The app server connects to the configured MCP servers itself.
async function codex(config, env) {
  const { home } = fresh();
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(join(home, ".codex", "config.toml"), config);
  const p = spawn(codexBin, ["app-server"], { env: harnessEnv(home, env), stdio: ["pipe", "pipe", "pipe"] });
  const waiting = new Map();
  let next = 0, buf = "", err = "";
  p.stderr.on("data", (c) => { err = (err + c).slice(-20_000); });
  p.stdout.setEncoding("utf8");
  p.stdout.on("data", (c) => {
    buf += c;
    const lines = buf.split("\n");
    buf = lines.pop();
    for (const l of lines) {
      let m;
      try { m = JSON.parse(l); } catch { continue; }
      const w = waiting.get(m.id);
      if (!w || !("result" in m || "error" in m)) continue;
      waiting.delete(m.id);
      clearTimeout(w.timer);
      if (m.error) w.no(new Error(`codex app-server ${w.method}: ${JSON.stringify(m.error)}`));
      else w.ok(m.result);
    }
  });
  p.on("exit", (code) => {
    for (const w of waiting.values()) w.no(new Error(`codex app-server exited ${code}:\n${err}`));
  });
  const request = (method, params) => new Promise((ok, no) => {
    const id = ++next;
    const timer = setTimeout(() => no(new Error(`codex app-server answered no ${method} within 90 s:\n${err}`)), 90_000);
    waiting.set(id, { ok, no, timer, method });
    p.stdin.write(JSON.stringify({ id, method, params }) + "\n");
  });
  await request("initialize", { clientInfo: { name: "inquiry-bot-ci", version: "0" } });
  p.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
  return { request, close: () => p.kill("SIGTERM") };
}
const TOOLS = ["ask_human", "get_answer", "permission_prompt"];

// codexConnected checks that Codex, given config, connects to inquiry and lists its three tools,
// then calls ask_human through it (mcpServer/tool/call, in a thread, which needs no model): the
// bot's answer, with status want, shows that the snippet's address and token reach the bot.
async function codexConnected(what, config, env, question, want) {
  const c = await codex(config, env);
  try {
    const { data } = await c.request("mcpServerStatus/list", {});
    const s = data.find((s) => s.name === "inquiry") ?? {};
    const tools = Object.keys(s.tools ?? {}).sort();
    console.log(`     codex mcpServerStatus/list: inquiry ${s.serverInfo?.name ?? "?"} tools ${JSON.stringify(tools)} toolsError ${JSON.stringify(s.toolsError ?? null)}`);
    check(!s.toolsError && JSON.stringify(tools) === JSON.stringify(TOOLS),
      `Codex ${what}: codex app-server connects to inquiry and lists ${TOOLS.join(", ")}`, JSON.stringify(s).slice(0, 3000));
    const { thread } = await c.request("thread/start", {});
    const r = await c.request("mcpServer/tool/call", {
      threadId: thread.id, server: "inquiry", tool: "ask_human",
      arguments: { question, kind: "confirm", default: "no", wait_seconds: 0 },
    });
    const got = r.structuredContent ?? {};
    console.log(`     codex mcpServer/tool/call ask_human: ${got.status}: ${String(got.message).slice(0, 100)}`);
    check(!r.isError && got.status === want && (got.key ?? "").startsWith("inq_"),
      `Codex ${what}: ask_human through Codex reaches the bot (status ${want})`, JSON.stringify(r).slice(0, 3000));
    return s;
  } finally {
    c.close();
  }
}

const served = serve(botBin, work);
const { bot } = served;
try {
  const { url, token: admin } = await served.ready;
  // The agent's token, made as the document says.
  const made = spawnSync(botBin, ["token", "create", "--name", "my-agent", "--scope", "ask"], {
    env: { ...botEnv(work), BOT_URL: url, BOT_TOKEN: admin }, encoding: "utf8",
  });
  const token = made.stdout.split("\n").map((l) => l.trim()).find((l) => l.startsWith("bot_"));
  if (made.status !== 0 || !token) throw new Error(`bot token create: ${made.status}\n${made.stdout}${made.stderr}`);
  const fill = (s) => s.replaceAll(DOC_URL, url).replaceAll(DOC_TOKEN, token);
  console.log(`${run(claudeBin, ["--version"]).out.trim()}, ${run(codexBin, ["--version"]).out.trim()}, against bot serve at ${url}`);

  // Claude Code: each `claude mcp add` line, run as written.
  const adds = blocks("**Claude Code**", "sh").flatMap((b) => b.split("\n")).filter((l) => l.startsWith("claude mcp add"));
  check(adds.length === 2, `docs/MCP.md gives 2 claude mcp add commands (stdio, http): ${adds.length}`, adds.join("\n"));
  for (const line of adds) {
    const { home, project } = fresh();
    const [, ...args] = words(fill(line));
    const transport = args.includes("--transport") ? "http" : "stdio";
    const add = run(claudeBin, args, project, harnessEnv(home));
    check(add.code === 0, `Claude Code ${transport}: ${line}`, add.all);
    claudeConnected(`claude mcp add (${transport})`, home, project);
  }
  // Claude Code's .mcp.json, and the two generic mcpServers snippets (stdio and HTTP), as .mcp.json.
  const jsons = [
    ["the .mcp.json snippet", blocks("**Claude Code**", "json")],
    ["the generic stdio snippet", blocks("**On stdio**", "json")],
    ["the generic HTTP snippet", blocks("**Over HTTP**", "json")],
  ];
  for (const [what, found] of jsons) {
    check(found.length === 1, `docs/MCP.md gives ${what} once: ${found.length}`, found.join("\n"));
    if (found.length !== 1) continue;
    const { home, project } = fresh();
    mcpJson(fill(found[0]), home, project);
    claudeConnected(`${what} as .mcp.json`, home, project);
  }
  // docs/MCP.md says Cursor's stdio snippet is word for word the .mcp.json one, tested above.
  check(blocks("**Cursor**", "json")[0] === blocks("**Claude Code**", "json")[0],
    "Cursor's stdio snippet is the .mcp.json one, as docs/MCP.md says", blocks("**Cursor**", "json")[0]);
  // The check can fail: the HTTP snippet with a token the bot does not know does not connect.
  {
    const { home, project } = fresh();
    mcpJson(blocks("**Over HTTP**", "json")[0].replaceAll(DOC_URL, url).replaceAll(DOC_TOKEN, "bot_unknown"), home, project);
    const list = run(claudeBin, ["mcp", "list"], project, harnessEnv(home));
    const line = list.out.split("\n").find((l) => l.startsWith("inquiry: ")) ?? "";
    console.log(`     claude mcp list: ${line.slice(0, 160)}`);
    check(line.includes("✘ Failed to connect") && line.includes("401"), "Claude Code: an unknown token fails to connect (401), so a connection above is the bot's own", list.all);
  }

  // Codex: each config.toml, the HTTP one with BOT_TOKEN in the environment as the document says.
  const tomls = blocks("**Codex**", "toml");
  check(tomls.length === 2, `docs/MCP.md gives 2 Codex config.toml snippets (stdio, http): ${tomls.length}`, tomls.join("\n"));
  // On stdio BOT_MCP_POLICY=ask puts the question to people (pending: nobody answered); over HTTP
  // the server's policy, default here, answers by the question's default at once (assumed).
  for (const t of tomls) {
    const http = t.includes("bearer_token_env_var");
    await codexConnected(http ? "config.toml over HTTP (BOT_TOKEN exported)" : "config.toml on stdio", fill(t),
      http ? { BOT_TOKEN: token } : {}, `Merge PR #${http ? 2 : 1} now? (Codex ${http ? "HTTP" : "stdio"})`, http ? "assumed" : "pending");
  }
  {
    const t = tomls.find((t) => t.includes("bearer_token_env_var"));
    const c = await codex(fill(t), { BOT_TOKEN: "bot_unknown" });
    try {
      const s = (await c.request("mcpServerStatus/list", {})).data.find((s) => s.name === "inquiry") ?? {};
      check(Object.keys(s.tools ?? {}).length === 0 && /Auth required/.test(s.toolsError ?? ""),
        "Codex: an unknown token fails to connect (Auth required), so the tools above are the bot's own", JSON.stringify(s).slice(0, 2000));
    } finally {
      c.close();
    }
  }
} catch (e) {
  failed = true;
  console.log(`FAIL ${e.stack ?? e}\n${served.log().slice(-4000)}`);
} finally {
  bot.kill("SIGTERM");
}
console.log(failed ? "harness configurations: FAILED" : "harness configurations: every check passed");
process.exit(failed ? 1 : 0);
