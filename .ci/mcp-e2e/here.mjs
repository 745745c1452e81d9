// answer_here by URL-mode elicitation: the client is sent to the question's answer page, and its
// elicitation handler, standing in for the person's browser, answers the page there
// (browser.mjs) before it accepts. The tool's result is then the page's answer, via web. Over
// stdio with the official SDK's client (2025-11-25: `bot mcp` sends elicitation/create in the
// middle of the call), and over streamable HTTP as a 2026-07-28 client over fetch (an
// input-required result, then the retry), which this SDK has no client for: bot serve's /mcp is
// stateless and cannot send an older client a request of its own.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { answerPage } from "./browser.mjs";
import { rpc } from "./http.mjs";

const urlOnly = { elicitation: { url: {} } };
const formAndURL = { elicitation: { form: {}, url: {} } };

// The editable proposal, and the person's edit of it on the page.
const proposal = { format: "text", title: "app.yaml", content: "replicas: 2\nimage: app:1.3\n", editable: true };
const edited = "replicas: 3\nimage: app:1.4\n";

// stdioURLChecks: session(answer, caps) starts `bot mcp` under the SDK's client declaring caps,
// whose elicitation handler is answer; url is the bot's address.
export async function stdioURLChecks({ session, url, check }) {
  // A client that opens pages only: sent to the page, answered there.
  {
    const pages = [];
    const { client, shown } = await session(async (p) => {
      pages.push(await answerPage(p.url, url, { choose: "us" }));
      return { action: "accept" };
    }, urlOnly);
    const res = await client.callTool({ name: "ask_human", arguments: {
      question: "Which region goes first?", options: ["eu", "us"], default: "eu", answer_here: true, wait_seconds: 10,
    } });
    const sc = res.structuredContent ?? {};
    const p = shown[0] ?? {};
    check(shown.length === 1 && p.mode === "url" && /^https:\/\/inquiry-bot\.test\/a\//.test(p.url ?? "") && p.elicitationId === sc.key,
      "over stdio, a URL-only client is sent once to the question's answer page, the key as elicitationId", shown);
    check(pages[0]?.question === "Which region goes first?" && /^Send: .*us/i.test(pages[0]?.confirmation ?? "") && pages[0]?.heading === "Sent",
      "over stdio, the page shows the question, confirms the choice, and sends it", pages);
    check(!res.isError && sc.status === "answered" && sc.answer === "us" && sc.via === "web",
      "over stdio, ask_human returns the answer chosen on the page, via web", sc);
    await client.close();
  }

  // A client that opens the browser and accepts at once, as a harness does: the person answers
  // the page after that, while ask_human waits (or, should the page be answered before the
  // retry arrives, the retry finds the question answered); either way the call ends with it.
  {
    let browsing;
    const { client, shown } = await session(async (p) => {
      browsing = answerPage(p.url, url, { choose: "eu" });
      return { action: "accept" };
    }, urlOnly);
    const res = await client.callTool({ name: "ask_human", arguments: {
      question: "Which region goes last?", options: ["eu", "us"], default: "us", answer_here: true, wait_seconds: 30,
    } });
    const page = await browsing;
    const sc = res.structuredContent ?? {};
    check(shown.length === 1 && page?.heading === "Sent" && !res.isError && sc.status === "answered" && sc.answer === "eu" && sc.via === "web",
      "over stdio, a client that accepts before the person answers gets the page's answer", { shown, page, sc });
    await client.close();
  }

  // An editable proposal, on a client that shows forms and opens pages: the page, where the
  // person edits it, and the edit comes back.
  {
    const pages = [];
    const { client, shown } = await session(async (p) => {
      pages.push(await answerPage(p.url, url, { choose: "yes", edits: { content: edited } }));
      return { action: "accept" };
    }, formAndURL);
    const res = await client.callTool({ name: "ask_human", arguments: {
      question: "Deploy this configuration?", kind: "confirm", proposal, answer_here: true, wait_seconds: 10,
    } });
    const sc = res.structuredContent ?? {};
    check(shown.length === 1 && shown[0].mode === "url", "over stdio, an editable proposal goes to the page even where the client shows forms", shown);
    check(/edited version/.test(pages[0]?.confirmation ?? ""), "over stdio, the confirmation says the edited version is sent", pages);
    check(!res.isError && sc.status === "answered" && sc.answer === "yes" && sc.edited === true && sc.content === edited && sc.via === "web",
      "over stdio, the edit made on the page comes back in content with edited true", sc);
    await client.close();
  }
}

