// The real `bot serve` for the tests: built from this repository (or taken from BOT_BIN), started
// on a free port with an embedded SQLite database in a temporary directory, its first-start admin
// token read from what it prints.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, mkdirSync, renameSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");

let built;

/**
 * The bot binary: BOT_BIN, or one built from the repository with go build (cached by Go), once
 * per test process. Test files run in parallel processes: each builds to a file of its own and
 * renames it into place, so that no process runs a binary another is still writing.
 */
export function botBinary() {
  if (process.env.BOT_BIN) return process.env.BOT_BIN;
  if (built) return built;
  const out = join(here, "..", ".bot", "bot");
  const mine = `${out}-${process.pid}`;
  mkdirSync(dirname(out), { recursive: true });
  execFileSync("go", ["build", "-o", mine, "./cmd/bot"], { cwd: repo, stdio: "inherit" });
  renameSync(mine, out);
  built = out;
  return out;
}

/** The error promise is rejected with; a promise that resolves fails the test, saying what. */
export async function rejection(promise, what) {
  return promise.then(
    () => assert.fail(what),
    (e) => e,
  );
}

/**
 * Starts bot serve with env added to a clean environment (BOT_DEFAULT_POLICY=ask, so that
 * questions are put to a person) and resolves to {url, token, secret, stop}.
 */
export async function startBot(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "inquiry-bot-ts-"));
  const secret = "test-callback-secret-" + Math.random().toString(36).slice(2);
  const child = spawn(botBinary(), ["serve"], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      DATABASE_URL: `sqlite:${join(dir, "bot.db")}`,
      BOT_ADDR: "127.0.0.1:0",
      BOT_DEFAULT_POLICY: "ask",
      BOT_DEFAULT_TRANSPORT: "inbox",
      BOT_CALLBACK_SECRET: secret,
      BOT_LOG_FORMAT: "json",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (b) => {
    err += b;
  });
  const started = await new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`bot serve did not start in 30 s:\n${out}\n${err}`)), 30_000);
    child.stdout.on("data", (b) => {
      out += b;
      const url = /listening on (http:\/\/\S+)/.exec(out);
      const token = /shown once:\s*\n\s*(\S+)/.exec(out);
      if (url && token) {
        clearTimeout(timer);
        resolveStart({ url: url[1], token: token[1] });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`bot serve exited with ${code}:\n${out}\n${err}`));
    });
  });
  child.removeAllListeners("exit");
  const exited = new Promise((r) => child.on("exit", r));
  return {
    ...started,
    secret,
    dir,
    log: () => err,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Makes a token on the bot with the admin token (POST /v1/tokens) and returns its plain text. */
export async function makeToken(bot, name, scopes) {
  const resp = await fetch(`${bot.url}/v1/tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${bot.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name, scopes }),
  });
  const body = await resp.json();
  if (!resp.ok) throw new Error(`make token ${name}: ${resp.status} ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * A proxy in front of target on a free port; handle(req, body, forward) decides each request:
 * call forward() to pass it on (it resolves to {status, headers, body} of the bot's answer) and
 * return what to answer the client, {status, headers, body}. requests lists what came in.
 */
export async function startProxy(target, handle) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    requests.push({ method: req.method, url: req.url });
    const forward = () =>
      new Promise((ok, fail) => {
        const u = new URL(req.url, target);
        const up = httpRequest(u, { method: req.method, headers: req.headers }, async (r) => {
          const parts = [];
          for await (const c of r) parts.push(c);
          ok({ status: r.statusCode, headers: r.headers, body: Buffer.concat(parts) });
        });
        up.on("error", fail);
        up.end(body);
      });
    try {
      const answer = await handle(req, body, forward);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch (e) {
      res.writeHead(500);
      res.end(String(e));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    // Connections a test left open (an aborted long-poll) are cut, not waited for.
    close: () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }),
  };
}

/**
 * A receiver of callbacks on a free port: each POST is kept with its headers and raw body, and
 * answered 200. next() resolves to the next one received.
 */
export async function startReceiver() {
  const got = [];
  const waiting = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const r = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) };
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
    const w = waiting.shift();
    if (w) w(r);
    else got.push(r);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    next: () => (got.length > 0 ? Promise.resolve(got.shift()) : new Promise((r) => waiting.push(r))),
    close: () => new Promise((r) => server.close(r)),
  };
}

