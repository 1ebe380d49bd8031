"""Golden test: `tracemux TRACE` prints what `babeltrace2 TRACE` prints.

For every trace of the babeltrace corpus with a reference in
generated-reference/bt2-pretty (and bt2-pretty-nodelta-seconds), stdout must
be byte-identical and the exit status must agree with babeltrace2's (from
status/summary.txt): 0 where it succeeds, non-zero with a message on stderr
where it fails.  Never a crash.
"""
import os

from bt2ref import Report, bt2_path, parse_args, read_ref, run_expect

# Where babeltrace2 2.0.4 itself is wrong, we do not copy it.
BT2_BUGS = {
    # bt2 2.0.4 aborts (exit 134) on a sequence in the event common context;
    # fixed upstream in 524e73a15.  The stream is empty: nothing to print.
    "succeed/meta-ctx-sequence": 0,
}


def expected_status(corpus):
    """Exit status and first stderr line (maybe cut) of babeltrace2 per trace."""
    status = {}
    path = os.path.join(corpus, "babeltrace-tests/generated-reference/status/summary.txt")
    with open(path) as f:
        for line in f:
            words = line.split()
            trace = words[0]
            bt2 = int(words[1].split("=")[1])
            first = line.rstrip("\n").split("bt2-stderr-first: ", 1)[1]
            status[trace] = (bt2, first)
    return status


def trace_dir(bt, ref_name):
    base = ref_name.split(".txt")[0]
    parts = base.split("__")
    if parts[0] == "stable-1.5":
        return os.path.join(bt, "stable-1.5/ctf-traces", *parts[1:]), "stable-1.5/ctf-traces/" + "/".join(parts[1:])
    return os.path.join(bt, "ctf-traces", *parts), "ctf-traces/" + "/".join(parts)


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    refs = os.path.join(bt, "generated-reference")
    status = expected_status(args.corpus)
    report = Report("bt2-pretty golden")
    for refset, opts in (("bt2-pretty", []), ("bt2-pretty-nodelta-seconds", ["--no-delta", "--clock-seconds"])):
        for ref_name in sorted(os.listdir(os.path.join(refs, refset))):
            path, key = trace_dir(bt, ref_name)
            short = key.split("ctf-traces/")[1]
            want_status, bt2_first_err = status[key]
            want_status = BT2_BUGS.get(short, want_status)
            expected = read_ref(os.path.join(refs, refset, ref_name))
            what = f"{refset}: {key}"
            got = run_expect(report, what, args.tracemux, opts + [path], expected, want_status,
                             "babeltrace2")
            if got is None:
                continue
            code, out, err = got
            # babeltrace2's discarded events/packets warnings (first line, as kept).
            if refset == "bt2-pretty" and bt2_first_err.startswith("WARNING"):
                ours = err.decode(errors="replace").split("\n")[0]
                ours = ours.replace(bt2_path(bt) + "/", "@BT_TESTS_DATA@/")
                if not ours.startswith(bt2_first_err):
                    report.fail(what, f"stderr:\n  ours: {ours}\n  bt2:  {bt2_first_err}")
                    continue
            if args.verbose:
                print(f"ok {what}")
            report.ok()
    report.finish()


if __name__ == "__main__":
    main()
