#!/usr/bin/env python3
"""Baseline for the GET /health benchmark.

A Python 3 stdlib ThreadingHTTPServer answering GET /health with
{"status": "ok"} over HTTP/1.1 keep-alive -- the architecture of the original
(Python) sandbox server. Standard library only.

Usage: python_health_server.py [--host 127.0.0.1] [--port 0]
Prints `listening on <host>:<port>` on one line of stdout once bound.
"""

import argparse
import http.server
import sys

BODY = b'{"status": "ok"}'


class HealthHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (stdlib naming)
        if self.path == "/health":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)
        else:
            body = b'{"detail": "Not Found"}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - logging off
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0,
                        help="0 picks an ephemeral port")
    args = parser.parse_args()

    server = Server((args.host, args.port), HealthHandler)
    host, port = server.server_address[:2]
    sys.stdout.write(f"listening on {host}:{port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
