#!/usr/bin/env python3
"""A webhook receiver for the identity-verification service on Python's http.server (standard library only).

    python3 receiver.py --port 8080 --auth bearer:TOKEN --workflow-path /idv/cases/SECRET

In the order a correct receiver must: the credentials are checked on the headers alone, before a byte
of the body is read; the body is read up to a limit and parsed from its exact bytes (strict UTF-8, then
JSON); a retry is recognised (workflow deliveries by X-Workflow-Webhook-Id, the others by transaction_id,
event and content) and acknowledged without running the handler again; a new event type is acknowledged
and ignored. The answer is sent first, then the handler runs. Answers never quote the delivery.
"""

import argparse
import base64
import collections
import hashlib
import hmac
import http.server
import json
import signal
import sys
import threading

# Far above the largest delivery of the contract (a few kB).
MAX_BODY_BYTES = 1_000_000
# How many deliveries the in-memory deduper remembers; with several instances use a shared store.
MAX_REMEMBERED = 100_000
# The events of the contract on the events URL (biometric and EDD) and on the workflow case URL.
KNOWN_EVENTS = {"created", "completed", "updated", "archived", "error", "pending", "test", "case_completed"}
KNOWN_WORKFLOW_EVENTS = {"case.completed"}


def authorization_value(text):
    """bearer:TOKEN or basic:USER:PASS as the Authorization value the service sends."""
    scheme, _, rest = text.partition(":")
    if scheme.lower() == "bearer" and rest:
        return "Bearer " + rest
    user, sep, password = rest.partition(":")
    if scheme.lower() == "basic" and user and sep and password:
        return "Basic " + base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
    raise ValueError("--auth must be bearer:TOKEN or basic:USER:PASS")


def same_secret(given, expected):
    """Constant-time comparison of digests: the time taken says nothing about the secret."""
    return hmac.compare_digest(hashlib.sha256(given.encode("utf-8", "surrogateescape")).digest(),
                               hashlib.sha256(expected.encode("utf-8")).digest())


class Deduper:
    """The deliveries seen, by key, the oldest forgotten past a bound (thread-safe)."""

    def __init__(self, limit=MAX_REMEMBERED):
        self.seen = collections.OrderedDict()
        self.limit = limit
        self.lock = threading.Lock()

    def first_time(self, key):
        """True the first time a key is seen, False for a retry."""
        with self.lock:
            if key in self.seen:
                return False
            self.seen[key] = True
            if len(self.seen) > self.limit:
                self.seen.popitem(last=False)
            return True


def delivery_key(payload, webhook_id):
    """The workflow delivery's id, or the digest of transaction_id, event and the content (never personal data)."""
    if webhook_id is not None:
        return "w:" + hashlib.sha256(webhook_id.encode("utf-8", "surrogateescape")).hexdigest()
    content = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "e:" + hashlib.sha256(content.encode("utf-8", "surrogateescape")).hexdigest()


# Handlers run on the requests' threads: print() writes a line and its newline apart, so two at once
# could share a line. One write of the whole line, one thread at a time.
_OUTPUT = threading.Lock()


def print_handled(kind, event, payload):
    """The default handler: one line with the event's name, never a value from it."""
    with _OUTPUT:
        sys.stdout.write(f"handled {kind} {event}\n")
        sys.stdout.flush()


def reject_constant(name):
    """NaN and Infinity are not JSON (RFC 8259), though Python's parser takes them."""
    raise ValueError("not JSON")


