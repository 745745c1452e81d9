// The package from CommonJS: require("@inquiry-bot/client") resolves through package.json's
// "require" condition to the CommonJS build (dist/cjs), and that build works end to end: it
// asks the real bot serve, throws its own InquiryError, and signs and verifies a callback.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { after, before, test } = require("node:test");
const client = require("@inquiry-bot/client");

let bot;
let token;

before(async () => {
  // The helpers are ES modules; a CommonJS file loads them with import().
  const { makeToken, startBot } = await import("./bot.mjs");
  bot = await startBot();
  token = await makeToken(bot, "cjs-agent", ["ask"]);
});

after(async () => {
  await bot?.stop();
});

test("require() takes the CommonJS build, not the ES modules", () => {
  assert.equal(require.resolve("@inquiry-bot/client"), path.resolve(__dirname, "..", "dist", "cjs", "index.js"));
  assert.equal(typeof client.Client, "function");
  assert.equal(client.MAX_WAIT_SECONDS, 55);
});

test("the CommonJS build asks the real bot and gets the answer back", async () => {
  const bot2 = new client.Client(bot.url, token);
  const q = await bot2.ask({ kind: "confirm", question: "Ship it from CommonJS?", default: "yes", config: { policy: "default" } }, { deadline: 30_000 });
  assert.equal(q.status, "answered");
  assert.equal(q.answer?.value, "yes");
  assert.match(q.id, /^auto:/);
});

test("its refusals are its own InquiryError, with the API's code and field", async () => {
  const bot2 = new client.Client(bot.url, token);
  await assert.rejects(bot2.ask({ kind: "choice", question: "Pick one", options: ["Only"], config: { policy: "ask" } }, { deadline: 0 }), (e) => {
    assert.ok(e instanceof client.InquiryError, `not the CommonJS InquiryError: ${e}`);
    assert.equal(e.code, "invalid_inquiry");
    assert.equal(e.field, "options");
    return true;
  });
});

test("a callback signed by the CommonJS build verifies, and a changed body does not", () => {
  const body = '{"key":"inq_x","status":"answered"}';
  const now = 1_800_000_000_000;
  const headers = { "x-inquiry-timestamp": String(now / 1000), "x-inquiry-signature": client.signCallback("s3cret", now / 1000, body) };
  client.verifyCallback(headers, body, "s3cret", { now });
  assert.throws(() => client.verifyCallback(headers, body.replace("answered", "expired"), "s3cret", { now }), client.InquiryError);
});
