// The real bot for the .ci checks that speak to it: `bot serve` started in a work directory of
// its own, its address and first admin token read from what it prints on a first start.

import { spawn } from "node:child_process";
import { join } from "node:path";

// botEnv is the environment of a bot whose files are all in work: its home, its configuration
// (the token file) and, for serve, its SQLite database; it logs JSON.
export function botEnv(work) {
  return { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: join(work, "cfg"), BOT_LOG_FORMAT: "json" };
}

// serve starts botBin serve on a free port of 127.0.0.1 with botEnv(work), a database in work,
// the public URL https://inquiry-bot.test and env, which adds to these or replaces them. It
// returns the process, its log (the last 120 kB of its stderr, for a failure's report) and ready,
// which resolves to { url, token } once it listens, or rejects with its log if it exits first.
export function serve(botBin, work, env = {}) {
  env = {
    ...botEnv(work),
    DATABASE_URL: "sqlite:" + join(work, "bot.db"),
    BOT_ADDR: "127.0.0.1:0",
    BOT_PUBLIC_URL: "https://inquiry-bot.test",
    ...env,
  };
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
