"""The merge gate's script (deploy/github-action/gate.py) run as a runner runs it — a python3
process with the environment GitHub Actions or GitLab CI gives — against the real bot."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

from botserver import CLIENT_DIR, REPO, BotServer

import inquiry_bot

GATE = os.path.join(REPO, "deploy", "github-action", "gate.py")

bot: BotServer


def setUpModule() -> None:
    global bot
    bot = BotServer()


def tearDownModule() -> None:
    bot.stop()


class Gate:
    """gate.py running in the background with env; result() waits for its end."""

    def __init__(self, env: dict) -> None:
        self.proc = subprocess.Popen([sys.executable, GATE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def result(self, timeout: float = 90):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err


class GateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.ci_name = "ci-" + uuid.uuid4().hex[:6]
        self.ci_token = bot.token(self.ci_name, "ask")
        self.author = "octo-" + uuid.uuid4().hex[:6]
        self.number = int(uuid.uuid4().int % 10000) + 1
        self.sha = uuid.uuid4().hex + uuid.uuid4().hex[:8]
        self.people = {}
        self.gates = []

    def tearDown(self) -> None:
        for g in self.gates:
            if g.proc.poll() is None:
                g.proc.kill()
            g.proc.communicate()
        self.tmp.cleanup()

    def gate(self, env: dict) -> "Gate":
        g = Gate(env)
        self.gates.append(g)
        return g

    def person(self, name: str) -> inquiry_bot.Client:
        """A person's answer client, its token named name (kept as .name, for the messages)."""
        if name not in self.people:
            c = bot.client(bot.token(name, "answer"))
            c.name = name  # type: ignore[attr-defined]
            self.people[name] = c
        return self.people[name]

    def path(self, name: str) -> str:
        return os.path.join(self.tmp.name, name)

    def github_env(self, **inputs: str) -> dict:
        """What a GitHub runner gives the action's step for a pull_request event (action.yml maps
        the inputs onto INQUIRY_*; PYTHONPATH points at the client as the action sets it)."""
        event = {
            "action": "synchronize",
            "number": self.number,
            "pull_request": {
                "number": self.number,
                "title": "Fix the <cache> & speed it up",
                "html_url": "https://github.example/acme/shop/pull/%d" % self.number,
                "user": {"login": self.author},
                "head": {"sha": self.sha},
            },
        }
        with open(self.path("event.json"), "w") as f:
            json.dump(event, f)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": CLIENT_DIR,
            "GITHUB_ACTIONS": "true",
            "GITHUB_REPOSITORY": "acme/shop",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": self.path("event.json"),
            "GITHUB_SHA": "0" * 40,  # the merge commit: not what the gate keys on
            "GITHUB_ACTOR": "someone-else",
            "GITHUB_STEP_SUMMARY": self.path("summary.md"),
            "GITHUB_OUTPUT": self.path("output"),
            "INQUIRY_URL": bot.url,
            "INQUIRY_TOKEN": self.ci_token,
            "INQUIRY_QUESTION": "",
            "INQUIRY_APPROVALS": "1",
            "INQUIRY_REQUESTED_BY": "",
            "INQUIRY_TIMEOUT": "2m",
        }
        env.update(inputs)
        return env

    def pending(self, answerer: inquiry_bot.Client, ident: str) -> dict:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            for rec in answerer.list(status="pending")["inquiries"]:
                if rec["id"] == ident:
                    return rec
            time.sleep(0.05)
        raise AssertionError("the gate asked no question %r" % ident)

    def read(self, name: str) -> str:
        with open(self.path(name)) as f:
            return f.read()

    def outputs(self) -> dict:
        return dict(line.split("=", 1) for line in self.read("output").splitlines())

    def test_approved_passes(self) -> None:
        ana = self.person("ana-" + uuid.uuid4().hex[:4])
        gate = self.gate(self.github_env())
        ident = "merge-gate:acme/shop#%d@%s" % (self.number, self.sha)
        rec = self.pending(ana, ident)
        self.assertEqual(rec["kind"], "confirm")
        self.assertEqual(rec["question"], "Merge pull request #%d?" % self.number)
        self.assertIn("Fix the <cache> & speed it up", rec["context"])
        self.assertIn("https://github.example/acme/shop/pull/%d" % self.number, rec["context"])
        self.assertEqual(rec["requested_by"], [self.author])
        self.assertEqual(rec["config"]["policy"], "ask")
        ana.answer(rec["key"], "yes")
        code, out, err = gate.result()
        self.assertEqual(code, 0, out + err)
        self.assertEqual(out.strip().splitlines()[-1], "merge gate: approved by %s (%s)" % (ana.name, rec["key"]))
        self.assertNotIn(self.ci_token, out + err)
        summary = self.read("summary.md")
        self.assertIn("Merge gate passed", summary)
        self.assertIn(rec["key"], summary)
        self.assertIn("Fix the &lt;cache&gt; &amp; speed it up", summary, "the summary must not carry raw HTML from a title")
        self.assertEqual(self.outputs()["answer"], "yes")
        self.assertEqual(self.outputs()["key"], rec["key"])

        # A re-run of the same job finds the same question and its answer: nobody is asked again.
        code, out, _ = self.gate(self.github_env()).result()
        self.assertEqual(code, 0, out)
        self.assertIn(rec["key"], out)
        mine = [r for r in bot.client().list()["inquiries"] if r["id"] == ident]
        self.assertEqual(len(mine), 1)

    def test_rejected_fails_with_the_reason(self) -> None:
        ben = self.person("ben-" + uuid.uuid4().hex[:4])
        gate = self.gate(self.github_env(INQUIRY_QUESTION="Ship the cache fix?", INQUIRY_REASON="on_no"))
        rec = self.pending(ben, "merge-gate:acme/shop#%d@%s" % (self.number, self.sha))
        self.assertEqual(rec["question"], "Ship the cache fix?")
        with self.assertRaises(inquiry_bot.InquiryError) as cm:
            ben.answer(rec["key"], "no")
        self.assertEqual(cm.exception.code, "invalid_answer")  # a no must say why
        ben.answer(rec["key"], "no", text="tests are red")
        code, out, err = gate.result()
        self.assertEqual(code, 1, out + err)
        line = out.strip().splitlines()[-1]
        self.assertTrue(line.startswith("::error title=Merge gate::merge gate: rejected by "), line)
        self.assertIn("tests are red", line)
        self.assertIn("Merge gate failed", self.read("summary.md"))
        self.assertEqual(self.outputs()["answer"], "no")

    def test_a_reason_cannot_inject_a_workflow_command(self) -> None:
        # The reason of a no is a person's free text; on GitHub the gate's line is a workflow
        # command, whose data must be escaped (%, CR, LF): else a line break in the text starts a
        # command of its own (::add-mask::, ::stop-commands::) in the job's log.
        ben = self.person("ben-" + uuid.uuid4().hex[:4])
        gate = self.gate(self.github_env(INQUIRY_REASON="on_no"))
        rec = self.pending(ben, "merge-gate:acme/shop#%d@%s" % (self.number, self.sha))
        ben.answer(rec["key"], "no", text="tests are red\n::stop-commands::tok\r\n50% flaky")
        code, out, err = gate.result()
        self.assertEqual(code, 1, out + err)
        lines = out.strip().splitlines()
        self.assertEqual(len(lines), 1, out)
        self.assertTrue(lines[0].startswith("::error title=Merge gate::merge gate: rejected by "), lines[0])
        # The bot stores the person's CR LF as a newline (no script is handed a carriage return).
        self.assertIn("tests are red%0A::stop-commands::tok%0A50%25 flaky", lines[0])

        # Off GitHub the same reason (a re-run of the same job: the same question) is one line of
        # plain text.
        env = self.github_env(INQUIRY_REASON="on_no")
        del env["GITHUB_ACTIONS"]
        code, out, err = self.gate(env).result()
        self.assertEqual(code, 1, out + err)
        self.assertEqual(out.strip().splitlines(), ["merge gate: rejected by %s (tests are red ::stop-commands::tok 50%% flaky) (%s)" % (ben.name, rec["key"])])

    def test_two_approvals_need_two_people_not_the_author(self) -> None:
        ana, ben = self.person("ana-" + uuid.uuid4().hex[:4]), self.person("ben-" + uuid.uuid4().hex[:4])
        # The author has an answer token too, under the name requested_by gives.
        author = self.person(self.author)
        gate = self.gate(self.github_env(INQUIRY_APPROVALS="2"))
        rec = self.pending(ana, "merge-gate:acme/shop#%d@%s" % (self.number, self.sha))
        self.assertEqual(rec["approvals"], 2)

        with self.assertRaises(inquiry_bot.InquiryError) as cm:
            author.answer(rec["key"], "yes")
        self.assertEqual(cm.exception.code, "forbidden")

        one = ana.answer(rec["key"], "yes")
        self.assertEqual(one["status"], "pending", "one approval of two decided the gate")
        self.assertIsNone(gate.proc.poll(), "the gate ended after one approval of two")
        ben.answer(rec["key"], "yes")
        code, out, err = gate.result()
        self.assertEqual(code, 0, out + err)
        line = out.strip().splitlines()[-1]
        self.assertIn("approved by", line)
        for who in (ana, ben):
            self.assertIn(who.name, line)
        self.assertIn("| approvals needed | 2 |", self.read("summary.md"))

    def test_not_decided_in_time_fails_and_a_rerun_picks_the_answer_up(self) -> None:
        code, out, _ = self.gate(self.github_env(INQUIRY_TIMEOUT="1s")).result()
        self.assertEqual(code, 1, out)
        self.assertIn("not decided within 1s", out)
        cy = self.person("cy-" + uuid.uuid4().hex[:4])
        rec = self.pending(cy, "merge-gate:acme/shop#%d@%s" % (self.number, self.sha))
        cy.answer(rec["key"], "yes")
        code, out, _ = self.gate(self.github_env(INQUIRY_TIMEOUT="1s")).result()
        self.assertEqual(code, 0, out)

    def test_gitlab_merge_request(self) -> None:
        dee = self.person("dee-" + uuid.uuid4().hex[:4])
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": CLIENT_DIR,
            "GITLAB_CI": "true",
            "CI_PROJECT_PATH": "acme/shop",
            "CI_PROJECT_URL": "https://gitlab.example/acme/shop",
            "CI_MERGE_REQUEST_IID": str(self.number),
            "CI_MERGE_REQUEST_TITLE": "Bump the parser",
            "CI_MERGE_REQUEST_PROJECT_URL": "https://gitlab.example/acme/shop",
            "CI_COMMIT_SHA": self.sha,
            "GITLAB_USER_LOGIN": self.author,
            "INQUIRY_URL": bot.url,
            "INQUIRY_TOKEN": self.ci_token,
            "INQUIRY_TIMEOUT": "2m",
        }
        gate = self.gate(env)
        rec = self.pending(dee, "merge-gate:acme/shop!%d@%s" % (self.number, self.sha))
        self.assertEqual(rec["question"], "Merge merge request !%d?" % self.number)
        self.assertIn("https://gitlab.example/acme/shop/-/merge_requests/%d" % self.number, rec["context"])
        self.assertEqual(rec["requested_by"], [self.author])
        dee.answer(rec["key"], declined=True)
        code, out, err = gate.result()
        self.assertEqual(code, 1, out + err)
        self.assertIn("declined by", out)
        self.assertFalse(out.startswith("::error"), "GitLab has no workflow commands")

    def test_cannot_ask_exits_2_with_a_sentence(self) -> None:
        for name, env, want in [
            ("no token", self.github_env(INQUIRY_TOKEN=""), "no token"),
            ("a bad token", self.github_env(INQUIRY_TOKEN="bot_nope"), "the bot refused the question"),
            ("a bad timeout", self.github_env(INQUIRY_TIMEOUT="soon"), "timeout 'soon' is not a duration"),
            ("too many approvals", self.github_env(INQUIRY_APPROVALS="21"), "approvals 21"),
            ("nobody can be asked", self.github_env(INQUIRY_CHANNEL="C0123456789"), "do not retry"),
        ]:
            with self.subTest(name):
                code, out, err = self.gate(env).result()
                self.assertEqual(code, 2, out + err)
                self.assertEqual(len(out.strip().splitlines()), 1, out)
                self.assertIn(want, out)
                self.assertNotIn("Traceback", err)


