/**
 * The stable id of a question asked without one, derived exactly as the Go side does
 * (inquiry.DerivedID: prefix, a colon, and inquiry.Fingerprint — the first 16 hex digits of the
 * SHA-256 of the content's JSON as Go's encoding/json writes it). So asking the same question
 * again finds the same inquiry, from this client, `bot ask` or a retry alike, and a question whose
 * content changed is a new inquiry rather than an id conflict.
 */
import { createHash } from "node:crypto";
import type { components } from "./schema.js";

type Schemas = components["schemas"];
type OptionInput = Schemas["OptionInput"];
type Option = Schemas["Option"];

/** The prefix `bot ask` derives with; the default of this client, so that both find the same inquiry. */
export const DEFAULT_ID_PREFIX = "cli";

/** What derivation reads of a request: its content, not where (id, run) or until when. */
export interface Content {
  kind?: Schemas["Kind"];
  question: string;
  context?: string;
  options?: OptionInput[];
  multiple?: boolean;
  allow_text?: boolean;
  default?: Schemas["Value"];
  approvals?: number;
  veto?: boolean;
  requested_by?: string[];
  reason?: "on_no" | "always";
}

/** The kind a request without one is asked as, the rule of `bot ask`: choice with options, else text. */
export function kindOf(c: Content): Schemas["Kind"] {
  return c.kind ?? (c.options && c.options.length > 0 ? "choice" : "text");
}

/**
 * An option as the server decodes it (inquiry.Option.UnmarshalJSON): a bare string is both value
 * and label, and an option given only one of them uses it for both.
 */
export function decodeOption(o: OptionInput): Option {
  if (typeof o === "string") return { value: o, label: o };
  const value = o.value || o.label || "";
  const label = o.label || o.value || "";
  return o.description ? { value, label, description: o.description } : { value, label };
}

/** The id derived from the content: `prefix:` and the first 16 hex digits of its SHA-256. */
export function derivedId(content: Content, prefix: string = DEFAULT_ID_PREFIX): string {
  return `${prefix}:${fingerprint(content)}`;
}

/** inquiry.Fingerprint: the first 8 bytes of the SHA-256 of the content's Go JSON, in hex. */
export function fingerprint(content: Content): string {
  return createHash("sha256").update(contentJSON(content), "utf8").digest("hex").slice(0, 16);
}

/**
 * inquiry's content(): the JSON of kind, question, context, options (null when none), multiple,
 * allow_text, default, then the approval's members, each left out when unset (omitempty), in
 * Go's field order and with Go's string escaping.
 */
export function contentJSON(c: Content): string {
  const options = c.options && c.options.length > 0 ? c.options.map(decodeOption) : null;
  const parts = [
    `"kind":${goString(kindOf(c))}`,
    `"question":${goString(c.question ?? "")}`,
    `"context":${goString(c.context ?? "")}`,
    `"options":${options === null ? "null" : `[${options.map(optionJSON).join(",")}]`}`,
    `"multiple":${c.multiple ? "true" : "false"}`,
    `"allow_text":${c.allow_text ? "true" : "false"}`,
    `"default":${valueJSON(c.default)}`,
  ];
  // inquiry.Approval: pointers and a list with omitempty, so unset (and an empty list) is absent.
  if (c.approvals !== undefined && c.approvals !== null) parts.push(`"approvals":${goInt(c.approvals)}`);
  if (c.veto !== undefined && c.veto !== null) parts.push(`"veto":${c.veto ? "true" : "false"}`);
  if (c.requested_by && c.requested_by.length > 0) {
    parts.push(`"requested_by":[${c.requested_by.map(goString).join(",")}]`);
  }
  if (c.reason) parts.push(`"reason":${goString(c.reason)}`);
  return `{${parts.join(",")}}`;
}

function optionJSON(o: Option): string {
  const desc = o.description ? `,"description":${goString(o.description)}` : "";
  return `{"value":${goString(o.value)},"label":${goString(o.label)}${desc}}`;
}

/** inquiry.Value's JSON: null for none, a string, or a list (an empty list stays []). */
function valueJSON(v: Schemas["Value"] | undefined): string {
  if (v === undefined || v === null) return "null";
  if (Array.isArray(v)) return `[${v.map(goString).join(",")}]`;
  return goString(v);
}

function goInt(n: number): string {
  if (!Number.isInteger(n)) {
    // The server decodes approvals into an int and refuses anything else: nothing to derive.
    throw new RangeError(`approvals must be a whole number, not ${n}`);
  }
  return String(n);
}

const hex = "0123456789abcdef";

/**
 * A string as Go's encoding/json writes it (json.Marshal, HTML escaping on): `"` and `\` escaped,
 * \b \f \n \r \t by name, other control characters as \u00XX, `<` `>` `&` and U+2028 U+2029 as
 * \uXXXX; everything else as UTF-8. A lone surrogate (which JSON.stringify sends as an escape the
 * server decodes to U+FFFD) becomes U+FFFD.
 */
export function goString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) {
      switch (ch) {
        case '"':
          out += '\\"';
          continue;
        case "\\":
          out += "\\\\";
          continue;
        case "\b":
          out += "\\b";
          continue;
        case "\f":
          out += "\\f";
          continue;
        case "\n":
          out += "\\n";
          continue;
        case "\r":
          out += "\\r";
          continue;
        case "\t":
          out += "\\t";
          continue;
        case "<":
        case ">":
        case "&":
          out += "\\u00" + hex[c >> 4] + hex[c & 0xf];
          continue;
      }
      out += c < 0x20 ? "\\u00" + hex[c >> 4] + hex[c & 0xf] : ch;
      continue;
    }
    if (c === 0x2028 || c === 0x2029) {
      out += "\\u202" + hex[c & 0xf];
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += "\ufffd";
    } else {
      out += ch;
    }
  }
  return out + '"';
}
