// verifyCallback as the Go client's Verify: header names, the v1 HMAC, the timestamp window,
// several signatures while a secret is rotated, and every way a callback is refused.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { verifyCallback, signCallback, InquiryError } from "../dist/index.js";

const secret = "s3cret";
const body = '{"id":"deploy-42","status":"answered"}';
const now = 1_800_000_000_000; // the receiver's clock, injected
const ts = now / 1000;

function refused(fn, field) {
  assert.throws(fn, (e) => e instanceof InquiryError && e.code === "bad_signature" && e.field === field && !e.fatal && /: /.test(e.message));
}

test("the signature is v1= and the hex HMAC-SHA256 of v1:{ts}:{body}", () => {
  const want = "v1=" + createHmac("sha256", secret).update(`v1:${ts}:${body}`).digest("hex");
  assert.equal(signCallback(secret, ts, body), want);
  assert.equal(signCallback(Buffer.from(secret), ts, Buffer.from(body)), want);
});

test("a signed callback passes, whatever shape its headers come in", () => {
  const sig = signCallback(secret, ts, body);
  verifyCallback({ "x-inquiry-timestamp": String(ts), "x-inquiry-signature": sig }, body, secret, { now });
  verifyCallback(new Headers({ "X-Inquiry-Timestamp": String(ts), "X-Inquiry-Signature": sig }), Buffer.from(body), secret, { now });
  // Rotation: any one of several signatures may match.
  verifyCallback({ "x-inquiry-timestamp": String(ts), "x-inquiry-signature": `v1=00, ${sig}` }, body, secret, { now });
  // Within the window either way.
  verifyCallback({ "x-inquiry-timestamp": String(ts), "x-inquiry-signature": sig }, body, secret, { now: now + 299_000 });
  verifyCallback({ "x-inquiry-timestamp": String(ts), "x-inquiry-signature": sig }, body, secret, { now: now - 299_000 });
});

test("a forged, altered, stale or unsigned callback is refused", () => {
  const sig = signCallback(secret, ts, body);
  const h = (over) => ({ "x-inquiry-timestamp": String(ts), "x-inquiry-signature": sig, ...over });
  refused(() => verifyCallback(h({}), body.replace("answered", "expired"), secret, { now }), "X-Inquiry-Signature");
  refused(() => verifyCallback(h({ "x-inquiry-signature": signCallback("other", ts, body) }), body, secret, { now }), "X-Inquiry-Signature");
  // The timestamp is signed: moving it to look fresh breaks the signature.
  refused(() => verifyCallback(h({ "x-inquiry-timestamp": String(ts + 1) }), body, secret, { now }), "X-Inquiry-Signature");
  refused(() => verifyCallback(h({}), body, secret, { now: now + 301_000 }), "X-Inquiry-Timestamp");
  // The window holds the other way too: a timestamp from the future is refused.
  refused(() => verifyCallback(h({}), body, secret, { now: now - 301_000 }), "X-Inquiry-Timestamp");
  refused(() => verifyCallback(h({}), body, secret, { now: now + 61_000, tolerance: 60 }), "X-Inquiry-Timestamp");
  refused(() => verifyCallback(h({ "x-inquiry-timestamp": "soon" }), body, secret, { now }), "X-Inquiry-Timestamp");
  refused(() => verifyCallback(h({ "x-inquiry-timestamp": undefined }), body, secret, { now }), "X-Inquiry-Timestamp");
  refused(() => verifyCallback(h({ "x-inquiry-signature": " " }), body, secret, { now }), "X-Inquiry-Signature");
  refused(() => verifyCallback(h({ "x-inquiry-signature": sig.toUpperCase() }), body, secret, { now }), "X-Inquiry-Signature");
  // No secret: fail closed, even for a callback "signed" with the empty key.
  refused(() => verifyCallback(h({ "x-inquiry-signature": signCallback("", ts, body) }), body, "", { now }), undefined);
  // A secret missing from the environment (plain JavaScript: process.env.X is undefined) fails
  // closed with the same refusal, not a TypeError.
  refused(() => verifyCallback(h({}), body, undefined, { now }), undefined);
  refused(() => verifyCallback(h({}), body, null, { now }), undefined);
  // Tolerance 0 or less: the window is not checked (as Go's window <= 0).
  verifyCallback(h({}), body, secret, { now: now + 10 * 86_400_000, tolerance: 0 });
});