class WorkflowFilesTest(unittest.TestCase):
    """The action and the GitLab template as files (no workflow engine runs here): the inputs
    the merge gate promises, each handed to the script through the environment, and nothing a
    pull request controls ever spliced into a shell command line."""

    def read(self, *path: str) -> str:
        with open(os.path.join(REPO, *path), encoding="utf-8") as f:
            return f.read()

    def test_action_inputs_reach_the_script_only_through_env(self) -> None:
        action = self.read("deploy", "github-action", "action.yml")
        block = action.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
        inputs = re.findall(r"^  ([a-z][a-z-]*):$", block, re.M)
        for name in ("url", "token", "question", "approvals", "requested-by", "timeout"):
            self.assertIn(name, inputs)
        gate = self.read("deploy", "github-action", "gate.py")
        for name in inputs:
            var = "INQUIRY_" + name.upper().replace("-", "_")
            with self.subTest(input=name):
                self.assertRegex(action, r"\n +%s: \$\{\{ inputs\.%s \}\}\n" % (var, re.escape(name)))
                self.assertIn('"%s"' % var, gate, "gate.py never reads %s" % var)
        # A run: script is shell source: an expression in it is pasted in before the shell
        # reads it (a title like "$(curl …)" would run). Only env: may carry expressions.
        runs = re.findall(r"^ *run: *(\|[^\n]*\n(?:(?: {8,}[^\n]*)?\n)*|[^\n]*)", action, re.M)
        self.assertTrue(runs)
        for run in runs:
            self.assertNotIn("${{", run)

    def test_gitlab_script_names_no_variable_a_merge_request_controls(self) -> None:
        template = self.read("deploy", "gitlab", "merge-gate.yml")
        script = template.split("\n  script:\n", 1)[1]
        for line in script.splitlines():
            if not line.strip().startswith("- "):
                break
            with self.subTest(line=line):
                # Titles, branch names and descriptions are the merge request author's: they are
                # read by gate.py from the environment, never expanded into the command line.
                self.assertNotRegex(line, r"\$\{?CI_(MERGE_REQUEST|COMMIT)_(TITLE|DESCRIPTION|MESSAGE|BRANCH|REF_NAME|SOURCE_BRANCH_NAME)")
                self.assertRegex(line, r"gate\.py")


if __name__ == "__main__":
    unittest.main()
