/**
 * The client: the API's calls with the product's rules on top. ask() asks once (a stable id: the
 * caller's, or the one the server derives from the content), waits in bounded long-polls (the
 * server holds a request at most 55 s), retries a passing fault after the server's Retry-After,
 * and never retries a fatal one.
 */
import { InquiryError } from "./errors.js";
import type { components } from "./schema.js";

type Schemas = components["schemas"];

/** An inquiry, as every endpoint returns it. */
export type Inquiry = Schemas["Inquiry"];
/** An answer, as an inquiry carries it. */
export type Answer = Schemas["Answer"];
/** A run, as the API returns it. */
export type Run = Schemas["Run"];
/** One page of inquiries, newest first. */
export type InquiryList = Schemas["InquiryList"];
/** What answers an inquiry: one of {value}, {text} or {declined: true} (a decline may say why in text). */
export type AnswerRequest = Schemas["AnswerRequest"];
/** An answer a run's caller hands back through resume. */
export type AnswerInput = Schemas["AnswerInput"];
/** The outcome of an ask inside a run: the answer, or the inquiry the run now waits on. */
export type RunAsk = Schemas["RunAskAnswered"] | Schemas["RunAskWaiting"];
/** Registers a run. */
export type RunRequest = Schemas["RunRequest"];

/**
 * A question to ask: the API's AskRequest, with id and kind optional. Without an id the server
 * derives one from the content, so that asking again finds the same inquiry; without a kind, it is
 * "choice" when options are given, else "text" (the rule of `bot ask`). wait is ask()'s own
 * business (it waits until its deadline) and is not taken here.
 */
export type AskRequest = Omit<Schemas["AskRequest"], "kind" | "wait"> & {
  kind?: Schemas["Kind"];
};

/** The kind a request without one is asked as, the rule of `bot ask`: choice with options, else text. */
function kindOf(r: AskRequest): Schemas["Kind"] {
  return r.kind ?? (r.options && r.options.length > 0 ? "choice" : "text");
}

/** The longest, in seconds, the server holds one long-poll (openapi.yaml). */
export const MAX_WAIT_SECONDS = 55;

/** How long ask() waits without a deadline: an hour, as `bot ask --timeout`. */
export const DEFAULT_ASK_TIMEOUT_MS = 60 * 60 * 1000;

/** How long a request may take beyond the server-side wait it asks for. */
const REQUEST_SLACK_MS = 30_000;

/** How long ask() retries a passing fault on putting its question at least (ClientOptions.retryFloorMs). */
const DEFAULT_RETRY_FLOOR_MS = 30_000;

/** Bounds of the pause between tries of a passing fault without a Retry-After. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/** The most an answer body is read, so that a broken proxy cannot fill memory. */
const MAX_BODY_BYTES = 16 << 20;

/** Options of a Client. */
export interface ClientOptions {
  /** The fetch to use (default: the global fetch of Node 20+). */
  fetch?: typeof fetch;
  /** The User-Agent header (default "inquiry-bot-client-ts"). */
  userAgent?: string;
  /** How many times a call other than ask and a wait retries a passing fault (default 3). */
  retries?: number;
  /**
   * How long, in milliseconds, ask() retries a passing fault on putting its question at least,
   * however near its deadline (default 30 s, as the Python client's retry_floor): an ask that
   * does not wait (deadline 0) still rides out a database restart.
   */
  retryFloorMs?: number;
  /** Waits ms or until signal aborts (default: a timer). Tests inject one to see the pauses. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of ask() and wait(). */
export interface WaitOptions {
  /** When to stop waiting: a Date, or milliseconds from now (default one hour). */
  deadline?: Date | number;
  /** Aborts the wait (and the request in flight). */
  signal?: AbortSignal;
}

/** Options of get(). */
export interface GetOptions {
  /** Seconds the server may hold the request until the inquiry leaves pending (0..55). */
  wait?: number;
  signal?: AbortSignal;
}

/** Options of list(). */
export interface ListOptions {
  status?: Schemas["Status"];
  run_id?: string;
  limit?: number;
  cursor?: string;
  signal?: AbortSignal;
}

/** The statuses an inquiry does not leave. */
const RESOLVED = new Set<string>(["answered", "expired", "cancelled", "failed"]);

/** Whether an inquiry has left pending for good. */
export function isResolved(inq: Pick<Inquiry, "status">): boolean {
  return RESOLVED.has(inq.status);
}

/**
 * A client of one gateway with one token. It is safe to share; every method is one or a few
 * requests.
 */
export class Client {
  readonly #base: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  readonly #retries: number;
  readonly #retryFloorMs: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Runs: register one, ask inside it (parking it), resume it, finish it. */
  readonly runs: Runs;

