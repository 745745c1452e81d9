// CI only (.ci/adaptivecards.sh): parses every card named on the command line with the
// adaptivecards library, then validates its properties, and prints every parse and validation
// event; exits 1 on any, or on a card whose version is not 1.5 (the library knows up to 1.6,
// Teams renders up to 1.5).
"use strict";
const fs = require("fs");
const AC = require("adaptivecards/dist/adaptivecards.js");

let failed = 0;
for (const file of process.argv.slice(2)) {
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const problems = [];
  if (json.version !== "1.5") problems.push(`version ${JSON.stringify(json.version)} is not 1.5`);
  const card = new AC.AdaptiveCard();
  const ctx = new AC.SerializationContext();
  card.parse(json, ctx);
  for (let i = 0; i < ctx.eventCount; i++) {
    const e = ctx.getEventAt(i);
    problems.push(`parse: ${AC.ValidationEvent[e.event]}: ${e.message}`);
  }
  for (const e of card.validateProperties().validationEvents) {
    problems.push(`validate: ${AC.ValidationEvent[e.event]}: ${e.message}`);
  }
  for (const p of problems) console.log(`${file}: ${p}`);
  if (problems.length > 0) failed++;
}
if (failed > 0) {
  console.log(`${failed} card(s) refused by adaptivecards`);
  process.exit(1);
}