// httpURLChecks: the same two over streamable HTTP, as a 2026-07-28 client over fetch; and the
// SDK's own client (2025-11-25), which the stateless /mcp cannot send to the page: it is asked as
// usual and told why.
export async function httpURLChecks({ url, token, check }) {
  {
    const client = new Client({ name: "ts-http-url-harness", version: "1" }, { capabilities: urlOnly });
    const opened = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      opened.push(req.params);
      return { action: "decline" };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }));
    const res = await client.callTool({ name: "ask_human", arguments: {
      question: "Which region goes first (old HTTP client)?", options: ["eu", "us"], answer_here: true, wait_seconds: 0, id: "e2e-http:old-region",
    } });
    const sc = res.structuredContent ?? {};
    check(!res.isError && opened.length === 0 && sc.status === "pending" && /answer_here was not possible.*2026-07-28.*bot mcp/.test(sc.message ?? ""),
      "over HTTP, a 2025-11-25 client is asked as usual and told answer_here needs 2026-07-28 there, or bot mcp", sc);
    await client.close();
  }

  // call asks, answers the page the input request names with how, and retries with accept.
  async function call(args, caps, how) {
    const first = await rpc(url, token, "tools/call", { name: "ask_human", arguments: args }, { caps });
    const r = first.result ?? {};
    const ask = r.inputRequests?.answer ?? {};
    if (r.resultType !== "input_required" || ask.params?.mode !== "url") return { first, ask };
    const page = await answerPage(ask.params.url, url, how);
    const retry = await rpc(url, token, "tools/call", {
      name: "ask_human", arguments: args, inputResponses: { answer: { action: "accept" } }, requestState: r.requestState,
    }, { caps });
    return { first, ask, page, retry };
  }

  {
    const { first, ask, page, retry } = await call({
      question: "Which region goes first (HTTP)?", options: ["eu", "us"], default: "eu", answer_here: true, wait_seconds: 10, id: "e2e-http:region",
    }, urlOnly, { choose: "us" });
    check(ask.method === "elicitation/create" && ask.params?.mode === "url" && /^https:\/\/inquiry-bot\.test\/a\//.test(ask.params?.url ?? "") && first.result?.requestState,
      "over HTTP (2026-07-28), a URL-only client gets an input request to the answer page", first);
    const sc = retry?.result?.structuredContent ?? {};
    check(page?.heading === "Sent" && retry?.result?.resultType !== "input_required" && sc.status === "answered" && sc.answer === "us" && sc.via === "web",
      "over HTTP (2026-07-28), the retry returns the answer chosen on the page, via web", { page, retry });
  }

  {
    const { ask, retry } = await call({
      question: "Deploy this configuration (HTTP)?", kind: "confirm", proposal, answer_here: true, wait_seconds: 10, id: "e2e-http:deploy",
    }, formAndURL, { choose: "yes", edits: { content: edited } });
    const sc = retry?.result?.structuredContent ?? {};
    check(ask.params?.mode === "url", "over HTTP (2026-07-28), an editable proposal goes to the page even where the client shows forms", ask);
    check(sc.status === "answered" && sc.answer === "yes" && sc.edited === true && sc.content === edited && sc.via === "web",
      "over HTTP (2026-07-28), the edit made on the page comes back in content with edited true", retry);
  }
}
