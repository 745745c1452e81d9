"""A client of the inquiry bot's HTTP API, in one module of Python's standard library.

The inquiry bot lets a run (an agent, a pipeline, a scheduled job) ask a person one question and
routes the answer back. This module knows the product's rules so that its callers need not:

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

Python 3.9 or later; nothing outside the standard library.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import math
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import parsedate_to_datetime
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

__all__ = [
    "Client",
    "Runs",
    "InquiryError",
    "CallbackError",
    "answered_with",
    "sign",
    "verify_callback",
    "MAX_WAIT",
    "HEADER_TIMESTAMP",
    "HEADER_SIGNATURE",
    "HEADER_DELIVERY",
    "HEADER_EVENT",
]

__version__ = "0.1.0"

#: The longest one long-poll may wait on the server, in seconds (openapi.yaml: wait).
MAX_WAIT = 55

#: Callback headers, as the bot sends them (Go: client.HeaderTimestamp and the others).
HEADER_TIMESTAMP = "X-Inquiry-Timestamp"  # unix seconds the signature was made at
HEADER_SIGNATURE = "X-Inquiry-Signature"  # v1=<hex HMAC-SHA256 of "v1:{timestamp}:{body}">
HEADER_DELIVERY = "X-Inquiry-Delivery"  # the delivery's id, the same on every retry: dedupe by it
HEADER_EVENT = "X-Inquiry-Event"  # "callback" or "resume"

# How long a request may take beyond the server-side wait it asks for.
_REQUEST_SLACK = 30.0
# The most of an answer that is read: the server's largest pages are well under it.
_MAX_BODY = 16 << 20
# Codes of a passing fault: nothing was done, and the same request may be sent again later.
_PASSING = ("storage_unavailable", "rate_limited")
# Statuses of a proxy in front of the gateway that did not reach it (no API error body).
_PROXY_STATUSES = (502, 503, 504)
# Statuses an inquiry leaves pending for.
_RESOLVED = ("answered", "expired", "cancelled", "failed")


class InquiryError(Exception):
    """An error the gateway reported, or a request that never got the gateway's answer.

    ``code`` is the API's error code (``invalid_inquiry``, ``inquiry_unavailable``, …; see the
    server's openapi.yaml), ``message`` its one sentence saying what is wrong and how to fix it,
    ``fatal`` whether every retry loop must stop at once (``inquiry_unavailable``: nobody can be asked, and
    a retry will not change that), ``field`` the field it concerns when there is one
    (``options[2].label``). ``status`` is the HTTP status (0 when there was no answer),
    ``retry_after`` the seconds a passing fault asked to wait, and ``record`` the inquiry when the
    error is an inquiry that failed (status ``failed``).
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        fatal: bool = False,
        field: str = "",
        status: int = 0,
        retry_after: Optional[float] = None,
        record: Optional[dict] = None,
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

    def __init__(self, reason: str, field: str = "") -> None:
        InquiryError.__init__(self, "bad_signature", reason, field=field, status=401)
        self.reason = reason


def _kind(request: Mapping[str, Any]) -> str:
    """The request's kind; without one, a choice when it offers options, else a text (as bot ask)."""
    kind = request.get("kind")
    if kind:
        return str(kind)
    return "choice" if request.get("options") else "text"


# --- signed callbacks ---------------------------------------------------------------------------


def _bytes(b: Union[str, bytes, bytearray]) -> bytes:
    return b.encode("utf-8") if isinstance(b, str) else bytes(b)


def sign(secret: Union[str, bytes], timestamp: int, body: Union[str, bytes]) -> str:
    """The X-Inquiry-Signature of body sent at timestamp (unix seconds): "v1=" and the hex
    HMAC-SHA256 of "v1:{timestamp}:{body}" keyed by secret (Go: client.Sign)."""
    mac = hmac.new(_bytes(secret), b"v1:%d:" % int(timestamp), hashlib.sha256)
    mac.update(_bytes(body))
    return "v1=" + mac.hexdigest()


def _header(headers: Any, name: str) -> str:
    """The header name of headers (a mapping, an http.client/email Message, or (name, value) pairs),
    looked up whatever its case; "" when absent."""
    getter = getattr(headers, "get", None)
    if getter is not None:
        v = getter(name)
        if v is not None:
            return str(v)
    items = headers.items() if hasattr(headers, "items") else headers
    for k, v in items:
        if str(k).lower() == name.lower():
            return str(v)
    return ""


_TIMESTAMP = re.compile(r"^[+-]?[0-9]+$")