class Refused(Exception):
    """A delivery answered with a status other than 200; `close` drops the connection after it."""

    def __init__(self, status, close=False, headers=()):
        super().__init__(status)
        self.status = status
        self.close = close
        self.headers = headers


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    """One request. The server carries the configuration: auth, workflow_path, deduper, handle."""

    protocol_version = "HTTP/1.1"
    # Seconds an idle or slow connection may hold a thread (a slow sender cannot pin one for ever).
    timeout = 30

    def log_message(self, format, *args):
        pass  # The default logs the request line, and the events URL's query may hold a secret.

    def answer(self, status, close=False, headers=()):
        text = http.HTTPStatus(status).phrase.encode("ascii")
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(text)

    def do_POST(self):
        try:
            work = self.receive()
        except Refused as refused:
            self.answer(refused.status, refused.close, refused.headers)
            return
        self.answer(200)
        if work is not None:
            work()  # After the answer: "respond quickly", then process.

    def do_GET(self):
        self.answer(405, headers=[("Allow", "POST")])

    do_PUT = do_DELETE = do_PATCH = do_GET

    def receive(self):
        """Check and parse the delivery; the handler's work to run after 200, or None for nothing to do."""
        workflow = self.path == self.server.workflow_path
        if not workflow:
            self.check_credentials()
        payload = self.parse(self.read_body())
        if workflow:
            return self.workflow_delivery(payload)
        return self.event_delivery(payload)

    def check_credentials(self):
        # The scheme is case-insensitive (RFC 9110); the credentials after it are compared exactly.
        scheme, _, credentials = (self.headers.get("Authorization") or "").strip().partition(" ")
        expected_scheme, _, expected = self.server.auth.partition(" ")
        if scheme.lower() != expected_scheme.lower() or not same_secret(credentials.strip(), expected):
            challenge = [("WWW-Authenticate", f'{expected_scheme} realm="webhooks"')]
            raise Refused(401, close=not self.drain(), headers=challenge)

    def drain(self):
        """Read and drop a refused body within the limit, never holding it; False when it cannot be."""
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            return False
        left = int(length)
        while left > 0:
            chunk = self.rfile.read(min(left, 64 * 1024))
            if not chunk:
                return False
            left -= len(chunk)
        return True

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise Refused(411, close=True)
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            raise Refused(411 if length == "" else 400, close=True)
        if int(length) > MAX_BODY_BYTES:
            raise Refused(413, close=True)  # Not a byte past the limit is read.
        return self.rfile.read(int(length))

    @staticmethod
    def parse(raw):
        """The exact bytes: strict UTF-8 (never replaced), then JSON, then an object."""
        try:
            payload = json.loads(raw.decode("utf-8", errors="strict"), parse_constant=reject_constant)
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise Refused(400)
        if not isinstance(payload, dict):
            raise Refused(400)
        return payload

    def event_delivery(self, payload):
        event = payload.get("event")
        if not isinstance(event, str):
            raise Refused(400)
        if event not in KNOWN_EVENTS:
            return None  # A new event type: acknowledge it, as the service asks.
        needed = "message" if event == "test" else "transaction_id"
        if not isinstance(payload.get(needed), str):
            raise Refused(400)
        if not self.server.deduper.first_time(delivery_key(payload, None)):
            return None
        return lambda: self.server.handle("event", event, payload)

    def workflow_delivery(self, payload):
        event = self.headers.get("X-Workflow-Event-Type")
        webhook_id = self.headers.get("X-Workflow-Webhook-Id")
        if not event or not webhook_id:
            raise Refused(400)
        if event not in KNOWN_WORKFLOW_EVENTS:
            return None
        case_id = payload.get("case_id")
        if not isinstance(case_id, int) or isinstance(case_id, bool):
            raise Refused(400)
        if not self.server.deduper.first_time(delivery_key(payload, webhook_id)):
            return None
        return lambda: self.server.handle("workflow", event, payload)


def create_receiver(port, auth, workflow_path, handle=print_handled, host="127.0.0.1",
                    handler_class=ReceiverHandler):
    """An HTTP server receiving the service's webhooks; auth as bearer:TOKEN or basic:USER:PASS."""
    server = http.server.ThreadingHTTPServer((host, port), handler_class)
    # On close, wait for each request's thread: a handler running after its answer finishes its work.
    server.daemon_threads = False
    server.block_on_close = True
    server.auth = authorization_value(auth)
    server.workflow_path = workflow_path
    server.deduper = Deduper()
    server.handle = handle
    return server


def main(argv=None):
    parser = argparse.ArgumentParser(description="A webhook receiver for the identity-verification service.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="0 for a free port")
    parser.add_argument("--auth", required=True, help="bearer:TOKEN or basic:USER:PASS")
    parser.add_argument("--workflow-path", required=True, help="the workflow case Webhook URL's path")
    args = parser.parse_args(argv)
    try:
        server = create_receiver(args.port, args.auth, args.workflow_path, host=args.host)
    except (OSError, ValueError) as error:
        print(f"receiver: {error}", file=sys.stderr)
        return 2
    # The one line a test (or a supervisor) waits for: the port actually listened on.
    print(f"listening on http://{args.host}:{server.server_address[1]}", flush=True)
    # SIGTERM stops taking requests; shutdown() waits for serve_forever, so it runs in another thread.
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    server.server_close()  # Joins the requests' threads: every handler has finished.
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
