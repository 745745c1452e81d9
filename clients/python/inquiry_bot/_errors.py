"""The errors the client raises: every one an InquiryError with the API's code and sentence."""

from __future__ import annotations

from typing import Optional

from ._types import Inquiry

__all__ = ["InquiryError", "CallbackError"]

# Codes of a passing fault: nothing was done, and the same request may be sent again later.
_PASSING = ("storage_unavailable", "rate_limited")


class InquiryError(Exception):
    """An error the gateway reported, or a request that never got the gateway's answer.

    ``code`` is the API's error code (``invalid_inquiry``, ``inquiry_unavailable``, …; see the
    server's openapi.yaml), ``message`` its one sentence saying what is wrong and how to fix it,
    ``fatal`` whether every retry loop must stop at once (``inquiry_unavailable``: nobody can be
    asked, and a retry will not change that), ``field`` the field it concerns when there is one
    (``options[2].label``). ``status`` is the HTTP status (0 when there was no answer),
    ``retry_after`` the seconds a passing fault asked to wait, and ``record`` the inquiry when the
    error is an inquiry that failed (status ``failed``).
    """

    code: str
    message: str
    fatal: bool
    field: str
    status: int
    retry_after: Optional[float]
    record: Optional[Inquiry]

    def __init__(
        self,
        code: str,
        message: str,
        *,
        fatal: bool = False,
        field: str = "",
        status: int = 0,
        retry_after: Optional[float] = None,
        record: Optional[Inquiry] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fatal = bool(fatal) or code == "inquiry_unavailable"
        self.field = field or ""
        self.status = status
        self.retry_after = retry_after
        self.record = record

    @property
    def temporary(self) -> bool:
        """Whether this is a passing fault worth retrying after ``retry_after`` (never a fatal one)."""
        if self.fatal:
            return False
        return self.code in _PASSING or self.code == "transport"

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "InquiryError(code=%r, message=%r, fatal=%r, field=%r)" % (
            self.code,
            self.message,
            self.fatal,
            self.field,
        )


class CallbackError(InquiryError, ValueError):
    """A callback that does not verify: code ``bad_signature`` (as the TypeScript client's),
    ``field`` the header it concerns ("" for a missing secret), and ``reason`` (its message)
    saying which check failed and what to do. A ValueError too, for code that catches that."""

    reason: str

    def __init__(self, reason: str, field: str = "") -> None:
        InquiryError.__init__(self, "bad_signature", reason, field=field, status=401)
        self.reason = reason
