/**
 * Signed callbacks, checked as the Go client's client.Verify does (client/callback.go): what the
 * bot POSTs to an inquiry's callback_url and a run's resume_url carries X-Inquiry-Timestamp (unix
 * seconds) and X-Inquiry-Signature, one or more comma-separated `v1=<hex HMAC-SHA256 of
 * "v1:{timestamp}:{body}">` (several while a secret is rotated), keyed by BOT_CALLBACK_SECRET.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { InquiryError } from "./errors.js";

/** Callback header names. */
export const HEADER_TIMESTAMP = "X-Inquiry-Timestamp";
export const HEADER_SIGNATURE = "X-Inquiry-Signature";
/** The delivery's id, the same on every retry of one delivery: dedupe by it. */
export const HEADER_DELIVERY = "X-Inquiry-Delivery";
/** "callback" or "resume". */
export const HEADER_EVENT = "X-Inquiry-Event";

/** How far, in seconds, a timestamp may stray from the receiver's clock by default (5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Headers as a receiver has them: a fetch Headers, Node's IncomingHttpHeaders (lower-case names,
 * a value or a list), or any record of names to values.
 */
export type CallbackHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

/** Options of {@link verifyCallback}. */
export interface VerifyOptions {
  /** Seconds the timestamp may stray from now, either way (default 300; 0 or less: not checked). */
  tolerance?: number;
  /** The receiver's clock, in milliseconds since the epoch (default Date.now()). */
  now?: number;
}

/**
 * The X-Inquiry-Signature value of body sent at timestamp (unix seconds): "v1=" and the hex
 * HMAC-SHA256 of "v1:{timestamp}:{body}" keyed by secret, as the bot signs.
 */
export function signCallback(secret: string | Uint8Array, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secret);
  mac.update(`v1:${timestamp}:`);
  mac.update(body);
  return "v1=" + mac.digest("hex");
}

/**
 * Checks a callback as the receiver got it, and throws an InquiryError (code bad_signature, the
 * header it concerns as field) when it is not the bot's: no secret (it fails closed), a missing
 * or malformed timestamp, one outside the tolerance (a replay), a missing signature, or none that
 * matches the raw body. Pass the body exactly as received, before any JSON parsing. The
 * comparison is in constant time.
 */
export function verifyCallback(
  headers: CallbackHeaders,
  rawBody: string | Uint8Array,
  secret: string | Uint8Array,
  opts: VerifyOptions = {},
): void {
  // A secret that is not there at all (an unset environment variable, from plain JavaScript)
  // fails closed with the same sentence as an empty one.
  if (secret === undefined || secret === null || secret.length === 0) {
    throw refusal("", "no signing secret is configured: refusing to accept unsigned callbacks; pass BOT_CALLBACK_SECRET");
  }
  const tsHeader = (header(headers, HEADER_TIMESTAMP) ?? "").trim();
  if (!/^[+-]?\d+$/.test(tsHeader) || !Number.isSafeInteger(Number(tsHeader))) {
    throw refusal(HEADER_TIMESTAMP, `${HEADER_TIMESTAMP} is missing or not unix seconds: this is not a callback of the bot`);
  }
  const ts = Number(tsHeader);
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (tolerance > 0) {
    const skew = (opts.now ?? Date.now()) / 1000 - ts;
    if (skew > tolerance || skew < -tolerance) {
      throw refusal(
        HEADER_TIMESTAMP,
        `${HEADER_TIMESTAMP} is outside the allowed window of ${tolerance} s: refuse it as a replay, or check this machine's clock`,
      );
    }
  }
  const sigHeader = header(headers, HEADER_SIGNATURE) ?? "";
  if (sigHeader.trim() === "") {
    throw refusal(HEADER_SIGNATURE, `${HEADER_SIGNATURE} is missing: this is not a signed callback of the bot`);
  }
  const want = Buffer.from(signCallback(secret, ts, rawBody));
  let ok = false;
  for (const part of sigHeader.split(",")) {
    const got = Buffer.from(part.trim());
    // timingSafeEqual needs equal lengths; a length differing says nothing about the secret.
    if (got.length === want.length && timingSafeEqual(got, want)) ok = true;
  }
  if (!ok) {
    throw refusal(
      HEADER_SIGNATURE,
      `${HEADER_SIGNATURE} does not match the body: it was not signed with this secret, or the body was changed (verify the raw bytes)`,
    );
  }
}

function refusal(field: string, message: string): InquiryError {
  return new InquiryError("bad_signature", message, field ? { field, status: 401 } : { status: 401 });
}

/** One header's value, whatever shape the headers come in (several values joined by commas). */
function header(h: CallbackHeaders, name: string): string | undefined {
  if (typeof (h as { get?: unknown }).get === "function") {
    return (h as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(h as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() !== want || v === undefined) continue;
    return Array.isArray(v) ? v.join(",") : v;
  }
  return undefined;
}
