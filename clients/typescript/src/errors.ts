/**
 * The one error vocabulary of the API (gateway/errors.go, inquiry/errors.go): every refusal the
 * server sends is `{"error": {"code", "message", "fatal", "field"}}`, and this client turns each
 * into an {@link InquiryError} carrying the same four things.
 */

import type { components } from "./schema.js";

/** The error codes the server sends (the `code` of an error body). */
export type ErrorCode =
  | "bad_request"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "id_conflict"
  | "already_resolved"
  | "inquiry_declined"
  | "too_large"
  | "invalid_inquiry"
  | "invalid_answer"
  | "inquiry_unavailable"
  | "storage_unavailable"
  | "internal"
  | "rate_limited"
  | "unsupported_media_type"
  | "client_closed_request"
  | "callback_failed"
  // Codes of this client's own, never sent by the server:
  | "transport" // the gateway could not be reached, or answered with something not the API's
  | "timeout" // a request took longer than its bound
  | "bad_signature"; // verifyCallback refused a callback

/**
 * An error of the API, or of this client on its way to it. `message` is one sentence that says
 * what is wrong and how to fix it; `fatal` means no retry will help (a transport that cannot
 * serve: `inquiry_unavailable`) and every retry must stop; `field` names the offending field
 * (such as `options[2].label`) when there is one.
 */
export class InquiryError extends Error {
  /** The code, as the server sent it (or one of this client's own: transport, timeout, bad_signature). */
  readonly code: ErrorCode | (string & {});
  /** True when no retry can help: stop, and decide without asking. */
  readonly fatal: boolean;
  /** The field the error concerns, or undefined. */
  readonly field: string | undefined;
  /** The HTTP status of the answer (0 when there was none). */
  readonly status: number;
  /** Seconds the server asked the caller to wait before another try (its Retry-After), or 0. */
  readonly retryAfter: number;
  /** The inquiry, for one that was accepted and then failed (its failure is this error). */
  readonly inquiry: components["schemas"]["Inquiry"] | undefined;

  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    opts: {
      fatal?: boolean;
      field?: string;
      status?: number;
      retryAfter?: number;
      cause?: unknown;
      inquiry?: components["schemas"]["Inquiry"];
    } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "InquiryError";
    this.code = code;
    this.fatal = opts.fatal ?? code === "inquiry_unavailable";
    this.field = opts.field;
    this.status = opts.status ?? 0;
    this.retryAfter = opts.retryAfter ?? 0;
    this.inquiry = opts.inquiry;
  }

  /**
   * Whether this is a passing fault worth another try, as the Go client's Temporary: the
   * database briefly unavailable (storage_unavailable), the caller over a rate limit
   * (rate_limited: nothing was done), or the gateway not answering (transport). Never a fatal one.
   */
  get temporary(): boolean {
    if (this.fatal) return false;
    return this.code === "storage_unavailable" || this.code === "rate_limited" || this.code === "transport";
  }
}