def verify_callback(
    headers: Any,
    body: Union[str, bytes],
    secret: Union[str, bytes],
    tolerance: float = 300,
    *,
    now: Optional[float] = None,
) -> Any:
    """Verify a callback as a receiver gets it, and return its body decoded from JSON.

    headers are the request's headers (any mapping or message; names in any case), body the raw
    body exactly as received, secret the bot's callback secret (``BOT_CALLBACK_SECRET``, or
    ``bot token list``). The X-Inquiry-Timestamp must lie within tolerance seconds of now
    (tolerance <= 0: not checked); X-Inquiry-Signature holds one or more comma-separated ``v1=``
    signatures (so a secret can be rotated), compared in constant time. An empty secret fails
    closed. Raises CallbackError saying which check failed (Go: client.Verify).
    """
    secret_b = _bytes(secret or b"")
    if not secret_b:
        raise CallbackError("no signing secret: refusing to accept unsigned callbacks; pass BOT_CALLBACK_SECRET")
    ts_header = _header(headers, HEADER_TIMESTAMP).strip()
    if not _TIMESTAMP.match(ts_header) or abs(int(ts_header)) >= 1 << 63:
        raise CallbackError("X-Inquiry-Timestamp is missing or not unix seconds: this is not a callback of the bot", HEADER_TIMESTAMP)
    ts = int(ts_header)
    if tolerance and tolerance > 0:
        skew = (time.time() if now is None else now) - ts
        if skew > tolerance or skew < -tolerance:
            raise CallbackError(
                "X-Inquiry-Timestamp is outside the allowed window: refuse it as a replay, or check this machine's clock", HEADER_TIMESTAMP
            )
    sig_header = _header(headers, HEADER_SIGNATURE)
    if not sig_header.strip():
        raise CallbackError("X-Inquiry-Signature is missing: this is not a signed callback of the bot", HEADER_SIGNATURE)
    raw = _bytes(body)
    want = sign(secret_b, ts, raw).encode("ascii")
    ok = False
    for part in sig_header.split(","):
        # Every candidate is compared, so the time taken says nothing of which one matched.
        if hmac.compare_digest(part.strip().encode("utf-8", "replace"), want):
            ok = True
    if not ok:
        raise CallbackError(
            "X-Inquiry-Signature does not match the body: it was not signed with this secret, or the body was changed (verify the raw bytes)",
            HEADER_SIGNATURE,
        )
    return json.loads(raw.decode("utf-8")) if raw else None


# --- the client -----------------------------------------------------------------------------------

def _ask_body(request: Mapping[str, Any]) -> Dict[str, Any]:
    """The request as given, but for members set to None (not given), and the wait in whole
    seconds. An empty id is no id: the server derives it."""
    body = {k: v for k, v in request.items() if v is not None}
    if body.get("id") == "":
        del body["id"]
    if "wait" in body:
        body["wait"] = int(math.ceil(min(float(body["wait"]), MAX_WAIT)))
        if body["wait"] <= 0:
            del body["wait"]
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
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: the API never sends one, and urllib would follow it with the
    Authorization header to wherever it points (another host included). The 3xx is raised as it
    came, and the client says what to fix."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
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
        sleep=time.sleep,
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
        self.runs = Runs(self)

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
        err = None
        try:
            err = json.loads(raw.decode("utf-8")).get("error")
        except (ValueError, AttributeError):
            pass
        if not isinstance(err, dict) or not err.get("code"):
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

    def _retrying(self, deadline: Optional[float], send):
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

    def create(self, request: Mapping[str, Any]) -> Tuple[dict, bool]:
        """POST /v1/inquiries once (no retry): (the inquiry, whether it is new)."""
        status, rec = self.request("POST", "/v1/inquiries", _ask_body(request), wait=float(request.get("wait") or 0))
        return rec, status == 201

    def ask(self, request: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """Ask a question and wait for its answer; return the inquiry as it stands.

        The question is a mapping of the API's fields (``kind``, ``question``, ``options``,
        ``context``, ``default``, ``multiple``, ``allow_text``, ``expires_in``, ``approvals``,
        ``veto``, ``requested_by``, ``reason``, ``config``, ``slack``, ``callback_url``, ``id``,
        ``run_id``), or those fields as keywords. Without ``id`` the server derives one from the
        content, so asking the same question again (a retry, a re-run) finds the same inquiry and
        never asks twice; the returned inquiry's ``id`` is the one it derived. Without ``kind`` it
        is a choice when it offers options, else a text, as with ``bot ask``.

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

        def create() -> dict:
            req["wait"] = min(MAX_WAIT, left())
            return self.create(req)[0]

        rec = self._retrying(deadline, create)
        return self._wait_on(rec, deadline)

    def _wait_on(self, rec: dict, deadline: Optional[float]) -> dict:
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

    def wait(self, key: str, timeout: Optional[float] = None) -> dict:
        """Wait for the inquiry with this key until it leaves pending or timeout seconds pass
        (None: until it does), in long-polls of at most 55 s; return it as it stands."""
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))
        rec = self._retrying(deadline, lambda: self.get(key))
        return self._wait_on(rec, deadline)

    def get(self, key: str, wait: float = 0) -> dict:
        """GET /v1/inquiries/{key}: the inquiry; with wait (seconds, at most 55) the server holds
        the request until it leaves pending or the wait ends."""
        secs = int(math.ceil(min(float(wait), MAX_WAIT))) if wait and wait > 0 else 0
        return self.request("GET", "/v1/inquiries/" + _path(key), query={"wait": secs or None}, wait=secs)[1]

    def list(
        self, *, status: Optional[str] = None, run_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> dict:
        """GET /v1/inquiries: one page, newest first: {"inquiries": [...], "next_cursor": "..."}."""
        return self.request("GET", "/v1/inquiries", query={"status": status, "run_id": run_id, "limit": limit, "cursor": cursor})[1]

    def answer(self, key: str, value: Any = None, *, text: Optional[str] = None, declined: bool = False) -> dict:
        """POST /v1/inquiries/{key}/answer with an option's value (a list for a multiple choice;
        ``"yes"``/``"no"`` for a confirm), text (own words; with a value, the reason), or a decline.
        Returns the inquiry: resolved, or still pending with the votes so far when it needs several
        people. Not retried: an answer is a person's act, and a token that asked may not answer."""
        body: Dict[str, Any] = {}
        if value is not None:
            body["value"] = value
        if text:
            body["text"] = text
        if declined:
            body["declined"] = True
        return self.request("POST", "/v1/inquiries/" + _path(key) + "/answer", body)[1]

    def cancel(self, key: str) -> dict:
        """POST /v1/inquiries/{key}/cancel: withdraw a pending inquiry this token asked."""
        return self.request("POST", "/v1/inquiries/" + _path(key) + "/cancel", {})[1]


