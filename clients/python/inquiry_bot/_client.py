"""The client: Client and Runs, over urllib of the standard library."""

from __future__ import annotations

import http.client
import json
import math
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from email.message import Message
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Literal, Mapping, Optional, Protocol, Tuple, TypeVar, cast

from ._errors import InquiryError
from ._types import AnswerInput, AskRequest, Config, Inquiry, InquiryList, Run, RunAskResult, Status, Value
from ._version import __version__

__all__ = ["Client", "Runs", "answered_with", "MAX_WAIT"]

#: The longest one long-poll may wait on the server, in seconds (openapi.yaml: wait).
MAX_WAIT = 55

# How long a request may take beyond the server-side wait it asks for.
_REQUEST_SLACK = 30.0
# The most of an answer that is read: the server's largest pages are well under it.
_MAX_BODY = 16 << 20
# Statuses of a proxy in front of the gateway that did not reach it (no API error body).
_PROXY_STATUSES = (502, 503, 504)

_T = TypeVar("_T")


class _Retrying(Protocol):
    """Client._retrying, as Runs is handed it."""

    def __call__(self, deadline: Optional[float], send: Callable[[], _T]) -> _T: ...


def _kind(request: Mapping[str, Any]) -> str:
    """The request's kind; without one, a choice when it offers options, else a text (as bot ask)."""
    kind = request.get("kind")
    if kind:
        return str(kind)
    return "choice" if request.get("options") else "text"


# --- the client -----------------------------------------------------------------------------------


def _ask_body(request: Mapping[str, Any]) -> Dict[str, Any]:
    """The request as given, less the members the caller left unset (None): the server takes an
    absent field as its zero. The wait is sent in whole seconds, at most MAX_WAIT."""
    body = {k: v for k, v in request.items() if v is not None}
    if "wait" in body:
        body["wait"] = max(0, int(math.ceil(min(float(body["wait"]), MAX_WAIT))))
    return body


