// The client end to end against the real bot serve (embedded SQLite): asked and answered through
// the inbox API, asked once on a retry, passing faults retried after their Retry-After (through a
// proxy that makes them), inquiry_unavailable thrown as fatal and never retried, a real callback
// verified and a forged one refused, a run parked and resumed, and an ask without an id sent
// without one, the server deriving it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { Client, InquiryError, verifyCallback, signCallback, MAX_WAIT_SECONDS } from "../dist/index.js";
import { retryAfterSeconds } from "../dist/client.js";
import { botBinary, makeToken, rejection, startBot, startProxy, startReceiver } from "./bot.mjs";

let bot;
let asker; // an ask token's client
let answerer; // an answer token's client: the person, through the inbox API
let askToken;

before(async () => {
  // The sweeper every second, so that an inquiry expiring in a second is resolved promptly.
  bot = await startBot({ BOT_CALLBACK_HOSTS: "127.0.0.1", BOT_SWEEP_SCHEDULE: "@every 1s" });
  askToken = await makeToken(bot, "agent", ["ask"]);
  asker = new Client(bot.url, askToken);
  answerer = new Client(bot.url, await makeToken(bot, "alice", ["answer"]));
});

after(async () => {
  await bot?.stop();
});

/** A client whose pauses are recorded and not slept, so that a retry's wait is seen, not timed. */
function recording(url, token = askToken) {
  const pauses = [];
  const client = new Client(url, token, {
    sleep: async (ms) => {
      pauses.push(ms);
    },
  });
  return { client, pauses };
}

/**
 * A passing fault as the bot answers it, JSON with fatal false, for a proxy to answer in the bot's
 * stead; with retryAfter, the Retry-After it says to wait.
 */
function passingFault(status, code, retryAfter) {
  const messages = {
    storage_unavailable: "the database is unavailable right now: try again shortly",
    rate_limited: "too many requests from this token: wait for Retry-After",
  };
  const headers = { "Content-Type": "application/json" };
  if (retryAfter !== undefined) headers["Retry-After"] = retryAfter;
  return { status, headers, body: JSON.stringify({ error: { code, message: messages[code], fatal: false } }) };
}

