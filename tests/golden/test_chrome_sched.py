"""`tracemux -o chrome --sched-slices`: sched_switch events as per-CPU slices,
checked with a real JSON parser against babeltrace2's stored text of the same
LTTng kernel trace: on each CPU, one slice per sched_switch to a task other
than the idle one (next_tid != 0), named after next_comm, starting at the
switch's time (babeltrace2's --clock-seconds, exact to the nanosecond) and
ending at the next switch on that CPU (or at the last event); B and E
alternate.  Without the option there are no slices."""
import decimal
import gzip
import json
import os
import re

from bt2ref import Report, parse_args, run

TRACE = "succeed__lttng-tracefile-rotation"
LINE = re.compile(r'^\[\d+\.\d{9}\] .* sched_switch: \{ cpu_id = (\d+) \}, \{ .*'
                  r'next_comm = "([^"]*)", next_tid = (\d+),')


def main():
    args = parse_args()
    report = Report("chrome --sched-slices")
    bt = os.path.join(args.corpus, "babeltrace-tests")
    path = os.path.join(bt, "ctf-traces", "succeed", "lttng-tracefile-rotation")
    ref = os.path.join(bt, "generated-reference", "bt2-pretty-nodelta-seconds", TRACE + ".txt")
    if not os.path.exists(ref):
        ref += ".gz"
    with (gzip.open if ref.endswith(".gz") else open)(ref, "rt") as f:
        text = f.read()
    want, pairs, open_ = {}, {}, {}   # cpu -> [(ts_us, comm)], [(begin, end)], begin
    last = None
    for line in text.splitlines():
        t = re.match(r"^\[(\d+)\.(\d{9})\]", line)
        if t:
            last = decimal.Decimal(int(t.group(1)) * 10**9 + int(t.group(2))) / 1000
        m = LINE.match(line)
        if not m:
            continue
        cpu = int(m.group(1))
        if cpu in open_:
            pairs.setdefault(cpu, []).append((open_.pop(cpu), last))
        if int(m.group(3)) != 0:
            want.setdefault(cpu, []).append((last, m.group(2)))
            open_[cpu] = last
    for cpu, begin in open_.items():
        pairs.setdefault(cpu, []).append((begin, last))
    if not want:
        report.fail("reference", f"no sched_switch in {ref}")
        report.finish()

    code, out, err = run(args.tracemux, ["-o", "chrome", "--sched-slices", path])
    doc = json.loads(out, parse_float=decimal.Decimal)
    events = doc["traceEvents"]
    cpus = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"
            and e["pid"] >= 1000000}
    got, ok = {}, code == 0
    for e in events:
        if e["ph"] not in "BE" or e["pid"] < 1000000:
            continue
        seq = got.setdefault(e["tid"], [])
        if (e["ph"] == "B") == (len(seq) % 2 == 1):
            ok = False   # B and E must alternate
        seq.append((e["ts"], e.get("name")))
    begins = {cpu: [x for x in seq[0::2]] for cpu, seq in got.items()}
    if not ok or any(len(s) % 2 for s in got.values()):
        report.fail("B/E alternate and every slice ends", err.decode(errors="replace")[:300])
    else:
        report.ok()
    if begins != want:
        cpu = next(iter(set(want) | set(begins)))
        report.fail("slices = babeltrace2's sched_switch events per CPU",
                    f"cpu {cpu}: {begins.get(cpu, [])[:3]} vs {want.get(cpu, [])[:3]}")
    else:
        report.ok()
    if set(cpus) != set(want) or any(cpus[c] != f"CPU {c}" for c in cpus):
        report.fail("a named thread per CPU", str(cpus))
    else:
        report.ok()
    # Each slice ends at the next switch on its CPU, the last ones at the last event.
    got_pairs = {cpu: [(seq[i][0], seq[i + 1][0]) for i in range(0, len(seq) - 1, 2)]
                 for cpu, seq in got.items()}
    if got_pairs != pairs:
        cpu = next(iter(pairs))
        report.fail("a slice ends at the next switch on its CPU",
                    f"cpu {cpu}: {got_pairs.get(cpu, [])[-2:]} vs {pairs[cpu][-2:]}")
    else:
        report.ok()

    code, out, _ = run(args.tracemux, ["-o", "chrome", path])
    plain = json.loads(out)["traceEvents"]
    if code != 0 or any(e["ph"] in "BE" for e in plain):
        report.fail("no slices without --sched-slices")
    else:
        report.ok()
    report.finish()


if __name__ == "__main__":
    main()
