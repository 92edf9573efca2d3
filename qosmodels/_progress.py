"""The progress bar of long calls: at once, never, or once a call has run a while.

:func:`qosmodels.simulate` counts chunks of simulated time with it, and
:func:`qosmodels.sweep` (with ``replicate`` and ``validate --jobs``) counts runs.
"""

from __future__ import annotations

import time

#: A call still going after this many seconds of wall time gets a bar (``progress=None``).
PROGRESS_AFTER = 2.0


class Progress:
    """A tqdm bar over ``total`` steps: at once (True), never (False) or after
    :data:`PROGRESS_AFTER` seconds if the work is not done by then (None)."""

    def __init__(self, total: int, progress: bool | None, desc: str, unit: str):
        self.total, self.progress, self.desc, self.unit = total, progress, desc, unit
        self.start, self.done, self.bar = time.perf_counter(), 0, None
        if progress:
            self._open()

    def _open(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, initial=self.done, unit=self.unit, desc=self.desc,
                        leave=False)

    def update(self) -> None:
        """One step done."""
        self.done += 1
        if self.bar is None and self.progress is None and self.done < self.total and \
                time.perf_counter() - self.start > PROGRESS_AFTER:
            self._open()
        elif self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
