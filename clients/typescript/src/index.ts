/**
 * @inquiry-bot/client: ask a person one question through the inquiry bot and get the answer
 * back. {@link Client} asks (once, by a stable id), waits in bounded long-polls, retries passing
 * faults and throws {@link InquiryError} (fatal for inquiry_unavailable); {@link verifyCallback}
 * checks a signed callback. {@link approveWithInquiry} and {@link approvalResponsesWithInquiry}
 * put agent SDKs' tool approvals to a person. The API's own types, generated from
 * gateway/openapi.yaml, are exported as `paths` and `components`.
 */
export { Client, Runs, isResolved, MAX_WAIT_SECONDS, DEFAULT_ASK_TIMEOUT_MS } from "./client.js";
export type {
  AskRequest,
  Answer,
  AnswerInput,
  AnswerRequest,
  ClientOptions,
  GetOptions,
  Inquiry,
  InquiryList,
  ListOptions,
  Run,
  RunAsk,
  RunRequest,
  WaitOptions,
} from "./client.js";
export { InquiryError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export {
  verifyCallback,
  signCallback,
  DEFAULT_TOLERANCE_SECONDS,
  HEADER_DELIVERY,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
} from "./callback.js";
export type { CallbackHeaders, VerifyOptions } from "./callback.js";
export { approveWithInquiry, approvalResponsesWithInquiry } from "./approvals.js";
export type {
  AIApprovals,
  AIToolApprovalMessage,
  AIToolApprovalResponse,
  AIToolCall,
  AgentsApprovalItem,
  AgentsRunResult,
  AgentsRunState,
  ApprovalOptions,
  ToolDecision,
} from "./approvals.js";
export type { paths, components, operations } from "./schema.js";
