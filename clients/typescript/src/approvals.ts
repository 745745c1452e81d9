/**
 * Tool approvals of agent SDKs decided by a person through the bot: one Confirm per pending tool
 * call, showing the tool and its arguments whole, asked by an id derived from the call id (so a
 * retry, or a second pass over the same interruptions, never asks twice), a reason asked on no.
 * approveWithInquiry approves or rejects the OpenAI Agents SDK's interruptions on the run state;
 * approvalResponsesWithInquiry turns the Vercel AI SDK's tool-approval-request parts into
 * tool-approval-response messages. Neither SDK is imported: the helpers take the structural
 * types below, which the SDKs' own types satisfy (type-checked in test/agents.ts).
 */
import { createHash } from "node:crypto";
import type { AskRequest, Client, Inquiry, WaitOptions } from "./client.js";
import { InquiryError } from "./errors.js";

/** The most a question's context holds (openapi.yaml); arguments longer than that are not cut but refused. */
const MAX_CONTEXT = 2000;
/** What the context says before the arguments. */
const HEADING = "Arguments:\n";
/** The most an inquiry id holds (openapi.yaml). */
const MAX_ID = 200;

/** Options of both helpers. */
export interface ApprovalOptions extends WaitOptions {
  /**
   * Fields of each ask beyond the Confirm the helper builds (kind, id, question, context and
   * reason are its own): whom to ask (slack, email, teams, config), expires_in, requested_by,
   * approvals. default is "no" unless given: a question nobody answers in time rejects the call.
   */
  ask?: Omit<AskRequest, "kind" | "id" | "question" | "context" | "reason">;
  /** The start of each inquiry id, before the call id (default "openai-agents:" or "ai-sdk:"). */
  idPrefix?: string;
}

/** What became of one tool call. */
export interface ToolDecision {
  /** The tool call's id, as the SDK gave it. */
  callId: string;
  toolName: string;
  /** approved or rejected as the inquiry resolved; pending when the deadline passed first (ask again later: the same inquiry is found). */
  decision: "approved" | "rejected" | "pending";
  /** Why, in words for the model: the person's reason, or what happened. Absent for pending and for an approval without words. */
  reason?: string;
  /** The inquiry as it stands. */
  inquiry: Inquiry;
}

/** One tool call to ask about. */
interface Call {
  callId: string;
  toolName: string;
  /** The arguments as the person sees them. */
  shown: string;
}

/**
 * Asks every call at once and waits for all (each until the deadline). A refusal of one stops the
 * others' waits and throws: nothing is decided, and calling again finds the inquiries already put.
 */
async function decide(client: Client, calls: Call[], prefix: string, opts: ApprovalOptions): Promise<ToolDecision[]> {
  const requests = calls.map((c) => askOf(c, prefix, opts));
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const wait: WaitOptions = { signal };
  if (opts.deadline !== undefined) wait.deadline = opts.deadline instanceof Date ? opts.deadline : new Date(Date.now() + opts.deadline);
  try {
    const inquiries = await Promise.all(
      requests.map((r) =>
        client.ask(r, wait).catch((err: unknown) => {
          stop.abort(err);
          throw err;
        }),
      ),
    );
    return calls.map((c, i) => decisionOf(c, inquiries[i]!));
  } finally {
    stop.abort();
  }
}

/** The Confirm that asks about call. */
function askOf(call: Call, prefix: string, opts: ApprovalOptions): AskRequest {
  const context = HEADING + call.shown;
  if (context.length > MAX_CONTEXT) {
    throw new InquiryError(
      "bad_request",
      `the arguments of tool call ${call.callId} (${call.toolName}) are ${call.shown.length} characters, more than a question shows whole (${MAX_CONTEXT - HEADING.length}): approve this call another way, or make the tool take shorter arguments`,
    );
  }
  return {
    default: "no",
    ...opts.ask,
    kind: "confirm",
    id: idOf(prefix, call.callId),
    question: `Allow the agent to call the tool ${call.toolName}?`,
    context,
    reason: "on_no",
  };
}

