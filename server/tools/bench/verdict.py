"""Whether the load generator, not the server, was the bottleneck: judged per CPU.

The workers are usually pinned together to one CPU (``--load-cpu``), so one worker's share of a
core says little: four at 20 % each fill their core, and their loops lag behind each other's
turns. The workers are therefore summed per set of CPUs they may run on (their affinity):

- **full**: together they used more than :data:`CORE_FULL` of those CPUs, or their loops lagged
  while they used more than :data:`STARVED_BELOW` of them. The generator is busy; more workers on
  the same CPUs would not help, more CPUs (or fewer rooms per CPU) would.
- **starved**: their loops lagged while they used less than :data:`STARVED_BELOW` of their CPUs,
  or while other processes took more than :data:`OTHERS_TOOK` of them (``/proc/stat``, when
  read around the window): the machine did not run them, and a rerun on a quiet machine is
  what helps.
- **worker busy**: one worker used more than :data:`BUSY_CPU` of a core while its CPUs had
  room (a process uses one core at most): more workers would help.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

#: A worker above this share of one core in the window may have slowed what it measured.
BUSY_CPU = 0.8
#: A worker whose event loop ran callbacks this late (p99, seconds) delayed what it timed.
LAGGING_P99 = 0.003
#: Workers that together used more than this share of their CPUs had them (nearly) full.
CORE_FULL = 0.75
#: Lagging workers that together used less than this share of their CPUs were not run by the
#: machine; above it, they lagged behind each other.
STARVED_BELOW = 0.5
#: Lagging workers whose CPUs other processes used more than this share of were starved by them.
OTHERS_TOOK = 0.2


class Worker(Protocol):
    """What the verdict reads of one worker's report."""

    @property
    def index(self) -> int: ...
    @property
    def cpus(self) -> tuple[int, ...]: ...
    @property
    def cpu_share(self) -> float: ...
    @property
    def lag_p99(self) -> float: ...


class Verdict(enum.Enum):
    FINE = "fine"
    WORKER_BUSY = "worker busy"
    FULL = "full"
    STARVED = "starved"


@dataclass(frozen=True)
class Core:
    """The workers that may run on the same CPUs, and what they did together there."""

    cpus: tuple[int, ...]  # empty: not known (each such worker is judged alone)
    workers: tuple[Worker, ...]
    busy: float | None = None  # those CPUs' busy share in the window, every process's

    @property
    def others(self) -> float | None:
        """The share of those CPUs that other processes used (None: not read)."""
        return None if self.busy is None else max(0.0, self.busy - self.share)

    @property
    def share(self) -> float:
        """The workers' CPU summed, as a share of their CPUs (1.0: every one of them full)."""
        return sum(w.cpu_share for w in self.workers) / max(1, len(self.cpus))

    @property
    def lag_p99(self) -> float:
        return max(w.lag_p99 for w in self.workers)

    @property
    def verdict(self) -> Verdict:
        lagging = self.lag_p99 > LAGGING_P99
        if self.share > CORE_FULL:
            return Verdict.FULL
        if lagging:
            crowded = self.others is not None and self.others > OTHERS_TOOK
            return Verdict.FULL if self.share >= STARVED_BELOW and not crowded else Verdict.STARVED
        if any(w.cpu_share > BUSY_CPU for w in self.workers):
            return Verdict.WORKER_BUSY
        return Verdict.FINE

    def line(self) -> str:
        where = "CPUs " + ",".join(map(str, self.cpus)) if self.cpus else "CPUs not known"
        names = ", ".join(str(w.index) for w in self.workers)
        flag = "" if self.verdict is Verdict.FINE else f"  <- {self.verdict.value.upper()}"
        others = "" if self.others is None else f", other processes {self.others:.0%} of them"
        return (
            f"{where}: worker(s) {names} used {self.share:.0%} of {len(self.cpus) or 1} core(s) "
            f"together{others}, loop lag p99 up to {1000 * self.lag_p99:.2f} ms{flag}"
        )


def cores(workers: Sequence[Worker], busy: Mapping[int, float] | None = None) -> list[Core]:
    """The workers grouped by the CPUs they may run on, in the order they first appear;
    ``busy``: each CPU's busy share in the window (:func:`busy_shares`), if read."""
    groups: dict[tuple[int, ...], list[Worker]] = {}
    alone: list[Core] = []
    for w in workers:
        if w.cpus:
            groups.setdefault(w.cpus, []).append(w)
        else:
            alone.append(Core((), (w,)))

    def used(cpus: tuple[int, ...]) -> float | None:
        if not busy or any(c not in busy for c in cpus):
            return None
        return sum(busy[c] for c in cpus) / len(cpus)

    return [Core(cpus, tuple(ws), used(cpus)) for cpus, ws in groups.items()] + alone


def cpu_ticks(stat: str = "/proc/stat") -> dict[int, tuple[int, int]]:
    """Each CPU's busy and total clock ticks since boot (Linux; empty elsewhere)."""
    out: dict[int, tuple[int, int]] = {}
    try:
        with open(stat) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        name, *fields = line.split()
        if name.startswith("cpu") and name[3:].isdigit():
            ticks = [int(x) for x in fields[:8]]  # user nice system idle iowait irq softirq steal
            idle = ticks[3] + ticks[4]
            out[int(name[3:])] = (sum(ticks) - idle, sum(ticks))
    return out


def busy_shares(
    before: Mapping[int, tuple[int, int]], after: Mapping[int, tuple[int, int]]
) -> dict[int, float]:
    """Each CPU's busy share between two :func:`cpu_ticks` readings."""
    out = {}
    for cpu, (busy, total) in after.items():
        if cpu in before and total > before[cpu][1]:
            out[cpu] = (busy - before[cpu][0]) / (total - before[cpu][1])
    return out


#: What to do about each verdict.
ADVICE = {
    Verdict.FULL: (
        "its CPU was full: the workers delayed each other; more workers on the same CPU "
        "would not help: give the generator more CPUs or load fewer rooms per CPU"
    ),
    Verdict.STARVED: (
        "while mostly idle or crowded out: the machine did not run it (other load); rerun "
        "when it is quiet"
    ),
    Verdict.WORKER_BUSY: "a worker was short of a core while its CPUs had room: add --workers",
}


def summary(found: Sequence[Core]) -> str:
    """The one line that says whether the generator was the bottleneck, and why."""
    bad = [c for c in found if c.verdict is not Verdict.FINE]
    if not bad:
        return (
            f"the load generator was not the bottleneck (its CPUs under {CORE_FULL:.0%} used, "
            f"every worker under {BUSY_CPU:.0%} CPU, loop lag p99 under "
            f"{1000 * LAGGING_P99:g} ms)"
        )
    worst = min(bad, key=lambda c: list(ADVICE).index(c.verdict)).verdict
    where = "; ".join(c.line() for c in bad)
    return (
        f"THE LOAD GENERATOR WAS A BOTTLENECK ({worst.value}): {where}; its latencies include "
        f"its own delay; {ADVICE[worst]}"
    )