class Runs:
    """A run's endpoints (``client.runs``): register, ask inside it, resume, heartbeat, finish."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def register(self, run_id: str, *, config: Optional[Mapping[str, Any]] = None, resume_url: Optional[str] = None) -> dict:
        """POST /v1/runs: register a run, or return the existing one."""
        body: Dict[str, Any] = {"id": run_id}
        if config:
            body["config"] = dict(config)
        if resume_url:
            body["resume_url"] = resume_url
        return self._c._retrying(None, lambda: self._c.request("POST", "/v1/runs", body)[1])

    def get(self, run_id: str) -> dict:
        """GET /v1/runs/{id}: the run, with ``answers`` and, while it waits, ``waiting_on``."""
        return self._c.request("GET", _run_path(run_id))[1]

    def ask(self, run_id: str, request: Optional[Mapping[str, Any]] = None, *, wait: float = 0, **fields: Any) -> dict:
        """POST /v1/runs/{id}/ask: {"status": "answered", "answer", "inquiry"} — the run's state
        already held the answer (a re-entry, never asked twice) or a person gave it within wait —
        or {"status": "waiting", "inquiry"}: the run is parked on the inquiry and is resumed when it
        resolves (its resume_url is called, signed). Without ``id`` the server derives it, as in
        Client.ask."""
        req: Dict[str, Any] = dict(request or {})
        req.update(fields)
        req.pop("run_id", None)
        req.setdefault("kind", _kind(req))
        req["wait"] = wait
        body = _ask_body(req)
        return self._c._retrying(None, lambda: self._c.request("POST", _run_path(run_id) + "/ask", body, wait=float(wait or 0))[1])

    def resume(self, run_id: str, answers: Optional[Mapping[str, Any]] = None) -> dict:
        """POST /v1/runs/{id}/resume: merge answers (by inquiry id) into the run's state and set it
        running. An answer is a mapping of the answer's fields ({"value": "yes"}, {"text": …},
        {"declined": true}); merged by a token without the answer scope it is the caller's."""
        body = {"answers": {k: dict(v) for k, v in (answers or {}).items()}}
        return self._c._retrying(None, lambda: self._c.request("POST", _run_path(run_id) + "/resume", body)[1])

    def heartbeat(self, run_id: str) -> dict:
        """POST /v1/runs/{id}/heartbeat: the run's process is alive."""
        return self._c.request("POST", _run_path(run_id) + "/heartbeat", {})[1]

    def finish(self, run_id: str, status: str = "completed") -> dict:
        """POST /v1/runs/{id}/finish with completed, failed or abandoned."""
        return self._c.request("POST", _run_path(run_id) + "/finish", {"status": status})[1]


def _path(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _run_path(run_id: str) -> str:
    return "/v1/runs/" + _path(run_id)


def _raise_failed(rec: Any) -> None:
    """Raise the failure of an inquiry that could not be put to anybody (status failed)."""
    if isinstance(rec, dict) and rec.get("status") == "failed":
        f = rec.get("failure") or {}
        raise InquiryError(
            str(f.get("code") or "inquiry_unavailable"),
            str(f.get("message") or "question %s could not be put to anybody" % rec.get("key")),
            fatal=bool(f.get("fatal", True)),
            record=rec,
        )


def answered_with(rec: Mapping[str, Any]) -> Optional[str]:
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

