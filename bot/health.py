"""What an operator's probes and Prometheus ask a running process (TTT_HEALTH_PORT).

    /healthz   200 while the event loop answers at all (a wedged process never replies)
    /readyz    200 once this process's shards are connected and the database answers;
               503 with the reason otherwise (a load balancer or orchestrator waits)
    /metrics   Prometheus text: interactions answered, click-to-answer latency, running
               games, shard latency, the Activity's refusals and live sockets, the
               401/403/429 answers drawn from Discord; needs the ``metrics`` extra
               (prometheus-client)

Served by aiohttp, which discord.py already brings.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import discord
from aiohttp import web

from bot.core.repository import Repository
from bot.web.wiring import WebCounts

log = logging.getLogger(__name__)

DATABASE_TIMEOUT = 2.0
"""Seconds the database may take to answer a readiness probe."""


class Metrics:
    """Prometheus metrics of one process, on a registry of its own."""

    def __init__(self) -> None:
        import prometheus_client as prom  # the optional ``metrics`` extra

        self._prom = prom
        self.registry = prom.CollectorRegistry()
        self.answered = prom.Counter(
            "ttt_interactions_answered", "Interactions answered, by how they ended",
            ["outcome"], registry=self.registry,
        )  # fmt: skip
        self.latency = prom.Histogram(
            "ttt_answer_seconds", "Seconds from an interaction's arrival to its answer",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0),
            registry=self.registry,
        )  # fmt: skip
        self.running_games = prom.Gauge(
            "ttt_running_games", "Games running (all processes sharing the database)",
            registry=self.registry,
        )  # fmt: skip
        self.shard_latency = prom.Gauge(
            "ttt_shard_latency_seconds", "Gateway heartbeat latency by shard", ["shard"],
            registry=self.registry,
        )  # fmt: skip
        self.discord_invalid = prom.Counter(
            "ttt_discord_invalid_answers", "Answers of 401, 403 and 429 drawn from Discord by "
            "this process (Discord bans an address at 10,000 in ten minutes)", ["status"],
            registry=self.registry,
        )  # fmt: skip
        for status in ("401", "403", "429"):  # each shown from the start, at 0
            self.discord_invalid.labels(status)

    def invalid_answer(self, status: int) -> None:
        """Discord answered a call of this process with ``status`` (401, 403 or 429)."""
        self.discord_invalid.labels(str(status)).inc()

    def watch_web(self, counts: Callable[[], WebCounts]) -> None:
        """Read the Activity's limits at each scrape: requests refused by each budget,
        live sockets closed on purpose by close code (both since start), sockets open."""
        from prometheus_client import core as prom

        class Collector:
            def collect(self) -> Iterator[Any]:
                now = counts()
                refused = prom.CounterMetricFamily(
                    "ttt_web_refused", "Page requests refused at once, by budget",
                    labels=["budget"],
                )  # fmt: skip
                for budget, n in sorted(now.refused.items()):
                    refused.add_metric([budget], n)
                closed = prom.CounterMetricFamily(
                    "ttt_web_live_closed", "Live sockets the service closed or refused, by code",
                    labels=["code"],
                )  # fmt: skip
                for code, n in sorted(now.closed.items()):
                    closed.add_metric([str(code)], n)
                yield refused
                yield closed
                yield prom.GaugeMetricFamily("ttt_web_live_pages", "Live sockets open",
                                             value=now.pages)  # fmt: skip

        self.registry.register(Collector())

    def observe(self, outcome: str, seconds: float) -> None:
        """One interaction answered: ``answered``, ``refused`` or ``failed``."""
        self.answered.labels(outcome).inc()
        self.latency.observe(seconds)

    def render(self) -> bytes:
        return bytes(self._prom.generate_latest(self.registry))


def shard_latencies(client: discord.Client) -> dict[int, float]:
    """Heartbeat latency of each of this process's shards (one, 0, when not sharded)."""
    latencies = getattr(client, "latencies", None)
    if latencies is not None:
        return {shard: latency for shard, latency in latencies}
    return {0: client.latency}


class HealthError(Exception):
    """The health server could not start; the message is one line for the operator."""


class HealthServer:
    def __init__(
        self,
        client: discord.Client,
        repo: Repository,
        metrics: Metrics | None,
        *,
        host: str,
        port: int,
        gateway: bool = True,
    ) -> None:
        self.client = client
        self.gateway = gateway
        """Whether this process holds a gateway connection, whose readiness counts."""
        self.repo = repo
        self.metrics = metrics
        self.host, self.port = host, port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Serve from now on: before the bot signs in, so that /healthz answers while it
        connects or waits for its turn to IDENTIFY (/readyz says it is not ready yet).

        Raises:
            HealthError: the address cannot be listened on (a port in use, say).
        """
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics_page)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.host, self.port).start()
        except OSError as exc:
            await self._runner.cleanup()
            raise HealthError(
                f"cannot serve health checks on {self.host}:{self.port} (TTT_HEALTH_HOST, "
                f"TTT_HEALTH_PORT): {exc.strerror or exc}"
            ) from None

    def describe(self) -> str:
        extra = "" if self.metrics else " (install the metrics extra for /metrics)"
        return f"http://{self.host}:{self.port}/healthz, /readyz, /metrics{extra}"

    async def stop(self) -> None:
        # taken before the wait: a second stop (the signal's close, then the client's own
        # on the way out) must not clean the same runner up at the same time
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        problems = []
        if not self.gateway:
            if not getattr(self.client, "signed_in", True):
                problems.append("not signed in yet")
        elif not self.client.is_ready():
            problems.append("gateway: not ready")
        else:
            shards: dict[Any, Any] = getattr(self.client, "shards", {}) or {}
            closed = [i for i, shard in shards.items() if shard.is_closed()]
            if closed:
                problems.append(f"gateway: shards {closed} disconnected")
        try:
            async with asyncio.timeout(DATABASE_TIMEOUT):
                await self.repo.schema_version()
        except Exception as exc:
            problems.append(f"database: {type(exc).__name__}: {exc}"[:200])
        if problems:
            return web.Response(status=503, text="\n".join(problems) + "\n")
        return web.Response(text="ready\n")

    async def metrics_page(self, request: web.Request) -> web.Response:
        if self.metrics is None:
            return web.Response(status=404, text="metrics need: pip install -e '.[metrics]'\n")
        started = time.perf_counter()
        self.metrics.running_games.set(len(await self.repo.running_games()))
        for shard, latency in shard_latencies(self.client).items():
            if latency == latency and latency != float("inf"):  # nan before the first beat
                self.metrics.shard_latency.labels(str(shard)).set(latency)
        body = self.metrics.render()
        log.debug("metrics rendered in %.1f ms", (time.perf_counter() - started) * 1000)
        return web.Response(body=body, content_type="text/plain", charset="utf-8")


def make_metrics() -> Metrics | None:
    """Metrics if prometheus-client is installed, else None (logged once at start)."""
    try:
        return Metrics()
    except ImportError:
        return None
