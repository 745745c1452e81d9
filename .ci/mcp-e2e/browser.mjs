// A person's browser on the answer page, for URL-mode elicitation: it opens the page the client
// was sent to and answers it the way the page's own forms do, in two steps. The first form
// (id "choose") is posted with the button of the chosen option, which shows the confirmation;
// its form (id "confirm") is posted with Send, which answers. Each POST carries exactly what a
// browser submits: the form's hidden inputs and textareas, with the pressed button's name and
// value, as application/x-www-form-urlencoded, marked same-origin (Sec-Fetch-Site) as a
// browser marks a form posted from the page itself.
import { parse } from "node-html-parser";

// served is where the page at link is served here: the bot's public URL (BOT_PUBLIC_URL) is
// https://inquiry-bot.test, which nothing serves, so the same path is opened at the bot's own
// address.
function served(link, botURL) {
  const u = new URL(link);
  return new URL(u.pathname + u.search, botURL).toString();
}

// fields is what submitting form with the button submitter sends: hidden inputs, textareas (as
// the person left them: edits[name] when given) and checked boxes, then the button's pair.
function fields(form, submitter, edits = {}) {
  const body = new URLSearchParams();
  for (const el of form.querySelectorAll("input, textarea")) {
    const name = el.getAttribute("name");
    if (!name) continue;
    if (el.tagName === "TEXTAREA") {
      // The HTML parser drops the newline right after <textarea>; so does this.
      body.append(name, name in edits ? edits[name] : el.text.replace(/^\r?\n/, ""));
      continue;
    }
    const type = (el.getAttribute("type") ?? "text").toLowerCase();
    if (type === "hidden" || type === "text" || ((type === "checkbox" || type === "radio") && el.hasAttribute("checked"))) {
      body.append(name, el.getAttribute("value") ?? "");
    }
  }
  if (submitter.getAttribute("name")) body.append(submitter.getAttribute("name"), submitter.getAttribute("value") ?? "");
  return body;
}

// post submits form (found on the page at url) with submitter and returns the next page.
async function post(url, form, submitter, edits) {
  const action = new URL(form.getAttribute("action"), url).toString();
  const res = await fetch(action, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
    body: fields(form, submitter, edits),
    redirect: "manual",
  });
  const html = await res.text();
  if (res.status !== 200) throw new Error(`POST ${action}: ${res.status}\n${html.slice(0, 2000)}`);
  return { url: action, doc: parse(html) };
}

// answerPage answers the page at link (served by the bot at botURL) as a person would: it
// presses the option button whose value is choose, with edits (textarea name -> text) made
// first, reviews the confirmation and presses Send. It returns what the pages said: the
// question, the confirmation's "Send: …" sentence, and the outcome's heading and sentence.
export async function answerPage(link, botURL, { choose, edits = {} }) {
  const url = served(link, botURL);
  const res = await fetch(url);
  const html = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}\n${html.slice(0, 2000)}`);
  const page = parse(html);
  const chooseForm = page.querySelector("form#choose");
  const option = chooseForm?.querySelectorAll("button[name=value]").find((b) => b.getAttribute("value") === choose);
  if (!option) throw new Error(`the page at ${url} has no button for ${JSON.stringify(choose)}:\n${html.slice(0, 4000)}`);
  const confirm = await post(url, chooseForm, option, edits);
  const confirmForm = confirm.doc.querySelector("form#confirm");
  const send = confirmForm?.querySelector("button#send");
  if (!send) throw new Error(`the confirmation has no Send button:\n${confirm.doc.toString().slice(0, 4000)}`);
  const sent = await post(confirm.url, confirmForm, send, {});
  return {
    question: page.querySelector("h1#question")?.text.trim(),
    confirmation: confirm.doc.querySelector("#send-what")?.text.trim(),
    heading: sent.doc.querySelector("#heading")?.text.trim(),
    outcome: sent.doc.querySelector("#what")?.text.trim(),
  };
}
