"""Golden test: trace.dat files read into the common model.

For every .dat of the corpus (tracecmd-samples/), the events that
`tracemux -o json FILE` and `tracemux --clock-cycles FILE` (default text)
give must be exactly those of trace-cmd 3.1.6's own reports stored in
expected/: `report -R` (raw field values) and `report -t` (full-ns
timestamps), parsed here.  Per event: name, timestamp (ns), CPU, pid and
every field value.  Also: the v6 file converted from a v7 one gives the
same output as the v7 one, and two files merge in the order of
expected/multi-file-merge.txt (`report -i A -i B`).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import parse_args  # noqa: E402

DROP = re.compile(r"^(?P<pre>.*?)CPU:(?P<cpu>\d+) \[(?:(?P<count>\d+) )?EVENTS DROPPED\]$")
LINE = re.compile(r"^(?P<pre>.*?)(?P<comm>\S+)-(?P<pid>\d+)\s+\[(?P<cpu>\d{3})\]\s+"
                  r"(?P<ts>\d+(?:\.\d+)?):\s+(?P<name>\w+):\s?(?P<rest>.*)$")


def read_report(path):
    """Events of a stored trace-cmd report: dicts with the parts of each line."""
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    assert lines[0].startswith("# trace-cmd 3.1.6"), path
    for line in lines[1:]:
        if line.startswith("# exit="):
            break
        if "cpus=" in line and not LINE.match(line):
            continue
        d = DROP.match(line)
        if d:
            events.append({"name": "[DROPPED]", "cpu": d.group("cpu"), "pre": d.group("pre").strip(),
                           "count": int(d.group("count")) if d.group("count") else -1})
            continue
        m = LINE.match(line)
        if not m:
            if events and line:
                # A field value with a newline (ftrace:print buf) continues here.
                events[-1]["rest"] += "\n" + line
            continue
        d = m.groupdict()
        d["pre"] = d["pre"].strip().rstrip(":")
        events.append(d)
    return events


def ts_ns(text):
    if "." not in text:
        return int(text)
    s, frac = text.split(".")
    return int(s) * 1000000000 + int(frac.ljust(9, "0"))


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def split_fields(rest, keys):
    """'a=1 b=x y c=3' with the keys known in order: {a: '1', b: 'x y', c: '3'}."""
    out = {}
    pos = 0
    for i, k in enumerate(keys):
        start = rest.find(k + "=", pos)
        if start < 0 or (start > 0 and rest[start - 1] != " "):
            return None
        vstart = start + len(k) + 1
        if i + 1 < len(keys):
            nxt = rest.find(" " + keys[i + 1] + "=", vstart)
            if nxt < 0:
                return None
            out[k] = rest[vstart:nxt]
            pos = nxt + 1
        else:
            out[k] = rest[vstart:]
    return out


def as_bytes(values, nbytes, order):
    if not values:
        return b""
    size = nbytes // len(values) if nbytes % len(values) == 0 else 1
    return b"".join((v % (1 << (8 * size))).to_bytes(size, order) for v in values)


def same_value(ref, ours, stats, order="little"):
    """Compares one raw field value of trace-cmd with ours; None if equal, else a reason."""
    if isinstance(ours, str):
        return None if ref.rstrip("\n") == ours.rstrip("\n") else "string %r != %r" % (ref, ours)
    if isinstance(ours, list):
        m = re.fullmatch(r"ARRAY\[(.*)\]", ref, re.S)
        if not m:
            return "array expected, trace-cmd printed %r" % ref
        refb = bytes(int(x, 16) for x in m.group(1).split(", ")) if m.group(1) else b""
        return None if as_bytes(ours, len(refb), order) == refb else "array bytes differ"
    if isinstance(ours, int):
        try:
            r = int(ref, 16) if ref.startswith("0x") else int(ref, 10)
        except ValueError:
            # A symbol (libtraceevent resolved the address with kallsyms).
            stats["symbolic"] += 1
            return None
        if (r - ours) % (1 << 64) == 0:
            return None
        # trace-cmd -R prints 1- and 2-byte signed fields as unsigned (s16 -5: 65531).
        if ours < 0 and r in (ours + (1 << 8), ours + (1 << 16)):
            stats["unsigned_small"] += 1
            return None
        return "%s != %d" % (ref, ours)
    return "unexpected JSON value %r" % (ours,)


def pretty_payload(payload):
    """What the default text output prints for a JSON payload (ASCII strings)."""
    def val(v):
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') + '"'
        if isinstance(v, list):
            if not v:
                return "[ ]"
            return "[ " + ", ".join("[%d] = %s" % (i, val(x)) for i, x in enumerate(v)) + " ]"
        return str(v)
    if not payload:
        return "{ }"
    return "{ " + ", ".join("%s = %s" % (k, val(v)) for k, v in payload.items()) + " }"


class Checker:
    def __init__(self):
        self.failures = []
        self.stats = {"events": 0, "fields": 0, "symbolic": 0, "drops": 0, "unsigned_small": 0}

    def fail(self, what):
        self.failures.append(what)
        print("FAIL:", what)


def stream_cpu(o):
    return int(o["stream"]["name"].rsplit("/cpu", 1)[1])


def check_file(tm, exp, dat, ck):
    """dat's events against exp/NAME.report-R.txt and exp/NAME.report-t.txt."""
    base = os.path.basename(dat)[:-4]
    raw = read_report(os.path.join(exp, base + ".report-R.txt"))
    full = read_report(os.path.join(exp, base + ".report-t.txt"))
    if len(raw) != len(full):
        ck.fail("%s: the -R and -t references disagree (%d, %d)" % (base, len(raw), len(full)))
        return
    rc, out, err = run([tm, "-o", "json", dat])
    if rc != 0:
        ck.fail("%s: -o json exit %d: %s" % (base, rc, err.strip()))
        return
    ours = [json.loads(l) for l in out.splitlines() if l]
    others = [o for o in ours if o["type"] not in ("event", "discarded_events")]
    if others:
        ck.fail("%s: unexpected JSON lines: %s" % (base, others[0]))
    if len(ours) != len(raw):
        ck.fail("%s: %d events, trace-cmd reports %d" % (base, len(ours), len(raw)))
    with open(dat, "rb") as f:
        head = f.read(16)
    order = "big" if head[12] == 1 else "little"   # magic (10), "6\0"/"7\0", endianness
    bad = 0
    for i, (r, t, o) in enumerate(zip(raw, full, ours)):
        where = "%s event %d (%s at %s)" % (base, i, r["name"], t.get("ts"))
        problems = []
        if r["name"] == "[DROPPED]" or o["type"] != "event":
            # CPU:N [X EVENTS DROPPED]: our discarded-events message (count 0 = unknown).
            want = (int(r["cpu"]), max(r.get("count", 0), 0)) if r["name"] == "[DROPPED]" else None
            got = (stream_cpu(o), o["count"]) if o["type"] == "discarded_events" else None
            if want != got or t["name"] != r["name"]:
                problems.append("dropped-events marker %r, ours %r" % (want, got))
                bad += 1
                ck.fail("%s: %s" % (where, "; ".join(problems)))
            ck.stats["drops"] += 1
            continue
        if o["name"].split(":", 1)[-1] != r["name"]:
            problems.append("name %s" % o["name"])
        if o["ts_ns"] != ts_ns(t["ts"]):
            problems.append("ts %d != %d" % (o["ts_ns"], ts_ns(t["ts"])))
        if o["packet_context"]["cpu_id"] != int(r["cpu"]):
            problems.append("cpu %d" % o["packet_context"]["cpu_id"])
        if o["common_context"]["common_pid"] != int(r["pid"]):
            problems.append("pid %d" % o["common_context"]["common_pid"])
        want_buf = r["pre"]
        # Stream names are TRACE/cpuN or TRACE/BUFFER/cpuN.
        rel = o["stream"]["name"][len(o["trace"]) + 1:]
        got_buf = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if want_buf and want_buf != got_buf:
            problems.append("buffer %r != %r" % (got_buf, want_buf))
        keys = list(o["payload"].keys())
        fields = split_fields(r["rest"], keys)
        if fields is None:
            problems.append("fields %s not in %r" % (keys, r["rest"][:200]))
        else:
            for k in keys:
                why = same_value(fields[k], o["payload"][k], ck.stats, order)
                ck.stats["fields"] += 1
                if why:
                    problems.append("%s: %s" % (k, why))
        ck.stats["events"] += 1
        if problems:
            bad += 1
            if bad <= 5:
                ck.fail("%s: %s" % (where, "; ".join(problems)))
    if bad > 5:
        ck.fail("%s: %d events differ in all" % (base, bad))

    # The default text output shows the same events.
    rc, out, err = run([tm, "--clock-cycles", "--no-delta", dat])
    if rc != 0:
        ck.fail("%s: text output exit %d: %s" % (base, rc, err.strip()))
        return
    lines = out.splitlines()
    ours = [o for o in ours if o["type"] == "event"]
    if len(lines) != len(ours):
        ck.fail("%s: text output has %d lines, JSON %d events" % (base, len(lines), len(ours)))
        return
    pat = re.compile(r"^\[(\d+)\] (\S+ )?(\S+): \{ cpu_id = (\d+) \}, \{ [^}]* \}, (.*)$")
    hexnum = re.compile(r"0x([0-9A-F]+)")
    for i, (line, o) in enumerate(zip(lines, ours)):
        m = pat.match(line)
        want = (o["ts_ns"], o["name"], o["packet_context"]["cpu_id"], pretty_payload(o["payload"]))
        # Pointers print in hex (base 16 in the model): compare in decimal.
        got = m and (int(m.group(1)), m.group(3), int(m.group(4)),
                     hexnum.sub(lambda h: str(int(h.group(1), 16)), m.group(5)))
        if got != want:
            ck.fail("%s: text line %d %r does not show JSON event %r" % (base, i, line[:200], want))
            return


