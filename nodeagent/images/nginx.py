"""The built-in ``nginx`` demo image: a static web server (see ``nodeagent.images``).

Serves files from ``$NGINX_ROOT`` (default ``/usr/share/nginx/html`` if present) or, without a
root directory, a welcome page for every GET. Logs one access line per request to stdout, as
nginx does, and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType

WELCOME = b"""<!DOCTYPE html>
<html><head><title>Welcome to nginx!</title></head>
<body><h1>Welcome to nginx!</h1>
<p>If you see this page, the minikube-py built-in nginx demo image is working.</p>
</body></html>
"""


class WelcomeHandler(SimpleHTTPRequestHandler):
    """Static files when a root directory exists, else the welcome page."""

    server_version = "nginx"
    sys_version = ""

    def __init__(self, *args: object, root: str | None, **kwargs: object) -> None:
        self.root = root
        super().__init__(*args, directory=root or "/nonexistent", **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        if self.root:
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(WELCOME)))
        self.end_headers()
        self.wfile.write(WELCOME)

    def log_message(self, format: str, *args: object) -> None:
        sys.stdout.write(f"{self.client_address[0]} - - [{self.log_date_time_string()}] {format % args}\n")
        sys.stdout.flush()


def serve(host: str, port: int, root: str | None) -> None:
    try:
        server = ThreadingHTTPServer((host, port), functools.partial(WelcomeHandler, root=root))
    except OSError as err:  # as nginx: one line naming the address, exit 1
        print(f"nginx: [emerg] bind() to {host}:{port} failed ({err.errno}: {err.strerror})", flush=True)
        raise SystemExit(1) from None

    def shutdown(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, shutdown)
    print(f"nginx (minikube-py demo) listening on {host}:{port}", flush=True)
    server.serve_forever()
    server.server_close()


def main() -> None:
    root = os.environ.get("NGINX_ROOT", "/usr/share/nginx/html")
    serve(
        os.environ.get("POD_IP", "0.0.0.0"),
        int(os.environ.get("NGINX_PORT", "80")),
        root if os.path.isdir(root) else None,
    )


if __name__ == "__main__":
    main()
