// An inquiry that was accepted but whose delivery then failed for good: ask() throws its failure,
// fatal, rather than waiting out its deadline. The bot is pointed at a stand-in for Slack's Web
// API that answers chat.postMessage as Slack does for a channel the bot cannot see (HTTP 200,
// {"ok": false, "error": "channel_not_found"}).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { Client, InquiryError } from "../dist/index.js";
import { rejection, startBot } from "./bot.mjs";

let bot;
let slack;
const calls = [];

before(async () => {
  slack = createServer(async (req, res) => {
    for await (const _ of req);
    calls.push(req.url);
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ ok: false, error: "channel_not_found" }));
  });
  await new Promise((r) => slack.listen(0, "127.0.0.1", r));
  bot = await startBot({
    SLACK_BOT_TOKEN: "xoxb-test-token",
    SLACK_SIGNING_SECRET: "test-signing-secret",
    SLACK_API_URL: `http://127.0.0.1:${slack.address().port}/api/`,
    SLACK_DEFAULT_CHANNEL: "C0123456789",
  });
});

after(async () => {
  await bot?.stop();
  slack?.close();
});

test("an inquiry whose delivery fails for good throws its failure, fatal", async () => {
  const client = new Client(bot.url, bot.token);
  const err = await rejection(client.ask({ kind: "confirm", question: "Ship release 3.2?", config: { transport: "slack" } }, { deadline: 30_000 }), "the ask returned");
  assert.ok(err instanceof InquiryError);
  assert.equal(err.code, "inquiry_unavailable");
  assert.equal(err.fatal, true);
  assert.match(err.message, /channel_not_found: .*C0123456789/);
  assert.equal(err.inquiry.status, "failed");
  assert.equal(err.inquiry.failure.code, "inquiry_unavailable");
  assert.ok(calls.some((u) => u === "/api/chat.postMessage"), `Slack was called: ${calls}`);
  const [inq] = (await client.list({ status: "failed" })).inquiries;
  assert.equal(inq.question, "Ship release 3.2?");
  assert.match(inq.id, /^auto:/, "the server derived the id");
  assert.equal(inq.failure.fatal, true);
});
