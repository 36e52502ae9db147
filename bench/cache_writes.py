"""Compile-cache writes per second at 100 and 60,000 entries (issue 23).

A write used to scan the whole cache to decide what to evict: 1.7 s per
write at 60,000 entries. It now appends to a journal and compares an
estimate with the bound, scanning only after a tenth of the bound was
written since the last scan (gpuc/cache/store.py, `Cache._account`), so a write
costs O(1) amortized. For each size, the cache is filled with that many
entries of `--entry-bytes` bytes, then timed for `--writes` new entries,
twice: with room to spare (the default 1 GiB bound), and at the bound (each
write evicts; the scans are included in the mean).

    python bench/cache_writes.py [--sizes 100,60000] [--entry-bytes 2048]

The goal: a write at 60,000 entries costs at most 5 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from gpuc.cache.store import Cache, Entry, _encode


def fill(cache: Cache, count: int, size: int) -> int:
    """`count` entries written straight into the shard folders (as earlier
    compiles would have); their total size."""
    assert cache.put("compile", "00" * 32, Entry({"data": b"x"}))
    data = _encode(Entry({"data": os.urandom(size)}))
    now = time.time() - 3600
    for i in range(count):
        path = cache.path("compile", f"{i:064x}"[::-1])
        path.parent.mkdir(mode=0o700, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (now + i * 1e-3, now + i * 1e-3))
    cache.evict()  # counts them: the bookkeeping starts from the truth
    return count * len(data)


def timed_writes(cache: Cache, writes: int, size: int) -> float:
    """Seconds per write of `writes` new entries."""
    payloads = [os.urandom(size) for _ in range(16)]
    start = time.perf_counter()
    for i in range(writes):
        key = f"f{i:063x}"
        assert cache.put("compile", key, Entry({"data": payloads[i % 16]}))
    return (time.perf_counter() - start) / writes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,60000")
    parser.add_argument("--entry-bytes", type=int, default=2048)
    parser.add_argument(
        "--writes",
        type=int,
        default=0,
        help="default: a fifth of the entries, at least 500",
    )
    args = parser.parse_args()
    columns = ("entries", "bound", "writes", "writes/s", "ms/write", "entries after")
    widths = (8, 12, 7, 9, 9, 14)
    print(" ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True)))
    for count in (int(n) for n in args.sizes.split(",")):
        writes = args.writes or max(500, count // 5)
        for regime in ("room", "at the bound"):
            directory = tempfile.mkdtemp(prefix="gpuc-cache-bench-")
            try:
                cache = Cache(directory, max_bytes=1 << 30)
                total = fill(cache, count, args.entry_bytes)
                if regime == "at the bound":
                    cache = Cache(directory, max_bytes=total)
                per_write = timed_writes(cache, writes, args.entry_bytes)
                after = cache.info().entries
                print(
                    f"{count:>8} {regime:>12} {writes:>7} {1 / per_write:>9.0f} "
                    f"{per_write * 1e3:>9.3f} {after:>14}"
                )
            finally:
                shutil.rmtree(directory)


if __name__ == "__main__":
    main()