/** The inquiry id of a call: the prefix and the call id, or a digest of the call id when that is too long. */
function idOf(prefix: string, callId: string): string {
  const id = prefix + callId;
  if (id.length <= MAX_ID) return id;
  return `${prefix}sha256:${createHash("sha256").update(callId).digest("hex")}`;
}

/** What an inquiry, as it stands, decides of its call. */
function decisionOf(call: Call, inq: Inquiry): ToolDecision {
  const base = { callId: call.callId, toolName: call.toolName, inquiry: inq };
  const a = inq.answer;
  const words = a?.text?.trim() ?? "";
  switch (inq.status) {
    case "answered":
      // The bot's policy (default) answers by the question's default without asking anyone.
      if (a?.source === "default") {
        if (!a.declined && a.value === "yes") return { ...base, decision: "approved", reason: "The bot's policy approved this tool call without asking anyone." };
        return { ...base, decision: "rejected", reason: "The bot's policy answered no without asking anyone, so this tool call was not approved." };
      }
      if (a && !a.declined && a.value === "yes") return words ? { ...base, decision: "approved", reason: words } : { ...base, decision: "approved" };
      if (a?.declined) return { ...base, decision: "rejected", reason: words || "A person declined to decide on this tool call, so it was not approved." };
      return { ...base, decision: "rejected", reason: words || "A person denied this tool call." };
    case "expired":
      if (a && !a.declined && a.value === "yes") return { ...base, decision: "approved", reason: "Nobody answered in time; the question's default approved this tool call." };
      return { ...base, decision: "rejected", reason: "Nobody answered in time, so this tool call was not approved." };
    case "cancelled":
      return { ...base, decision: "rejected", reason: "The question about this tool call was withdrawn, so it was not approved." };
    default:
      return { ...base, decision: "pending" };
  }
}

/** JSON text shown whole: indented when that fits a question, else compact. */
function show(value: unknown): string {
  if (value === undefined) return "(none)";
  const pretty = JSON.stringify(value, null, 2) ?? String(value);
  if (HEADING.length + pretty.length <= MAX_CONTEXT) return pretty;
  return JSON.stringify(value) ?? String(value);
}

// ---- OpenAI Agents SDK (@openai/agents) ----

/**
 * A pending tool approval of the OpenAI Agents SDK, as RunToolApprovalItem has it: the tool's
 * name, its arguments as a JSON string, and the raw call with its callId (function, shell,
 * apply-patch and computer calls) or id (hosted tool calls).
 */
export interface AgentsApprovalItem {
  readonly type: "tool_approval_item";
  readonly name: string | undefined;
  readonly arguments: string | undefined;
  readonly rawItem: { readonly callId?: string | undefined; readonly id?: string | undefined };
}

/** The run state's decisions, as RunState has them. */
export interface AgentsRunState<I> {
  approve(item: I): void;
  reject(item: I, options?: { message?: string }): void;
}

/** What approveWithInquiry reads of a RunResult (or StreamedRunResult): its interruptions and state. */
export interface AgentsRunResult<I extends AgentsApprovalItem> {
  readonly interruptions: readonly I[] | undefined;
  readonly state: AgentsRunState<I>;
}

/**
 * Asks a person about each of a run's pending tool approvals (result.interruptions), waits for
 * the answers (until opts.deadline, by default an hour) and approves or rejects each item on
 * result.state — a rejection with the person's reason as the message the model sees. Resume the
 * run afterwards with run(agent, result.state). An item whose question is still pending at the
 * deadline is left undecided (decision "pending"): call again, and the same inquiry is waited on.
 */
export async function approveWithInquiry<I extends AgentsApprovalItem>(
  client: Client,
  result: AgentsRunResult<I>,
  opts: ApprovalOptions = {},
): Promise<ToolDecision[]> {
  const items = (result.interruptions ?? []).filter((i) => i.type === "tool_approval_item");
  const calls = items.map((item): Call => {
    const callId = item.rawItem.callId ?? item.rawItem.id;
    const toolName = item.name ?? "(unnamed tool)";
    if (!callId) {
      throw new InquiryError("bad_request", `the approval of the tool ${toolName} carries no call id, so it cannot be asked once: pass the run result's interruptions as the SDK gave them`);
    }
    return { callId, toolName, shown: agentsArguments(item.arguments) };
  });
  const decisions = await decide(client, calls, opts.idPrefix ?? "openai-agents:", opts);
  decisions.forEach((d, i) => {
    const item = items[i]!;
    if (d.decision === "approved") result.state.approve(item);
    else if (d.decision === "rejected") result.state.reject(item, { message: d.reason ?? "A person denied this tool call." });
  });
  return decisions;
}