def _retry_after(value: Optional[str]) -> Optional[float]:
    """A Retry-After header's seconds (whole seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: the API never sends one, and urllib would follow it with the
    Authorization header to wherever it points (another host included). The 3xx is raised as it
    came, and the client says what to fix."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Message, newurl: str
    ) -> Optional[urllib.request.Request]:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class Client:
    """A client of one gateway with one token. It is safe to use from several threads.

    url is the gateway's base address (such as ``http://127.0.0.1:8080``), token a bot token
    (``bot token create --name my-job --scope ask``). ``retry_for`` bounds, in seconds, how long a
    passing fault is retried when the caller set no timeout of their own, ``retry_floor`` how long
    at least when the caller's timeout is shorter (0: ask without waiting). ``sleep`` is how the
    client pauses between tries (a test passes a recorder to see the pauses without waiting on the
    clock).
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        user_agent: str = "inquiry-bot-python/" + __version__,
        retry_for: float = 300.0,
        retry_floor: float = 30.0,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        url = (url or "").strip().rstrip("/")
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            # Not repeated in the message: what was passed may be the token (arguments swapped)
            # or carry a password, and the message ends up in a job's log.
            raise InquiryError(
                "bad_request",
                "the gateway URL is not an absolute http(s) URL (or the token was passed in its place): give one such as http://127.0.0.1:8080",
            )
        self.url = url
        # The address as messages show it: without a password it may carry.
        self._shown = url
        if parsed.password:
            self._shown = url.replace(parsed.netloc, parsed.netloc.replace(":" + parsed.password + "@", ":xxxxx@", 1), 1)
        self._token = token
        self.user_agent = user_agent
        self.retry_for = retry_for
        self.retry_floor = retry_floor
        self._sleep = sleep
        self.runs = Runs(self, self._retrying)

    def __repr__(self) -> str:
        # Never the token.
        return "Client(%r)" % self._shown

    # --- one request ---

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Optional[Mapping[str, Any]] = None,
        wait: float = 0,
    ) -> Tuple[int, Any]:
        """Send one request and return (status, decoded JSON) of a 2xx answer; raise InquiryError
        for anything else (code "transport" when the gateway gave no answer of its own)."""
        target = self.url + path
        if query:
            q = {k: v for k, v in query.items() if v not in (None, "")}
            if q:
                target += "?" + urllib.parse.urlencode(q)
        data = None
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(target, data=data, headers=headers, method=method)
        timeout = min(wait, MAX_WAIT) + _REQUEST_SLACK
        try:
            with _opener.open(req, timeout=timeout) as resp:
                return resp.status, self._decode(resp.read(_MAX_BODY), method, path)
        except urllib.error.HTTPError as e:
            try:
                raw = e.read(_MAX_BODY)
            except (OSError, ValueError):
                raw = b""
            finally:
                e.close()
            raise self._error(e.code, e.headers, raw) from None
        except (urllib.error.URLError, OSError, socket.timeout, http.client.HTTPException) as e:
            reason = getattr(e, "reason", e)
            raise InquiryError(
                "transport",
                "cannot reach the gateway at %s (%s): is bot serve running there? check the URL" % (self._shown, reason),
            ) from None

    @staticmethod
    def _decode(raw: bytes, method: str, path: str) -> Any:
        if not raw:
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            raise InquiryError(
                "transport",
                "the answer of %s %s is not the API's JSON: check that the URL is the inquiry bot" % (method, path),
            ) from None

    def _error(self, status: int, headers: Any, raw: bytes) -> InquiryError:
        err: Dict[str, Any] = {}
        try:
            got = cast(Dict[str, Any], json.loads(raw.decode("utf-8"))).get("error")
            if isinstance(got, dict):
                err = cast(Dict[str, Any], got)
        except (ValueError, AttributeError):
            pass
        if not err.get("code"):
            if status in _PROXY_STATUSES:
                return InquiryError(
                    "transport",
                    "the gateway at %s answered %d, not the API's JSON: check the URL, or retry" % (self._shown, status),
                    status=status,
                    retry_after=_retry_after(headers.get("Retry-After") if headers else None),
                )
            if 300 <= status < 400:
                # Not followed (see _NoRedirect); where it points is not repeated in the message.
                return InquiryError(
                    "bad_request",
                    "the gateway at %s answered %d, a redirect, which is not followed so that the token goes nowhere else: set the URL to the address it redirects to" % (self._shown, status),
                    status=status,
                )
            code = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 405: "not_found", 413: "too_large"}.get(status, "internal")
            return InquiryError(
                code,
                "the gateway at %s answered %d without an error body: check the URL and the server log" % (self._shown, status),
                status=status,
            )
        code = str(err["code"])
        return InquiryError(
            code,
            str(err.get("message") or code.replace("_", " ")),
            fatal=bool(err.get("fatal")),
            field=str(err.get("field") or ""),
            status=status,
            retry_after=_retry_after(headers.get("Retry-After") if headers else None),
        )

    def _retrying(self, deadline: Optional[float], send: Callable[[], _T]) -> _T:
        """send() until it does not fail with a passing fault, pausing its Retry-After (else a
        backoff from 0.5 s to 10 s) between tries, as long as deadline (a time.monotonic()
        instant; None: retry_for from now) allows — and at least retry_floor from now, so that
        a caller who does not wait for the answer (timeout 0) still gets a passing fault ridden
        out. A pause past that is not slept: the fault is raised."""
        now = time.monotonic()
        deadline = now + self.retry_for if deadline is None else max(deadline, now + self.retry_floor)
        backoff = 0.5
        while True:
            try:
                return send()
            except InquiryError as e:
                if not e.temporary:
                    raise
                pause = e.retry_after if e.retry_after is not None else backoff
                left = deadline - time.monotonic()
                if left <= 0 or pause > left:
                    raise
                self._sleep(pause)
                backoff = min(backoff * 2, 10.0)

    # --- inquiries ---

    def create(self, request: AskRequest) -> Tuple[Inquiry, bool]:
        """POST /v1/inquiries once (no retry): (the inquiry, whether it is new)."""
        status, rec = self.request("POST", "/v1/inquiries", _ask_body(request), wait=float(request.get("wait") or 0))
        return cast(Inquiry, rec), status == 201

    def ask(self, request: Optional[AskRequest] = None, *, timeout: Optional[float] = None, **fields: Any) -> Inquiry:
        """Ask a question and wait for its answer; return the inquiry as it stands.

        The question is an AskRequest, a mapping of the API's fields (``kind``, ``question``,
        ``options``, ``context``, ``default``, ``multiple``, ``allow_text``, ``expires_in``,
        ``approvals``, ``veto``, ``requested_by``, ``reason``, ``config``, ``slack``,
        ``callback_url``, ``id``, ``run_id``, …), or those fields as keywords; a field left None
        is not sent. Without ``id`` the server derives one from the content, so asking the same
        question again (a retry, a re-run) finds the same inquiry and never asks twice; the
        returned inquiry's ``id`` is the one it derived. Without ``kind`` it is a choice when it
        offers options, else a text, as with ``bot ask``.

        It waits in long-polls of at most 55 s until the inquiry is answered, expired or cancelled,
        or until ``timeout`` seconds (None: until then; 0: ask without waiting); at the timeout the
        inquiry comes back still ``pending`` (not an error): ask again later to pick the answer up.
        Passing faults are retried after their Retry-After. Raises InquiryError: ``fatal`` for
        ``inquiry_unavailable`` (nobody can be asked: decide without asking, do not retry) and for
        an inquiry that ``failed`` (it could not be put to anybody; ``record`` holds it).
        """
        req: Dict[str, Any] = dict(request or {})
        req.update(fields)
        req.setdefault("kind", _kind(req))
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))

        def left() -> float:
            return MAX_WAIT if deadline is None else max(0.0, deadline - time.monotonic())

        def create() -> Inquiry:
            req["wait"] = min(MAX_WAIT, left())
            return self.create(cast(AskRequest, req))[0]

        rec = self._retrying(deadline, create)
        return self._wait_on(rec, deadline)

    def _wait_on(self, rec: Inquiry, deadline: Optional[float]) -> Inquiry:
        """Long-poll rec until it resolves or deadline passes; raise for a failed inquiry."""
        while rec.get("status") == "pending":
            wait = MAX_WAIT if deadline is None else min(MAX_WAIT, deadline - time.monotonic())
            if wait <= 0:
                break
            start = time.monotonic()
            key = rec["key"]
            rec = self._retrying(deadline, lambda: self.get(key, wait=wait))
            # A proxy that does not hold the request must not make this a busy loop.
            if rec.get("status") == "pending":
                pause = 1.0 - (time.monotonic() - start)
                if deadline is not None:
                    pause = min(pause, deadline - time.monotonic())
                if pause > 0:
                    self._sleep(pause)
        _raise_failed(rec)
        return rec

    def wait(self, key: str, timeout: Optional[float] = None) -> Inquiry:
        """Wait for the inquiry with this key until it leaves pending or timeout seconds pass
        (None: until it does), in long-polls of at most 55 s; return it as it stands."""
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))
        rec = self._retrying(deadline, lambda: self.get(key))
        return self._wait_on(rec, deadline)

    def get(self, key: str, wait: float = 0) -> Inquiry:
        """GET /v1/inquiries/{key}: the inquiry; with wait (seconds, at most 55) the server holds
        the request until it leaves pending or the wait ends."""
        secs = int(math.ceil(min(float(wait), MAX_WAIT))) if wait and wait > 0 else 0
        return cast(Inquiry, self.request("GET", "/v1/inquiries/" + _path(key), query={"wait": secs or None}, wait=secs)[1])

    def list(
        self, *, status: Optional[Status] = None, run_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> InquiryList:
        """GET /v1/inquiries: one page, newest first: ``inquiries`` and the ``next_cursor`` to pass
        as cursor for the next page ("" on the last)."""
        query = {"status": status, "run_id": run_id, "limit": limit, "cursor": cursor}
        return cast(InquiryList, self.request("GET", "/v1/inquiries", query=query)[1])

    def answer(
        self, key: str, value: Value = None, *, text: Optional[str] = None, declined: bool = False, content: Optional[str] = None
    ) -> Inquiry:
        """POST /v1/inquiries/{key}/answer with an option's value (a list for a multiple choice;
        ``"yes"``/``"no"`` for a confirm), text (own words; with a value, the reason), or a decline;
        content is the approved version of an editable proposal. Returns the inquiry: resolved, or
        still pending with the votes so far when it needs several people. Not retried: an answer is
        a person's act, and a token that asked may not answer."""
        body: Dict[str, Any] = {"value": value, "text": text or None, "declined": declined or None, "content": content}
        return cast(Inquiry, self.request("POST", "/v1/inquiries/" + _path(key) + "/answer", _unset(body))[1])

    def cancel(self, key: str) -> Inquiry:
        """POST /v1/inquiries/{key}/cancel: withdraw a pending inquiry this token asked."""
        return cast(Inquiry, self.request("POST", "/v1/inquiries/" + _path(key) + "/cancel", {})[1])


class Runs:
    """A run's endpoints (``client.runs``): register, ask inside it, resume, heartbeat, finish."""

    def __init__(self, client: Client, retrying: _Retrying) -> None:
        self._c = client
        # The client's retry loop: a run's request rides out a passing fault as the client's do.
        self._retrying = retrying

    def register(self, run_id: str, *, config: Optional[Config] = None, resume_url: Optional[str] = None) -> Run:
        """POST /v1/runs: register a run, or return the existing one."""
        body = _unset({"id": run_id, "config": config or None, "resume_url": resume_url or None})
        return self._retrying(None, lambda: cast(Run, self._c.request("POST", "/v1/runs", body)[1]))

    def get(self, run_id: str) -> Run:
        """GET /v1/runs/{id}: the run, with ``answers`` and, while it waits, ``waiting_on``."""
        return cast(Run, self._c.request("GET", _run_path(run_id))[1])

    def ask(self, run_id: str, request: Optional[AskRequest] = None, *, wait: float = 0, **fields: Any) -> RunAskResult:
        """POST /v1/runs/{id}/ask: a RunAskAnswered (``status`` "answered", with ``answer`` and
        ``inquiry``) when the run's state already held the answer (a re-entry, never asked twice)
        or a person gave it within wait; else a RunAskWaiting (``status`` "waiting", with
        ``inquiry``): the run is parked on the inquiry and is resumed when it resolves (its
        resume_url is called, signed). Without ``id`` the server derives it, as in Client.ask."""
        req: Dict[str, Any] = dict(request or {})
        req.update(fields)
        req.pop("run_id", None)
        req.setdefault("kind", _kind(req))
        req["wait"] = wait
        body = _ask_body(req)

        def send() -> RunAskResult:
            return cast(RunAskResult, self._c.request("POST", _run_path(run_id) + "/ask", body, wait=float(wait or 0))[1])

        return self._retrying(None, send)

    def resume(self, run_id: str, answers: Optional[Mapping[str, AnswerInput]] = None) -> Run:
        """POST /v1/runs/{id}/resume: merge answers (by inquiry id) into the run's state and set it
        running. An answer is an AnswerInput ({"value": "yes"}, {"text": …}, {"declined": True});
        merged by a token without the answer scope it is the caller's."""
        body = {"answers": {k: dict(v) for k, v in (answers or {}).items()}}
        return self._retrying(None, lambda: cast(Run, self._c.request("POST", _run_path(run_id) + "/resume", body)[1]))

    def heartbeat(self, run_id: str) -> Run:
        """POST /v1/runs/{id}/heartbeat: the run's process is alive."""
        return cast(Run, self._c.request("POST", _run_path(run_id) + "/heartbeat", {})[1])

    def finish(self, run_id: str, status: Literal["completed", "failed", "abandoned"] = "completed") -> Run:
        """POST /v1/runs/{id}/finish with completed, failed or abandoned."""
        return cast(Run, self._c.request("POST", _run_path(run_id) + "/finish", {"status": status})[1])


def _unset(body: Dict[str, Any]) -> Dict[str, Any]:
    """body less the members left unset (None): the server takes an absent field as its zero."""
    return {k: v for k, v in body.items() if v is not None}


def _path(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _run_path(run_id: str) -> str:
    return "/v1/runs/" + _path(run_id)


def _raise_failed(rec: Inquiry) -> None:
    """Raise the failure of an inquiry that could not be put to anybody (status failed)."""
    if rec.get("status") != "failed":
        return
    f = rec.get("failure")
    raise InquiryError(
        (f and f.get("code")) or "inquiry_unavailable",
        (f and f.get("message")) or "question %s could not be put to anybody" % rec.get("key"),
        fatal=bool(f.get("fatal", True)) if f else True,
        record=rec,
    )


def answered_with(rec: Optional[Inquiry]) -> Optional[str]:
    """The first value of an inquiry's answer, else its text, else None: a decline, or no answer
    yet (Go: inquiry.AnsweredWith)."""
    a = rec.get("answer") if rec else None
    if not a or a.get("declined"):
        return None
    v = a.get("value")
    if isinstance(v, list):
        if v:
            return str(v[0])
    elif v:
        return str(v)
    return a.get("text") or None
