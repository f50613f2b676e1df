"""What one configuration of bench/scale_out.py measured (Result), and the CPU time of the processes it ran."""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass, field
from pathlib import Path

from tests import pg
from tests.webhook_bots import Bots


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process, from /proc (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bots_cpu(bots: Bots) -> float:
    """CPU seconds of the bot processes of one configuration."""
    return sum(cpu_seconds(bot.process.pid) for bot in bots.bots)


def postgres_cpu(server: pg.Server | None) -> float:
    """CPU seconds of the PostgreSQL postmaster and its live children (backends, writers)."""
    if server is None:
        return 0.0
    try:
        postmaster = int((server.dir / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    total = cpu_seconds(postmaster)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


@dataclass
class Result:
    name: str
    processes: int
    sent: int = 0
    answered: int = 0
    twice: int = 0
    missing: int = 0
    out_of_order: int = 0
    untagged: int = 0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    refused: int = 0
    posts: list[int] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    cpu_bots: float = 0.0
    cpu_pg: float = 0.0
    cpu_bench: float = 0.0
    model_calls: str = ""
    requests: list[float] = field(default_factory=list)  # Bot API calls' arrivals (time.monotonic()), sorted
    methods: collections.Counter = field(default_factory=collections.Counter)

    @property
    def rate(self) -> float:
        return self.answered / self.wall if self.wall else 0.0

    @property
    def request_span(self) -> float:
        return self.requests[-1] - self.requests[0] if len(self.requests) > 1 else 0.0

    @property
    def request_rate(self) -> float:
        """Bot API requests per second, all processes together: requests / (last arrival - first arrival)."""
        return len(self.requests) / self.request_span if self.request_span else 0.0

    def busiest(self, after: float = 1.0, width: float = 1.0) -> tuple[int, float]:
        """The most requests in any `width`-second window [s, s + width) with s >= first arrival + `after`, and
        where that window starts (seconds after the first arrival); the busiest such window starts at an
        arrival, so only those are tried."""
        times, best, at, end = self.requests, 0, 0.0, 0
        for start_index, start in enumerate(times):
            if start < times[0] + after:
                continue
            end = max(end, start_index)
            while end < len(times) and times[end] < start + width:
                end += 1
            if end - start_index > best:
                best, at = end - start_index, start - times[0]
        return best, at

    def window_max(self, after: float = 1.0, width: float = 1.0) -> int:
        """The most requests in any `width`-second window starting at least `after` s after the first one."""
        return self.busiest(after, width)[0]

    def per_second(self, seconds: int = 5) -> list[int]:
        """Requests in each of the first `seconds` whole seconds from the first one."""
        counts = [0] * seconds
        for t in self.requests:
            index = int(t - self.requests[0])
            if index >= seconds:
                break
            counts[index] += 1
        return counts

    @property
    def first_second(self) -> int:
        """Requests in the first second from the first one (the burst a full bucket lets through)."""
        return sum(1 for t in self.requests if t < self.requests[0] + 1.0) if self.requests else 0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000

    @property
    def ok(self) -> bool:
        return not (self.twice or self.missing or self.out_of_order or self.untagged or self.errors)
