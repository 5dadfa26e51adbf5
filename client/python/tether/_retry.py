"""The retry policy of calls that fail with UNAVAILABLE (the only code that says the call did not
happen, so repeating it cannot double an effect), and the wider rule of sweep runs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from tether.errors import invalid_argument


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and backoff, as the C++ client's ClientOptions: by default 4 attempts with waits
    of 0.1, 0.2 and 0.4 s (≤ 0.7 s before giving up)."""

    max_attempts: int = 4
    """Calls in total, ≥ 1."""
    initial_backoff: float = 0.1
    """Wait before the 2nd attempt [s], > 0."""
    max_backoff: float = 2.0
    """Cap of each wait [s], ≥ initial_backoff."""
    multiplier: float = 2.0
    """Each wait is this times the previous one, ≥ 1."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise invalid_argument("retry.max_attempts", f"{self.max_attempts}; must be >= 1")
        if not self.initial_backoff > 0:
            raise invalid_argument("retry.initial_backoff", f"{self.initial_backoff}; must be > 0")
        if not self.max_backoff >= self.initial_backoff:
            raise invalid_argument("retry.max_backoff", f"{self.max_backoff}; must be >= "
                                   f"initial_backoff ({self.initial_backoff})")
        if not self.multiplier >= 1:
            raise invalid_argument("retry.multiplier", f"{self.multiplier}; must be >= 1")

    def waits(self) -> Iterator[float]:
        """The wait before attempt 2, 3, ..., max_attempts [s]."""
        wait = self.initial_backoff
        for _ in range(self.max_attempts - 1):
            yield wait
            wait = min(wait * self.multiplier, self.max_backoff)

# Whether a failed call is retried, from its status code's name and whether a summary arrived.
Retryable = Callable[[str, bool], bool]


def only_unavailable(code_name: str, summarized: bool) -> bool:
    """The retry rule of single calls: UNAVAILABLE alone says the call did not happen."""
    return code_name == "UNAVAILABLE"


def is_transient_failure(code_name: str, summarized: bool) -> bool:
    """Whether a sweep run that ended with status ``code_name`` may succeed when run again:
    UNAVAILABLE (the call never started, or its replica went away), or RESOURCE_EXHAUSTED before
    any summary (``summarized`` false: the server refused to start it, "max_streams ... reached;
    retry later"). With a summary, RESOURCE_EXHAUSTED is the step limit, which a new run hits
    again; DEADLINE_EXCEEDED ran out of its whole deadline and would again. Such a run is retried
    with the client's RetryPolicy (a one-shot Simulate keeps nothing on the server). The CLI's
    sweep has the same rule (client/cli/sweep_runner.h, IsTransientFailure)."""
    return code_name == "UNAVAILABLE" or (code_name == "RESOURCE_EXHAUSTED" and not summarized)
