"""Event filters (--events=GLOB, --filter=EXPR) on every input format.

For traces of each format (CTF 1.8 LTTng kernel and UST, CTF 2, trace.dat,
XRay), each case's selection is done here in Python on the unfiltered JSON
Lines, independently of tracemux's evaluator, and compared with:
- `-o json` with the filter: the same lines (other records unchanged);
- the text output with the filter: the unfiltered lines of the selected
  events, and every (+delta) relative to the previous *printed* event, as
  babeltrace2 prints a trace in which the other events are absent;
- `tracemux info` with the filter: the counts per class;
- other outputs: `-o ctf` read back, `-o xray-yaml`, `-o tracecmd` (model
  layout; and trace-cmd report on trace.dat files, against the same
  selection made with report's -F), `-o chrome`, `-o dummy`; trimming
  combined with a filter.
Errors (syntax, unknown field, type mismatch, glob without a class) exit 2
and name the option and the column.
"""
import fnmatch
import json
import os
import re
import shutil
import tempfile

from bt2ref import Report, parse_args, run


def scopes(o):
    # tmx_event_field's order: payload, specific context, common context, packet context.
    for key in ("payload", "specific_context", "common_context", "packet_context"):
        if isinstance(o.get(key), dict):
            yield o[key]


def raw(o, path, contexts_only=False):
    """The JSON value at a dotted path (variants looked through), or None."""
    for scope in scopes(o):
        if contexts_only and scope is o.get("payload"):
            continue
        v = scope
        for name in path.split("."):
            while isinstance(v, dict) and set(v) == {"option", "value"}:
                v = v["value"]
            if not isinstance(v, dict) or name not in v:
                v = None
                break
            v = v[name]
        while isinstance(v, dict) and set(v) == {"option", "value"}:
            v = v["value"]
        if v is not None:
            return v
    return None


def num(o, path):
    v = raw(o, path)
    if isinstance(v, dict) and "value" in v:   # enumeration, bit map
        v = v["value"]
    if isinstance(v, bool):
        return int(v)
    return v if isinstance(v, (int, float)) else None


def text(o, path):
    v = raw(o, path)
    if isinstance(v, dict):
        labels = v.get("labels") or v.get("flags")
        return labels[0] if labels else None
    return v if isinstance(v, str) else None


def special(o, names):
    for n in names:
        v = raw(o, n, contexts_only=True)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def cpu(o):
    return special(o, ["cpu_id", "cpu"])


def pid(o):
    return special(o, ["vpid", "pid", "common_pid"])


def tid(o):
    return special(o, ["vtid", "tid", "common_pid"])


def glob(o, *globs):
    name = o["name"]
    short = name.split(":", 1)[1] if ":" in name else None
    return any(fnmatch.fnmatchcase(name, g) or (short is not None and fnmatch.fnmatchcase(short, g))
               for g in globs)


def both(a, b):
    return a is not None and b is not None


C = "babeltrace-tests/ctf-traces/succeed/"
KERNEL = C + "lttng-tracefile-rotation"
MULTI = C + "multi-domains"
UST = C + "wk-heartbeat-u"
DEBUG = C + "debug-info"
CTF2 = "ctf2/synthetic/bt2py-all-field-classes"
CTF2_LTTNG = "ctf2/converted/lttng-tracefile-rotation"
DAT = "tracecmd-samples/sched-v7-zstd.dat"
MULTIBUF = "tracecmd-samples/multibuf-v7-zstd.dat"
XRAY = "xray-samples/fdr-v5-small.xray"
XRAY_BASIC = "xray-samples/basic-v3-small.xray"

# tests/data's LTTng-like trace: classes of fixed size, with strings, with sequences.
SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sample-trace")

