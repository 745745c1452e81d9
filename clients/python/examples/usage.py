"""A typed use of the client: checked by mypy --strict and pyright (strict) in CI, never run.

It touches each kind of result so that a type that went loose (Any) or wrong shows here: a
checker must accept every line as written, and reveal_type-free code keeps it runnable.
"""

from __future__ import annotations

import os
from typing import List, Mapping, Optional

from inquiry_bot import (
    HEADER_EVENT,
    Answer,
    AskRequest,
    Client,
    Inquiry,
    InquiryError,
    ResumeCallback,
    Run,
    RunAskResult,
    Status,
    answered_with,
    verify_callback,
)


def deploy_approved(bot: Client) -> bool:
    """Ask for a deploy and say whether a person said yes."""
    rec: Inquiry = bot.ask(kind="confirm", question="Deploy to production?", config={"policy": "ask"}, timeout=1800)
    status: Status = rec["status"]
    answer: Optional[Answer] = rec["answer"]
    if status != "answered" or answer is None:
        return False
    return answer["value"] == "yes" and answer["source"] == "person"


def pick_region(bot: Client) -> Optional[str]:
    """A choice asked as a typed request; a fatal error means nobody can be asked."""
    request: AskRequest = {
        "question": "Which region first?",
        "options": ["eu", {"value": "us", "label": "United States"}],
        "expires_in": "2h",
        "approvals": 1,
    }
    try:
        return answered_with(bot.ask(request, timeout=0))
    except InquiryError as e:
        if e.fatal:
            return None
        raise


def pending_questions(bot: Client) -> List[str]:
    page = bot.list(status="pending", limit=10)
    keys = [rec["key"] for rec in page["inquiries"]]
    if page["next_cursor"]:
        keys += [rec["key"] for rec in bot.list(status="pending", cursor=page["next_cursor"])["inquiries"]]
    return keys


def run_step(bot: Client, run_id: str) -> Optional[str]:
    """A run's step: answered from its state, or parked until its resume_url is called."""
    bot.runs.register(run_id, config={"policy": "ask", "transport": "inbox"}, resume_url="https://ci.example.com/resume")
    result: RunAskResult = bot.runs.ask(run_id, {"kind": "confirm", "question": "Rotate the keys?"})
    if result["status"] == "answered":
        return result["answer"]["text"] or None
    waiting_on: Inquiry = result["inquiry"]
    return waiting_on["key"]


def on_resume(headers: Mapping[str, str], body: bytes, secret: str) -> Run:
    """A resume_url's handler: the body verified and read as a ResumeCallback."""
    event: ResumeCallback = verify_callback(headers, body, secret)
    assert headers.get(HEADER_EVENT) == "resume"
    return event["run"]


if __name__ == "__main__":
    print(deploy_approved(Client(os.environ["BOT_URL"], os.environ["BOT_TOKEN"])))