def check_equivalence(tm, corpus, ck):
    """v6 converted from v7: same events (trace-cmd's own equivalence oracle)."""
    a = os.path.join(corpus, "sched-v7-zstd.dat")
    b = os.path.join(corpus, "sched-v7-zstd.converted-to-v6.dat")
    outs = []
    for p in (a, b):
        rc, out, err = run([tm, "--clock-cycles", p])
        if rc != 0:
            ck.fail("%s: exit %d: %s" % (p, rc, err.strip()))
            return
        outs.append(out)
    if outs[0] != outs[1]:
        ck.fail("v7 and its v6 conversion print different text")
    jsons = []
    for p in (a, b):
        rc, out, err = run([tm, "-o", "json", p])
        evs = [json.loads(l) for l in out.splitlines()]
        for e in evs:
            e.pop("trace", None)
            e.get("stream", {}).pop("name", None)
        jsons.append(evs)
    if jsons[0] != jsons[1]:
        ck.fail("v7 and its v6 conversion give different JSON events")


def check_merge(tm, corpus, ck):
    a = os.path.join(corpus, "sched-v6.dat")
    b = os.path.join(corpus, "sched-v7-zstd.dat")
    ref = read_report(os.path.join(corpus, "expected", "multi-file-merge.txt"))
    rc, out, err = run([tm, "-o", "json", a, b])
    if rc != 0:
        ck.fail("merge: exit %d: %s" % (rc, err.strip()))
        return
    ours = [json.loads(l) for l in out.splitlines() if l.startswith('{"type":"event"')]
    if len(ours) != len(ref):
        ck.fail("merge: %d events, trace-cmd %d" % (len(ours), len(ref)))
    for i, (r, o) in enumerate(zip(ref, ours)):
        usec = (o["ts_ns"] + 500) // 1000
        want = (r["pre"], ts_ns(r["ts"]) // 1000, int(r["cpu"]), r["name"])
        got = (os.path.basename(o["trace"]), usec, o["packet_context"]["cpu_id"],
               o["name"].split(":", 1)[-1])
        if want != got:
            ck.fail("merge: event %d is %r, trace-cmd has %r" % (i, got, want))
            return


def main():
    args = parse_args()
    corpus = os.path.join(args.corpus, "tracecmd-samples")
    ck = Checker()
    dats = sorted(f for f in os.listdir(corpus) if f.endswith(".dat"))
    if not dats:
        ck.fail("no .dat file in %s" % corpus)
    for f in dats:
        check_file(args.tracemux, os.path.join(corpus, "expected"), os.path.join(corpus, f), ck)
    # Small files built from the format description (tests/data/make-tracedat.*): both byte
    # orders, 4-byte longs, missed events, time extends, TSC2NSEC, OFFSET, DATE, TIME_SHIFT.
    mine = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tracedat")
    built = sorted(f for f in os.listdir(mine) if f.endswith(".dat"))
    if len(built) < 6:
        ck.fail("tests/data/tracedat: %d files, 6 expected" % len(built))
    for f in built:
        check_file(args.tracemux, mine, os.path.join(mine, f), ck)
    dats += built
    check_equivalence(args.tracemux, corpus, ck)
    check_merge(args.tracemux, corpus, ck)
    print("%d files, %d events, %d dropped-events markers, %d field values compared "
          "(%d symbolic, not compared)" % (len(dats), ck.stats["events"], ck.stats["drops"],
                                           ck.stats["fields"], ck.stats["symbolic"]))
    if ck.failures:
        print("%d failure(s)" % len(ck.failures))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
