// The package's two builds, as a consumer gets them by its name: import resolves to the ES
// modules (dist/), require to CommonJS (dist/cjs), and both export the same names.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import * as esm from "@inquiry-bot/client";

const require = createRequire(import.meta.url);

test("import and require resolve to the ES modules and to CommonJS", () => {
  assert.equal(fileURLToPath(import.meta.resolve("@inquiry-bot/client")), fileURLToPath(new URL("../dist/index.js", import.meta.url)));
  assert.equal(require.resolve("@inquiry-bot/client"), fileURLToPath(new URL("../dist/cjs/index.js", import.meta.url)));
});

test("both builds export the same names, of the same kinds", () => {
  const cjs = require("@inquiry-bot/client");
  const names = (m) => Object.keys(m).filter((k) => k !== "default" && k !== "__esModule").sort();
  assert.deepEqual(names(cjs), names(esm));
  assert.ok(names(esm).includes("Client") && names(esm).includes("verifyCallback"), names(esm).join(", "));
  for (const name of names(esm)) assert.equal(typeof cjs[name], typeof esm[name], name);
  // Two builds are two copies: an error of one is not an instance of the other's class.
  assert.notEqual(cjs.InquiryError, esm.InquiryError);
});
