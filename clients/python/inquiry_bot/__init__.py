"""A client of the inquiry bot's HTTP API, typed, on Python's standard library alone.

The inquiry bot lets a run (an agent, a pipeline, a scheduled job) ask a person one question and
routes the answer back. This package knows the product's rules so that its callers need not:

* ``Client.ask`` asks once: without an ``id`` it sends none and the server derives one from the
  question's content, so a retried or re-run step finds the same inquiry and its answer instead of
  asking twice.
* It waits in bounded long-polls (the server holds a request at most 55 s) until the inquiry is
  answered, expired, cancelled or failed, or until the caller's own ``timeout``.
* A passing fault (503 ``storage_unavailable``, 429 ``rate_limited``, the gateway unreachable or a
  proxy's 502/503/504) is retried after its ``Retry-After``; a fatal error (``inquiry_unavailable``:
  nobody can be asked) is raised at once as ``InquiryError`` with ``fatal`` true, and no retry loop
  should ever catch it and try again.
* ``verify_callback`` checks a signed callback (``callback_url``, a run's ``resume_url``) exactly as
  the Go client's ``client.Verify`` does, in constant time.

Results are the API's JSON objects, typed as TypedDicts (``Inquiry``, ``Run``, …): ``rec["status"]``
reads as a dict, and a type checker (the package ships ``py.typed``) knows each key. Python 3.9 or
later; nothing outside the standard library.
"""

from ._callback import (
    HEADER_DELIVERY,
    HEADER_EVENT,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    HeaderLookup,
    Headers,
    sign,
    verify_callback,
)
from ._client import MAX_WAIT, Client, Runs, answered_with
from ._errors import CallbackError, InquiryError
from ._types import (
    Answer,
    AnswerInput,
    AskRequest,
    Config,
    EffectiveConfig,
    EmailTarget,
    EscalationStep,
    Extension,
    Failure,
    Inquiry,
    InquiryList,
    Kind,
    Links,
    Option,
    OptionInput,
    Placement,
    Policy,
    ResumeCallback,
    Run,
    RunAskAnswered,
    RunAskResult,
    RunAskWaiting,
    RunStatus,
    SlackRef,
    SlackTarget,
    Source,
    TeamsTarget,
    Proposal,
    ProposalFormat,
    Status,
    Value,
    Vote,
)
from ._version import __version__

__all__ = [
    "Client",
    "Runs",
    "InquiryError",
    "CallbackError",
    "answered_with",
    "sign",
    "verify_callback",
    "Headers",
    "HeaderLookup",
    "MAX_WAIT",
    "HEADER_TIMESTAMP",
    "HEADER_SIGNATURE",
    "HEADER_DELIVERY",
    "HEADER_EVENT",
    "Answer",
    "AnswerInput",
    "AskRequest",
    "Config",
    "EffectiveConfig",
    "EmailTarget",
    "EscalationStep",
    "Extension",
    "Failure",
    "Inquiry",
    "InquiryList",
    "Kind",
    "Links",
    "Option",
    "OptionInput",
    "Placement",
    "Policy",
    "ResumeCallback",
    "Run",
    "RunAskAnswered",
    "RunAskResult",
    "RunAskWaiting",
    "RunStatus",
    "SlackRef",
    "SlackTarget",
    "Source",
    "TeamsTarget",
    "Proposal",
    "ProposalFormat",
    "Status",
    "Value",
    "Vote",
    "__version__",
]
