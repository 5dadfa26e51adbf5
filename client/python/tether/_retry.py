"""The retry policy of calls that fail with UNAVAILABLE (the only code that says the call did not
happen, so repeating it cannot double an effect)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

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
