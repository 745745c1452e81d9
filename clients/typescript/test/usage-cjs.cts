// Type-checked, never run (npm run typecheck): a CommonJS TypeScript caller. Its import compiles
// to require("@inquiry-bot/client"), so the "require" condition's declarations (dist/cjs) must
// carry the same public types as the ES modules'.
import { Client, InquiryError, type Inquiry, type RunAsk } from "@inquiry-bot/client";

export async function ask(): Promise<string | undefined> {
  const bot = new Client(process.env.BOT_URL ?? "http://127.0.0.1:8080", process.env.BOT_TOKEN ?? "");
  try {
    const q: Inquiry = await bot.ask({ kind: "confirm", question: "Deploy?", default: "no" }, { deadline: 60_000 });
    const step: RunAsk = await bot.runs.ask("nightly", { kind: "text", question: "Anything to add?" });
    return step.status === "waiting" ? step.inquiry.key : q.answer?.text;
  } catch (e) {
    if (e instanceof InquiryError && e.fatal) return undefined;
    throw e;
  }
}
