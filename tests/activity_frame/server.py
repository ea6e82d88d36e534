"""Serves the test Discord client (``client.html``, ``client.js``) over TLS, for a browser
that maps ``discord.com`` to this server: the Activity then sees messages from
``https://discord.com``, an origin the Embedded App SDK accepts, as it does in Discord."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path
from urllib.parse import urlencode

from aiohttp import web

HERE = Path(__file__).parent
HOST = "discord.com"
"""The client's host name; the browser resolves it to this server."""


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for discord.com (the browser is told to accept it).

    Raises:
        RuntimeError: when the openssl command is missing or fails.
    """
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("the openssl command is not installed")
    cert, key = folder / "discord.com.pem", folder / "discord.com.key"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-nodes",
         "-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def client_url(activity: str, **params: str | None) -> str:
    """The client's address for an Activity: ``https://discord.com/activities/…?…``."""
    query = {"activity": activity} | {k: v for k, v in params.items() if v is not None}
    return f"https://{HOST}/activities/{params.get('instance_id') or 'i'}?{urlencode(query)}"


def make_app() -> web.Application:
    async def page(request: web.Request) -> web.FileResponse:
        return web.FileResponse(HERE / "client.html", headers={"Cache-Control": "no-store"})

    async def script(request: web.Request) -> web.FileResponse:
        return web.FileResponse(HERE / "client.js", headers={"Cache-Control": "no-store"})

    async def nothing(request: web.Request) -> web.Response:
        return web.Response(status=204)

    app = web.Application()
    app.router.add_get("/activities/{instance}", page)
    app.router.add_get("/client.js", script)
    app.router.add_get("/favicon.ico", nothing)
    return app


class ClientServer:
    """The client's server on 127.0.0.1 (a free port), over TLS."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(cert, key)
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def start(self) -> None:
        self.runner = web.AppRunner(make_app(), access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0, ssl_context=self.context)
        await site.start()
        self.port = self.runner.addresses[0][1]

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
