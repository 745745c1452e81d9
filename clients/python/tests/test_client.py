"""The Python client end to end against the real ``bot serve`` (SQLite in a temp dir)."""

from __future__ import annotations

import email.utils
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest
import uuid

from botserver import CLIENT_DIR, LOST, REPO, BotServer, FaultProxy, Receiver, api_error

import inquiry_bot
from inquiry_bot import CallbackError, InquiryError, sign, verify_callback
from inquiry_bot._client import _ask_body

bot: BotServer
receiver: Receiver


def setUpModule() -> None:
    global bot, receiver
    receiver = Receiver()
    # Callbacks to the local receiver are allowed by its host and port, and nothing else local.
    bot = BotServer(BOT_CALLBACK_HOSTS="127.0.0.1:%d" % receiver.port)


def tearDownModule() -> None:
    bot.stop()
    receiver.stop()


def unique(prefix: str) -> str:
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


INBOX = {"policy": "ask", "transport": "inbox"}


def pending_key(answerer: inquiry_bot.Client, ident: str, timeout: float = 30) -> str:
    """The key of the pending inquiry with this id, once the answerer's list shows it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for rec in answerer.list(status="pending")["inquiries"]:
            if rec["id"] == ident:
                return rec["key"]
        time.sleep(0.05)
    raise AssertionError("no pending inquiry %r appeared within %d s" % (ident, timeout))


class DerivedIDTest(unittest.TestCase):
    """ask() without an id derives the id bot ask derives for the same content."""

    # (bot ask flags, the same question as the client's request)
    CASES = [
        (["--confirm", "--question", "Deploy to production?"], {"kind": "confirm", "question": "Deploy to production?"}),
        (
            ["--choice", "--question", "Merge now?", "--option", "merge=Merge", "--option", "Hold", "--default", "Merge", "--context", "PR #42: fix the cache"],
            {"kind": "choice", "question": "Merge now?", "options": [{"value": "merge", "label": "Merge"}, "Hold"], "default": "merge", "context": "PR #42: fix the cache"},
        ),
        (
            ["--text", "--question", 'Ship <v2> & "café" naïvely?\tand\u00a0then', "--default", "later"],
            {"kind": "text", "question": 'Ship <v2> & "café" naïvely?\tand\u00a0then', "default": "later"},
        ),
        (
            ["--text", "--question", "Line one\nline two 🚀 cafe\u0301 \u00ad end", "--context", "a \\ backslash, 'quotes' and\u00a0a no-break space"],
            {"kind": "text", "question": "Line one\nline two 🚀 cafe\u0301 \u00ad end", "context": "a \\ backslash, 'quotes' and\u00a0a no-break space"},
        ),
        (
            ["--choice", "--multiple", "--question", "Which regions?", "--option", "eu", "--option", "us", "--option", "ap", "--default", "eu,us", "--allow-text"],
            {"kind": "choice", "multiple": True, "allow_text": True, "question": "Which regions?", "options": ["eu", "us", "ap"], "default": ["eu", "us"]},
        ),
        (
            ["--confirm", "--question", "Merge #7?", "--approvals", "2", "--requested-by", "octocat", "--no-veto", "--reason", "on_no"],
            {"kind": "confirm", "question": "Merge #7?", "approvals": 2, "requested_by": ["octocat"], "veto": False, "reason": "on_no"},
        ),
    ]

    def test_same_id_as_bot_ask(self) -> None:
        for flags, request in self.CASES:
            with self.subTest(flags=flags):
                # Under policy default the question is answered by its default at once: only its
                # id is of interest here.
                out = bot.cli("ask", "--policy", "default", "--timeout", "0", "--json", *flags)
                self.assertTrue(out.stdout.strip(), "bot ask printed nothing: %s %s" % (out.returncode, out.stderr))
                go_id = json.loads(out.stdout)["id"]
                # The client sends no id: the server derives one from the content. bot ask
                # without --id asks anew on every run: the same digest under its own prefix, plus
                # a fresh part.
                rec = bot.client().ask(dict(request, config={"policy": "default"}), timeout=0)
                self.assertRegex(rec["id"], r"^auto:[0-9a-f]{16}$")
                self.assertTrue(go_id.startswith("cli:" + rec["id"][len("auto:"):] + ":"), (go_id, rec["id"]))

    def test_no_id_is_sent(self) -> None:
        # Nothing hashed on this side: a question without an id goes without one, and a field
        # left None is not sent at all.
        self.assertEqual(
            _ask_body({"kind": "confirm", "question": "Deploy?", "id": None, "context": None, "veto": False}),
            {"kind": "confirm", "question": "Deploy?", "veto": False},
        )
        self.assertFalse(hasattr(inquiry_bot, "derived_id") or hasattr(inquiry_bot, "fingerprint"))
        # An empty id is no id: the server derives one, as for an absent one.
        rec = bot.client().ask(id="", kind="confirm", question="Deploy %s?" % unique("svc"), config={"policy": "default"}, timeout=0)
        self.assertRegex(rec["id"], r"^auto:[0-9a-f]{16}$")

    def test_content_changes_the_id(self) -> None:
        c = bot.client()
        policy = {"policy": "default"}
        base = c.ask({"kind": "confirm", "question": "Deploy %s?" % unique("svc"), "config": policy}, timeout=0)
        self.assertNotEqual(base["id"], c.ask({"kind": "confirm", "question": base["question"] + " now", "config": policy}, timeout=0)["id"])
        self.assertNotEqual(base["id"], c.ask({"kind": "confirm", "question": base["question"], "context": "Friday", "config": policy}, timeout=0)["id"])
        # Until when is not content: the same question expiring later is the same question.
        self.assertEqual(base["key"], c.ask({"kind": "confirm", "question": base["question"], "expires_in": "2h", "config": policy}, timeout=0)["key"])


class AskTest(unittest.TestCase):
    def setUp(self) -> None:
        self.agent = bot.client(bot.token(unique("agent"), "ask"))
        self.person_name = unique("ana")
        self.person = bot.client(bot.token(self.person_name, "answer"))

    def test_answered_through_the_inbox_while_ask_waits(self) -> None:
        ident = unique("deploy")
        result: dict = {}

        def ask() -> None:
            try:
                result["rec"] = self.agent.ask(id=ident, kind="confirm", question="Deploy?", config=INBOX, timeout=60)
            except Exception as e:  # reported by the main thread
                result["err"] = e

        t = threading.Thread(target=ask)
        t.start()
        key = pending_key(self.person, ident)
        answered = self.person.answer(key, "yes")
        self.assertEqual(answered["status"], "answered")
        t.join(60)
        self.assertFalse(t.is_alive(), "ask did not return after the answer")
        self.assertNotIn("err", result)
        rec = result["rec"]
        self.assertEqual(rec["key"], key)
        self.assertEqual(rec["status"], "answered")
        self.assertEqual(rec["answer"]["value"], "yes")
        self.assertEqual(rec["answer"]["source"], "person")
        self.assertEqual(rec["answer"]["answered_by"], self.person_name)
        self.assertEqual(inquiry_bot.answered_with(rec), "yes")

    def test_asked_once_on_a_retry(self) -> None:
        question = {"kind": "choice", "question": "Which %s?" % unique("color"), "options": ["Red", "Blue"], "config": INBOX}
        first = self.agent.ask(question, timeout=0)
        self.assertEqual(first["status"], "pending")
        self.assertRegex(first["id"], r"^auto:", "the server derived the id")
        again = self.agent.ask(question, timeout=0)
        self.assertEqual(again["key"], first["key"])
        _, created = self.agent.create(dict(question, id=first["id"]))
        self.assertFalse(created, "the same id and content made a second inquiry")
        self.person.answer(first["key"], "Blue")
        # Asked again after the answer, it comes back answered at once, with the one answer.
        after = self.agent.ask(question, timeout=30)
        self.assertEqual(after["key"], first["key"])
        self.assertEqual(after["answer"]["value"], "Blue")
        mine = [r for r in self.agent.list()["inquiries"] if r["id"] == first["id"]]
        self.assertEqual(len(mine), 1)

    def test_expired_by_its_default_is_returned_not_raised(self) -> None:
        # Nobody answers before the inquiry expires: the sweeper resolves it by its default, and
        # the waiting ask returns it (expired, the default as its answer), not an error, and
        # well before its own timeout.
        rec = self.agent.ask(id=unique("exp"), kind="confirm", question="Go?", default="no", expires_in="1s", config=INBOX, timeout=60)
        self.assertEqual(rec["status"], "expired")
        self.assertEqual(rec["answer"]["value"], "no")
        self.assertEqual(rec["answer"]["source"], "expired")
        self.assertEqual(inquiry_bot.answered_with(rec), "no")

    def test_times_out_pending_and_cancel(self) -> None:
        rec = self.agent.ask(id=unique("later"), kind="text", question="Anything to add?", config=INBOX, timeout=1)
        self.assertEqual(rec["status"], "pending")
        cancelled = self.agent.cancel(rec["key"])
        self.assertEqual(cancelled["status"], "cancelled")
        self.assertEqual(self.agent.get(rec["key"])["status"], "cancelled")

    def test_refusal_carries_the_field(self) -> None:
        with self.assertRaises(InquiryError) as cm:
            self.agent.ask(kind="choice", question="Pick one", options=["Only"], config=INBOX, timeout=0)
        e = cm.exception
        self.assertEqual(e.code, "invalid_inquiry")
        self.assertEqual(e.status, 422)
        self.assertEqual(e.field, "options")
        self.assertFalse(e.fatal)
        self.assertTrue(e.message)

    def test_an_edited_proposal_is_recorded_whole(self) -> None:
        diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new <b>&</b>\n"
        rec = self.agent.ask(
            id=unique("proposal"),
            kind="confirm",
            question="Apply this?",
            proposal={"format": "diff", "content": diff, "title": "x", "editable": True},
            config=INBOX,
            timeout=0,
        )
        self.assertEqual(rec["proposal"]["content"], diff)
        edit = diff.replace("new", "newer")
        answered = self.person.answer(rec["key"], "yes", content=edit)
        self.assertTrue(answered["answer"]["edited"])
        self.assertEqual(answered["answer"]["content"], edit)
        self.assertEqual(answered["proposal"]["content"], diff, "both versions are on the record")

    def test_an_asker_cannot_answer_its_own_question(self) -> None:
        rec = self.agent.ask(id=unique("self"), kind="confirm", question="Approve myself?", config=INBOX, timeout=0)
        with self.assertRaises(InquiryError) as cm:
            self.agent.answer(rec["key"], "yes")
        self.assertEqual(cm.exception.code, "forbidden")
        self.assertEqual(cm.exception.status, 403)


class FaultTest(unittest.TestCase):
    """Passing faults are retried after their Retry-After; a fatal one is raised at once."""

    def setUp(self) -> None:
        self.token = bot.token(unique("agent"), "ask")
        self.pauses: list = []
        self.proxies: list = []

    def tearDown(self) -> None:
        for p in self.proxies:
            p.stop()

    def client_through(self, fault) -> tuple:
        proxy = FaultProxy(bot.url, fault)
        self.proxies.append(proxy)
        # The pauses are recorded, not waited for: no test here depends on the clock.
        c = inquiry_bot.Client(proxy.url, self.token, sleep=self.pauses.append)
        return c, proxy

    def once(self, method: str, path: str, canned):
        left = [canned]

        def fault(m: str, p: str):
            if m == method and p == path and left:
                return left.pop()
            return None

        return fault

    def test_storage_unavailable_retried_after_retry_after(self) -> None:
        c, proxy = self.client_through(
            self.once("POST", "/v1/inquiries", api_error(503, "storage_unavailable", "the database cannot be reached right now; retry in a few seconds", retry_after=3))
        )
        rec = c.ask(id=unique("r"), kind="confirm", question="Go?", config=INBOX, timeout=0)
        self.assertEqual(rec["status"], "pending")
        posts = [h for h in proxy.hits if h[0] == "POST"]
        self.assertEqual(posts, [("POST", "/v1/inquiries", True), ("POST", "/v1/inquiries", False)])
        self.assertEqual(self.pauses, [3.0])

    def test_retry_after_as_an_http_date_is_honoured(self) -> None:
        # A proxy's Retry-After in the HTTP-date form, two minutes ahead: the pause is the time
        # to it (less what the test takes), not the half-second backoff used without one.
        when = email.utils.formatdate(time.time() + 120, usegmt=True)
        busy = (503, {"Content-Type": "text/html", "Retry-After": when}, b"<h1>busy</h1>")
        c, proxy = self.client_through(self.once("POST", "/v1/inquiries", busy))
        # Under policy default the question is answered by its default at once: ask returns.
        rec = c.ask(id=unique("date"), kind="confirm", question="Go?", default="yes", config={"policy": "default"}, timeout=600)
        self.assertEqual(rec["status"], "answered")
        self.assertEqual(len(self.pauses), 1, self.pauses)
        self.assertTrue(60 < self.pauses[0] <= 120, "paused %r s for a Retry-After two minutes ahead" % self.pauses)

    def test_asked_once_when_the_answer_to_the_ask_is_lost(self) -> None:
        # The bot takes the question, but its 201 never reaches the client: the retry sends the
        # same content, whose id the server derives alike, and finds that inquiry rather than
        # asking a second time.
        question = {"kind": "confirm", "question": "Restart %s?" % unique("db"), "config": INBOX}
        c, proxy = self.client_through(self.once("POST", "/v1/inquiries", LOST))
        rec = c.ask(question, timeout=0)
        self.assertEqual([h[2] for h in proxy.hits], [True, False])
        self.assertEqual(self.pauses, [0.5])
        mine = [r for r in bot.client(self.token).list()["inquiries"] if r["question"] == question["question"]]
        self.assertEqual([r["key"] for r in mine], [rec["key"]])

    def test_rate_limited_retried_while_waiting(self) -> None:
        ident = unique("rl")
        c, proxy = self.client_through(lambda m, p: None)
        rec = c.ask(id=ident, kind="confirm", question="Go?", config=INBOX, timeout=0)
        limited = self.once("GET", "/v1/inquiries/" + rec["key"], api_error(429, "rate_limited", "over the rate: wait", retry_after=2))
        c2, proxy2 = self.client_through(limited)
        person = bot.client(bot.token(unique("ben"), "answer"))
        person.answer(rec["key"], "no")
        got = c2.wait(rec["key"], timeout=30)
        self.assertEqual(got["answer"]["value"], "no")
        self.assertEqual([h[2] for h in proxy2.hits], [True, False])
        self.assertEqual(self.pauses, [2.0])

    def test_proxy_503_without_body_retried_with_backoff(self) -> None:
        c, proxy = self.client_through(self.once("POST", "/v1/inquiries", (503, {"Content-Type": "text/html"}, b"<h1>upstream down</h1>")))
        rec = c.ask(id=unique("px"), kind="confirm", question="Go?", config=INBOX, timeout=0)
        self.assertEqual(rec["status"], "pending")
        self.assertEqual(self.pauses, [0.5])

    def test_inquiry_unavailable_is_fatal_and_not_retried(self) -> None:
        c, proxy = self.client_through(lambda m, p: None)
        with self.assertRaises(InquiryError) as cm:
            # The server has no Slack configured: asking through Slack is inquiry_unavailable.
            c.ask(id=unique("slack"), kind="confirm", question="Go?", config={"policy": "ask", "transport": "slack"}, timeout=60)
        e = cm.exception
        self.assertEqual(e.code, "inquiry_unavailable")
        self.assertTrue(e.fatal)
        self.assertFalse(e.temporary)
        self.assertEqual(e.status, 503)
        self.assertIn("slack", e.message.lower())
        self.assertEqual(len(proxy.hits), 1, "a fatal error was retried: %r" % proxy.hits)
        self.assertEqual(self.pauses, [])

    def test_an_inquiry_that_failed_is_raised_as_fatal(self) -> None:
        # The question was taken, then could not be posted (Slack said channel_not_found): the
        # wait sees it failed, with the failure the record carries.
        rec = bot.client(self.token).ask(id=unique("f"), kind="confirm", question="Go?", config=INBOX, timeout=0)
        failed = dict(rec, status="failed", failure={"code": "inquiry_unavailable", "message": "channel C1 was not found: invite the bot", "fatal": True})
        c, proxy = self.client_through(lambda m, p: (200, {"Content-Type": "application/json"}, json.dumps(failed).encode()) if m == "GET" else None)
        with self.assertRaises(InquiryError) as cm:
            c.wait(rec["key"], timeout=30)
        e = cm.exception
        self.assertTrue(e.fatal)
        self.assertEqual(e.code, "inquiry_unavailable")
        self.assertEqual(e.message, "channel C1 was not found: invite the bot")
        self.assertEqual(e.record["key"], rec["key"])
        self.assertEqual(len(proxy.hits), 1)

    def test_a_fault_past_the_timeout_is_raised(self) -> None:
        # Retry-After longer than what is left of the caller's timeout: raised, not slept on.
        c, proxy = self.client_through(lambda m, p: api_error(503, "storage_unavailable", "the database cannot be reached right now", retry_after=120))
        with self.assertRaises(InquiryError) as cm:
            c.ask(id=unique("late"), kind="confirm", question="Go?", config=INBOX, timeout=5)
        self.assertEqual(cm.exception.code, "storage_unavailable")
        self.assertFalse(cm.exception.fatal)
        self.assertEqual(cm.exception.retry_after, 120.0)
        self.assertEqual(self.pauses, [])


class LongPollTest(unittest.TestCase):
    def test_every_step_waits_at_most_55_s(self) -> None:
        # A caller who waits three hours: each request asks the server to hold it at most 55 s
        # (the server's cap; a longer wait is refused), the POST in its body, each GET in its
        # query. The requests are recorded and answered here: pending twice, then answered.
        sent: list = []
        answers = [{"key": "inq_x", "status": "pending"}, {"key": "inq_x", "status": "pending"}, {"key": "inq_x", "status": "answered", "answer": {"value": "yes"}}]

        class Recording(inquiry_bot.Client):
            def request(self, method, path, body=None, *, query=None, wait=0):  # type: ignore[override]
                sent.append((method, path, (body or {}).get("wait") if method == "POST" else (query or {}).get("wait"), wait))
                return (201 if method == "POST" else 200), answers.pop(0)

        rec = Recording("http://127.0.0.1:1", "t", sleep=lambda s: None).ask(kind="confirm", question="Go?", timeout=3 * 3600)
        self.assertEqual(rec["status"], "answered")
        self.assertEqual([m for m, _, _, _ in sent], ["POST", "GET", "GET"])
        for method, path, asked, bound in sent:
            self.assertEqual(asked, inquiry_bot.MAX_WAIT, (method, path))
            self.assertLessEqual(bound, inquiry_bot.MAX_WAIT)
        self.assertEqual(inquiry_bot.MAX_WAIT, 55)


class TransportTest(unittest.TestCase):
    def test_unreachable_gateway_is_a_passing_fault_and_hides_the_password(self) -> None:
        # A port nobody listens on: the bot's own, once it is known to be closed.
        closed = BotServer()
        url = closed.url.replace("http://", "http://ci:hunter2@")
        closed.stop()
        pauses: list = []
        c = inquiry_bot.Client(url, "bot_secret_token", sleep=pauses.append, retry_floor=0)
        with self.assertRaises(InquiryError) as cm:
            c.ask(id="x", kind="confirm", question="Go?", timeout=0)
        e = cm.exception
        self.assertEqual(e.code, "transport")
        self.assertTrue(e.temporary)
        self.assertFalse(e.fatal)
        for secret in ("hunter2", "bot_secret_token"):
            self.assertNotIn(secret, e.message)
            self.assertNotIn(secret, repr(c))
        self.assertIn("cannot reach the gateway", e.message)

    def test_a_redirect_is_not_followed_with_the_token(self) -> None:
        # A gateway URL that redirects (a misconfigured proxy, or one that is not the bot's):
        # urllib would follow it and send the Authorization header on to wherever it points.
        # The client refuses it, and the token reaches nobody else.
        seen: list = []

        class Sink(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.headers.get("Authorization"))
                raw = b'{"key": "inq_x", "status": "answered"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        sink = http.server.HTTPServer(("127.0.0.1", 0), Sink)

        class Redirect(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(302)
                self.send_header("Location", "http://localhost:%d%s" % (sink.server_port, self.path))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        redirect = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
        for srv in (sink, redirect):
            threading.Thread(target=srv.serve_forever, daemon=True).start()
            self.addCleanup(srv.server_close)
            self.addCleanup(srv.shutdown)
        c = inquiry_bot.Client("http://127.0.0.1:%d" % redirect.server_port, "bot_secret_token")
        with self.assertRaises(InquiryError) as cm:
            c.get("inq_x")
        self.assertEqual(seen, [])
        e = cm.exception
        self.assertEqual((e.code, e.status, e.fatal), ("bad_request", 302, False))
        self.assertIn("redirect", e.message)
        self.assertNotIn("bot_secret_token", e.message)

    def test_not_a_url(self) -> None:
        with self.assertRaises(InquiryError) as cm:
            inquiry_bot.Client("127.0.0.1:8080", "t")
        self.assertEqual(cm.exception.code, "bad_request")

    def test_a_bad_url_is_refused_without_repeating_a_secret_in_it(self) -> None:
        # The token passed where the URL goes (arguments swapped), or a URL with a password and
        # the wrong scheme: the refusal, which ends up in a job's log, does not repeat either.
        for url, secret in (("bot_0123456789abcdef", "bot_0123456789abcdef"), ("ftp://ci:hunter2@bot.example.com", "hunter2")):
            with self.subTest(url=url):
                with self.assertRaises(InquiryError) as cm:
                    inquiry_bot.Client(url, "t")
                self.assertEqual(cm.exception.code, "bad_request")
                self.assertNotIn(secret, cm.exception.message)
                self.assertNotIn(secret, repr(cm.exception))
                self.assertIn("http://127.0.0.1:8080", cm.exception.message)


class CallbackTest(unittest.TestCase):
    def setUp(self) -> None:
        self.secret = bot.client().request("GET", "/v1/tokens")[1]["callback_secret"]
        self.assertTrue(self.secret)
        self.agent = bot.client(bot.token(unique("agent"), "ask"))
        self.person = bot.client(bot.token(unique("cy"), "answer"))

    def delivered(self, path: str):
        """The next callback delivered to path (others, from other tests, are put back)."""
        end = time.monotonic() + 30
        while time.monotonic() < end:
            got = receiver.next(timeout=max(0.1, end - time.monotonic()))
            if got[0] == path:
                return got
        raise AssertionError("no callback to %s" % path)

    def test_real_callback_verified_and_forgeries_refused(self) -> None:
        path = "/cb/" + unique("c")
        rec = self.agent.ask(id=unique("cb"), kind="confirm", question="Ship it?", config=INBOX, callback_url=receiver.url + path, timeout=0)
        self.person.answer(rec["key"], "yes")
        _, headers, body = self.delivered(path)

        event = verify_callback(headers, body, self.secret)
        self.assertEqual(event["key"], rec["key"])
        self.assertEqual(event["answer"]["value"], "yes")
        self.assertEqual(headers.get(inquiry_bot.HEADER_EVENT), "callback")
        # Names in another case, bytes or str secret: the same check.
        lower = {k.lower(): v for k, v in headers.items()}
        self.assertEqual(verify_callback(lower, body, self.secret.encode())["key"], rec["key"])

        forged = body.replace(b'"yes"', b'"no"', 1)
        self.assertNotEqual(forged, body)
        sig, stamp = inquiry_bot.HEADER_SIGNATURE, inquiry_bot.HEADER_TIMESTAMP
        for name, h, b, secret, kw, reason, field in [
            ("a changed body", headers, forged, self.secret, {}, "does not match", sig),
            ("another secret", headers, body, self.secret + "x", {}, "does not match", sig),
            ("no signature", {k: v for k, v in headers.items() if k.lower() != "x-inquiry-signature"}, body, self.secret, {}, "missing", sig),
            ("no timestamp", {k: v for k, v in headers.items() if k.lower() != "x-inquiry-timestamp"}, body, self.secret, {}, "not unix seconds", stamp),
            ("an empty secret", headers, body, "", {}, "no signing secret", ""),
            ("no secret at all", headers, body, None, {}, "no signing secret", ""),
            ("a stale timestamp", headers, body, self.secret, {"now": int(lower["x-inquiry-timestamp"]) + 301}, "outside the allowed window", stamp),
            ("a future timestamp", headers, body, self.secret, {"now": int(lower["x-inquiry-timestamp"]) - 301}, "outside the allowed window", stamp),
        ]:
            with self.subTest(name):
                with self.assertRaises(CallbackError) as cm:
                    verify_callback(h, b, secret, **kw)
                e = cm.exception
                self.assertIn(reason, e.reason)
                # An InquiryError like every other error of the client (and the TypeScript
                # client's bad_signature), with the header it concerns; still a ValueError.
                self.assertIsInstance(e, InquiryError)
                self.assertIsInstance(e, ValueError)
                self.assertEqual((e.code, e.field, e.fatal, e.message), ("bad_signature", field, False, e.reason))
                self.assertNotIn(self.secret, e.message)
        # Inside the window, and with the window off, the real one still verifies.
        ts = int(lower["x-inquiry-timestamp"])
        self.assertTrue(verify_callback(headers, body, self.secret, now=ts + 299))
        self.assertTrue(verify_callback(headers, body, self.secret, tolerance=0, now=ts + 10**6))

    def test_rotated_secrets_and_a_resigned_forgery(self) -> None:
        body = b'{"key":"inq_x"}'
        ts = int(time.time())
        good = sign("new-secret", ts, body)
        headers = {"X-Inquiry-Timestamp": str(ts), "X-Inquiry-Signature": "v1=00, " + good}
        self.assertEqual(verify_callback(headers, body, "new-secret")["key"], "inq_x")
        # Signed with another key, a forgery does not pass whatever its form.
        forged = {"X-Inquiry-Timestamp": str(ts), "X-Inquiry-Signature": sign("guess", ts, body)}
        with self.assertRaises(CallbackError):
            verify_callback(forged, body, "new-secret")
        with self.assertRaises(CallbackError):
            verify_callback({"X-Inquiry-Timestamp": "1_700", "X-Inquiry-Signature": good}, body, "new-secret", tolerance=0)


class RunTest(unittest.TestCase):
    def setUp(self) -> None:
        self.agent = bot.client(bot.token(unique("agent"), "ask"))
        self.person_name = unique("dee")
        self.person = bot.client(bot.token(self.person_name, "answer"))
        self.secret = bot.client().request("GET", "/v1/tokens")[1]["callback_secret"]

    def test_parked_resumed_by_the_answer_and_never_asked_twice(self) -> None:
        run_id = unique("nightly")
        path = "/resume/" + run_id
        run = self.agent.runs.register(run_id, config=INBOX, resume_url=receiver.url + path)
        self.assertEqual(run["status"], "running")
        question = {"kind": "confirm", "question": "Rotate the keys tonight?"}

        parked = self.agent.runs.ask(run_id, question)
        self.assertEqual(parked["status"], "waiting")
        self.assertRegex(parked["inquiry"]["id"], r"^auto:", "the server derived the id")
        self.assertEqual(self.agent.runs.get(run_id)["status"], "waiting")

        self.person.answer(parked["inquiry"]["key"], "yes")
        # The bot resumes the run through its resume_url, signed.
        end = time.monotonic() + 30
        while True:
            got_path, headers, body = receiver.next(timeout=max(0.1, end - time.monotonic()))
            if got_path == path:
                break
        resumed = verify_callback(headers, body, self.secret)
        self.assertEqual(headers.get(inquiry_bot.HEADER_EVENT), "resume")
        self.assertEqual(resumed["inquiry"]["key"], parked["inquiry"]["key"])

        # The process comes back and resumes the run with what it was handed.
        run = self.agent.runs.resume(run_id, {parked["inquiry"]["id"]: resumed_answer(resumed, parked["inquiry"]["id"])})
        self.assertEqual(run["status"], "running")
        self.assertEqual(run["answers"][parked["inquiry"]["id"]]["value"], "yes")
        self.assertEqual(run["answers"][parked["inquiry"]["id"]]["answered_by"], self.person_name)

        # Re-entering the step: the answer comes from the run's state, nobody is asked again.
        again = self.agent.runs.ask(run_id, question)
        self.assertEqual(again["status"], "answered")
        self.assertEqual(again["answer"]["value"], "yes")
        pending = [r for r in self.person.list(status="pending")["inquiries"] if r.get("run_id") == run_id]
        self.assertEqual(pending, [])
        self.assertEqual(self.agent.runs.finish(run_id)["status"], "completed")

    def test_resume_by_the_caller_is_the_callers(self) -> None:
        run_id = unique("job")
        self.agent.runs.register(run_id, config=INBOX)
        parked = self.agent.runs.ask(run_id, id="step-1", kind="confirm", question="Proceed?")
        self.assertEqual(parked["status"], "waiting")
        run = self.agent.runs.resume(run_id, {"step-1": {"value": "no"}})
        self.assertEqual(run["status"], "running")
        self.assertEqual(run["answers"]["step-1"]["source"], "caller")
        self.assertEqual(self.agent.get(parked["inquiry"]["key"])["status"], "answered")


def resumed_answer(payload: dict, ident: str) -> dict:
    """The answer a resume callback carries for ident (gateway.ResumeCallback), as resume takes it."""
    assert payload["inquiry_id"] == ident, payload
    assert payload["run"]["answers"][ident]["value"] == payload["answer"]["value"], payload
    return {k: payload["answer"][k] for k in ("value", "text", "declined")}


if __name__ == "__main__":
    unittest.main()


class ReadmeTest(unittest.TestCase):
    def test_the_readme_snippet_runs_as_written(self) -> None:
        # The README's Python lines, run as a user pastes them against a bot as it comes (its
        # default policy: without policy ask nobody would be asked): asked, answered by a
        # person through the inbox, and go is True.
        plain = BotServer(BOT_DEFAULT_POLICY="default")
        self.addCleanup(plain.stop)
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        self.assertEqual(len(blocks), 1, "the README has one Python snippet")
        self.assertLessEqual(len(blocks[0].strip().splitlines()), 5)
        env = dict(os.environ, BOT_URL=plain.url, BOT_TOKEN=plain.token(unique("readme"), "ask"), PYTHONPATH=CLIENT_DIR)
        proc = subprocess.Popen([sys.executable, "-c", blocks[0] + "\nprint(go)\n"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            person = plain.client(plain.token(unique("dee"), "answer"))
            end = time.monotonic() + 30
            key = ""
            while not key and time.monotonic() < end and proc.poll() is None:
                key = next((r["key"] for r in person.list(status="pending")["inquiries"] if r["question"] == "Deploy to production?"), "")
                time.sleep(0.05)
            self.assertTrue(key, "the snippet asked nothing: %s" % (proc.stderr.read() if proc.poll() is not None else "still running"))
            person.answer(key, "yes")
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.strip(), "True")