# (trace, options, the same selection in Python on a JSON event)
CASES = [
    # Unwanted classes are skipped by the decoder (by size, strings by their NUL) or dropped.
    (SAMPLE, ["--events=net:*,app:*"], lambda o: glob(o, "net:*", "app:*")),
    (SAMPLE, ["--filter=value < 500.0 || dfd == -100"],
     lambda o: (num(o, "value") is not None and num(o, "value") < 500)
     or num(o, "dfd") == -100),
    (SAMPLE, ["--events=sched:switch", "--filter=prev_tid >= 2000"],
     lambda o: o["name"] == "sched:switch" and num(o, "prev_tid") >= 2000),
    # CTF 1.8, LTTng kernel
    (KERNEL, ["--events=sched_switch"], lambda o: o["name"] == "sched_switch"),
    (KERNEL, ["--events=sched_w*,sched_stat_*"], lambda o: glob(o, "sched_w*", "sched_stat_*")),
    (KERNEL, ["--events=sched_switch", "--events=sched_wakeup"],
     lambda o: o["name"] in ("sched_switch", "sched_wakeup")),
    (KERNEL, ["--filter=prev_tid > 1000 && $cpu == 1"],
     lambda o: both(num(o, "prev_tid"), cpu(o)) and num(o, "prev_tid") > 1000 and cpu(o) == 1),
    (KERNEL, ["--filter=next_comm =~ \"^(kworker|rcu)\" || prev_state != 0"],
     lambda o: (text(o, "next_comm") is not None and re.match(r"^(kworker|rcu)", text(o, "next_comm")))
     or (num(o, "prev_state") is not None and num(o, "prev_state") != 0)),
    (KERNEL, ["--filter=!(tid == 0) && $name =~ \"wak\""],
     lambda o: not (num(o, "tid") == 0) and "wak" in o["name"]),
    (KERNEL, ["--events=sched_*", "--filter=comm !~ \"swapper\" && prio <= 120"],
     lambda o: glob(o, "sched_*") and text(o, "comm") is not None and "swapper" not in text(o, "comm")
     and num(o, "prio") is not None and num(o, "prio") <= 120),
    # CTF 1.8, LTTng kernel and UST traces together (enumerations, arrays as text, big-endian)
    (MULTI, ["--filter=enum202 == \"RANGE: 101 TO 303\" && intfield >= 0x10"],
     lambda o: text(o, "enum202") == "RANGE: 101 TO 303" and num(o, "intfield") is not None
     and num(o, "intfield") >= 16),
    (MULTI, ["--filter=netintfield < 100 && arrfield2 == \"test\" || $cpu == 2"],
     lambda o: (num(o, "netintfield") is not None and num(o, "netintfield") < 100
                and text(o, "arrfield2") == "test") or cpu(o) == 2),
    # CTF 1.8, LTTng UST (vpid/vtid contexts)
    (UST, ["--filter=$pid == 3208 && $tid != 3214"],
     lambda o: pid(o) == 3208 and tid(o) is not None and tid(o) != 3214),
    (UST, ["--filter=$ts > 1351532897586600000"], lambda o: o["ts_ns"] > 1351532897586600000),
    (DEBUG, ["--events=*first*", "--filter=$pid > 0"],
     lambda o: glob(o, "*first*") and pid(o) is not None and pid(o) > 0),
    # CTF 2: booleans, bit maps, signed enumerations, floats, variants, optionals, 64-bit integers
    (CTF2, ["--filter=b_true == 1 && senum == \"NEG\""],
     lambda o: num(o, "b_true") == 1 and text(o, "senum") == "NEG"),
    (CTF2, ["--filter=hex64 > 9223372036854775807"],
     lambda o: num(o, "hex64") is not None and num(o, "hex64") > 9223372036854775807),
    (CTF2, ["--filter=senum < -1 || f64 > 3.14"],
     lambda o: (num(o, "senum") is not None and num(o, "senum") < -1)
     or (num(o, "f64") is not None and num(o, "f64") > 3.14)),
    (CTF2, ["--filter=var_u =~ \"^zero\" || var_s < 0"],
     lambda o: (isinstance(raw(o, "var_u"), str) and raw(o, "var_u").startswith("zero"))
     or (isinstance(raw(o, "var_s"), (int, float)) and raw(o, "var_s") < 0)),
    (CTF2, ["--filter=opt_uint_sel == 4000000000 || s_utf8 == \"h\u00e9llo w\u00f6rld\""],
     lambda o: num(o, "opt_uint_sel") == 4000000000 or text(o, "s_utf8") == "h\u00e9llo w\u00f6rld"),
    (CTF2_LTTNG, ["--events=sched_switch", "--filter=prev_prio != next_prio"],
     lambda o: o["name"] == "sched_switch" and num(o, "prev_prio") != num(o, "next_prio")),
    # trace.dat: system:event names, common_pid, cpu_id
    (DAT, ["--events=sched:*"], lambda o: o["name"].startswith("sched:")),
    (DAT, ["--events=sched_switch,sched:sched_wakeup"],
     lambda o: o["name"] in ("sched:sched_switch", "sched:sched_wakeup")),
    (DAT, ["--filter=$pid != 0 && $cpu == 0 && prev_comm =~ \"^[a-k]\""],
     lambda o: pid(o) not in (None, 0) and cpu(o) == 0 and text(o, "prev_comm") is not None
     and re.match(r"^[a-k]", text(o, "prev_comm"))),
    (DAT, ["--filter=common_pid == next_pid || $tid < 100"],
     lambda o: (both(num(o, "common_pid"), num(o, "next_pid")) and num(o, "common_pid") == num(o, "next_pid"))
     or (tid(o) is not None and tid(o) < 100)),
    (MULTIBUF, ["--events=*", "--filter=$cpu >= 1"], lambda o: cpu(o) is not None and cpu(o) >= 1),
    # XRay: record kinds as classes, thread and CPU
    (XRAY, ["--events=function-e*"], lambda o: glob(o, "function-e*")),
    (XRAY, ["--filter=$tid == 15518 && func_id >= 2"],
     lambda o: tid(o) == 15518 and num(o, "func_id") is not None and num(o, "func_id") >= 2),
    (XRAY, ["--events=function-*", "--filter=$cpu == 0 || function == \"1\""],
     lambda o: glob(o, "function-*") and (cpu(o) == 0 or text(o, "function") == "1")),
    (XRAY_BASIC, ["--filter=$pid > 0 && $name != \"function-exit\""],
     lambda o: pid(o) is not None and pid(o) > 0 and o["name"] != "function-exit"),
    # Inputs of several formats merged by time, one filter over all their classes.
    ([UST, DAT, XRAY], ["--events=heartbeat:*,sched_switch,function-enter", "--filter=$cpu < 2"],
     lambda o: glob(o, "heartbeat:*", "sched_switch", "function-enter") and cpu(o) is not None
     and cpu(o) < 2),
]


