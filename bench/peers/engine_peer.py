#!/usr/bin/env python3
"""The engine's Python peer for `make bench`: a minimal asyncio + sqlite3 loop that checkpoints the
way walletops does (an items table keyed by run, step and item key, a state per item, WAL with
synchronous=NORMAL, one transaction per 1,000 outcomes), with 8 workers taking no-op items from a
bounded queue. Prints "items<TAB>items_per_s<TAB>peak_rss_mib<TAB>cpu_s" for each size given."""
import asyncio
import os
import resource
import sqlite3
import sys
import tempfile
import time

FLUSH = 1000
WORKERS = 8


async def run(count, path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE items(run_id INTEGER, step TEXT, item_key TEXT, state TEXT, attempts INTEGER,"
        " updated_at REAL, PRIMARY KEY(run_id, step, item_key)) WITHOUT ROWID")
    queue = asyncio.Queue(maxsize=1024)
    pending = []

    def flush():
        if not pending:
            return
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO items VALUES (1, 'noop', ?, 'succeeded', 1, ?) ON CONFLICT(run_id, step, item_key)"
            " DO UPDATE SET state = excluded.state, attempts = excluded.attempts, updated_at = excluded.updated_at",
            pending)
        db.execute("COMMIT")
        pending.clear()

    async def action(key):
        return None  # noop

    async def worker():
        while True:
            key = await queue.get()
            if key is None:
                return
            await action(key)
            pending.append((key, time.time()))
            if len(pending) >= FLUSH:
                flush()

    workers = [asyncio.create_task(worker()) for _ in range(WORKERS)]
    for index in range(count):
        await queue.put("item-%d" % index)
    for _ in workers:
        await queue.put(None)
    await asyncio.gather(*workers)
    flush()
    db.close()


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [100_000, 1_000_000]
    for count in sizes:
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            cpu = time.process_time()
            asyncio.run(run(count, os.path.join(folder, "runs.sqlite")))
            seconds = time.perf_counter() - start
            cpu = time.process_time() - cpu
        rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print("%d\t%.0f\t%.1f\t%.2f" % (count, count / seconds, rss_mib, cpu), flush=True)


if __name__ == "__main__":
    main()