  /** A client of the gateway at url (such as "http://127.0.0.1:8080") that authenticates with token. */
  constructor(url: string, token: string, opts: ClientOptions = {}) {
    let u: URL;
    try {
      u = new URL(url.trim());
    } catch {
      // Not repeated in the message: what was passed may be the token (arguments swapped), and
      // the message ends up in a log.
      throw new InquiryError("bad_request", "the gateway URL is not an absolute http(s) URL (or the token was passed in its place): give one such as http://127.0.0.1:8080");
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      throw new InquiryError("bad_request", `the gateway URL must be http or https, not ${u.protocol}: give one such as http://127.0.0.1:8080`);
    }
    if (u.username || u.password) {
      // fetch refuses such a URL, and messages name the URL: the token is what authenticates.
      throw new InquiryError("bad_request", "the gateway URL carries a user name or password: leave them out, the token authenticates");
    }
    if (u.search || u.hash) {
      throw new InquiryError("bad_request", "the gateway URL has a query or a fragment: give only the scheme, host and any path prefix, such as http://127.0.0.1:8080");
    }
    this.#base = u.toString().replace(/\/+$/, "");
    this.#token = token;
    this.#fetch = opts.fetch ?? globalThis.fetch;
    this.#userAgent = opts.userAgent ?? "inquiry-bot-client-ts";
    this.#retries = Math.max(0, opts.retries ?? 3);
    this.#retryFloorMs = Math.max(0, opts.retryFloorMs ?? DEFAULT_RETRY_FLOOR_MS);
    this.#sleep = opts.sleep ?? sleep;
    this.runs = new Runs(this);
  }

  /**
   * Asks a question and waits for its answer: until it is resolved (answered, expired by its
   * default or a decline, cancelled) or the deadline passes, and returns the inquiry as it
   * stands — still pending when the deadline passed, which is not an error. Asked once: the id is
   * stable, so a retry (this one's, after a passing fault, or the whole job's) finds the same
   * inquiry rather than asking again. Throws an InquiryError for a refusal (fatal for
   * inquiry_unavailable: stop, and decide without asking), and for an inquiry that failed to be
   * delivered (with the failure's code and fatal).
   */
  async ask(request: AskRequest, opts: WaitOptions = {}): Promise<Inquiry> {
    const until = deadlineOf(opts.deadline);
    const body = this.#askBody(request);
    // The question is put, through passing faults, until the deadline or the floor from now.
    const put = await this.#retrying(Math.max(until, Date.now() + this.#retryFloorMs), opts.signal, () =>
      this.#call<Inquiry>("POST", "/v1/inquiries", { body: { ...body, wait: waitSeconds(until) }, wait: waitSeconds(until), signal: opts.signal }),
    );
    // The fault that outlasted the deadline: the question may or may not have been put; asking
    // again with the same id finds it if it was.
    if ("fault" in put) throw put.fault;
    const inq = put.value;
    return this.#settle(inq, until, opts.signal);
  }

  /**
   * Waits for the inquiry with the server key until it is resolved or the deadline passes, in
   * long-polls of at most 55 s, retrying passing faults; it returns the inquiry as it stands.
   */
  async wait(key: string, opts: WaitOptions = {}): Promise<Inquiry> {
    const until = deadlineOf(opts.deadline);
    return this.#settle(await this.get(key, { signal: opts.signal }), until, opts.signal);
  }

  /** The inquiry with the server key; with wait, long-polled up to wait seconds until it leaves pending. */
  async get(key: string, opts: GetOptions = {}): Promise<Inquiry> {
    const wait = clampWait(opts.wait ?? 0);
    const query = wait > 0 ? `?wait=${wait}` : "";
    return this.#retry(() => this.#call<Inquiry>("GET", `/v1/inquiries/${encodeURIComponent(key)}${query}`, { wait, signal: opts.signal }), true);
  }