/** Waits until the answerer sees the pending inquiry asking question, and returns it. */
async function pendingAsking(question) {
  for (let i = 0; i < 200; i++) {
    const page = await answerer.list({ status: "pending" });
    const found = page.inquiries.find((q) => q.question === question);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending inquiry asking ${question} appeared`);
}

/** The inquiries with id in the asker's namespace. */
async function withId(id) {
  const page = await asker.list({ limit: 100 });
  return page.inquiries.filter((q) => q.id === id);
}

test("ask waits and is answered through the inbox API by another token", async () => {
  const request = { kind: "confirm", question: "Deploy build 1234 to production?", context: "All checks passed." };
  const asking = asker.ask(request, { deadline: 60_000 });
  const pending = await pendingAsking(request.question);
  assert.equal(pending.status, "pending");
  const answered = await answerer.answer(pending.key, { value: "yes" });
  assert.equal(answered.status, "answered");
  const got = await asking;
  assert.equal(got.key, pending.key);
  assert.equal(got.status, "answered");
  assert.equal(got.answer.value, "yes");
  assert.equal(got.answer.source, "person");
  assert.equal(got.answer.answered_by, "alice");
  // Answering again is refused with the domain's code, one sentence, not fatal.
  await assert.rejects(answerer.answer(pending.key, { value: "no" }), (e) => e instanceof InquiryError && e.code === "already_resolved" && !e.fatal && e.status === 409);
});

test("an ask left pending is waited for later, and a cancelled one stays cancelled", async () => {
  const request = { kind: "text", question: "What should the release be called?", context: "It ships on Friday." };
  // deadline 0: put the question, do not wait.
  const put = await asker.ask(request, { deadline: 0 });
  assert.equal(put.status, "pending");
  const waiting = asker.wait(put.key, { deadline: 60_000 });
  await answerer.answer(put.key, { text: "Aurora" });
  const got = await waiting;
  assert.equal(got.status, "answered");
  assert.equal(got.answer.text, "Aurora");

  const other = await asker.ask({ kind: "confirm", question: "Drop the old tables?" }, { deadline: 0 });
  const cancelled = await asker.cancel(other.key);
  assert.equal(cancelled.status, "cancelled");
  // Asked again, the same question is the same, cancelled, inquiry: nobody is asked twice.
  const again = await asker.ask({ kind: "confirm", question: "Drop the old tables?" }, { deadline: 10_000 });
  assert.equal(again.key, other.key);
  assert.equal(again.status, "cancelled");
});

test("an inquiry nobody answered expires by its default, and ask returns it rather than throwing", async () => {
  const got = await asker.ask(
    { id: `exp-${process.pid}`, kind: "confirm", question: "Purge the cache?", default: "no", expires_in: "1s", config: { policy: "ask", transport: "inbox" } },
    { deadline: 60_000 },
  );
  assert.equal(got.status, "expired");
  assert.equal(got.answer?.value, "no");
  assert.equal(got.answer?.source, "expired");
});

test("ask waits in long-polls of at most 55 s and stops on its deadline, returning the pending inquiry", async () => {
  const seen = [];
  const proxy = await startProxy(bot.url, async (req, body, forward) => {
    const u = new URL(req.url, "http://x");
    const sent = req.method === "POST" ? JSON.parse(body) : {};
    seen.push({ method: req.method, path: u.pathname, wait: req.method === "POST" ? sent.wait : Number(u.searchParams.get("wait")), id: "id" in sent });
    return forward();
  });
  try {
    const request = { kind: "text", question: "What should the release be called?" };
    // A long deadline: every step asks for the cap, and the signal ends the wait.
    const ctl = new AbortController();
    const long = new Client(proxy.url, askToken).ask(request, { deadline: new Date(Date.now() + 3 * 3_600_000), signal: ctl.signal });
    const pending = await pendingAsking(request.question);
    ctl.abort(new Error("stop waiting"));
    await assert.rejects(long, /stop waiting/);
    assert.equal(seen[0].method, "POST");
    assert.equal(seen[0].wait, MAX_WAIT_SECONDS);
    assert.equal(seen[0].id, false, "no id of the client's making: the server derives it");
    assert.match(pending.id, /^auto:[0-9a-f]{16}$/);
    // A short deadline: the wait asked for is what is left, and ask returns the inquiry pending.
    const got = await new Client(proxy.url, askToken).ask(request, { deadline: 1500 });
    assert.equal(got.status, "pending");
    for (const s of seen) assert.ok(s.wait >= 0 && s.wait <= MAX_WAIT_SECONDS, `a step waited ${s.wait} s`);
    assert.ok(seen.slice(1).every((s) => s.wait <= 1.5), `steps no longer than what is left: ${JSON.stringify(seen)}`);
    assert.equal((await withId(pending.id)).length, 1);
  } finally {
    await proxy.close();
  }
});

test("asked once on a retry: the ask that landed but whose answer was lost is found again by its id", async () => {
  let created;
  const proxy = await startProxy(bot.url, async (req, body, forward) => {
    const answer = await forward();
    if (req.method === "POST" && created === undefined) {
      // The bot made the inquiry; the client is told the database failed.
      created = JSON.parse(answer.body);
      return {
        status: 503,
        headers: { "Content-Type": "application/json", "Retry-After": "1" },
        body: JSON.stringify({ error: { code: "storage_unavailable", message: "the database is unavailable right now: try again shortly", fatal: false } }),
      };
    }
    return answer;
  });
  try {
    const { client, pauses } = recording(proxy.url);
    const request = { kind: "confirm", question: "Rotate the signing key?", default: "no", config: { policy: "default" } };
    const got = await client.ask(request, { deadline: 30_000 });
    assert.match(created.id, /^auto:/, "the server derived the id");
    assert.equal(got.key, created.key, "the retry found the inquiry the first try made");
    assert.equal(got.status, "answered");
    assert.equal(got.answer.source, "default");
    assert.deepEqual(pauses, [1000], "it waited the Retry-After before the retry");
    assert.equal(proxy.requests.filter((r) => r.method === "POST").length, 2);
    // The whole job asking again is the same inquiry too, answered once.
    const again = await asker.ask(request);
    assert.equal(again.key, created.key);
    assert.equal((await withId(created.id)).length, 1);
  } finally {
    await proxy.close();
  }
});

test("a 503 (the database or the gateway briefly down) and a 429 are retried after their Retry-After", async () => {
  const faults = [
    { status: 503, headers: { "Retry-After": "1", "Content-Type": "text/html" }, body: "<html>503 Service Unavailable</html>" },
    passingFault(503, "storage_unavailable", "2"),
    passingFault(429, "rate_limited", "3"),
  ];
  const proxy = await startProxy(bot.url, async (req, body, forward) => (faults.length > 0 ? faults.shift() : forward()));
  try {
    const { client, pauses } = recording(proxy.url);
    const got = await client.ask({ kind: "confirm", question: "Restart the workers?", default: "yes", config: { policy: "default" } }, { deadline: 30_000 });
    assert.equal(got.status, "answered");
    assert.equal(got.answer.value, "yes");
    assert.deepEqual(pauses, [1000, 2000, 3000]);
    assert.equal(proxy.requests.length, 4);
    // get() retries the same faults, a bounded number of times.
    faults.push({ status: 503, headers: { "Retry-After": "4" }, body: "" });
    const read = await client.get(got.key);
    assert.equal(read.key, got.key);
    assert.deepEqual(pauses, [1000, 2000, 3000, 4000]);
    const flaky = recording(proxy.url);
    for (let i = 0; i < 10; i++) faults.push({ status: 503, headers: { "Retry-After": "1" }, body: "" });
    await assert.rejects(flaky.client.get(got.key), (e) => e instanceof InquiryError && e.code === "transport" && e.temporary && !e.fatal);
    assert.equal(flaky.pauses.length, 3, "three retries, then the fault is reported");
    faults.length = 0;
  } finally {
    await proxy.close();
  }
});

test("a Retry-After in the HTTP-date form (a proxy's) is honoured, by ask and by get", async () => {
  // Two minutes ahead: the pause is the time to that date (less the moments the test takes), not
  // the half-second backoff used when there is no Retry-After to go by.
  const faults = [];
  const fault = () => ({ status: 503, headers: { "Retry-After": new Date(Date.now() + 120_000).toUTCString(), "Content-Type": "text/html" }, body: "<html>busy</html>" });
  const proxy = await startProxy(bot.url, async (req, body, forward) => (faults.length > 0 ? faults.shift()() : forward()));
  try {
    const { client, pauses } = recording(proxy.url);
    faults.push(fault);
    const got = await client.ask({ kind: "confirm", question: "Rotate the keys?", default: "yes", config: { policy: "default" } }, { deadline: 10 * 60_000 });
    assert.equal(got.status, "answered");
    faults.push(fault);
    await client.get(got.key);
    assert.equal(pauses.length, 2, `pauses: ${pauses}`);
    for (const p of pauses) assert.ok(p > 60_000 && p <= 120_000, `paused ${p} ms for a Retry-After two minutes ahead`);
  } finally {
    await proxy.close();
  }
});

test("Retry-After is read in seconds and as an HTTP date, and bounded", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  assert.equal(retryAfterSeconds("7", now), 7);
  assert.equal(retryAfterSeconds(" 0 ", now), 0);
  assert.equal(retryAfterSeconds("Tue, 01 Dec 2026 12:00:30 GMT", now), 30);
  assert.equal(retryAfterSeconds("Tuesday, 01-Dec-26 12:01:00 GMT", now), 60);
  assert.equal(retryAfterSeconds("Tue, 01 Dec 2026 11:59:00 GMT", now), 0, "a date passed: no pause");
  assert.equal(retryAfterSeconds("soon", now), 0);
  assert.equal(retryAfterSeconds("-5", now), 0);
  assert.equal(retryAfterSeconds(null, now), 0);
  assert.equal(retryAfterSeconds("999999999", now), 3600, "at most an hour");
});

test("an ask that does not wait (deadline 0) still rides out a passing fault", async () => {
  // Asking and moving on (the answer comes by callback or a later wait) is where a 503 hurts
  // most: the question is retried for a while (retryFloorMs, 30 s by default), not given up.
  const faults = [passingFault(503, "storage_unavailable", "2")];
  const proxy = await startProxy(bot.url, async (req, body, forward) => (faults.length > 0 ? faults.shift() : forward()));
  try {
    const { client, pauses } = recording(proxy.url);
    const got = await client.ask({ kind: "confirm", question: "Warm the caches?", config: { policy: "ask", transport: "inbox" } }, { deadline: 0 });
    assert.equal(got.status, "pending");
    assert.deepEqual(pauses, [2000]);
    assert.equal(proxy.requests.length, 2);
    await asker.cancel(got.key);
  } finally {
    await proxy.close();
  }
});

test("a passing fault that outlasts the deadline is thrown as it is, not fatal", async () => {
  const proxy = await startProxy(bot.url, async () => passingFault(503, "storage_unavailable"));
  try {
    const slow = new Client(proxy.url, askToken, { retryFloorMs: 0 });
    const err = await rejection(slow.ask({ kind: "confirm", question: "Rebuild the index?" }, { deadline: 1200 }), "the ask succeeded");
    assert.ok(err instanceof InquiryError);
    assert.equal(err.code, "storage_unavailable");
    assert.equal(err.fatal, false);
    assert.equal(err.temporary, true);
    assert.ok(proxy.requests.length >= 2, `tried ${proxy.requests.length} times`);
  } finally {
    await proxy.close();
  }
});

test("inquiry_unavailable is thrown as fatal and not retried", async () => {
  const proxy = await startProxy(bot.url, async (req, body, forward) => forward());
  try {
    const { client, pauses } = recording(proxy.url);
    // This server has no Slack: nobody can be asked through it, now or on a retry.
    const err = await rejection(client.ask({ kind: "confirm", question: "Ship it?", config: { transport: "slack" } }, { deadline: 30_000 }), "the ask succeeded");
    assert.ok(err instanceof InquiryError);
    assert.equal(err.code, "inquiry_unavailable");
    assert.equal(err.fatal, true);
    assert.equal(err.temporary, false);
    assert.equal(err.status, 503);
    assert.match(err.message, /slack/i);
    assert.equal(proxy.requests.length, 1, "a fatal error is never retried");
    assert.deepEqual(pauses, []);
  } finally {
    await proxy.close();
  }
});

test("inquiry_unavailable is fatal even from a server (or a proxy) that leaves fatal out", async () => {
  // An older server, or a proxy rewriting the body: the code alone says nobody can be asked,
  // and a 503 must not make it look like a passing fault to retry.
  const proxy = await startProxy(bot.url, async () => ({
    status: 503,
    headers: { "Content-Type": "application/json", "Retry-After": "1" },
    body: JSON.stringify({ error: { code: "inquiry_unavailable", message: "Slack is not configured on this bot: ask through the inbox, or decide without asking" } }),
  }));
  try {
    const { client, pauses } = recording(proxy.url);
    const err = await rejection(client.ask({ kind: "confirm", question: "Ship it now?" }, { deadline: 30_000 }), "the ask succeeded");
    assert.equal(err.code, "inquiry_unavailable");
    assert.equal(err.fatal, true);
    assert.equal(proxy.requests.length, 1, "a fatal error is never retried");
    assert.deepEqual(pauses, []);
  } finally {
    await proxy.close();
  }
});

test("a refusal carries the domain's code, sentence and field", async () => {
  const err = await rejection(asker.ask({ kind: "choice", question: "Pick one", options: ["only"] }), "asked");
  assert.ok(err instanceof InquiryError);
  assert.equal(err.code, "invalid_inquiry");
  assert.equal(err.field, "options");
  assert.equal(err.fatal, false);
  assert.match(err.message, /^[^\n]+: [^\n]+$/);
});

test("a delivered callback verifies, and a forged one is refused", async () => {
  const receiver = await startReceiver();
  try {
    const request = { kind: "confirm", question: "Open the release branch?", callback_url: `${receiver.url}/hook`, config: { policy: "ask" } };
    const asking = asker.ask(request, { deadline: 60_000 });
    const pending = await pendingAsking(request.question);
    await answerer.answer(pending.key, { value: "yes" });
    await asking;
    const cb = await receiver.next();
    assert.equal(cb.method, "POST");
    assert.equal(cb.url, "/hook");
    assert.equal(cb.headers["x-inquiry-event"], "callback");
    assert.ok(cb.headers["x-inquiry-delivery"]);
    verifyCallback(cb.headers, cb.body, bot.secret);
    const payload = JSON.parse(cb.body.toString("utf8"));
    assert.equal(payload.key, pending.key);
    assert.equal(payload.answer.value, "yes");
    // Forged: the body changed, signed with another key, or replayed long after.
    const altered = Buffer.from(cb.body.toString("utf8").replace('"yes"', '"no"'));
    assert.notDeepEqual(altered, cb.body);
    const isRefusal = (e) => e instanceof InquiryError && e.code === "bad_signature";
    assert.throws(() => verifyCallback(cb.headers, altered, bot.secret), isRefusal);
    const ts = Number(cb.headers["x-inquiry-timestamp"]);
    assert.throws(() => verifyCallback({ ...cb.headers, "x-inquiry-signature": signCallback("a guess", ts, altered) }, altered, bot.secret), isRefusal);
    assert.throws(() => verifyCallback(cb.headers, cb.body, bot.secret, { now: (ts + 3600) * 1000 }), isRefusal);
    assert.throws(() => verifyCallback(cb.headers, cb.body, "another secret"), isRefusal);
  } finally {
    await receiver.close();
  }
});

test("a run parks on its question, is resumed with the answer, and its re-entry is not asked twice", async () => {
  const receiver = await startReceiver();
  try {
    const runId = "nightly-migration-7";
    const run = await asker.runs.register({ id: runId, resume_url: `${receiver.url}/resume`, config: { policy: "ask" } });
    assert.equal(run.status, "running");
    const request = { kind: "choice", question: "Which database to migrate first?", options: [{ value: "eu", label: "Europe" }, "us"] };
    const parked = await asker.runs.ask(runId, request);
    assert.equal(parked.status, "waiting");
    assert.equal(parked.run.status, "waiting");
    assert.match(parked.inquiry.id, /^auto:/, "the server derived the id");
    assert.equal(parked.inquiry.run_id, runId);
    assert.equal((await asker.runs.get(runId)).waiting_on.key, parked.inquiry.key);

    await answerer.answer(parked.inquiry.key, { value: "eu" });
    const cb = await receiver.next();
    assert.equal(cb.headers["x-inquiry-event"], "resume");
    verifyCallback(cb.headers, cb.body, bot.secret);
    const resume = JSON.parse(cb.body.toString("utf8"));
    assert.equal(resume.inquiry_id, parked.inquiry.id);
    assert.equal(resume.answer.value, "eu");

    const resumed = await asker.runs.resume(runId, { [resume.inquiry_id]: resume.answer });
    assert.equal(resumed.status, "running");
    assert.equal(resumed.answers[parked.inquiry.id].value, "eu");
    // The step runs again after the resume: the run's state answers it, nobody is asked again.
    const again = await asker.runs.ask(runId, request);
    assert.equal(again.status, "answered");
    assert.equal(again.answer.value, "eu");
    assert.equal((await withId(parked.inquiry.id)).length, 1);
    const done = await asker.runs.finish(runId, "completed");
    assert.equal(done.status, "completed");
  } finally {
    await receiver.close();
  }
});

test("the id the server derives is the one bot ask starts its fresh ids with", async () => {
  const bin = botBinary();
  const cases = [
    { args: ["--confirm", "--question", "Deploy to production?"], request: { kind: "confirm", question: "Deploy to production?" } },
    {
      args: ["--question", "Which region?", "--option", "eu=Europe", "--option", "us", "--context", "Latency <50 ms & cost", "--default", "Europe"],
      request: { kind: "choice", question: "Which region?", options: [{ value: "eu", label: "Europe" }, "us"], context: "Latency <50 ms & cost", default: "eu" },
    },
    {
      args: ["--confirm", "--question", "Merge \"#42\"?", "--approvals", "2", "--no-veto", "--requested-by", "U123,octocat", "--reason", "on_no", "--allow-text"],
      request: { kind: "confirm", question: 'Merge "#42"?', approvals: 2, veto: false, requested_by: ["U123", "octocat"], reason: "on_no", allow_text: true },
    },
    {
      args: ["--choice", "--multiple", "--question", "Which checks? é 日本", "--option", "lint", "--option", "test", "--option", "e2e", "--default", "lint,test"],
      request: { kind: "choice", multiple: true, question: "Which checks? é 日本", options: ["lint", "test", "e2e"], default: ["lint", "test"] },
    },
  ];
  for (const c of cases) {
    // --policy default: the CLI's question is settled at once, so the test does not wait on it.
    const r = spawnSync(bin, ["ask", "--json", "--policy", "default", "--timeout", "10s", ...c.args], {
      env: { PATH: process.env.PATH, HOME: bot.dir, XDG_CONFIG_HOME: bot.dir, BOT_URL: bot.url, BOT_TOKEN: askToken },
      encoding: "utf8",
    });
    assert.ok(r.stdout.trim().startsWith("{"), `bot ask ${c.args.join(" ")}: ${r.stderr}`);
    const rec = JSON.parse(r.stdout);
    // The client sends no id: the server derives one from the content. bot ask without --id
    // asks anew on every run: the same digest under its own prefix, plus a fresh part.
    const ours = await asker.ask({ ...c.request, config: { policy: "default" } }, { deadline: 10_000 });
    assert.match(ours.id, /^auto:[0-9a-f]{16}$/);
    assert.ok(rec.id.startsWith("cli:" + ours.id.slice("auto:".length) + ":"), `bot ask ${c.args.join(" ")}: ${rec.id}, the server's ${ours.id}`);
  }
});