/** The arguments of an Agents SDK call as shown: parsed JSON, or the string as it is when it is not JSON. */
function agentsArguments(args: string | undefined): string {
  if (args === undefined || args === "") return "(none)";
  try {
    return show(JSON.parse(args));
  } catch {
    return args;
  }
}

// ---- Vercel AI SDK (ai) ----

/** A tool call as the AI SDK has it in a generate/stream result or a tool-call message part. */
export interface AIToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly providerExecuted?: boolean | undefined;
}

/** A tool-approval-response part, as the AI SDK's ToolApprovalResponse. */
export interface AIToolApprovalResponse {
  type: "tool-approval-response";
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerExecuted?: boolean;
}

/** A tool message holding approval responses, to append to the messages before calling again. */
export interface AIToolApprovalMessage {
  role: "tool";
  content: AIToolApprovalResponse[];
}

/** What approvalResponsesWithInquiry returns: the messages to send, and what became of each call. */
export interface AIApprovals {
  /** One tool message with a response per decided call; empty when every question is still pending. */
  messages: AIToolApprovalMessage[];
  decisions: ToolDecision[];
}

/**
 * Asks a person about each tool-approval-request part among parts — a generate/stream result's
 * content (each request carries its toolCall), or a message's content (the request names a
 * toolCallId, and the tool-call part beside it has the tool and input) — and returns the
 * tool-approval-response messages to append before calling generateText/streamText again: approved
 * on yes; denied with the person's reason (which the model sees) on no, a decline, or nobody
 * answering in time. Requests the SDK decided itself (isAutomatic) are not asked. A call whose
 * question is still pending at the deadline gets no response (decision "pending"): call again.
 */
export async function approvalResponsesWithInquiry(
  client: Client,
  parts: readonly { readonly type: string }[],
  opts: ApprovalOptions = {},
): Promise<AIApprovals> {
  const toolCalls = new Map<string, AIToolCall>();
  for (const p of parts) {
    if (p.type === "tool-call") {
      const c = p as unknown as AIToolCall;
      toolCalls.set(c.toolCallId, c);
    }
  }
  const requests: { approvalId: string; call: AIToolCall }[] = [];
  for (const p of parts) {
    if (p.type !== "tool-approval-request") continue;
    const r = p as unknown as { approvalId: string; toolCallId?: string; toolCall?: AIToolCall; isAutomatic?: boolean };
    if (r.isAutomatic) continue;
    const call = r.toolCall ?? (r.toolCallId !== undefined ? toolCalls.get(r.toolCallId) : undefined);
    if (!call) {
      throw new InquiryError(
        "bad_request",
        `the tool approval request ${r.approvalId} names tool call ${r.toolCallId ?? "(none)"}, which is not among the parts given: pass the result's content, or the whole message with its tool-call parts`,
      );
    }
    requests.push({ approvalId: r.approvalId, call });
  }
  const calls = requests.map((r): Call => ({ callId: r.call.toolCallId, toolName: r.call.toolName, shown: show(r.call.input) }));
  const decisions = await decide(client, calls, opts.idPrefix ?? "ai-sdk:", opts);
  const content: AIToolApprovalResponse[] = [];
  decisions.forEach((d, i) => {
    if (d.decision === "pending") return;
    const r = requests[i]!;
    const response: AIToolApprovalResponse = { type: "tool-approval-response", approvalId: r.approvalId, approved: d.decision === "approved" };
    if (d.reason !== undefined) response.reason = d.reason;
    if (r.call.providerExecuted) response.providerExecuted = true;
    content.push(response);
  });
  return { messages: content.length > 0 ? [{ role: "tool", content }] : [], decisions };
}
