#!/usr/bin/env python3
"""The one table of `make bench` from scripts/bench.sh's results (tab-separated: case, rows, seconds,
peak RSS MiB, peer items/s, peer peak RSS MiB, floor items/s, note), with each case's goal of issue 9
checked. Usage: report.py RESULTS.tsv [IMPORT_BATCH]."""
import os
import sys

RTT = 0.020          # the delay proxy's added round trip
LATENCY_PARALLEL = 8  # imports in flight in the latency case
SCRYPT_MIB = 256     # one scrypt n=2^18 r=8: 128 * r * n bytes
CORES = os.cpu_count() or 2


def pool_slots():
    """KeystoreDecryptionPool's default: two per core (the pairs), at most MemAvailable / 257 MiB."""
    try:
        with open("/proc/meminfo") as meminfo:
            kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemAvailable:"))
        return max(1, min(2 * CORES, kib * 1024 // (257 << 20)))
    except (OSError, StopIteration, ValueError):
        return 2 * CORES


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    path = sys.argv[1]
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rows = []
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 8:
            rows.append(parts)
    runs = os.path.join(os.path.dirname(os.path.abspath(path)), "runs")

    def cpu_seconds(case):
        """User + system CPU of the case's walletops process, from its `time -v` report."""
        try:
            text = open(os.path.join(runs, case, "time.txt")).read()
        except OSError:
            return None
        total = 0.0
        for line in text.splitlines():
            if "User time (seconds)" in line or "System time (seconds)" in line:
                total += float(line.rsplit(":", 1)[1])
        return total

    by_case = {}
    for case, count, seconds, rss, peer, peer_rss, floor, note, *rest in rows:
        # A scaling case's ninth column: base rows, the median of its rounds' time ratios (its rows over the
        # base's, each round's two runs adjacent), the ratio of the sides' largest peak RSS, the rounds.
        # A resume case's ninth column (scripts/bench.sh resume_case): the fastest full run's seconds, the
        # most rows any resumed run sent again (the core had them already), the bound (what was in flight),
        # the resumed run's sends and the rows it had left, the most keystores a resumed run decrypted, and
        # the fewest rows an output held at a kill.
        paired = resume = None
        if rest and rest[0].startswith("resume:"):
            full, again, bound, sent, left, decrypted, killed_at = rest[0].split(":")[1:]
            resume = dict(full=float(full), again=int(again), bound=int(bound), sent=int(sent), left=int(left),
                          decrypted=int(decrypted), killed_at=int(killed_at))
        elif rest and rest[0]:
            base_rows, time_x, rss_x, rounds = rest[0].split(":")
            paired = dict(rows=float(base_rows), time_x=float(time_x), rss_x=float(rss_x), rounds=int(rounds))
        count, seconds, rss = number(count), number(seconds), number(rss)
        rate = count / seconds if count is not None and seconds and not resume else None
        cpu = cpu_seconds(case) if rate else None
        by_case[case] = dict(rows=count, seconds=seconds, rate=rate, rss=rss, peer=number(peer),
                             cpu_ms=1000 * cpu / count if cpu is not None and count else None,
                             peer_rss=number(peer_rss), floor=number(floor), note=note, paired=paired,
                             resume=resume)

    header = ["case", "rows", "items/s", "CPU ms/item", "peak RSS MiB", "peer items/s", "ratio", "floor items/s", "goal", "met"]
    table = []

    def fmt(value, digits=None):
        if value is None:
            return "-"
        if digits is None:
            digits = 2 if abs(value) < 10 else 0
        return "{:,.{}f}".format(value, digits)

    for case, _, _, _, _, _, _, note, *_ in rows:
        c = by_case[case]
        rate = c["rate"]
        if case == "import-eth/eth-account":
            rate_for_ratio = by_case.get("import-eth", {}).get("rate")
        else:
            rate_for_ratio = rate
        ratio = rate_for_ratio / c["peer"] if rate_for_ratio and c["peer"] else None
        goal, met = "measured (no goal)", "-"
        if case in ("create-eth", "create-sol", "import-eth", "import-sol", "import-eth/eth-account"):
            goal = ">= 1.5x the Python peer"
            met = ratio is not None and ratio >= 1.5
        elif case == "keystore":
            bound = pool_slots() * SCRYPT_MIB + 256  # the pool's scrypt memory plus 256 MiB for the rest
            goal = ">= 90%% of floor, RSS <= %d" % bound
            met = rate is not None and c["floor"] is not None and rate >= 0.9 * c["floor"] and c["rss"] <= bound
            if rate and c["floor"]:
                goal += " (%.0f%%)" % (100 * rate / c["floor"])
        elif case == "noop":
            goal = ">= 200,000/s and >= 5x the peer"
            met = rate is not None and rate >= 200_000 and ratio is not None and ratio >= 5
        elif case.startswith("scale-") and c["paired"]:  # scripts/bench.sh scale_case
            p = c["paired"]
            factor = (c["rows"] or 0) / p["rows"]
            if factor < 1:  # fewer rows than the base: the base's time over this one's, bounded by 1.05 x
                time_x, rss_x, bound = 1 / p["time_x"], 1 / p["rss_x"], 1.05 / factor
                goal = "%dx rows: time %.1fx (<= %.1fx), RSS %.2fx (<= 1.2x)" % (1 / factor, time_x, bound, rss_x)
            else:
                time_x, rss_x, bound = p["time_x"], p["rss_x"], 1.05 * factor
                goal = "vs %s rows: time %.1fx (<= %.1fx), RSS %.2fx (<= 1.2x)" % (fmt(p["rows"], 0), time_x, bound, rss_x)
            goal += ", paired rounds: %d" % p["rounds"]
            met = time_x <= bound and rss_x <= 1.2
        elif c["resume"]:  # scripts/bench.sh resume_case: killed at 90% of its rows, then resumed
            r = c["resume"]
            share = c["seconds"] / r["full"] if c["seconds"] and r["full"] else None
            time_text = "killed at %s rows, resumed in %s s, %.1f%% of a full run's %s s" % (
                fmt(r["killed_at"], 0), fmt(c["seconds"]), 100 * share, fmt(r["full"])) \
                if share is not None else "no resumed run"
            if case == "resume-keystore":
                goal = "scrypt on resume %d (<= %d slots), %d files left, sent again %d; %s" % (
                    r["decrypted"], r["bound"], r["left"], r["again"], time_text)
                met = (share is not None and r["decrypted"] <= r["bound"] and r["decrypted"] <= r["left"]
                       and r["again"] <= r["bound"])
            else:
                goal = "%s (<= 15%%); sent again %d (<= %s in flight), sent %s of %s left" % (
                    time_text, r["again"], fmt(r["bound"], 0), fmt(r["sent"], 0), fmt(r["left"], 0))
                met = share is not None and share <= 0.15 and r["again"] <= r["bound"] and r["sent"] <= r["left"]
        elif case == "latency":
            # 80% of in-flight x batch / RTT, up to what the same import does with no added delay (the
            # floor of this machine and build); without that row, up to the C floor.
            target = LATENCY_PARALLEL * batch / RTT
            cap = by_case.get("latency-direct", {}).get("rate") or c["floor"]
            capped = cap is not None and cap < target
            if capped:
                target = cap
            goal = ">= 80%% of %s/s (%s)" % (
                fmt(target), "the no-delay rate" if capped else "%d in flight x batch %d / 20 ms" % (
                    LATENCY_PARALLEL, batch))
            met = rate is not None and rate >= 0.8 * target
        elif case == "latency-direct":
            goal = "the cap of the latency row"
        elif case.startswith("workers-"):  # scripts/bench.sh workers_run: N processes sharing one run
            one = by_case.get("workers-1", {}).get("rate")
            n = int(case.split("-")[1])
            if n == 1:
                goal = "the base of the workers rows"
            elif rate and one:
                goal = "%.2fx the 1-process rate" % (rate / one) + (" (>= 3.5x)" if n == 4 else "")
                met = rate >= 3.5 * one if n == 4 else "-"
        elif case in ("noop-postgresql", "import-postgresql"):  # the shared store's cost beside SQLite's
            base = by_case.get(case.replace("postgresql", "sqlite"), {})
            if rate and base.get("rate"):
                goal = "%.0f%% of the SQLite store's rate" % (100 * rate / base["rate"])
                if c["cpu_ms"] and base.get("cpu_ms"):
                    goal += ", CPU %.2fx" % (c["cpu_ms"] / base["cpu_ms"])
        elif case in ("noop-sqlite", "import-sqlite"):
            goal = "the base of the %s row" % case.replace("sqlite", "postgresql")
        if isinstance(met, bool):
            met = "yes" if met else "NO"
        if not note.startswith("exit 0") and note != "peer only" and "rejected" not in note:
            met = "FAILED (%s)" % note.split(";")[0]
        elif "rejected" in note and not note.endswith(" 0 rejected"):
            met = "FAILED (%s)" % note
        cpu_ms = fmt(c["cpu_ms"], 3 if (c["cpu_ms"] or 0) < 1 else 2)
        table.append([case, fmt(c["rows"], 0), fmt(rate), cpu_ms, fmt(c["rss"], 1), fmt(c["peer"]),
                      "-" if ratio is None else "%.2fx" % ratio, fmt(c["floor"]),
                      goal, met])

    widths = [max(len(r[i]) for r in [header] + table) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(cell.ljust(widths[i]) if i in (0, 8, 9) else cell.rjust(widths[i])
                                 for i, cell in enumerate(cells)) + " |"

    print(line(header))
    print("|" + "|".join(("-" * (w + 1) + ":") if i not in (0, 8, 9) else ("-" * (w + 2))
                         for i, w in enumerate(widths)) + "|")
    for row in table:
        print(line(row))
    notes = [(case, by_case[case]["note"]) for case, *_ in rows if ";" in by_case[case]["note"]]
    if notes:
        print()
        for case, note in notes:
            print("- %s: %s" % (case, note.split("; ", 1)[1]))


if __name__ == "__main__":
    main()
