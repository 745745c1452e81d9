// The checks over streamable HTTP against bot serve's own /mcp, with an agent's bearer token:
// the official TypeScript SDK's client (StreamableHTTPClientTransport) gets today's bounded wait
// and then the answer with get_answer; and a task of MCP's tasks extension
// (io.modelcontextprotocol/tasks, 2026-07-28), which this SDK has no client for, spoken as raw
// JSON-RPC over fetch: ask_human returns a task, a person answers through the API, tasks/get
// completes with the answer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const TASKS = "io.modelcontextprotocol/tasks";

// answer answers the inquiry key as the person whose token is admin, through the HTTP API.
export async function answer(url, admin, key, value) {
  const res = await fetch(`${url}/v1/inquiries/${encodeURIComponent(key)}/answer`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify({ value }),
  });
  if (!res.ok) throw new Error(`answering ${key}: ${res.status} ${await res.text()}`);
}

// rpc sends one JSON-RPC request to /mcp as a 2026-07-28 client declaring the tasks extension
// (or no capability at all with tasks false, or the capabilities caps), and returns the
// response message.
let nextID = 1;
export async function rpc(url, token, method, params, { tasks = true, caps } = {}) {
  const body = {
    jsonrpc: "2.0", id: nextID++, method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-fetch-agent", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": caps ?? (tasks ? { extensions: { [TASKS]: {} } } : {}),
      },
    },
  };
  const headers = {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
  };
  if (params.name) headers["Mcp-Name"] = params.name;
  const res = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
  let text = await res.text();
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    text = text.split("\n").find((l) => l.startsWith("data: "))?.slice("data: ".length) ?? "";
  }
  return JSON.parse(text);
}

// taskChecks drives ask_human as a 2025-11-25 experimental task with the SDK's own client
// (client.experimental.tasks.callToolStream, which polls tasks/get and reads tasks/result):
// the task is created, a person answers it through the API, and the stream ends with the
// answer. over names the transport in the checks' words.
export async function taskChecks({ client, url, admin, check, over }) {
  const { tools } = await client.listTools(); // the SDK learns ask_human's taskSupport here
  const ask = tools.find((t) => t.name === "ask_human");
  check(ask?.execution?.taskSupport === "optional", `${over}, ask_human declares taskSupport optional`, ask?.execution);
  const seen = [];
  let result;
  const stream = client.experimental.tasks.callToolStream({ name: "ask_human", arguments: {
    question: `Tag the release (${over})?`, kind: "confirm", default: "no", id: `e2e-task:${over}`,
  } });
  for await (const m of stream) {
    seen.push(m.type === "error" ? `error: ${m.error?.message}` : `${m.type}${m.task ? ":" + m.task.status : ""}`);
    if (m.type === "taskCreated") await answer(url, admin, m.task.taskId.split(".")[0], "yes");
    if (m.type === "result") result = m.result;
  }
  const sc = result?.structuredContent ?? {};
  check(seen[0] === "taskCreated:working" && seen.includes("taskStatus:completed") && !result?.isError && sc.status === "answered" && sc.answer === "yes",
    `${over}, callToolStream: task created, answered by a person, completed with the answer`, { seen, sc });
}

export async function httpChecks({ url, token, admin, check }) {
  // The TypeScript SDK's client over streamable HTTP: an old client, so the bounded wait, then
  // get_answer once a person answered.
  {
    const client = new Client({ name: "ts-http-harness", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const tools = await client.listTools();
    check(tools.tools.some((t) => t.name === "ask_human"), "over HTTP, tools/list shows ask_human", tools.tools.map((t) => t.name));
    const started = Date.now();
    const res = await client.callTool({ name: "ask_human", arguments: {
      question: "Ship release 1.4 today?", kind: "confirm", default: "no", wait_seconds: 1, id: "e2e-http:ship",
    } });
    const sc = res.structuredContent ?? {};
    check(!res.isError && sc.status === "pending" && /^inq_/.test(sc.key ?? "") && Date.now() - started < 15_000,
      "over HTTP, ask_human waits its bounded wait and says pending with the key", sc);
    if (sc.key) {
      await answer(url, admin, sc.key, "yes");
      const got = await client.callTool({ name: "get_answer", arguments: { key: sc.key, wait_seconds: 5 } });
      const gc = got.structuredContent ?? {};
      check(!got.isError && gc.status === "answered" && gc.answer === "yes", "over HTTP, get_answer picks the person's answer up", gc);
    }
    await taskChecks({ client, url, admin, check, over: "over HTTP" });
    await client.close();
  }

  // A task (the 2026 extension), over fetch.
  {
    const created = await rpc(url, token, "tools/call", { name: "ask_human", arguments: {
      question: "Rotate the staging keys now?", options: ["rotate", "wait"], default: "wait", id: "e2e-http:rotate",
    } });
    const task = created.result ?? {};
    check(task.resultType === "task" && task.status === "working" && typeof task.taskId === "string" && task.pollIntervalMs > 0,
      "ask_human with the tasks extension returns a working task at once", created);
    const working = await rpc(url, token, "tasks/get", { taskId: task.taskId });
    check(working.result?.status === "working" && /Nobody has answered yet/.test(working.result?.statusMessage ?? ""),
      "tasks/get says working while nobody has answered", working);
    const key = String(task.taskId ?? "").split(".")[0];
    await answer(url, admin, key, "rotate");
    const done = await rpc(url, token, "tasks/get", { taskId: task.taskId });
    const rc = done.result?.result?.structuredContent ?? {};
    check(done.result?.status === "completed" && rc.status === "answered" && rc.answer === "rotate" && done.result?.result?.isError !== true,
      "once a person answered, tasks/get is completed with ask_human's result", done);

    const forged = await rpc(url, token, "tasks/get", { taskId: `${key}.forged` });
    check(forged.error?.code === -32602 && /taskId/.test(forged.error?.message ?? ""), "a forged task id is refused with -32602 in a sentence", forged);
    const undeclared = await rpc(url, token, "tasks/get", { taskId: task.taskId }, { tasks: false });
    check(undeclared.error?.code === -32021, "tasks/get without the extension declared is refused with -32021", undeclared);
  }
}