  /** One page of inquiries the token may see, newest first. */
  async list(opts: ListOptions = {}): Promise<InquiryList> {
    const q = new URLSearchParams();
    if (opts.status) q.set("status", opts.status);
    if (opts.run_id) q.set("run_id", opts.run_id);
    if (opts.limit) q.set("limit", String(opts.limit));
    if (opts.cursor) q.set("cursor", opts.cursor);
    const query = q.size > 0 ? `?${q}` : "";
    return this.#retry(() => this.#call<InquiryList>("GET", `/v1/inquiries${query}`, { signal: opts.signal }), true);
  }

  /** Answers a pending inquiry and returns it resolved (already_resolved once it is not pending). */
  async answer(key: string, answer: AnswerRequest): Promise<Inquiry> {
    return this.#retry(() => this.#call<Inquiry>("POST", `/v1/inquiries/${encodeURIComponent(key)}/answer`, { body: answer }), false);
  }

  /** Withdraws a pending inquiry the token asked. */
  async cancel(key: string): Promise<Inquiry> {
    return this.#retry(() => this.#call<Inquiry>("POST", `/v1/inquiries/${encodeURIComponent(key)}/cancel`, { body: {} }), false);
  }

  /** The body of an ask: the request with its kind filled in; no id unless the caller gave one. */
  #askBody(request: AskRequest): Record<string, unknown> {
    const body: Record<string, unknown> = { ...request, kind: kindOf(request) };
    delete body.wait;
    return body;
  }

  /** Long-polls inq until it is resolved or until passes; a failed inquiry throws its failure. */
  async #settle(inq: Inquiry, until: number, signal: AbortSignal | undefined): Promise<Inquiry> {
    for (;;) {
      if (inq.status === "failed") throw failureError(inq);
      if (isResolved(inq) || Date.now() >= until) return inq;
      const started = Date.now();
      const next = await this.#retrying(until, signal, () =>
        this.#call<Inquiry>("GET", `/v1/inquiries/${encodeURIComponent(inq.key)}?wait=${waitSeconds(until)}`, { wait: waitSeconds(until), signal }),
      );
      if ("fault" in next) return inq; // the deadline passed during a passing fault: as it last stood
      inq = next.value;
      // A server (or proxy) that did not hold the request must not make this a busy loop.
      const pause = Math.min(1000 - (Date.now() - started), until - Date.now());
      if (!isResolved(inq) && pause > 0) await this.#sleep(pause, signal);
    }
  }

  /**
   * Runs fn until it succeeds, retrying passing faults (after their Retry-After, else with a
   * backoff) until the deadline, the last try at it; a fault still there then is returned, for
   * the caller to decide. Anything that is not a passing fault throws.
   */
  async #retrying<T>(until: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<{ value: T } | { fault: InquiryError }> {
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      let fault: InquiryError;
      try {
        return { value: await fn() };
      } catch (err) {
        if (!(err instanceof InquiryError) || !err.temporary) throw err;
        fault = err;
      }
      const left = until - Date.now();
      if (left <= 0) return { fault };
      await this.#sleep(Math.min(fault.retryAfter > 0 ? fault.retryAfter * 1000 : backoff, left), signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * Runs fn, retrying the server's passing faults (storage_unavailable, rate_limited: nothing was
   * done) up to the client's retries; a gateway that did not answer is retried only when the call
   * is idempotent, since the first try may have landed.
   */
  async #retry<T>(fn: () => Promise<T>, idempotent: boolean): Promise<T> {
    let backoff = FIRST_BACKOFF_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const retryable =
          err instanceof InquiryError && err.temporary && (idempotent || err.code !== "transport") && attempt < this.#retries;
        if (!retryable) throw err;
        await this.#sleep(err.retryAfter > 0 ? err.retryAfter * 1000 : backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** @internal One request, for Runs: decodes a 2xx JSON answer, throws an InquiryError for the rest. */
  async _call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    return this.#call<T>(method, path, opts);
  }

  /** @internal Retried as the other calls are. */
  async _retry<T>(fn: () => Promise<T>, idempotent: boolean): Promise<T> {
    return this.#retry(fn, idempotent);
  }

  /** @internal */
  _askBody(request: AskRequest): Record<string, unknown> {
    return this.#askBody(request);
  }

  async #call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const bound = AbortSignal.timeout((Math.min(opts.wait ?? 0, MAX_WAIT_SECONDS)) * 1000 + REQUEST_SLACK_MS);
    const signal = opts.signal ? AbortSignal.any([opts.signal, bound]) : bound;
    const headers: Record<string, string> = { Accept: "application/json", "User-Agent": this.#userAgent };
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    let resp: Response;
    try {
      resp = await this.#fetch(this.#base + path, { method, headers, body, signal });
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      if (bound.aborted) {
        throw new InquiryError("timeout", `${method} ${pathOnly(path)} got no answer from the gateway at ${this.#base} in time: is bot serve running there and reachable?`, { cause: err });
      }
      throw new InquiryError("transport", `cannot reach the gateway at ${this.#base} (${rootCause(err)}): is bot serve running there? check the URL`, { cause: err });
    }
    const raw = await readCapped(resp);
    if (resp.ok) {
      try {
        return JSON.parse(raw) as T;
      } catch (err) {
        throw new InquiryError("internal", `the gateway at ${this.#base} answered ${method} ${pathOnly(path)} with something that is not JSON: check the URL points at bot serve`, { status: resp.status, cause: err });
      }
    }
    throw errorOf(resp, raw, this.#base);
  }
}

