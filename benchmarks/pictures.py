"""What the picture benchmarks share: every picture drawn in every language, timed in CPU
time (the picture pool's worker has a core of its own), with the bytes it would send."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from bot.presentation.i18n import LANGUAGES, Translator, translator

F = TypeVar("F")


def draw_all(
    draw: Callable[[Translator, F], bytes], figures: Sequence[F]
) -> tuple[list[float], list[int]]:
    """Each of `figures` drawn in every language: the milliseconds of CPU each took, sorted,
    and the size of each in bytes. The first and the last are drawn once before, untimed:
    the fonts and tiles of the smallest and the largest load then."""
    for one in (figures[0], figures[-1]):
        draw(translator("en"), one)
    times, sizes = [], []
    for language in LANGUAGES:
        t = translator(language)
        for one in figures:
            start = time.process_time()
            png = draw(t, one)
            times.append((time.process_time() - start) * 1000)
            sizes.append(len(png))
    times.sort()
    return times, sizes


def report(
    what: str, times: list[float], sizes: list[int], target_ms: float, target_bytes: int
) -> bool:
    """Print the times' mean, p95 and maximum and the sizes' mean and maximum against their
    targets; whether the p95 and the largest meet them."""
    p95 = times[int(len(times) * 0.95)]
    print(
        f"  {what}, CPU time: mean {statistics.mean(times):.1f} ms, p95 {p95:.1f} ms, "
        f"max {times[-1]:.1f} ms (target {target_ms:.0f} ms)"
    )
    print(
        f"  size: mean {statistics.mean(sizes) / 1000:.0f} KB, max {max(sizes) / 1000:.0f} KB "
        f"(target {target_bytes / 1000:.0f} KB)"
    )
    return p95 <= target_ms and max(sizes) <= target_bytes
