// The derived id against Go's own (inquiry.DerivedID), for the vectors test/testdata/derive
// computes with the Go package (npm run vectors regenerates them): content the server stores and
// content it would refuse alike, so that Go's JSON escaping is matched byte for byte.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { derivedId, fingerprint, Client } from "../dist/index.js";
import { contentJSON, goString } from "../dist/derive.js";

const vectors = JSON.parse(readFileSync(new URL("./testdata/derive/vectors.json", import.meta.url), "utf8"));

test("the derived id is Go's for every vector", () => {
  assert.ok(vectors.length >= 10, "the vectors file lost its vectors: run npm run vectors");
  for (const v of vectors) {
    assert.equal(derivedId(v.request), v.id, `request ${JSON.stringify(v.request)}`);
  }
});

test("content, not where or until when, makes the id", () => {
  const base = { kind: "confirm", question: "Deploy to production?" };
  const moved = { ...base, id: "x", run_id: "r", expires_in: "2h", config: { policy: "ask" }, callback_url: "https://h/cb" };
  assert.equal(derivedId(moved), derivedId(base));
  assert.notEqual(derivedId({ ...base, question: "Deploy to staging?" }), derivedId(base));
  assert.notEqual(derivedId({ ...base, approvals: 2 }), derivedId(base));
  // A bare-string option is the option with that value and label, as the server decodes it.
  assert.equal(
    derivedId({ kind: "choice", question: "Q?", options: ["a", "b"] }),
    derivedId({ kind: "choice", question: "Q?", options: [{ value: "a", label: "a" }, { label: "b" }] }),
  );
  assert.equal(derivedId(base, "mcp"), "mcp:" + fingerprint(base));
});

test("a client derives with its prefix, and keeps an id it is given", () => {
  const q = { kind: "confirm", question: "Deploy?" };
  assert.equal(new Client("http://127.0.0.1:1", "t").idOf(q), derivedId(q, "cli"));
  assert.equal(new Client("http://127.0.0.1:1", "t", { idPrefix: "job" }).idOf(q), derivedId(q, "job"));
  assert.equal(new Client("http://127.0.0.1:1", "t").idOf({ ...q, id: "mine" }), "mine");
  // Without a kind, the kind of bot ask: a choice with options, else text.
  assert.equal(derivedId({ question: "Name?" }), derivedId({ kind: "text", question: "Name?" }));
  assert.equal(derivedId({ question: "Q?", options: ["a", "b"] }), derivedId({ kind: "choice", question: "Q?", options: ["a", "b"] }));
});

test("goString decodes back to the string (lone surrogates aside) and escapes what Go escapes", () => {
  for (const s of ["", "plain", 'q"b\\s', "<&>", "\u2028\u2029", "\b\f\n\r\t\u0000\u001f\u007f", "é日本🚀"]) {
    assert.equal(JSON.parse(goString(s)), s);
  }
  assert.equal(goString("<a&b>"), '"\\u003ca\\u0026b\\u003e"');
  assert.equal(goString("\u2028"), '"\\u2028"');
  assert.equal(goString("\u0001\b"), '"\\u0001\\b"');
  assert.equal(goString("\ud800"), '"\ufffd"');
  assert.equal(contentJSON({ kind: "text", question: "Q" }), '{"kind":"text","question":"Q","context":"","options":null,"multiple":false,"allow_text":false,"default":null}');
});
