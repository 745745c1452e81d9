// The real bot for the .ci checks that speak to it: `bot serve` started with the environment a
// check gives it, its address and first admin token read from what it prints on a first start.

import { spawn } from "node:child_process";

// serve starts botBin serve with env. It returns the process, its log (the last 120 kB of its
// stderr, for a failure's report) and ready, which resolves to { url, token } once it listens,
// or rejects with its log if it exits first.
export function serve(botBin, env) {
  const bot = spawn(botBin, ["serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  bot.stderr.on("data", (c) => { log = (log + c).slice(-120_000); });
  const ready = new Promise((ok, no) => {
    let out = "", token = "";
    bot.stdout.setEncoding("utf8");
    bot.stdout.on("data", (c) => {
      out += c;
      const lines = out.split("\n");
      const t = lines.findIndex((l) => l.startsWith("First start: created the admin token"));
      if (t >= 0 && lines[t + 1]) token = lines[t + 1].trim();
      const l = lines.find((l) => l.startsWith("listening on "));
      if (l && token) ok({ url: l.slice("listening on ".length).trim(), token });
    });
    bot.on("exit", (code) => no(new Error(`bot serve exited ${code} before it listened:\n${log}`)));
  });
  return { bot, log: () => log, ready };
}
