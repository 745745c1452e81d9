// Type-checked, never run (npm run typecheck): the README's usage and the public types a caller
// leans on, so that a change to the exports or to the generated schema that breaks a caller
// fails the check.
import { createServer } from "node:http";
import { Client, InquiryError, verifyCallback, type Inquiry, type RunAsk } from "../src/index.js";

export async function readme(): Promise<void> {
  const bot = new Client(process.env.BOT_URL ?? "http://127.0.0.1:8080", process.env.BOT_TOKEN ?? "");
  try {
    const q: Inquiry = await bot.ask({ kind: "confirm", question: "Deploy build 1234 to production?", default: "no" }, { deadline: 30 * 60_000 });
    if (q.status === "answered" && q.answer && q.answer.value === "yes") console.log("deploying");
  } catch (e) {
    if (e instanceof InquiryError && e.fatal) console.log(`decide without asking: ${e.message}`);
    else throw e;
  }
}

declare function deploy(): Promise<void>;

// The five lines of the main README's "Clients" section, as they are there.
export async function mainReadme(): Promise<void> {
  const bot = new Client(process.env.BOT_URL!, process.env.BOT_TOKEN!);
  const q = await bot.ask({ kind: "confirm", question: "Deploy build 1234?", default: "no" }, { deadline: 30 * 60_000 });
  if (q.status === "answered" && q.answer?.value === "yes") await deploy();
}

export async function run(bot: Client): Promise<void> {
  await bot.runs.register({ id: "nightly-7", resume_url: "https://jobs.example/resume" });
  const r: RunAsk = await bot.runs.ask("nightly-7", { question: "Which region first?", options: ["eu", "us"] });
  if (r.status === "waiting") {
    const key: string = r.inquiry.key;
    console.log(`parked on ${key}`);
  } else {
    console.log(r.answer.value);
  }
  await bot.runs.resume("nightly-7", { step: { value: "eu" } });
  await bot.runs.finish("nightly-7", "completed");
  const again: Inquiry = await bot.get("inq_x", { wait: 55 });
  await bot.answer(again.key, { declined: true, text: "not now" });
  await bot.cancel(again.key);
}

export function receiver(secret: string): void {
  createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    try {
      verifyCallback(req.headers, body, secret);
    } catch {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200).end();
  });
}
