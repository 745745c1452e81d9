// Type-checked, never run (npm run typecheck): the approval helpers against the agent SDKs' own
// types (@openai/agents and ai, pinned devDependencies), as the README's snippets use them, so
// that an SDK whose types drift from the structural ones the helpers take fails the check.
import { Agent, run, tool, type RunToolApprovalItem } from "@openai/agents";
import { generateText, tool as aiTool, type ModelMessage, type ToolApprovalResponse, type ToolModelMessage } from "ai";
import { z } from "zod";
import {
  approveWithInquiry,
  approvalResponsesWithInquiry,
  Client,
  type AgentsApprovalItem,
  type AIToolApprovalResponse,
  type ToolDecision,
} from "../src/index.js";

// The SDKs' types satisfy the structural ones.
export const item: AgentsApprovalItem = {} as RunToolApprovalItem;
export const response: ToolApprovalResponse = {} as AIToolApprovalResponse;

// The README's OpenAI Agents SDK snippet.
export async function openaiAgents(bot: Client): Promise<void> {
  const deleteFile = tool({
    name: "delete_file",
    description: "Deletes a file",
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => `deleted ${path}`,
  });
  const agent = new Agent({ name: "ops", tools: [deleteFile] });
  let result = await run(agent, "Delete /tmp/old.log");
  while (result.interruptions.length > 0) {
    const decisions: ToolDecision[] = await approveWithInquiry(bot, result, { deadline: 30 * 60_000, ask: { config: { policy: "ask" }, slack: { channel: "#ops" } } });
    if (decisions.some((d) => d.decision === "pending")) return; // ask again later: nobody is asked twice
    result = await run(agent, result.state);
  }
  console.log(result.finalOutput);
}

// A streamed run's result is taken too.
export async function streamed(bot: Client, agent: Agent): Promise<void> {
  const result = await run(agent, "Delete /tmp/old.log", { stream: true });
  await result.completed;
  await approveWithInquiry(bot, result);
  const plain = await run(agent, "x");
  await approveWithInquiry(bot, plain);
}

// The README's Vercel AI SDK snippet.
export async function vercelAI(bot: Client, model: Parameters<typeof generateText>[0]["model"]): Promise<void> {
  const tools = {
    deleteFile: aiTool({
      description: "Deletes a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `deleted ${path}`,
    }),
  };
  const messages: ModelMessage[] = [{ role: "user", content: "Delete /tmp/old.log" }];
  for (;;) {
    const result = await generateText({ model, tools, messages, toolApproval: { deleteFile: "user-approval" } });
    messages.push(...result.response.messages);
    const approvals = await approvalResponsesWithInquiry(bot, result.content, { deadline: 30 * 60_000 });
    if (approvals.decisions.length === 0) break;
    const sent: ToolModelMessage[] = approvals.messages;
    messages.push(...sent);
  }
  // A message's content (tool-call parts beside the requests) is taken too.
  const last = messages[messages.length - 1];
  if (last && last.role === "assistant" && typeof last.content !== "string") await approvalResponsesWithInquiry(bot, last.content);
}