/** @internal */
interface CallOptions {
  body?: unknown;
  /** The server-side wait the request asks for, in seconds: the request is bounded by it plus 30 s. */
  wait?: number;
  signal?: AbortSignal | undefined;
}

/** Runs of one client: register, ask inside one, resume, finish. */
export class Runs {
  readonly #c: Client;

  /** @internal */
  constructor(c: Client) {
    this.#c = c;
  }

  /** Registers a run, or returns the existing one with any config and resume_url given. */
  register(req: RunRequest): Promise<Run> {
    return this.#c._retry(() => this.#c._call<Run>("POST", "/v1/runs", { body: req }), false);
  }

  /** A run, with the inquiry it waits on. */
  get(id: string): Promise<Run> {
    return this.#c._retry(() => this.#c._call<Run>("GET", runPath(id)), true);
  }

  /** Says the run's process is alive. */
  heartbeat(id: string): Promise<Run> {
    return this.#c._retry(() => this.#c._call<Run>("POST", runPath(id, "/heartbeat"), { body: {} }), false);
  }

  /**
   * Asks inside a run. Three outcomes: the answer the run's state already holds (a re-entry:
   * never asked twice), an answer given within wait seconds, or status "waiting" — the run parks
   * on the inquiry and is resumed (its resume_url POSTed) when it resolves. Without an id the
   * server derives it from the content, so the same step of a re-run finds its answer.
   */
  ask(runId: string, request: AskRequest, opts: { wait?: number; signal?: AbortSignal } = {}): Promise<RunAsk> {
    const body = this.#c._askBody(request);
    delete body.run_id;
    const wait = clampWait(opts.wait ?? 0);
    if (wait > 0) body.wait = wait;
    // A retry is safe: the same id in the same run is the same inquiry.
    return this.#c._retry(() => this.#c._call<RunAsk>("POST", runPath(runId, "/ask"), { body, wait, signal: opts.signal }), true);
  }

  /** Merges answers (by inquiry id) into the run's state and sets it running. */
  resume(runId: string, answers: Record<string, AnswerInput> = {}): Promise<Run> {
    return this.#c._retry(() => this.#c._call<Run>("POST", runPath(runId, "/resume"), { body: { answers } }), false);
  }

  /** Ends a run. */
  finish(runId: string, status: "completed" | "failed" | "abandoned"): Promise<Run> {
    return this.#c._retry(() => this.#c._call<Run>("POST", runPath(runId, "/finish"), { body: { status } }), false);
  }
}

function runPath(id: string, suffix = ""): string {
  return `/v1/runs/${encodeURIComponent(id)}${suffix}`;
}

/** The deadline in epoch milliseconds. */
function deadlineOf(d: Date | number | undefined): number {
  if (d === undefined) return Date.now() + DEFAULT_ASK_TIMEOUT_MS;
  if (d instanceof Date) return d.getTime();
  return Date.now() + Math.max(0, d);
}