test("a client refuses a URL that is not http(s), and a gateway that is not there is a transport fault", async () => {
  assert.throws(() => new Client("not a url", "t"), (e) => e instanceof InquiryError && e.code === "bad_request");
  assert.throws(() => new Client("ftp://host/", "t"), (e) => e instanceof InquiryError && e.code === "bad_request");
  assert.throws(() => new Client("http://user:pw@127.0.0.1:1", "t"), (e) => e instanceof InquiryError && e.code === "bad_request" && !e.message.includes("pw"));
  // The token passed where the URL goes (arguments swapped): the refusal, which ends up in a
  // log, does not repeat it.
  assert.throws(() => new Client("bot_0123456789abcdef", "http://127.0.0.1:1"), (e) => e instanceof InquiryError && e.code === "bad_request" && !e.message.includes("0123456789abcdef"));
  const gone = new Client("http://127.0.0.1:1", "t", { retries: 0 });
  await assert.rejects(gone.get("inq_x"), (e) => e instanceof InquiryError && e.code === "transport" && e.temporary && /cannot reach/.test(e.message));
  await assert.rejects(new Client(bot.url, "bot_wrong").get("inq_x"), (e) => e instanceof InquiryError && e.code === "unauthenticated" && e.status === 401);
});

test("the README's TypeScript snippet runs as written: asked, answered by a person, and deployed", async () => {
  const { readFileSync, writeFileSync, rmSync } = await import("node:fs");
  const { join, dirname } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const { spawn } = await import("node:child_process");
  const ts = (await import("typescript")).default;
  const here = dirname(fileURLToPath(import.meta.url));
  const readme = readFileSync(join(here, "..", "..", "..", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, "the README has one TypeScript snippet");
  assert.ok(blocks[0].trim().split("\n").length <= 5);
  // Compiled as a user's TypeScript file is; deploy() is the user's own. The file sits in the
  // package, so that "@inquiry-bot/client" resolves to it by its name, as once installed.
  const js = ts.transpileModule(blocks[0], { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const file = join(here, `.readme-${process.pid}.mjs`);
  writeFileSync(file, `async function deploy() { console.log("deployed"); }\n${js}`);
  // A bot as it comes (its default policy: without policy ask nobody would be asked).
  const plain = await startBot({ BOT_DEFAULT_POLICY: "default" });
  const person = new Client(plain.url, await makeToken(plain, "dee", ["answer"]));
  const runToken = await makeToken(plain, "readme", ["ask"]);
  const child = spawn(process.execPath, [file], { env: { PATH: process.env.PATH, BOT_URL: plain.url, BOT_TOKEN: runToken }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (b) => (out += b));
  child.stderr.on("data", (b) => (err += b));
  const exited = new Promise((r) => child.on("exit", r));
  try {
    let key;
    for (let i = 0; i < 400 && !key; i++) {
      key = (await person.list({ status: "pending" })).inquiries.find((q) => q.question === "Deploy build 1234?")?.key;
      if (!key) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(key, `the snippet asked nothing: ${err}`);
    await person.answer(key, { value: "yes" });
    assert.equal(await exited, 0, err);
    assert.equal(out.trim(), "deployed");
  } finally {
    child.kill();
    rmSync(file, { force: true });
    await plain.stop();
  }
});
