#!/usr/bin/env python3
"""The merge gate: ask a person (or N people) whether a pull request may merge, and pass or fail.

Run by the GitHub Actions composite action beside it (action.yml) and by the GitLab CI template
(deploy/gitlab/merge-gate.yml). It asks the inquiry bot a Confirm — with ``approvals`` above 1,
an approval of that many distinct people — for the pull request (or merge request), with its
author as ``requested_by`` (four eyes: the author cannot approve it), waits up to the timeout,
and exits:

* 0 when the answer is yes (approved);
* 1 when it is no, declined, expired, cancelled, or not decided within the timeout (a re-run of
  the job finds the same question by its stable id and picks the answer up);
* 2 when the gate could not ask (no URL or token, a refusal of the bot, nobody can be asked).

Its inputs are environment variables (the action maps its inputs onto them): INQUIRY_URL,
INQUIRY_TOKEN, INQUIRY_QUESTION, INQUIRY_APPROVALS, INQUIRY_REQUESTED_BY, INQUIRY_TIMEOUT, and
optionally INQUIRY_CHANNEL (a Slack channel), INQUIRY_REASON (``on_no``: a no must say why) and
INQUIRY_PROPOSAL (``false``: ask without the diff as the proposal). The pull request is read from what the runner
gives: GITHUB_REPOSITORY and the event payload at GITHUB_EVENT_PATH on GitHub; CI_PROJECT_PATH,
CI_MERGE_REQUEST_IID, CI_MERGE_REQUEST_TITLE, GITLAB_USER_LOGIN, … on GitLab. The outcome is one
line on stdout, a job summary (GITHUB_STEP_SUMMARY) and step outputs (GITHUB_OUTPUT) when set.
The token is never printed.

The question carries the change's diff as its proposal, computed with git in the checked-out
repository (``git diff BASE...HEAD``), so that the person sees what they approve. A diff that
cannot be computed (no git, a shallow clone without the base) is not a reason to fail the gate:
it asks without one and the job summary says why.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import string
import subprocess
import sys
import unicodedata
from typing import Dict, Mapping, Optional, Tuple

try:
    import inquiry_bot
except ImportError:  # run from a checkout without PYTHONPATH: the client is two folders up
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    import inquiry_bot

EXIT_YES, EXIT_NO, EXIT_ERROR = 0, 1, 2

MAX_ID = 200  # inquiry.MaxIDChars
MAX_CONTEXT = 2000  # inquiry.MaxContextChars
MAX_TITLE = 200  # of the context, so that a long title leaves room for the link
MAX_PROPOSAL = 256 << 10  # inquiry.MaxProposalBytes, in bytes of UTF-8
MAX_PROPOSAL_TITLE = 200  # inquiry.MaxProposalTitleChars
GIT_TIMEOUT = 120.0  # seconds for git diff: a runner's checkout is local, so this is a hang

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)(h|m|s|ms))+$")
_PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


class GateError(Exception):
    """A gate that cannot ask: its message is the one line printed."""


def parse_timeout(s: str) -> float:
    """A timeout in seconds from "30m", "1h30m", "90s" (Go's duration form) or plain seconds."""
    s = (s or "").strip()
    if not s:
        return 30 * 60.0
    if re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s)
    if not _DURATION.match(s):
        raise GateError("timeout %r is not a duration: write it like 30m, 2h or 1h30m" % s)
    return sum(float(n) * _UNITS[u] for n, u in _PART.findall(s))


def _load_event(env: Mapping[str, str]) -> dict:
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            event = json.load(f)
    except (OSError, ValueError):
        return {}
    return event if isinstance(event, dict) else {}