/**
 * The long-poll step left before until, in seconds to the millisecond (the server takes a
 * fraction), 0..55: a wait never runs past the deadline by more than the network's time.
 */
function waitSeconds(until: number): number {
  return clampWait((until - Date.now()) / 1000);
}

/** A wait in seconds, 0..55, to the millisecond. */
function clampWait(seconds: number): number {
  if (!(seconds > 0)) return 0;
  return Math.min(Math.round(seconds * 1000) / 1000, MAX_WAIT_SECONDS);
}

function failureError(inq: Inquiry): InquiryError {
  const f = inq.failure;
  if (!f) return new InquiryError("internal", `inquiry ${inq.key} failed without saying why: read it with get(), and the server log`, { inquiry: inq });
  return new InquiryError(f.code, f.message, { fatal: f.fatal, inquiry: inq });
}

/** The error an answer that is not 2xx stands for. */
function errorOf(resp: Response, raw: string, base: string): InquiryError {
  const ra = retryAfterSeconds(resp.headers.get("Retry-After"), Date.now());
  let detail: { code?: unknown; message?: unknown; fatal?: unknown; field?: unknown } | undefined;
  try {
    const parsed = JSON.parse(raw) as { error?: typeof detail };
    if (parsed && typeof parsed.error === "object" && parsed.error && typeof parsed.error.code === "string" && parsed.error.code) detail = parsed.error;
  } catch {
    detail = undefined;
  }
  if (!detail) {
    // Not the API's answer: a proxy's error page. A gateway that is down or busy passes.
    if (resp.status === 502 || resp.status === 503 || resp.status === 504) {
      return new InquiryError("transport", `the gateway at ${base} answered ${resp.status} ${resp.statusText}, not the API's JSON: it is restarting or behind a proxy that cannot reach it; try again`, { status: resp.status, retryAfter: ra });
    }
    return new InquiryError(codeForStatus(resp.status), `the gateway at ${base} answered ${resp.status} ${resp.statusText} without an error body: check the URL and the server log`, { status: resp.status });
  }
  const code = detail.code as string;
  const message = typeof detail.message === "string" && detail.message ? detail.message : code.replaceAll("_", " ");
  const opts: { fatal: boolean; status: number; retryAfter: number; field?: string } = {
    // inquiry_unavailable is fatal by its code (openapi.yaml), whatever the body says of it.
    fatal: detail.fatal === true || code === "inquiry_unavailable",
    status: resp.status,
    retryAfter: ra,
  };
  if (typeof detail.field === "string" && detail.field) opts.field = detail.field;
  return new InquiryError(code, message, opts);
}

/** The longest pause a Retry-After is taken for, in seconds (as the gateway's own reading of one). */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * The seconds a Retry-After header asks to wait, in either of its forms (RFC 9110): whole
 * seconds, or an HTTP date (what a proxy or load balancer in front of the gateway may send),
 * measured from now (epoch ms). 0 when there is none, it cannot be read, or the date has passed;
 * at most an hour, so that a broken proxy cannot park a caller for days.
 */
export function retryAfterSeconds(value: string | null | undefined, now: number): number {
  const v = (value ?? "").trim();
  let secs = 0;
  if (/^\d+$/.test(v)) {
    secs = Number(v);
  } else if (/[a-z]/i.test(v)) {
    const when = Date.parse(v);
    if (Number.isFinite(when)) secs = Math.max(0, (when - now) / 1000);
  }
  return Math.min(secs, MAX_RETRY_AFTER_SECONDS);
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthenticated";
    case 403:
      return "forbidden";
    case 404:
    case 405:
      return "not_found";
    case 413:
      return "too_large";
    default:
      return "internal";
  }
}

/** The body as text, at most MAX_BODY_BYTES of it. */
async function readCapped(resp: Response): Promise<string> {
  if (!resp.body) return "";
  const reader = resp.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new InquiryError("too_large", `the gateway's answer is over ${MAX_BODY_BYTES} bytes: check the URL points at bot serve`, { status: resp.status });
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The path without its query, for messages. */
function pathOnly(path: string): string {
  const i = path.indexOf("?");
  return i < 0 ? path : path.slice(0, i);
}

/** The innermost message of a fetch failure, such as "connect ECONNREFUSED 127.0.0.1:1". */
function rootCause(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause !== undefined) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** Waits ms, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