def lines(out):
    return out.decode("utf-8", "surrogateescape").splitlines()


DELTA = re.compile(r"^\[(\d+)\.(\d{9})\] \((\+\?\.\?{9}|\+\d+\.\d{9})\) ")


def check_deltas(filtered):
    """Each (+delta) is the time since the previous printed event (the first is unknown)."""
    prev = None
    for line in filtered:
        m = DELTA.match(line)
        if not m:
            return f"no timestamp and delta in: {line[:100]}"
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        want = "+?.?????????" if prev is None else "+%d.%09d" % divmod(ts - prev, 10**9)
        if m.group(3) != want:
            return f"delta {m.group(3)}, want {want}: {line[:100]}"
        prev = ts
    return None


def strip_delta(line):
    return DELTA.sub(lambda m: f"[{m.group(1)}.{m.group(2)}] ", line)


def info_counts(out):
    counts, total = {}, None
    for line in lines(out):
        m = re.match(r"^ {4}\s*(\d+)  (.*) \(stream class \d+, ID \d+\)$", line)
        if m:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
        m = re.match(r"^(\d+) events;", line)
        if m:
            total = int(m.group(1))
    return {k: v for k, v in counts.items() if v}, total


def check_case(report, tmx, paths, opts, select, what):
    code, out, err = run(tmx, ["-o", "json"] + paths)
    if code != 0:
        report.fail(what, f"unfiltered json: exit {code}: {err[:300]}")
        return
    all_lines = lines(out)
    objs = [json.loads(l) for l in all_lines]
    keep = [l for l, o in zip(all_lines, objs) if o["type"] != "event" or select(o)]
    selected = [o for o in objs if o["type"] == "event" and select(o)]
    if not selected or len(selected) == sum(o["type"] == "event" for o in objs):
        report.fail(what, f"the case selects {len(selected)} events: it tests nothing")
        return
    code, out, err = run(tmx, ["-o", "json"] + opts + paths)
    if code != 0 or lines(out) != keep:
        got = lines(out)
        report.fail(what + " (json)", f"exit {code} {err[:300]}: {len(got)} lines, want {len(keep)}")
    else:
        report.ok()

    # Text: the same lines as unfiltered, deltas from the previous printed event.
    code, full, _ = run(tmx, ["--clock-seconds"] + paths)
    events = [o for o in objs if o["type"] == "event"]
    full_lines = lines(full)
    code2, out, err = run(tmx, ["--clock-seconds"] + opts + paths)
    if code != 0 or code2 != 0 or len(full_lines) != len(events):
        report.fail(what + " (text)", f"exit {code}/{code2}, {len(full_lines)} lines for {len(events)} events")
    else:
        want = [strip_delta(l) for l, o in zip(full_lines, events) if select(o)]
        got = lines(out)
        bad = check_deltas(got)
        if bad or [strip_delta(l) for l in got] != want:
            report.fail(what + " (text)", bad or f"{len(got)} lines, want {len(want)}")
        else:
            report.ok()

    # info: the counts of the selected events per class.
    want = {}
    for o in selected:
        want[o["name"]] = want.get(o["name"], 0) + 1
    code, out, err = run(tmx, ["info"] + opts + paths)
    counts, total = info_counts(out)
    if code != 0 or counts != want or total != len(selected):
        report.fail(what + " (info)", f"exit {code} {err[:200]}: {counts} total {total}, want {want}")
    else:
        report.ok()
    return selected