def pull_request(env: Mapping[str, str]) -> Dict[str, str]:
    """What the runner says about the change to merge: repo, number, title, url, author, sha."""
    if env.get("GITLAB_CI") or env.get("CI_PROJECT_PATH"):
        iid = env.get("CI_MERGE_REQUEST_IID", "")
        project_url = env.get("CI_MERGE_REQUEST_PROJECT_URL") or env.get("CI_PROJECT_URL", "")
        return {
            "repo": env.get("CI_MERGE_REQUEST_PROJECT_PATH") or env.get("CI_PROJECT_PATH", ""),
            "number": iid,
            "title": env.get("CI_MERGE_REQUEST_TITLE", ""),
            "url": project_url + "/-/merge_requests/" + iid if project_url and iid else env.get("CI_PIPELINE_URL", ""),
            "author": env.get("GITLAB_USER_LOGIN", ""),
            "sha": env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA") or env.get("CI_COMMIT_SHA", ""),
            "base": env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", ""),
            "files_url": project_url + "/-/merge_requests/" + iid + "/diffs" if project_url and iid else "",
            "noun": "merge request",
            "sign": "!",
        }
    event = _load_event(env)
    pr = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
    user = pr.get("user") if isinstance(pr.get("user"), dict) else {}
    head = pr.get("head") if isinstance(pr.get("head"), dict) else {}
    base = pr.get("base") if isinstance(pr.get("base"), dict) else {}
    run_url = ""
    if env.get("GITHUB_SERVER_URL") and env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID"):
        run_url = "%s/%s/actions/runs/%s" % (env["GITHUB_SERVER_URL"], env["GITHUB_REPOSITORY"], env["GITHUB_RUN_ID"])
    return {
        "repo": env.get("GITHUB_REPOSITORY", ""),
        "number": str(pr.get("number") or event.get("number") or ""),
        "title": str(pr.get("title") or ""),
        "url": str(pr.get("html_url") or run_url),
        # The author of the pull request; without one (a push), who started the run.
        "author": str(user.get("login") or env.get("GITHUB_ACTOR", "")),
        # The head commit, not GITHUB_SHA (a pull request's merge commit, which changes with the base).
        "sha": str(head.get("sha") or env.get("GITHUB_SHA", "")),
        # The base the pull request was opened against; a push has none, and so no diff.
        "base": str(base.get("sha") or ""),
        "files_url": str(pr["html_url"]) + "/files" if pr.get("html_url") else "",
        "noun": "pull request",
        "sign": "#",
    }


def stable_id(pr: Mapping[str, str]) -> str:
    """The gate's inquiry id: repository, number and head commit, so that a re-run of the same
    job finds the same question (and its answer), and a new push asks afresh."""
    where = pr["repo"] or "repository"
    if pr["number"]:
        where += pr["sign"] + pr["number"]
    ident = "merge-gate:" + where + ("@" + pr["sha"] if pr["sha"] else "")
    if len(ident) > MAX_ID:
        digest = hashlib.sha256(ident.encode("utf-8")).hexdigest()[:16]
        ident = ident[: MAX_ID - len(digest) - 1] + "~" + digest
    return ident


