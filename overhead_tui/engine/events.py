"""Events the runner yields to its consumers (the CLI's progress, the app, the run log).

They flow one way: runner -> consumers.  Each is a small frozen dataclass; consumers match on
the type.  A summary or result an event carries is a copy made for that event
(:func:`snapshot`): the runner goes on deriving its own summary on its thread (× dense,
breakdowns, the waterfall) while a consumer on another thread reads what it was handed.

``ScenarioProgress.phase`` is one of ``starting``, ``compiling`` (the first call, JIT
compilation included), ``validating``, ``running`` (the timed samples) and ``counting``
(exact event counts after the timed samples).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Literal, TypeVar

from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.sweep import BudgetedRecord

Phase = Literal["starting", "compiling", "validating", "running", "counting"]
"""What a scenario's worker is doing (``ScenarioProgress.phase``)."""


@dataclass(frozen=True)
class RunStarted:
    """The run (or a budgeted sweep) began; a run's ``summary`` lists every scenario as
    skipped (not yet run), a sweep's has no points yet."""

    summary: RunSummary


@dataclass(frozen=True)
class StepStarted:
    """A step of the run began: ``name``, ``index`` of ``total`` steps of its kind (from 0)."""

    name: str
    index: int = 0
    total: int = 1


@dataclass(frozen=True)
class ProbeStarted(StepStarted):
    """A probe is being measured (before the scenarios, when the cache is stale).

    ``remaining_s`` estimates the seconds left for this and the later probes from the mean
    duration of the probes measured so far (None for the first).
    """

    remaining_s: float | None = None


@dataclass(frozen=True)
class BuildStarted(StepStarted):
    """A module a run compiles is being built, before anything is timed (``engine.prebuild``):
    ``name`` is the scenario or probe it is for, ``jobs`` how many build at once."""

    jobs: int = 1


@dataclass(frozen=True)
class ScenarioStarted(StepStarted):
    """A worker was started for scenario ``name`` (its first, for a rung of several)."""


@dataclass(frozen=True)
class ScenarioProgress:
    """A scenario moved on: phase, samples taken so far, samples wanted.

    ``timed_window`` is True from the worker's ``timing_started`` to its ``timing_ended``:
    while it is, consumers must not compete for the CPU (no repaint loops; coalesce updates).
    """

    name: str
    phase: Phase
    samples_done: int = 0
    samples_total: int = 0
    timed_window: bool = False


@dataclass(frozen=True)
class ScenarioFinished:
    """A scenario's final result (any status) and the whole summary derived with it (every
    rung's × dense, breakdown and the waterfall may have moved); the summary on disk already
    has it.  ``result`` is ``summary``'s own record of the scenario."""

    result: ScenarioResult
    index: int
    total: int
    summary: RunSummary | None = None


def snapshot(summary: RunSummary) -> RunSummary:
    """A copy of ``summary`` that no later derive pass touches, one level deep: a sealed
    result's measured fields cannot change (``ScenarioResult.seal``) and derive replaces a
    result's verdict and derived figures rather than editing them, so each result record is
    copied, not what it holds; so are the machine, the settings, the probes, the waterfall and
    a sweep's record with its points (a deep copy of a full ladder took about 30 ms an event)."""
    return dataclasses.replace(
        summary,
        machine=copy.copy(summary.machine),
        settings=copy.copy(summary.settings),
        scenarios=[result_copy(s) for s in summary.scenarios],
        probes=dict(summary.probes),
        waterfall=list(summary.waterfall),
        tool=dict(summary.tool),
        sweep=_one_level(summary.sweep),
        shapes=_one_level(summary.shapes),
    )


def result_copy(result: ScenarioResult) -> ScenarioResult:
    """A copy of one result that a later derive pass does not touch (see :func:`snapshot`);
    it stays sealed."""
    return copy.copy(result)


Record = TypeVar("Record", bound=BudgetedRecord)


def _one_level(record: Record | None) -> Record | None:
    """A copy of a sweep's record whose list and dict fields are copied too (None: None)."""
    if record is None:
        return None
    made = copy.copy(record)
    for f in dataclasses.fields(made):
        value = getattr(made, f.name)
        if isinstance(value, list | dict):
            object.__setattr__(made, f.name, copy.copy(value))
    return made


@dataclass(frozen=True)
class RunFinished:
    """The run (or a budgeted sweep) ended; ``cancelled`` after Ctrl-C or ``cancel()`` (a
    run's ``summary.finished`` is then False)."""

    summary: RunSummary
    cancelled: bool = False


Event = (
    RunStarted
    | BuildStarted
    | ProbeStarted
    | ScenarioStarted
    | ScenarioProgress
    | ScenarioFinished
    | RunFinished
)