def check_outputs(report, tmx, corpus, work):
    """The outputs other than text and JSON see only the selected events."""
    kernel = os.path.join(corpus, KERNEL)
    opts = ["--events=sched_wakeup*", "--filter=target_cpu == 1"]
    _, out, _ = run(tmx, ["-o", "json"] + opts + [kernel])
    want = [(o["name"], o["ts_ns"]) for o in map(json.loads, lines(out)) if o["type"] == "event"]
    # -o ctf, read back.
    ctf = os.path.join(work, "ctf")
    code, _, err = run(tmx, ["-o", "ctf", "-w", ctf] + opts + [kernel])
    _, out, _ = run(tmx, ["-o", "json", ctf])
    got = [(o["name"], o["ts_ns"]) for o in map(json.loads, lines(out)) if o["type"] == "event"]
    if code != 0 or got != want or not want:
        report.fail("-o ctf with a filter", f"exit {code} {err[:200]}: {len(got)} events, want {len(want)}")
    else:
        report.ok()
    # -o chrome: one trace event per selected event.
    code, out, err = run(tmx, ["-o", "chrome"] + opts + [kernel])
    try:
        doc = json.loads(out)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        names = [e.get("name") for e in evs if e.get("ph") not in ("M",)]
    except (ValueError, KeyError) as e:
        names = [str(e)]
    if code != 0 or sorted(names) != sorted(n for n, _ in want):
        report.fail("-o chrome with a filter", f"exit {code} {err[:200]}: {len(names)} events, want {len(want)}")
    else:
        report.ok()
    # -o tracecmd on a CTF trace (the model's layout): one line per selected event.
    code, out, err = run(tmx, ["-o", "tracecmd"] + opts + [kernel])
    body = [l for l in lines(out) if re.search(r"\s\d+\.\d+: ", l)]
    if code != 0 or len(body) != len(want):
        report.fail("-o tracecmd (layout) with a filter", f"exit {code} {err[:200]}: {len(body)} lines, want {len(want)}")
    else:
        report.ok()
    # -o dummy
    code, _, err = run(tmx, ["-o", "dummy"] + opts + [kernel])
    report.ok() if code == 0 else report.fail("-o dummy with a filter", err[:200])
    # -o xray-yaml: one record per selected event.
    xray = os.path.join(corpus, XRAY)
    _, out, _ = run(tmx, ["-o", "json", "--events=function-enter", xray])
    n = sum(1 for o in map(json.loads, lines(out)) if o["type"] == "event")
    code, out, err = run(tmx, ["-o", "xray-yaml", "--events=function-enter", xray])
    kinds = re.findall(r"kind: *([\w-]+)", out.decode())
    if code != 0 or len(kinds) != n or set(kinds) != {"function-enter"}:
        report.fail("-o xray-yaml with a filter", f"exit {code} {err[:200]}: {len(kinds)} records, want {n}")
    else:
        report.ok()
    # Trimming and filters combine.
    _, out, _ = run(tmx, ["-o", "json", "--filter=$cpu == 0", kernel])
    evs = [o for o in map(json.loads, lines(out)) if o["type"] == "event"]
    mid = evs[len(evs) // 2]["ts_ns"]
    begin = "%d.%09d" % divmod(mid, 10**9)
    code, out, err = run(tmx, ["-o", "json", "--begin", begin, "--filter=$cpu == 0", kernel])
    got = [o["ts_ns"] for o in map(json.loads, lines(out)) if o["type"] == "event"]
    if code != 0 or got != [o["ts_ns"] for o in evs if o["ts_ns"] >= mid]:
        report.fail("--begin with --filter", f"exit {code} {err[:200]}: {len(got)} events")
    else:
        report.ok()


ERRORS = [
    (["--filter=prev_tid == "], "--filter: 1:13: expected a value after '=='"),
    (["--filter=prev_tid = 1"], "--filter: 1:10: '=' is not an operator: expected '==' or '=~'"),
    (["--filter=(prev_tid == 1"], "--filter: 1:15: expected ')' to close the '(' at 1:1"),
    (["--filter=nosuch == 1"], "--filter: 1:1: unknown field 'nosuch': no selected event class has it"),
    (["--filter=prev_tid == 1 && prev_comm =~ 5"],
     "--filter: 1:31: expected a string (a POSIX extended regular expression) after '=~'"),
    (["--filter=prev_tid =~ \"1\""], "--filter: 1:1: 'prev_tid' is a number in event class 'sched_switch': "
     "it cannot be matched with a regular expression"),
    (["--filter=prev_comm > 3"], "--filter: 1:1: cannot compare 'prev_comm' (a string in event class "
     "'sched_switch') with an integer"),
    (["--filter=$pid == 1"], "--filter: 1:1: $pid is not known for the selected event classes"),
    (["--events=sched_swich"], "--events: event class pattern 'sched_swich' matches no event class"),
    (["--events=sched_switch,"], "--events: empty pattern in `sched_switch,`"),
    (["--events", "sched_switch"], "--events selects event classes with its value attached"),
    (["--filter=a==1", "--filter=b==1"], "--filter can be given once"),
]


def main():
    args = parse_args()
    report = Report("event filters")
    for trace, opts, select in CASES:
        traces = trace if isinstance(trace, list) else [trace]
        check_case(report, args.tracemux, [os.path.join(args.corpus, t) for t in traces], opts,
                   select, f"{' '.join(traces)} {' '.join(opts)}")
    work = tempfile.mkdtemp(prefix="tracemux-filter-")
    try:
        check_outputs(report, args.tracemux, args.corpus, work)
    finally:
        shutil.rmtree(work)
    kernel = os.path.join(args.corpus, KERNEL)
    for opts, msg in ERRORS:
        for cmd in ([], ["info"]) if opts[0] != "--events" else ([],):
            code, out, err = run(args.tracemux, cmd + opts + [kernel])
            if code != 2 or msg not in err.decode() or out:
                report.fail(f"error {' '.join(cmd + opts)}", f"exit {code}: {err.decode()[:300]}")
            else:
                report.ok()
    # -o tracecmd on trace.dat files: the report's records that the filter keeps, as
    # trace-cmd's -F (emulated exactly, see test_tracecmd_options) leaves them.
    dat = os.path.join(args.corpus, DAT)
    for ours, theirs in [(["--events=sched_switch"], ["-F", "sched/sched_switch"]),
                         (["--events=sched_switch,sched_wakeup", "--filter=prev_pid == 0 || pid > 12000"],
                          ["-F", "sched/sched_switch: prev_pid == 0", "-F", "sched/sched_wakeup: pid > 12000"]),
                         (["--filter=$pid == 12747"], ["-F", ".*: common_pid == 12747"]),
                         (["--events=sched:*", "--filter=$cpu == 1"], ["--cpu", "1", "-F", "sched/.*"])]:
        code, out, err = run(args.tracemux, ["-o", "tracecmd"] + ours + [dat])
        code2, ref, _ = run(args.tracemux, ["-o", "tracecmd"] + theirs + [dat])
        if code != 0 or code2 != 0 or out != ref or len(lines(out)) < 3:
            report.fail(f"-o tracecmd {' '.join(ours)}", f"exit {code} {err[:200]}: "
                        f"{len(lines(out))} lines, -F gives {len(lines(ref))}")
        else:
            report.ok()
    # trace-cmd's -F keeps its meaning, and the two combine.
    code, out, err = run(args.tracemux, ["-o", "tracecmd", "-F", "sched_switch", "--filter=$cpu == 0", dat])
    _, ref, _ = run(args.tracemux, ["-o", "tracecmd", "-F", "sched_switch", "--cpu", "0", dat])
    if code != 0 or out != ref:
        report.fail("-o tracecmd -F with --filter", f"exit {code} {err[:200]}")
    else:
        report.ok()
    code, out, err = run(args.tracemux, ["-o", "tracecmd", "--filter=nosuch == 1", dat])
    if code != 2 or b"--filter: 1:1: unknown field 'nosuch'" not in err or out:
        report.fail("-o tracecmd with a bad --filter", f"exit {code}: {err[:200]}")
    else:
        report.ok()
    report.finish()


if __name__ == "__main__":
    main()
