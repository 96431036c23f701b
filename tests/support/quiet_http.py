"""Test HTTP servers that never format a traceback from their handler threads.

Python 3.11 computes a traceback's ^^^ markers with ``ast.parse``, and its AST constructor
keeps one recursion count for all threads (CPython gh-106905, fixed in later releases): a
server thread printing a traceback (a client that timed out and left, say) while the test's
own thread parses code makes that parse fail with ``SystemError: AST constructor recursion
depth mismatch``. With the tests in two processes (``-n 2``) such a thread outlived its test
file and failed another file's test. So a handler's error here is one line, a client that
went away none."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer


class QuietThreadingHTTPServer(ThreadingHTTPServer):
    # not daemon threads: server_close() waits for requests still in flight, so no handler
    # outlives the fixture that started the server
    daemon_threads = False

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):  # the client timed out or hung up: expected
            return
        sys.stderr.write(f"test server: {type(error).__name__}: {error}\n")
