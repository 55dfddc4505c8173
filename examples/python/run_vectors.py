#!/usr/bin/env python3
"""Send every receiver test vector (vectors/receiver.json) to a webhook receiver and judge its answers.

    python3 run_vectors.py URL --auth bearer:TOKEN --workflow-path PATH [--vectors FILE]

URL is the events URL (biometric and EDD events); the workflow case deliveries go to PATH on the same
origin. Prints one line per failing case, then "N passed, M failed"; exits 0 only when every answer is
what its vector says, 1 when one is not, 2 on unusable input. Python's standard library only.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import secrets
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.join(HERE, "..", "..", "vectors", "receiver.json")
# Only the status line is judged: the rest of an answer is read up to this many bytes and dropped.
ANSWER_BYTES = 64 * 1024


def parse_auth(text):
    """bearer:TOKEN or basic:USER:PASS as (Authorization value, wrong value of the same scheme)."""
    scheme, _, rest = text.partition(":")
    scheme = scheme.lower()
    wrong = "wrong-" + secrets.token_hex(9)
    if scheme == "bearer" and rest:
        return "Bearer " + rest, "Bearer " + wrong
    user, sep, password = rest.partition(":")
    if scheme == "basic" and user and sep and password:
        encode = lambda pw: base64.b64encode(f"{user}:{pw}".encode("utf-8")).decode("ascii")
        return "Basic " + encode(password), "Basic " + encode(wrong)
    # Never echo the value: it is a credential.
    raise ValueError("--auth must be bearer:TOKEN or basic:USER:PASS")


def body_bytes(body):
    """A vector's exact body bytes, checked against its length and SHA-256."""
    if "utf8" in body:
        data = body["utf8"].encode("utf-8")
    elif "base64" in body:
        data = base64.b64decode(body["base64"], validate=True)
    else:
        r = body["repeated"]
        data = r["head"].encode("utf-8") + r["repeat"].encode("ascii") * r["count"] + r["tail"].encode("utf-8")
    if len(data) != body["bytes"] or hashlib.sha256(data).hexdigest() != body["sha256"]:
        raise ValueError("a vector's body does not match its bytes and sha256")
    return data


def status_class(status):
    """200 -> "2xx"; None (no answer) stays None."""
    return None if status is None else f"{status // 100}xx"


class Target:
    """Where the vectors go: the events URL, and the workflow path on its origin."""

    def __init__(self, url, workflow_path, timeout):
        self.url = urllib.parse.urlsplit(url)
        if self.url.scheme not in ("http", "https") or not self.url.hostname:
            raise ValueError("URL must be an http or https URL")
        if not workflow_path.startswith("/"):
            raise ValueError("--workflow-path must start with /")
        self.workflow_path = workflow_path
        self.timeout = timeout

    def send(self, vector, headers, body):
        """POST one delivery; its status, or None when the connection closed without an answer."""
        u = self.url
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        if vector["url"] == "workflow":
            path = self.workflow_path
        kind = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        conn = kind(u.hostname, u.port, timeout=self.timeout)
        try:
            conn.putrequest(vector["method"], path, skip_accept_encoding=True)
            for name, value in headers.items():
                conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            try:
                conn.send(body)
            except OSError:
                pass  # A receiver may stop reading a body it refuses; its answer may still be there.
            answer = conn.getresponse()
            answer.read(ANSWER_BYTES)
            return answer.status
        except (OSError, http.client.HTTPException):
            return None
        finally:
            conn.close()


def headers_of(vector, auth, wrong):
    """The vector's headers, its placeholders replaced with the credentials."""
    values = {"{{auth}}": auth, "{{wrong_auth}}": wrong}
    return {name: values.get(value, value) for name, value in vector["headers"].items()}


def judge(vector, status):
    """(problem, warning): problem is None when the answer is what the vector says."""
    expect = vector["expect"]
    cls = status_class(status)
    if cls is None:
        return (None, None) if expect["no_answer_ok"] else ("no answer (the connection closed or timed out)", None)
    if cls in expect["status"]:
        return None, None
    wanted = " or ".join(expect["status"])
    if cls in expect["tolerated"]:
        return None, f"answered {status}: passes, but a correct receiver answers {wanted}"
    return f"answered {status}, expected {wanted}", None


def run(document, target, auth, wrong, out=sys.stdout):
    """Send every vector in order; the number passed and failed."""
    passed = failed = 0
    liveness = document.get("liveness")
    for vector in document["vectors"]:
        status = target.send(vector, headers_of(vector, auth, wrong), body_bytes(vector["body"]))
        problem, warning = judge(vector, status)
        if warning:
            print(f"WARN {vector['id']} ({vector['case']}): {warning}", file=out)
        if problem is None and vector["expect"]["then_still_answers"] and liveness:
            alive = target.send(liveness, headers_of(liveness, auth, wrong), body_bytes(liveness["body"]))
            if alive is None:
                problem = "afterwards the receiver no longer answers"
        if problem is None:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {vector['id']} ({vector['case']}): {problem}", file=out)
    return passed, failed


def main(argv=None):
    parser = argparse.ArgumentParser(description="Send the receiver test vectors to a webhook receiver.")
    parser.add_argument("url", help="the events URL")
    parser.add_argument("--auth", required=True, help="bearer:TOKEN or basic:USER:PASS")
    parser.add_argument("--workflow-path", required=True, help="the workflow case Webhook URL's path")
    parser.add_argument("--vectors", default=DEFAULT_VECTORS, help="the vectors file")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each answer")
    args = parser.parse_args(argv)
    try:
        auth, wrong = parse_auth(args.auth)
        target = Target(args.url, args.workflow_path, args.timeout)
        with open(args.vectors, "rb") as f:
            document = json.load(f)
        if document.get("format") != 1:
            raise ValueError("this runner reads vectors of format 1")
    except (OSError, ValueError) as error:
        print(f"run_vectors: {error}", file=sys.stderr)
        return 2
    passed, failed = run(document, target, auth, wrong)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