def _git_diff(base: str, head: str) -> Tuple[Optional[str], str]:
    """The diff of head against its merge base with base, in the current directory's repository,
    or None and why not, as a phrase."""
    try:
        p = subprocess.run(
            ["git", "diff", "--no-color", "--no-ext-diff", "--no-textconv", base + "..." + head, "--"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=GIT_TIMEOUT,
        )
    except FileNotFoundError:
        return None, "there is no git on this runner"
    except subprocess.TimeoutExpired:
        return None, "git diff took more than %s" % _human(GIT_TIMEOUT)
    except OSError as e:
        return None, "git could not run (%s)" % e.strerror
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", errors="replace").strip().splitlines()
        why = err[0] if err else "exit status %d" % p.returncode
        return None, "git diff failed (%s); check out the repository with fetch-depth: 0 so that both commits are there" % why
    return p.stdout.decode("utf-8", errors="replace"), ""


def cut_diff(diff: str, files_url: str) -> Tuple[str, bool]:
    """diff within MAX_PROPOSAL bytes: whole, or its first whole lines and a last line that says it
    was cut and where the whole is, since the bot refuses a longer proposal."""
    # A NUL, which the bot refuses, shows as U+FFFD, as undecodable bytes do.
    diff = diff.replace("\x00", "\ufffd")
    raw = diff.encode("utf-8")
    if len(raw) <= MAX_PROPOSAL:
        return diff, False
    where = files_url or "the pull request's files"
    tail = "… cut here: the diff is %d bytes, more than the %d (256 KiB) a proposal holds; the whole diff is at %s\n" % (
        len(raw), MAX_PROPOSAL, where)
    room = MAX_PROPOSAL - len(tail.encode("utf-8"))
    end = raw.rfind(b"\n", 0, room + 1)
    return raw[: end + 1].decode("utf-8") + tail, True


def proposal(env: Mapping[str, str], pr: Mapping[str, str]) -> Tuple[Optional[Dict[str, object]], str]:
    """The change's diff as the question's proposal and what it is, or None and why there is none."""
    if (env.get("INQUIRY_PROPOSAL") or "").strip().lower() in ("false", "no", "0", "off"):
        return None, "turned off (proposal: false)"
    if not pr.get("base") or not pr.get("sha"):
        return None, "the event names no base and head commit to diff"
    diff, why = _git_diff(pr["base"], pr["sha"])
    if diff is None:
        return None, why
    if not diff.strip():
        return None, "the diff is empty"
    # One line: the bot refuses a title with a line break.
    title = re.sub(r"\s+", " ", pr.get("title") or "").strip()
    if pr.get("number"):
        title = pr["sign"] + pr["number"] + (": " + title if title else "")
    title = title or "the change"
    if len(title) > MAX_PROPOSAL_TITLE:
        title = title[: MAX_PROPOSAL_TITLE - 1] + "…"
    content, cut = cut_diff(diff, pr.get("files_url", ""))
    why = "the diff, %d bytes%s" % (len(content.encode("utf-8")), ", cut to the limit" if cut else "")
    return {"format": "diff", "content": content, "title": title, "editable": False}, why


def build_request(env: Mapping[str, str]) -> Tuple[dict, Dict[str, str]]:
    pr = pull_request(env)
    # Without a number (a push, a manual run) it is the commit that is asked about.
    what = pr["noun"] + " " + pr["sign"] + pr["number"] if pr["number"] else "this change"
    question = (env.get("INQUIRY_QUESTION") or "").strip() or "Merge %s?" % what
    lines = []
    title = pr["title"].strip()
    if len(title) > MAX_TITLE:
        title = title[: MAX_TITLE - 1] + "…"
    head = "%s%s" % (what[:1].upper() + what[1:], ' "%s"' % title if title else "")
    if pr["repo"]:
        head += " in " + pr["repo"]
    if pr["author"]:
        head += " by " + pr["author"]
    lines.append(head)
    if pr["url"]:
        lines.append(pr["url"])
    if pr["sha"]:
        lines.append("head " + pr["sha"][:12])
    approvals_s = (env.get("INQUIRY_APPROVALS") or "1").strip()
    if not re.fullmatch(r"\d+", approvals_s):
        raise GateError("approvals %r is not a whole number: give how many people must approve, such as 2" % approvals_s)
    approvals = int(approvals_s)
    requested = env.get("INQUIRY_REQUESTED_BY")
    if requested is None or not requested.strip():
        requested = pr["author"]
    req: dict = {
        "id": stable_id(pr),
        "kind": "confirm",
        "question": question,
        "context": "\n".join(lines)[:MAX_CONTEXT],
        "config": {"policy": "ask"},
        "requested_by": [w.strip() for w in requested.split(",") if w.strip()],
    }
    if approvals != 1:
        req["approvals"] = approvals  # the server refuses 0 or more than 20 with its sentence
    reason = (env.get("INQUIRY_REASON") or "").strip()
    if reason:
        req["reason"] = reason  # on_no or always; the server refuses anything else
    channel = (env.get("INQUIRY_CHANNEL") or "").strip()
    if channel:
        req["config"]["transport"] = "slack"
        req["slack"] = {"channel": channel}
    # The id stays the commit's: the same commit gives the same diff, and so the same question.
    prop, what = proposal(env, pr)
    if prop is not None:
        req["proposal"] = prop
        pr["proposal"] = what
    else:
        pr["proposal"] = "none: " + what
    return req, pr


def decided_by(rec: Mapping) -> str:
    a = rec.get("answer") or {}
    votes = [v.get("by") for v in a.get("votes") or [] if v.get("by")]
    names = votes or ([a["answered_by"]] if a.get("answered_by") else [])
    if not names:
        return ""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def outcome(rec: Mapping, timeout: float) -> Tuple[int, str]:
    """The exit status and the one line for the inquiry as it stands."""
    key, status = rec.get("key", ""), rec.get("status")
    a = rec.get("answer") or {}
    by = decided_by(rec)
    why = (" (%s)" % a["text"]) if a.get("text") else ""
    if status == "pending":
        tally = ""
        votes = rec.get("votes") or []
        if votes:
            tally = " (%d vote%s so far)" % (len(votes), "" if len(votes) == 1 else "s")
        return EXIT_NO, "not decided within %s%s; %s stays pending: answer it, then re-run this job" % (_human(timeout), tally, key)
    if status == "cancelled":
        return EXIT_NO, "the question %s was cancelled: nobody will answer it" % key
    if status == "expired":
        # Whatever was assumed at the expiry, nobody approved: a gate never passes by default.
        return EXIT_NO, "nobody answered before %s expired: not approved" % key
    by = " by " + by if by else ""
    if a.get("declined"):
        return EXIT_NO, "declined%s%s: not approved (%s)" % (by, why, key)
    if a.get("value") == "yes":
        return EXIT_YES, "approved%s (%s)" % (by, key)
    if a.get("value") == "no":
        return EXIT_NO, "rejected%s%s (%s)" % (by, why, key)
    return EXIT_NO, "answered in own words, which are not a yes%s%s (%s)" % (by, why, key)


def _human(seconds: float) -> str:
    s = int(round(seconds))
    if s % 3600 == 0 and s:
        return "%dh" % (s // 3600)
    if s % 60 == 0 and s:
        return "%dm" % (s // 60)
    return "%ds" % s


def _append(path: Optional[str], text: str) -> None:
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print("merge gate: could not write %s: %s" % (path, e.strerror), file=sys.stderr)


# Characters that show as nothing although they are not format characters (Cf): the default
# ignorable code points of Unicode's Other_Default_Ignorable_Code_Point, and the blank Braille
# pattern, as the bot's inquiry.Invisible counts them.
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
    (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),
)


def _shows_as_code(ch: str) -> bool:
    """Whether a surface shows ch as a visible code rather than obey it: a control, a format
    character (the bidirectional overrides and isolates, zero-width spaces), a line or paragraph
    separator, or one of _IGNORABLE (the bot's inquiry.Printed)."""
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
        return True
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _IGNORABLE)


def printed(s: str, keep: str = "\n\t") -> str:
    """s as a plain-text surface shows it, as the bot's inquiry.Printed does: a character that
    would reorder or rewrite the line, or that shows as nothing, appears as a code such as
    ⟨U+202E⟩ instead. A title or a person's reason can hold one (the bot refuses them in what is
    asked, not in every answer). A lone surrogate, which no file can hold, is U+FFFD."""
    out = []
    for ch in s:
        if ch in keep:
            out.append(ch)
        elif unicodedata.category(ch) == "Cs":
            out.append("\ufffd")
        elif _shows_as_code(ch):
            out.append("⟨U+%04X⟩" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


# Every ASCII punctuation character, each of which CommonMark lets a backslash make literal.
_PUNCT = frozenset(string.punctuation)
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _md(s: str) -> str:
    """s as one line of Markdown, in the summary's text or a table cell, that shows exactly its
    characters. The text comes from the pull request (its title, its author) and from a person's
    reason, and either may be written to look like the bot's own words: so every ASCII
    punctuation character is backslash-escaped (CommonMark: an escaped character is literal), and
    no link, image, autolink, emphasis, heading or table cell can start; <, > and & are entities,
    so there is no HTML either; and an @ is in a code span, since GitHub links a mention or an
    address (a@b.co) after the escapes are read, but never inside code."""
    out = []
    for ch in printed(s.replace("\r\n", "\n")).replace("\n", " ").replace("\t", " "):
        if ch in _ENTITY:
            out.append(_ENTITY[ch])
        elif ch == "@":
            out.append("`@`")
        elif ch in _PUNCT:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _code(s: str) -> str:
    """s as an inline code span in a table cell: the fence longer than any run of backticks in it,
    and a pipe escaped (a table cell ends at a bare one, even in code)."""
    s = printed(s, keep="").replace("|", "\\|")
    fence = "`" * (max((len(r) for r in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return fence + pad + s + pad + fence


def report(env: Mapping[str, str], code: int, line: str, rec: Optional[Mapping], req: Optional[Mapping],
           proposal_note: str = "") -> None:
    """The one line, and the job summary and step outputs when the runner offers them."""
    github = env.get("GITHUB_ACTIONS") == "true"
    # Line breaks are folded or escaped below; any other character that would rewrite the line
    # in the log shows as its code.
    line = printed(line, keep="\r\n\t")
    if github and code != EXIT_YES:
        # A workflow command's data, escaped as the runner unescapes it: the line carries a
        # person's reason and the bot's message, and a raw line break in them would start a
        # command of its own (::add-mask::, ::stop-commands::) in the job's log.
        data = ("merge gate: " + line).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        print("::error title=Merge gate::" + data, flush=True)
    else:
        print("merge gate: " + re.sub(r"[\r\n]+", " ", line), flush=True)
    verdict = {EXIT_YES: "passed", EXIT_NO: "failed", EXIT_ERROR: "could not ask"}[code]
    summary = "### Merge gate %s\n\n%s\n" % (verdict, _md(line))
    if req:
        summary += "\n| | |\n|---|---|\n| question | %s |\n" % _md(req.get("question", ""))
        summary += "| change | %s |\n" % _md(req.get("context", "").split("\n")[0])
        if rec and rec.get("key"):
            summary += "| inquiry | %s (id %s) |\n" % (_code(rec["key"]), _md(rec.get("id", "")))
        if req.get("approvals"):
            summary += "| approvals needed | %d |\n" % req["approvals"]
        if req.get("requested_by"):
            summary += "| may not approve | %s |\n" % _md(", ".join(req["requested_by"]))
        if proposal_note:
            summary += "| proposal | %s |\n" % _md(proposal_note)
    _append(env.get("GITHUB_STEP_SUMMARY"), summary + "\n")
    if rec is not None:
        a = rec.get("answer") or {}
        value = "declined" if a.get("declined") else str(a.get("value") or rec.get("status", ""))
        outputs = {"key": rec.get("key", ""), "answer": value, "answered-by": decided_by(rec)}
        _append(env.get("GITHUB_OUTPUT"), "".join("%s=%s\n" % (k, v.replace("\n", " ")) for k, v in outputs.items()))


def run(env: Mapping[str, str]) -> int:
    url = (env.get("INQUIRY_URL") or env.get("BOT_URL") or "").strip()
    token = (env.get("INQUIRY_TOKEN") or env.get("BOT_TOKEN") or "").strip()
    req: Optional[dict] = None
    rec: Optional[dict] = None
    note = ""
    try:
        if not url:
            raise GateError("no bot URL: set the url input (INQUIRY_URL) to the bot's address, such as https://bot.example.com")
        if not token:
            raise GateError("no token: set the token input (INQUIRY_TOKEN) to an ask token from a secret (bot token create --scope ask)")
        timeout = parse_timeout(env.get("INQUIRY_TIMEOUT", ""))
        req, pr = build_request(env)
        note = pr.get("proposal", "")
        client = inquiry_bot.Client(url, token, user_agent="inquiry-bot-merge-gate/" + inquiry_bot.__version__)
        try:
            rec = client.ask(req, timeout=timeout)
        except inquiry_bot.InquiryError as e:
            if e.code != "id_conflict":
                raise
            # The same commit asked before with other words (a new title, another question): it
            # is a new question, under an id that says which content it asks.
            digest = hashlib.sha256(json.dumps(req, sort_keys=True).encode("utf-8")).hexdigest()[:16]
            req["id"] = req["id"][: MAX_ID - 17] + "~" + digest
            rec = client.ask(req, timeout=timeout)
    except GateError as e:
        report(env, EXIT_ERROR, str(e), None, req, note)
        return EXIT_ERROR
    except inquiry_bot.InquiryError as e:
        fix = " (nobody can be asked: the gate fails closed)" if e.fatal else ""
        report(env, EXIT_ERROR, "the bot refused the question: %s%s" % (e.message, fix), e.record, req, note)
        return EXIT_ERROR
    code, line = outcome(rec, timeout)
    report(env, code, line, rec, req, note)
    return code


if __name__ == "__main__":
    sys.exit(run(os.environ))
