"""The progress bar of long calls: at once, never, or once a call has run a while.

:func:`qosmodels.simulate` counts chunks of simulated time with it, and
:func:`qosmodels.sweep` (with ``replicate`` and ``validate --jobs``) counts runs.  The
delayed bar is tqdm's own (``delay=``).
"""

from __future__ import annotations

#: A call still going after this many seconds of wall time gets a bar (``progress=None``).
PROGRESS_AFTER = 2.0


class Progress:
    """A tqdm bar over ``total`` steps: at once (True), never (False) or after
    :data:`PROGRESS_AFTER` seconds if the work is not done by then (None)."""

    def __init__(self, total: int, progress: bool | None, desc: str, unit: str):
        self.bar = None
        if progress is not False:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit=unit, desc=desc, leave=False,
                            delay=0.0 if progress else PROGRESS_AFTER)

    def update(self) -> None:
        """One step done."""
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
