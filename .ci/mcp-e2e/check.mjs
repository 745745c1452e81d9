// The official TypeScript MCP SDK's client (@modelcontextprotocol/sdk) starts `bot mcp` as a
// harness does, over stdio, against a real `bot serve` on a SQLite file of its own, and asks
// with answer_here: its user answers the form (elicitation/create, 2025-11-25: the newest
// revision this SDK speaks) and the answer is recorded via mcp; a user who declines gives a
// decline, never a tool error; a client without elicitation gets the bounded wait; a
// 2025-11-25 task (the SDK's experimental tasks client) ends with a person's answer; a client
// declaring URL mode is sent to the answer page, which its handler answers as a browser would,
// and an editable proposal's edit made there comes back (here.mjs). Then, over streamable HTTP
// against the same bot serve's /mcp (http.mjs): the bounded wait and get_answer, the 2025-11-25
// task again, a task of the 2026 extension completed by a person's answer, and URL mode as a
// 2026-07-28 client (here.mjs).
//
// Usage: node check.mjs BOT_BINARY WORK_DIR. Exits 1 on the first check that fails.
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { botEnv, serve } from "../serve.mjs";
import { httpURLChecks, stdioURLChecks } from "./here.mjs";
import { httpChecks, taskChecks } from "./http.mjs";

const [botBin, work] = process.argv.slice(2);
if (!botBin || !work) {
  console.error("usage: node check.mjs BOT_BINARY WORK_DIR");
  process.exit(2);
}
const baseEnv = botEnv(work);

// --- the real bot.
// Questions are put to people (the inbox) unless a policy says otherwise: /mcp sends none.
const served = serve(botBin, work, { BOT_DEFAULT_POLICY: "ask" });
const { bot } = served;
const { url, token: admin } = await served.ready;

let failed = false;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failed = true;
    console.log("     " + JSON.stringify(detail));
  }
}

try {
  // An agent's token: it may ask, not answer.
  const made = spawnSync(botBin, ["token", "create", "--name", "agent", "--scope", "ask"], {
    env: { ...baseEnv, BOT_URL: url, BOT_TOKEN: admin }, encoding: "utf8",
  });
  const token = made.stdout.split("\n").map((l) => l.trim()).find((l) => l.startsWith("bot_"));
  if (made.status !== 0 || !token) throw new Error(`bot token create: ${made.status}\n${made.stdout}${made.stderr}`);

  // session starts `bot mcp` under a client whose user answers every elicitation with
  // answer(params), declaring caps (form elicitation unless given), or a client without
  // elicitation when answer is null.
  async function session(answer, caps = { elicitation: { form: {} } }) {
    const client = new Client({ name: "ts-harness", version: "1" }, { capabilities: answer ? caps : {} });
    const shown = [];
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        shown.push(req.params);
        return answer(req.params);
      });
    }
    const transport = new StdioClientTransport({
      command: botBin, args: ["mcp"],
      env: { ...baseEnv, BOT_URL: url, BOT_TOKEN: token, BOT_MCP_POLICY: "ask" },
      stderr: "pipe",
    });
    await client.connect(transport);
    return { client, shown };
  }
  const ask = (client, args) => client.callTool({ name: "ask_human", arguments: args });

  console.log(`@modelcontextprotocol/sdk, protocol ${LATEST_PROTOCOL_VERSION}, node ${process.version}, against ${url}`);

  // The form, answered by the client's user.
  {
    const { client, shown } = await session(() => ({ action: "accept", content: { answer: "merge" } }));
    const res = await ask(client, {
      question: "Merge PR #42 now?", options: [{ value: "merge", label: "Merge" }, "hold"], default: "hold", answer_here: true,
    });
    const sc = res.structuredContent ?? {};
    check(shown.length === 1 && shown[0].mode === "form", "the form is shown once, in form mode", shown);
    const answer = shown[0]?.requestedSchema?.properties?.answer;
    check(answer?.type === "string" && answer?.oneOf?.length === 2 && answer?.default === "hold", "a choice is a string of titled constants with its default", answer);
    check(!res.isError && sc.status === "answered" && sc.answer === "merge" && sc.via === "mcp" && sc.answered_by === "agent",
      "answered by the client's user, via mcp, as the token", sc);
    await client.close();
  }

  // A confirm the user declines: a decline, not a failure.
  {
    const { client, shown } = await session(() => ({ action: "decline" }));
    const res = await ask(client, { question: "Deploy to production?", kind: "confirm", default: "no", answer_here: true });
    const sc = res.structuredContent ?? {};
    check(shown[0]?.requestedSchema?.properties?.answer?.type === "boolean", "a confirm is a boolean", shown);
    check(!res.isError && sc.status === "declined" && sc.via === "mcp", "a declined form is a decline, never a tool error", sc);
    await client.close();
  }

  // A client without elicitation: today's bounded wait, and it says answer_here was not possible.
  {
    const { client } = await session(null);
    const res = await ask(client, { question: "Roll back?", kind: "confirm", default: "no", answer_here: true, wait_seconds: 0 });
    const sc = res.structuredContent ?? {};
    check(!res.isError && sc.status === "pending" && /answer_here was not possible/.test(sc.message ?? ""), "without elicitation the question waits for people", sc);
    await client.close();
  }

  // A 2025-11-25 task, driven by the SDK's experimental tasks client, answered by a person.
  {
    const { client } = await session(null);
    await taskChecks({ client, url, admin, check, over: "over stdio" });
    await client.close();
  }

  // URL mode: sent to the answer page, answered there (here.mjs).
  await stdioURLChecks({ session, url, check });

  await httpChecks({ url, token, admin, check });
  await httpURLChecks({ url, token, check });
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
