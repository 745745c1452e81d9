// The OpenAPI document as the server serves it, judged by two outside validators (run by
// ../openapi-lint.sh, which installs them and builds the bot):
//
//  1. Redocly's linter, recommended rules (redocly.yaml here): no error may remain.
//  2. Ajv, a JSON Schema validator that reads OpenAPI 3.0's `nullable` strictly (null is allowed
//     only where a schema with a `type` says nullable, and every other keyword still applies):
//     every schema of the document must compile, and the answers and callbacks of a real
//     `bot serve` (null where nothing is set: an answer, a failure, a run's config, ...) must
//     match the schema the document gives for them.
//
// Usage: node check.mjs BOT_BINARY WORK_DIR [DOCUMENT]. With DOCUMENT (a YAML file), that file
// is judged instead of the served one, against the same real answers: to try the check on a
// broken copy. DEBUG=1 prints every request's answer. Everything runs on 127.0.0.1, bounded in
// time.
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { serve } from "../serve.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [botBin, work, docArg] = process.argv.slice(2);
if (!botBin || !work) {
  console.error("usage: node check.mjs BOT_BINARY WORK_DIR [DOCUMENT]");
  process.exit(2);
}
const failures = [];
const fail = (msg) => { failures.push(msg); console.log("FAIL " + msg); };

// The whole check is bounded: a bot that never answers must not hold CI.
const deadline = setTimeout(() => { console.error("openapi check: gave up after 120 s; the bot's log ends:\n" + served.log().slice(-4000)); stop(); process.exit(1); }, 120_000);

// --- a callback receiver, so that callbacks (an inquiry's callback_url, a run's resume_url) are
// checked against the document too.
const received = [];
let onReceive = () => {};
const receiver = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    received.push({ path: req.url, body });
    res.writeHead(200).end();
    onReceive();
  });
});
await new Promise((ok) => receiver.listen(0, "127.0.0.1", ok));
const hook = `127.0.0.1:${receiver.address().port}`;

async function callback(path) {
  for (;;) {
    const i = received.findIndex((r) => r.path === path);
    if (i >= 0) return received.splice(i, 1)[0];
    await new Promise((ok) => { onReceive = ok; setTimeout(ok, 500); });
  }
}

// --- the real bot, on a SQLite file of its own (its public URL https://inquiry-bot.test: the
// served document then names it as its server).
const served = serve(botBin, work, {
  BOT_DEFAULT_POLICY: "ask", // questions stay pending: answers, failures and runs' waits are null
  BOT_SWEEP_SCHEDULE: "@every 1s", // a question of expires_in 1s expires at once
  BOT_CALLBACK_HOSTS: hook,
});
const { bot } = served;
function stop() {
  bot.kill("SIGTERM");
  receiver.close();
}
const { url, token } = await served.ready;

