// The agent SDKs' tool approvals decided by a person through the real bot serve: the real
// @openai/agents and ai packages run with stub models (so their interruptions and approval
// requests are the SDKs' own), approveWithInquiry / approvalResponsesWithInquiry ask one Confirm
// per tool call, a person answers through the inbox API with an answer token, and the resumed run
// executes the tool, or does not and the model sees the person's reason. Covered: allow, deny
// with a reason, a timeout (the inquiry's default, no), a retry that asks nothing twice, the
// recorded Vercel AI SDK shapes, and arguments too long to show whole refused before asking.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Agent, RunState, run, tool, Usage, setTracingDisabled } from "@openai/agents";
import { generateText, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { approveWithInquiry, approvalResponsesWithInquiry, Client, InquiryError } from "../dist/index.js";
import { makeToken, startBot } from "./bot.mjs";

setTracingDisabled(true);

let bot;
let asker; // the agent's client: an ask token
let person; // an answer token's client: the person, through the inbox API

before(async () => {
  // The sweeper every second, so that an inquiry expiring in a second is resolved promptly.
  bot = await startBot({ BOT_SWEEP_SCHEDULE: "@every 1s" });
  asker = new Client(bot.url, await makeToken(bot, "agent", ["ask"]));
  person = new Client(bot.url, await makeToken(bot, "alice", ["answer"]));
});

after(async () => {
  await bot?.stop();
});

const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8"));

/** Every inquiry with id, as the person sees them. */
async function inquiriesWithId(id) {
  const page = await person.list({ limit: 100 });
  return page.inquiries.filter((q) => q.id === id);
}

/** Waits until the inquiry with id is put to the person, and returns it. */
async function asked(id) {
  for (let i = 0; i < 400; i++) {
    const [found] = await inquiriesWithId(id);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no inquiry with id ${id} was asked`);
}

/** The person answers the inquiry with id once it is asked; resolves to the inquiry as it was asked. */
async function answers(id, answer) {
  const q = await asked(id);
  await person.answer(q.key, answer);
  return q;
}

/**
 * An OpenAI Agents SDK agent whose stub model calls delete_file (a tool that needs approval) with
 * callId first, then ends; ran lists the paths the tool really deleted, inputs what the model got.
 */
function agentsAgent(callId, args = { path: "/tmp/old.log" }) {
  const ran = [];
  const inputs = [];
  const model = {
    async getResponse(req) {
      inputs.push(req.input);
      if (inputs.length === 1) {
        return { usage: new Usage(), output: [{ type: "function_call", callId, name: "delete_file", arguments: JSON.stringify(args), status: "completed" }] };
      }
      return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }] };
    },
    async *getStreamedResponse() {
      throw new Error("the stub model does not stream");
    },
  };
  const deleteFile = tool({
    name: "delete_file",
    description: "Deletes a file",
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      ran.push(path);
      return `deleted ${path}`;
    },
  });
  return { agent: new Agent({ name: "ops", model, tools: [deleteFile] }), ran, inputs };
}

/** What the model was told of the call in its second request (the tool's output, or the rejection). */
function toolOutput(inputs, callId) {
  const item = inputs[1].find((i) => i.type === "function_call_result" && i.callId === callId);
  return item?.output?.text;
}

test("OpenAI Agents: a person allows the call, shown whole, and the resumed run executes it; asked once", async () => {
  const callId = `call_allow_${process.pid}`;
  const { agent, ran, inputs } = agentsAgent(callId, { path: "/tmp/old.log", recursive: false });
  const result = await run(agent, "Delete /tmp/old.log");
  assert.equal(result.interruptions.length, 1);
  // The state as a job persisted it before asking, to retry from.
  const saved = result.state.toString();

  const deciding = approveWithInquiry(asker, result, { deadline: 60_000 });
  const q = await answers(`openai-agents:${callId}`, { value: "yes" });
  assert.equal(q.kind, "confirm");
  assert.equal(q.question, "Allow the agent to call the tool delete_file?");
  assert.equal(q.context, `Arguments:\n${JSON.stringify({ path: "/tmp/old.log", recursive: false }, null, 2)}`);
  const decisions = await deciding;
  assert.deepEqual(
    decisions.map((d) => [d.callId, d.toolName, d.decision, d.inquiry.answer.answered_by]),
    [[callId, "delete_file", "approved", "alice"]],
  );

  const resumed = await run(agent, result.state);
  assert.deepEqual(ran, ["/tmp/old.log"]);
  assert.equal(toolOutput(inputs, callId), "deleted /tmp/old.log");
  assert.equal(resumed.finalOutput, "done");

  // The job retried from its saved state: the same inquiry, answered, and no second question.
  const state = await RunState.fromString(agent, saved);
  const again = await approveWithInquiry(asker, { interruptions: state.getInterruptions(), state }, { deadline: 10_000 });
  assert.equal(again[0].decision, "approved");
  assert.equal(again[0].inquiry.key, q.key);
  assert.equal((await inquiriesWithId(`openai-agents:${callId}`)).length, 1);
});

test("OpenAI Agents: a person denies with a reason; the call is not run and the model sees why", async () => {
  const callId = `call_deny_${process.pid}`;
  const { agent, ran, inputs } = agentsAgent(callId);
  const result = await run(agent, "Delete /tmp/old.log");
  const deciding = approveWithInquiry(asker, result, { deadline: 60_000 });
  const q = await asked(`openai-agents:${callId}`);
  // The reason is asked on no: a bare no is refused.
  await assert.rejects(person.answer(q.key, { value: "no" }), (e) => e instanceof InquiryError && e.status === 422);
  await person.answer(q.key, { value: "no", text: "That log is still needed for the audit." });
  const [d] = await deciding;
  assert.equal(d.decision, "rejected");
  assert.equal(d.reason, "That log is still needed for the audit.");

  await run(agent, result.state);
  assert.deepEqual(ran, []);
  assert.equal(toolOutput(inputs, callId), "That log is still needed for the audit.");
});

test("OpenAI Agents: nobody answers in time, the inquiry's default (no) rejects the call", async () => {
  const callId = `call_timeout_${process.pid}`;
  const { agent, ran, inputs } = agentsAgent(callId);
  const result = await run(agent, "Delete /tmp/old.log");
  const [d] = await approveWithInquiry(asker, result, { deadline: 60_000, ask: { expires_in: "1s" } });
  assert.equal(d.inquiry.status, "expired");
  assert.equal(d.inquiry.answer.value, "no");
  assert.equal(d.inquiry.answer.source, "expired");
  assert.equal(d.decision, "rejected");
  assert.equal(d.reason, "Nobody answered in time, so this tool call was not approved.");
  await run(agent, result.state);
  assert.deepEqual(ran, []);
  assert.equal(toolOutput(inputs, callId), d.reason);
});

test("OpenAI Agents: a bot whose policy answers by the default rejects without saying a person did", async () => {
  const callId = `call_policy_${process.pid}`;
  const { agent, ran, inputs } = agentsAgent(callId);
  const result = await run(agent, "Delete /tmp/old.log");
  const [d] = await approveWithInquiry(asker, result, { deadline: 60_000, ask: { config: { policy: "default" } } });
  assert.equal(d.inquiry.answer.source, "default");
  assert.equal(d.decision, "rejected");
  assert.equal(d.reason, "The bot's policy answered no without asking anyone, so this tool call was not approved.");
  await run(agent, result.state);
  assert.deepEqual(ran, []);
  assert.equal(toolOutput(inputs, callId), d.reason);
});

test("OpenAI Agents: a question still pending at the deadline leaves the call undecided", async () => {
  const callId = `call_pending_${process.pid}`;
  const { agent } = agentsAgent(callId);
  const result = await run(agent, "Delete /tmp/old.log");
  const [d] = await approveWithInquiry(asker, result, { deadline: 0 });
  assert.equal(d.decision, "pending");
  assert.equal(d.inquiry.status, "pending");
  // Neither approved nor rejected: the run state still waits on it.
  assert.equal(result.state.getInterruptions().length, 1);
});

/** The usage a stub AI SDK model reports. */
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/**
 * A Vercel AI SDK model that calls deleteFile (approval by a person) with callId first, then
 * answers "ok"; ran lists what the tool deleted, prompts what the model got.
 */
function aiSetup(callId, input = { path: "/tmp/old.log" }) {
  const ran = [];
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (opts) => {
      prompts.push(opts.prompt);
      if (prompts.length === 1) {
        return { content: [{ type: "tool-call", toolCallId: callId, toolName: "deleteFile", input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
      }
      return { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const tools = {
    deleteFile: aiTool({
      description: "Deletes a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        ran.push(path);
        return `deleted ${path}`;
      },
    }),
  };
  const generate = (messages) => generateText({ model, tools, messages, toolApproval: { deleteFile: "user-approval" } });
  return { generate, ran, prompts };
}

/** The tool result the model got for callId in its second prompt. */
function aiToolResult(prompts, callId) {
  for (const m of prompts[1]) {
    if (m.role !== "tool") continue;
    const part = m.content.find((p) => p.type === "tool-result" && p.toolCallId === callId);
    if (part) return part.output;
  }
  return undefined;
}

test("Vercel AI SDK: a person allows the call, and the next generateText executes it", async () => {
  const callId = `call_ai_allow_${process.pid}`;
  const { generate, ran } = aiSetup(callId);
  const messages = [{ role: "user", content: "Delete /tmp/old.log" }];
  const first = await generate(messages);
  messages.push(...first.response.messages);
  const request = first.content.find((p) => p.type === "tool-approval-request");

  const deciding = approvalResponsesWithInquiry(asker, first.content, { deadline: 60_000 });
  const q = await answers(`ai-sdk:${callId}`, { value: "yes" });
  assert.equal(q.question, "Allow the agent to call the tool deleteFile?");
  assert.equal(q.context, `Arguments:\n${JSON.stringify({ path: "/tmp/old.log" }, null, 2)}`);
  const { messages: responses, decisions } = await deciding;
  assert.deepEqual(responses, [{ role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] }]);
  assert.equal(decisions[0].decision, "approved");

  messages.push(...responses);
  const second = await generate(messages);
  assert.deepEqual(ran, ["/tmp/old.log"]);
  assert.equal(second.text, "ok");
});

test("Vercel AI SDK: a person denies with a reason; the tool is not run and the model gets the reason", async () => {
  const callId = `call_ai_deny_${process.pid}`;
  const { generate, ran, prompts } = aiSetup(callId);
  const messages = [{ role: "user", content: "Delete /tmp/old.log" }];
  const first = await generate(messages);
  messages.push(...first.response.messages);
  // From the message's content this time: the request names the call, the tool-call part beside it has it.
  const assistant = first.response.messages.find((m) => m.role === "assistant");
  const deciding = approvalResponsesWithInquiry(asker, assistant.content, { deadline: 60_000 });
  await answers(`ai-sdk:${callId}`, { value: "no", text: "Keep it until Monday." });
  const { messages: responses } = await deciding;
  assert.equal(responses[0].content[0].approved, false);
  assert.equal(responses[0].content[0].reason, "Keep it until Monday.");

  messages.push(...responses);
  await generate(messages);
  assert.deepEqual(ran, []);
  assert.deepEqual(aiToolResult(prompts, callId), { type: "execution-denied", reason: "Keep it until Monday." });
});

test("Vercel AI SDK: nobody answers in time, the default denies the call", async () => {
  const callId = `call_ai_timeout_${process.pid}`;
  const { generate, ran, prompts } = aiSetup(callId);
  const messages = [{ role: "user", content: "Delete /tmp/old.log" }];
  const first = await generate(messages);
  messages.push(...first.response.messages);
  const { messages: responses, decisions } = await approvalResponsesWithInquiry(asker, first.content, { deadline: 60_000, ask: { expires_in: "1s" } });
  assert.equal(decisions[0].inquiry.status, "expired");
  assert.equal(responses[0].content[0].approved, false);
  messages.push(...responses);
  await generate(messages);
  assert.deepEqual(ran, []);
  assert.deepEqual(aiToolResult(prompts, callId), { type: "execution-denied", reason: "Nobody answered in time, so this tool call was not approved." });
});

test("Vercel AI SDK: the recorded request part, answered yes with words, gives the recorded response message", async () => {
  const part = fixture("vercel-ai-tool-approval-request.part.json");
  const want = fixture("vercel-ai-tool-approval-response.message.json");
  // The recorded ids are fixed, so the inquiry id is this process's own.
  const idPrefix = `ai-sdk-${process.pid}:`;
  const content = [{ type: "tool-call", toolCallId: part.toolCallId, toolName: "deleteFile", input: { path: "/tmp/old.log" } }, part];
  const deciding = approvalResponsesWithInquiry(asker, content, { deadline: 60_000, idPrefix });
  await answers(`${idPrefix}${part.toolCallId}`, { value: "yes", text: want.content[0].reason });
  const { messages } = await deciding;
  assert.deepEqual(messages, [want]);
  // A request the SDK decided itself is not asked.
  const automatic = await approvalResponsesWithInquiry(asker, [{ ...part, isAutomatic: true }], { deadline: 0, idPrefix: "never:" });
  assert.deepEqual(automatic, { messages: [], decisions: [] });
});

test("arguments too long to show whole are refused in a sentence before anything is asked", async () => {
  const callId = `call_long_${process.pid}`;
  const { agent } = agentsAgent(callId, { path: "/tmp/" + "x".repeat(3000) });
  const result = await run(agent, "Delete it");
  await assert.rejects(approveWithInquiry(asker, result, { deadline: 0 }), (e) => e instanceof InquiryError && e.code === "bad_request" && /more than a question shows whole/.test(e.message));
  assert.equal((await inquiriesWithId(`openai-agents:${callId}`)).length, 0);
  // A request naming a call that is not among the parts is refused too.
  const part = fixture("vercel-ai-tool-approval-request.part.json");
  await assert.rejects(approvalResponsesWithInquiry(asker, [part], { deadline: 0 }), (e) => e instanceof InquiryError && /not among the parts given/.test(e.message));
});
