"""Signed callbacks: sign and verify_callback, as the Go client's client.Sign and client.Verify."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any, Iterable, Optional, Protocol, Tuple, Union, cast

from ._errors import CallbackError

__all__ = ["sign", "verify_callback", "Headers", "HeaderLookup", "HEADER_TIMESTAMP", "HEADER_SIGNATURE", "HEADER_DELIVERY", "HEADER_EVENT"]

#: Callback headers, as the bot sends them (Go: client.HeaderTimestamp and the others).
HEADER_TIMESTAMP = "X-Inquiry-Timestamp"  # unix seconds the signature was made at
HEADER_SIGNATURE = "X-Inquiry-Signature"  # v1=<hex HMAC-SHA256 of "v1:{timestamp}:{body}">
HEADER_DELIVERY = "X-Inquiry-Delivery"  # the delivery's id, the same on every retry: dedupe by it
HEADER_EVENT = "X-Inquiry-Event"  # "callback" or "resume"


class HeaderLookup(Protocol):
    """Headers with a ``get(name)``: a dict, an http.client or email Message, a framework's own."""

    def get(self, name: str, /) -> Any: ...


#: A request's headers as frameworks hand them over (names in any case), or (name, value) pairs.
Headers = Union[HeaderLookup, Iterable[Tuple[str, str]]]


def _bytes(b: Union[str, bytes, bytearray]) -> bytes:
    return b.encode("utf-8") if isinstance(b, str) else bytes(b)


def sign(secret: Union[str, bytes], timestamp: int, body: Union[str, bytes]) -> str:
    """The X-Inquiry-Signature of body sent at timestamp (unix seconds): "v1=" and the hex
    HMAC-SHA256 of "v1:{timestamp}:{body}" keyed by secret (Go: client.Sign)."""
    mac = hmac.new(_bytes(secret), b"v1:%d:" % int(timestamp), hashlib.sha256)
    mac.update(_bytes(body))
    return "v1=" + mac.hexdigest()


def _header(headers: Headers, name: str) -> str:
    """The header name of headers, looked up whatever its case; "" when absent."""
    getter = getattr(headers, "get", None)
    if getter is not None:
        v = getter(name)
        if v is not None:
            return str(v)
    # A dict's get is case-sensitive: its items are searched whatever their case.
    items = getattr(headers, "items", None)
    pairs: Iterable[Tuple[Any, Any]] = items() if items is not None else cast("Iterable[Tuple[str, str]]", headers)
    for k, v in pairs:
        if str(k).lower() == name.lower():
            return str(v)
    return ""


_TIMESTAMP = re.compile(r"^[+-]?[0-9]+$")


def verify_callback(
    headers: Headers,
    body: Union[str, bytes],
    secret: Union[str, bytes, None],
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

    The body is an ``Inquiry`` for a callback_url (X-Inquiry-Event ``callback``) and a
    ``ResumeCallback`` for a run's resume_url (``resume``): annotate the variable it is assigned
    to with the one the endpoint receives.
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