async function call(method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

try {
  // --- 1. Redocly lints the served document.
  const served = await fetch(url + "/openapi.yaml");
  // Beside redocly.yaml, so that .redocly.lint-ignore.yaml names it (served/openapi.yaml).
  mkdirSync(join(here, "served"), { recursive: true });
  const docFile = join(here, "served", "openapi.yaml");
  writeFileSync(docFile, docArg ? readFileSync(docArg, "utf8") : await served.text());
  console.log(`judging ${docArg ? docArg : "the document served at " + url + "/openapi.yaml"}`);
  const redocly = (...args) => spawnSync(process.execPath, [join(here, "node_modules/@redocly/cli/bin/cli.js"), ...args], {
    cwd: here,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  // Its banner about Node.js versions is noise here.
  const quiet = (s) => s.split("\n").filter((l) => !/[╔║╚]/.test(l)).join("\n").trim();
  const lint = redocly("lint", "--config", join(here, "redocly.yaml"), "--format", "stylish", docFile);
  console.log(quiet(lint.stdout + lint.stderr));
  if (lint.status !== 0) fail("Redocly's linter finds errors in the served document (above)");
  const jsonFile = join(work, "openapi.json");
  const bundle = redocly("bundle", docFile, "--ext", "json", "-o", jsonFile);
  if (bundle.status !== 0) throw new Error("redocly bundle failed:\n" + quiet(bundle.stdout + bundle.stderr));
  const doc = JSON.parse(readFileSync(jsonFile, "utf8"));

  // --- 2. Ajv compiles every schema. The component schemas become the $defs of one schema, and
  // their references point there.
  const ID = "https://inquiry-bot.test/openapi.json";
  const rewrite = (v, prefix) => {
    if (Array.isArray(v)) return v.map((x) => rewrite(x, prefix));
    if (v === null || typeof v !== "object") return v;
    const o = {};
    for (const [k, x] of Object.entries(v)) {
      o[k] = k === "$ref" && typeof x === "string" ? x.replace(/^#\/components\/schemas\//, prefix + "#/$defs/") : rewrite(x, prefix);
    }
    return o;
  };
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary(["example", "xml", "externalDocs"]); // OpenAPI's annotations, no assertion
  ajv.addSchema({ $id: ID, $defs: rewrite(doc.components?.schemas ?? {}, "") });
  let compiled = 0;
  const validators = new Map();
  const compile = (where, schema) => {
    if (validators.has(where)) return validators.get(where);
    let v = null;
    try {
      v = schema.$ref && Object.keys(schema).length === 1 && schema.$ref.startsWith("#/components/schemas/")
        ? ajv.getSchema(ID + schema.$ref.replace("#/components/schemas/", "#/$defs/"))
        : ajv.compile(rewrite(schema, ID));
      compiled++;
    } catch (e) {
      fail(`Ajv cannot compile the schema at ${where}: ${e.message}`);
    }
    validators.set(where, v);
    return v;
  };
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    compile(`#/components/schemas/${name}`, { $ref: `#/components/schemas/${name}` });
  }
  // Every other Schema Object: under a parameter, a header or a media type ("schema").
  const walk = (v, where) => {
    if (v === null || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      const at = `${where}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (k === "schema" && x && typeof x === "object" && !Array.isArray(x)) compile(at, x);
      else if (k !== "example" && k !== "examples") walk(x, at);
    }
  };
  walk(doc.paths, "#/paths");
  for (const [k, x] of Object.entries(doc.components ?? {})) if (k !== "schemas") walk(x, `#/components/${k}`);
  console.log(`Ajv ${JSON.parse(readFileSync(join(here, "node_modules/ajv/package.json"), "utf8")).version}: ${compiled} schemas compiled`);

  // --- 3. Real answers and callbacks against their schemas.
  const deref = (o) => {
    while (o && o.$ref) o = o.$ref.split("/").slice(1).reduce((a, k) => a[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
    return o;
  };
  const ptr = (...parts) => "#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  let checked = 0;
  const check = (what, where, schema, body) => {
    const v = compile(where, schema);
    if (!v) return;
    checked++;
    if (!v(body)) fail(`${what} does not match ${where}: ${ajv.errorsText(v.errors)}\n  body: ${JSON.stringify(body).slice(0, 600)}`);
  };
  // expect sends a request for the operation of path template tpl and checks the answer.
  const expect = async (method, tpl, path, body, want) => {
    const res = await call(method, path, body);
    if (process.env.DEBUG) console.log(method, path, res.status, res.text.slice(0, 200));
    const what = `${method} ${path} (${res.status})`;
    const op = doc.paths[tpl]?.[method.toLowerCase()];
    if (!op) return fail(`${what}: the document has no ${method} ${tpl}`);
    if (want && res.status !== want) fail(`${what}: expected ${want}: ${res.text.slice(0, 300)}`);
    const status = String(res.status);
    const key = [status, status[0] + "XX", "default"].find((s) => op.responses[s]);
    if (!key) return fail(`${what}: status ${status} is not documented`), res;
    const schema = deref(op.responses[key]).content?.["application/json"]?.schema;
    if (schema) check(what, ptr("paths", tpl, method.toLowerCase(), "responses", key, "content", "application/json", "schema"), schema, res.json);
    return res;
  };
  const callbackSchema = (tpl, name) => {
    const [expr, item] = Object.entries(doc.paths[tpl].post.callbacks[name])[0];
    return [ptr("paths", tpl, "post", "callbacks", name, expr, "post", "requestBody", "content", "application/json", "schema"), item.post.requestBody.content["application/json"].schema];
  };

  await expect("GET", "/healthz", "/healthz", undefined, 200);
  await expect("GET", "/readyz", "/readyz", undefined, 200);

  // A text question, pending (answer, failure, default, expires_at and resolved_at null), then
  // answered in words (the answer's value null), with its callback.
  const text = await expect("POST", "/v1/inquiries", "/v1/inquiries", {
    id: "lint:text", kind: "text", question: "Which name should the release have?", callback_url: `http://${hook}/inquiry`,
  }, 201);
  const tkey = text.json.key;
  await expect("GET", "/v1/inquiries/{key}", `/v1/inquiries/${tkey}`, undefined, 200);
  await expect("POST", "/v1/inquiries/{key}/answer", `/v1/inquiries/${tkey}/answer`, { text: "Aurora" }, 200);
  const [cbWhere, cbSchema] = callbackSchema("/v1/inquiries", "resolved");
  check("the resolved callback of an answered inquiry", cbWhere, cbSchema, JSON.parse((await callback("/inquiry")).body));

  // A choice with a default and an expiry, cancelled (failure and answer null on a resolved one).
  const choice = await expect("POST", "/v1/inquiries", "/v1/inquiries", {
    id: "lint:choice", kind: "choice", question: "Deploy now?", options: ["now", { value: "later", label: "Later today" }],
    default: "later", expires_in: "1h", callback_url: `http://${hook}/inquiry`,
  }, 201);
  await expect("POST", "/v1/inquiries/{key}/cancel", `/v1/inquiries/${choice.json.key}/cancel`, undefined, 200);
  check("the resolved callback of a cancelled inquiry", cbWhere, cbSchema, JSON.parse((await callback("/inquiry")).body));
  await expect("GET", "/v1/inquiries", "/v1/inquiries", undefined, 200);
  await expect("GET", "/v1/inquiries/{key}", "/v1/inquiries/inq_nothing", undefined, 404);

  // A run without config (config and waiting_on null), and one that waits on a question and is
  // resumed by callback twice: once answered, once expired unanswered (declined: value null).
  await expect("POST", "/v1/runs", "/v1/runs", { id: "lint-bare" }, 201);
  await expect("GET", "/v1/runs/{id}", "/v1/runs/lint-bare", undefined, 200);
  await expect("POST", "/v1/runs/{id}/heartbeat", "/v1/runs/lint-bare/heartbeat", undefined, 200);
  await expect("POST", "/v1/runs", "/v1/runs", { id: "lint-run", config: { policy: "ask" }, resume_url: `http://${hook}/resume` }, 201);
  const [rcWhere, rcSchema] = callbackSchema("/v1/runs", "resume");
  const first = await expect("POST", "/v1/runs/{id}/ask", "/v1/runs/lint-run/ask", { id: "q1", kind: "confirm", question: "Merge it?" }, 202);
  await expect("GET", "/v1/runs/{id}", "/v1/runs/lint-run", undefined, 200);
  await expect("POST", "/v1/inquiries/{key}/answer", `/v1/inquiries/${first.json.inquiry.key}/answer`, { value: "yes" }, 200);
  check("the resume callback of an answered inquiry", rcWhere, rcSchema, JSON.parse((await callback("/resume")).body));
  await expect("POST", "/v1/runs/{id}/ask", "/v1/runs/lint-run/ask", { id: "q1", kind: "confirm", question: "Merge it?" }, 200);
  await expect("POST", "/v1/runs/{id}/ask", "/v1/runs/lint-run/ask", { id: "q2", kind: "confirm", question: "Tag it?", expires_in: "1s" }, 202);
  check("the resume callback of an expired inquiry", rcWhere, rcSchema, JSON.parse((await callback("/resume")).body));
  await expect("POST", "/v1/runs/{id}/resume", "/v1/runs/lint-run/resume", { answers: {} }, 200);
  await expect("POST", "/v1/runs/{id}/finish", "/v1/runs/lint-run/finish", { status: "completed" }, 200);
  await expect("GET", "/v1/runs", "/v1/runs", undefined, 200);
  // The tokens (revoked_at null), where the document has the endpoint.
  if (doc.paths["/v1/tokens"]?.get) await expect("GET", "/v1/tokens", "/v1/tokens", undefined, 200);
  console.log(`Ajv: ${checked} answers and callbacks of a real bot serve checked against their schemas`);
} catch (e) {
  fail(e.stack || String(e));
} finally {
  clearTimeout(deadline);
  stop();
  // The bot is gone before its work directory is: at most 30 s of graceful shutdown.
  if (bot.exitCode === null && bot.signalCode === null) {
    const killer = setTimeout(() => bot.kill("SIGKILL"), 30_000);
    await new Promise((ok) => bot.once("exit", ok));
    clearTimeout(killer);
  }
}
if (failures.length) {
  console.log(`${failures.length} problems with the OpenAPI document (above)`);
  process.exit(1);
}
console.log(`the ${docArg ? "" : "served "}OpenAPI document passes Redocly and Ajv`);
