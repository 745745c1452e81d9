"""The real ``bot serve`` for the tests: built once, started on 127.0.0.1:0 with a temporary SQLite
database and config home, its admin token and address read from its first-start output.

BOT_BIN names a bot binary to use (.ci/client-python.sh builds one); without it the binary is
built with ``go build ./cmd/bot`` from the repository this folder is in.
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(CLIENT_DIR))
sys.path.insert(0, CLIENT_DIR)

import inquiry_bot  # noqa: E402  (after the path is set)

_built: Optional[str] = None
_build_lock = threading.Lock()


def bot_binary() -> str:
    """The bot binary: BOT_BIN, else one built once for this test process."""
    global _built
    with _build_lock:
        if os.environ.get("BOT_BIN"):
            return os.environ["BOT_BIN"]
        if _built is None:
            out = tempfile.mkdtemp(prefix="inquiry-bot-bin-")
            path = os.path.join(out, "bot")
            subprocess.run(["go", "build", "-o", path, "./cmd/bot"], cwd=REPO, check=True)
            _built = path
        return _built


class BotServer:
    """A running ``bot serve``: url, admin token, the temp dir; stop() ends it and removes the dir."""

    def __init__(self, **extra_env: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="inquiry-bot-test-")
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": self.dir,
            "XDG_CONFIG_HOME": os.path.join(self.dir, "cfg"),
            "DATABASE_URL": "sqlite:" + os.path.join(self.dir, "bot.db"),
            "BOT_ADDR": "127.0.0.1:0",
            "BOT_DEFAULT_POLICY": "ask",
            "BOT_LOG_FORMAT": "json",
            "BOT_SWEEP_SCHEDULE": "@every 1s",
        }
        self.env.update(extra_env)
        self.log = open(os.path.join(self.dir, "serve.log"), "w+b")
        self.proc = subprocess.Popen(
            [bot_binary(), "serve"], env=self.env, stdout=subprocess.PIPE, stderr=self.log, cwd=self.dir
        )
        self.url, self.admin = self._read_start()
        # The output after start-up is drained so that the bot never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _read_start(self) -> Tuple[str, str]:
        lines: "queue.Queue[Optional[str]]" = queue.Queue()

        def read() -> None:
            assert self.proc.stdout is not None
            for raw in iter(self.proc.stdout.readline, b""):
                line = raw.decode("utf-8", "replace")
                lines.put(line)
                if line.startswith("listening on "):
                    return
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        admin = ""
        while True:
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                self.stop()
                raise RuntimeError("bot serve did not say where it listens within 60 s")
            if line is None:
                self.stop()
                raise RuntimeError("bot serve exited before listening; its log:\n" + self.log_text())
            m = re.match(r"^\s+(bot_\S+)\s*$", line)
            if m:
                admin = m.group(1)
            if line.startswith("listening on "):
                if not admin:
                    raise RuntimeError("bot serve printed no first-start admin token")
                return line[len("listening on ") :].strip(), admin

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for _ in iter(self.proc.stdout.readline, b""):
            pass

    def log_text(self) -> str:
        self.log.flush()
        with open(self.log.name, "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def client(self, token: Optional[str] = None) -> inquiry_bot.Client:
        return inquiry_bot.Client(self.url, token or self.admin)

    def token(self, name: str, *scopes: str) -> str:
        """A new token with these scopes, made through the API with the admin token."""
        body = {"name": name, "scopes": list(scopes) or ["ask"]}
        _, out = self.client().request("POST", "/v1/tokens", body)
        return out["token"]

    def cli(self, *args: str, token: Optional[str] = None) -> subprocess.CompletedProcess:
        """The bot binary run as the CLI against this server."""
        env = dict(self.env, BOT_URL=self.url, BOT_TOKEN=token or self.admin)
        return subprocess.run([bot_binary(), *args], env=env, capture_output=True, text=True, timeout=120)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Receiver:
    """A local HTTP receiver of callbacks: every POST is queued as (path, headers, raw body)."""

    def __init__(self) -> None:
        self.got: "queue.Queue[Tuple[str, Dict[str, str], bytes]]" = queue.Queue()
        got = self.got

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                got.put((self.path, {k: v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next(self, timeout: float = 30) -> Tuple[str, Dict[str, str], bytes]:
        return self.got.get(timeout=timeout)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


#: What a FaultProxy's fault() returns for a request forwarded to the bot whose answer is then
#: lost (the client gets a proxy's bare 502).
LOST = ("lost",)


class FaultProxy:
    """A proxy in front of the bot that answers a request with a canned fault while fault() says
    so (given the method and path; LOST: forward it, then lose the answer), and forwards
    everything else. hits lists (method, path, faulted)."""

    def __init__(self, upstream: str, fault: Callable[[str, str], Optional[Tuple[int, Dict[str, str], bytes]]]) -> None:
        self.hits: List[Tuple[str, str, bool]] = []
        hits, up = self.hits, upstream.rstrip("/")
        lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                path = urllib.parse.urlsplit(self.path).path
                with lock:
                    canned = fault(self.command, path)
                    hits.append((self.command, path, canned is not None))
                if canned is not None and canned != LOST:
                    status, headers, raw = canned
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return
                fwd = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
                req = urllib.request.Request(up + self.path, data=body, headers=fwd, method=self.command)
                try:
                    resp = urllib.request.urlopen(req, timeout=90)
                except urllib.error.HTTPError as e:
                    resp = e
                raw = resp.read()
                if canned == LOST:
                    # The bot did the request; its answer is lost on the way back.
                    self.send_response(502)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(resp.status if hasattr(resp, "status") else resp.code)
                for k, v in resp.headers.items():
                    if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = _handle

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def api_error(status: int, code: str, message: str, fatal: bool = False, retry_after: Optional[int] = None):
    """A canned answer in the API's error shape, for FaultProxy."""
    headers = {"Content-Type": "application/json"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    body = json.dumps({"error": {"code": code, "message": message, "fatal": fatal}}).encode()
    return status, headers, body
