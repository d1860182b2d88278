"""`porchlamp serve`: the published site over HTTP on 127.0.0.1, with the same security headers a
production host should send (Content-Security-Policy, no sniffing, no framing)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from porchlamp.errors import SiteError

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".json": "application/json", ".svg": "image/svg+xml",
                      ".js": "text/javascript", ".parquet": "application/vnd.apache.parquet", ".csv": "text/csv"}

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep the terminal for the progress line
        return


class _Server(ThreadingHTTPServer):
    # The listen backlog is set when the socket binds, so it must be a class attribute: the
    # default of 5 drops connections when a crowd arrives at once, and they retry seconds later.
    request_queue_size = 256
    daemon_threads = True


class SiteServer:
    """A static server for a published site; `start()` runs it on a thread, `serve_forever()` in the foreground."""

    def __init__(self, directory: str | Path, port: int = 8000, host: str = "127.0.0.1") -> None:
        d = Path(directory)
        if not (d / "index.html").exists():
            raise SiteError(f"{d}: no index.html here; publish a site first with `porchlamp publish --out {d}`")
        self.httpd = _Server((host, port), functools.partial(_Handler, directory=str(d)))

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> "SiteServer":
        threading.Thread(target=self.httpd.serve_forever, name="site", daemon=True).start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "SiteServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
