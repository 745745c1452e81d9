"""The API's objects as typed dictionaries (gateway/openapi.yaml's schemas of the same names).

They are the decoded JSON itself, so ``rec["status"]`` works as before, while a type checker
knows every key and its type. Keys the server leaves out when they are empty (``omitzero``) are
declared in a second, non-total class, so reading one goes through ``.get``.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "Kind",
    "Policy",
    "Status",
    "RunStatus",
    "Source",
    "Value",
    "Option",
    "OptionInput",
    "Config",
    "EffectiveConfig",
    "Vote",
    "Answer",
    "AnswerInput",
    "SlackRef",
    "SlackTarget",
    "EmailTarget",
    "TeamsTarget",
    "ProposalFormat",
    "Proposal",
    "EscalationStep",
    "Extension",
    "Placement",
    "Links",
    "Failure",
    "Inquiry",
    "InquiryList",
    "AskRequest",
    "Run",
    "RunAskAnswered",
    "RunAskWaiting",
    "RunAskResult",
    "ResumeCallback",
]

Kind = Literal["choice", "text", "confirm"]
Policy = Literal["ask", "default", "refuse"]
Status = Literal["pending", "answered", "expired", "cancelled", "failed"]
RunStatus = Literal["running", "waiting", "completed", "failed", "abandoned"]
#: Who or what decided an answer.
Source = Literal["person", "default", "expired", "caller"]
ProposalFormat = Literal["text", "markdown", "diff", "json"]
#: A decision: an option's value, the values of a multiple choice, or None for none.
Value = Union[str, List[str], None]


class _Option(TypedDict):
    value: str
    label: str


class Option(_Option, total=False):
    description: str


class _OptionInput(TypedDict, total=False):
    value: str
    label: str
    description: str


#: An option as a question gives it: a bare string is both its value and its label.
OptionInput = Union[str, _OptionInput]


class Config(TypedDict, total=False):
    """How an inquiry is asked; unset parts come from the run, then the server's defaults."""

    policy: Policy
    transport: str


class EffectiveConfig(TypedDict):
    policy: Policy
    transport: str


class _Vote(TypedDict):
    by: str
    value: Value
    text: str
    at: str
    via: str


class Vote(_Vote, total=False):
    declined: bool


class _Answer(TypedDict):
    inquiry_id: str
    value: Value
    text: str
    declined: bool
    truncated: bool
    answered_by: str
    source: Source
    answered_at: str


class Answer(_Answer, total=False):
    votes: List[Vote]
    via: str
    content: str
    edited: bool


class AnswerInput(TypedDict, total=False):
    """An answer as a run's caller hands it back through resume: value, text or declined."""

    value: Value
    text: str
    declined: bool
    content: str


class _Proposal(TypedDict):
    content: str


class Proposal(_Proposal, total=False):
    """What the person approves, shown whole (at most 256 KiB); editable lets them approve an
    edited version, which the answer carries as ``content`` (``edited`` when it differs)."""

    format: ProposalFormat
    title: str
    editable: bool


class SlackRef(TypedDict):
    channel: str
    thread_ts: str
    ts: str
    permalink: str
    answerers: List[str]


class SlackTarget(TypedDict, total=False):
    """Where a question goes on Slack and who may answer it there."""

    channel: str
    thread_ts: str
    answerers: List[str]


class EmailTarget(TypedDict):
    to: List[str]


class _TeamsTarget(TypedDict):
    conversation: str


class TeamsTarget(_TeamsTarget, total=False):
    """The Microsoft Teams conversation a question is asked in, and who may answer there."""

    service_url: str
    answerers: List[str]


class _EscalationStep(TypedDict):
    after: str


class EscalationStep(_EscalationStep, total=False):
    channel: str
    answerers: List[str]
    mention: bool


class Extension(TypedDict):
    by: str
    max: str


class _Placement(TypedDict):
    step: int
    channel: str
    ts: str


class Placement(_Placement, total=False):
    permalink: str


class Links(TypedDict):
    answer: str


class Failure(TypedDict):
    code: str
    message: str
    fatal: bool


class _Inquiry(TypedDict):
    key: str
    id: str
    run_id: str
    kind: Kind
    question: str
    context: str
    options: List[Option]
    multiple: bool
    allow_text: bool
    default: Value
    expires_at: Optional[str]
    namespace: str
    config: EffectiveConfig
    status: Status
    answer: Optional[Answer]
    slack: SlackRef
    failure: Optional[Failure]
    created_at: str
    resolved_at: Optional[str]


class Inquiry(_Inquiry, total=False):
    """An inquiry, as every endpoint returns it; ``key`` is the server's own id."""

    approvals: int
    veto: bool
    requested_by: List[str]
    reason: Literal["on_no", "always"]
    votes: List[Vote]
    remind: List[str]
    remind_here: bool
    remind_dm: bool
    escalate: List[EscalationStep]
    extend: Optional[Extension]
    reminders: int
    escalation: int
    extended_by: str
    placements: List[Placement]
    email: EmailTarget
    teams: TeamsTarget
    proposal: Proposal
    callback_url: str
    links: Links


class InquiryList(TypedDict):
    inquiries: List[Inquiry]
    next_cursor: str


class AskRequest(TypedDict, total=False):
    """A question, as ``Client.ask`` and ``Runs.ask`` take it (the API's AskRequest). Without
    ``id`` the server derives one from the content; without ``kind`` the client asks a choice
    when there are options, else a text."""

    id: str
    run_id: str
    kind: Kind
    question: str
    context: str
    options: List[OptionInput]
    multiple: bool
    allow_text: bool
    default: Value
    expires_at: Optional[str]
    expires_in: str
    approvals: int
    veto: bool
    requested_by: List[str]
    reason: Literal["on_no", "always"]
    remind: List[str]
    remind_here: bool
    remind_dm: bool
    escalate: List[EscalationStep]
    extend: Optional[Extension]
    config: Optional[Config]
    slack: Optional[SlackTarget]
    email: EmailTarget
    teams: TeamsTarget
    proposal: Proposal
    callback_url: str
    wait: Optional[float]


class Run(TypedDict):
    id: str
    namespace: str
    status: RunStatus
    config: Optional[Config]
    resume_url: str
    heartbeat_at: str
    answers: Dict[str, Answer]
    waiting_on: Optional[Inquiry]
    created_at: str
    updated_at: str


class RunAskAnswered(TypedDict):
    """The run's state already held the answer, or a person gave it within the wait."""

    status: Literal["answered"]
    answer: Answer
    inquiry: Optional[Inquiry]
    run: Run


class RunAskWaiting(TypedDict):
    """The run is parked on the inquiry; its resume_url is called when it resolves."""

    status: Literal["waiting"]
    inquiry: Inquiry
    run: Run


#: What ``Runs.ask`` returns: tell the two apart by ``status``.
RunAskResult = Union[RunAskAnswered, RunAskWaiting]


class ResumeCallback(TypedDict):
    """The body POSTed to a run's resume_url when the inquiry it waits on ends."""

    run: Run
    inquiry_id: str
    answer: Optional[Answer]
    inquiry: Optional[Inquiry]
