"""How often one user may change their memory from the page: a token bucket per user. Pure (time is passed in)."""

from __future__ import annotations

from dataclasses import dataclass, field

BURST = 30  # changes at once (deleting a screenful of facts)
PER_SECOND = 0.5  # then one every two seconds, 30 a minute


@dataclass
class WriteLimit:
    """Allows each user `burst` changes at once, refilled at `per_second`; users at a full bucket are dropped."""

    burst: float = BURST
    per_second: float = PER_SECOND
    buckets: dict[int, tuple[float, float]] = field(default_factory=dict)  # user -> (tokens, at)

    def allow(self, user_id: int, now: float) -> bool:
        """Take one change from the user's bucket at monotonic time `now`; False when it is empty."""
        tokens, at = self.buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + max(0.0, now - at) * self.per_second)
        if tokens < 1:
            self.buckets[user_id] = (tokens, now)
            return False
        self.buckets[user_id] = (tokens - 1, now)
        if len(self.buckets) > 10_000:  # forget everyone whose bucket has refilled by now
            full = [user for user, (left, since) in self.buckets.items()
                    if left + (now - since) * self.per_second >= self.burst]
            for user in full:
                del self.buckets[user]
        return True
