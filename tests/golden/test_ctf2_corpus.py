"""Golden test: CTF 2 traces print what babeltrace 2.1.2 prints.

Every trace directory X of ../shared/corpus/ctf2 has X.bt21.txt (default
pretty text), X.bt21.nodelta-seconds.txt (`--no-delta --clock-seconds`),
X.bt21.rc and X.bt21.stderr.txt beside it, made by babeltrace 2.1.2 run from
the ctf2 directory with relative paths (TZ=UTC LC_ALL=C); every trace of
../shared/corpus/tracecompass-ctf2 the same, gzipped, without stderr.
tracemux runs the same way: stdout must be byte-identical, the exit status
must agree (a failing trace exits non-zero with a message), babeltrace's
discarded-event and discarded-packet warnings must be on stderr with the
same words (where stderr is stored), and nothing may crash.

Where babeltrace 2.1.2 itself crashes on valid CTF 2 (INDEX.md, "defects"),
tracemux does the right thing and the expected text is derived here from a
sibling trace, as explained at each entry of BT21_CRASHES.
"""
import os

from bt2ref import Report, bt2_path, parse_args, read_ref, run_expect


def blob_len0_expect(text):
    """handmade/static-blob-len0 = handmade/edge-cases plus a first payload
    member `sb0`, a static-length BLOB of length 0 (same data bytes: it
    reads none).  babeltrace 2.1.2 aborts on it (g_malloc(0) taken for an
    allocation failure); the right output is edge-cases' with `sb0 = { }`."""
    return text.replace(b"handmade blobs: { dlen", b"handmade blobs: { sb0 = { }, dlen")


def same_text(text):
    return text


# trace -> (sibling whose references to use, transformation of its text).
BT21_CRASHES = {
    "handmade/static-blob-len0": ("handmade/edge-cases", blob_len0_expect),
    # An optional with a boolean selector that also has
    # `selector-field-ranges` (babeltrace's own writer makes those): the
    # spec gives the ranges no meaning for a boolean selector, so the field
    # is enabled when the selector is true.  babeltrace 2.1.2 fails an
    # assertion; the same trace without the ranges is the reference.
    "synthetic/bt2py-all-field-classes-unpatched": ("synthetic/bt2py-all-field-classes", same_text),
}


def traces(top):
    """Every trace directory that has babeltrace 2.1.2 references, relative to top."""
    found = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for f in files:
            for suffix in (".bt21.txt", ".bt21.txt.gz"):
                if f.endswith(suffix):
                    rel = os.path.relpath(os.path.join(root, f[: -len(suffix)]), top)
                    if os.path.isdir(os.path.join(top, rel)):
                        found.append(rel)
    return sorted(found)


def stored(base, suffix):
    """A stored reference, plain or gzipped; None if neither is there."""
    for name in (base + suffix, base + suffix + ".gz"):
        if os.path.exists(name):
            return read_ref(name)
    return None


def warnings(stderr, ctf2=None):
    """The WARNING lines.  babeltrace names streams by absolute path; the
    stored references have the paths relative to the ctf2 directory."""
    lines = [line for line in stderr.decode(errors="replace").splitlines() if line.startswith("WARNING:")]
    if ctf2:
        lines = [line.replace(bt2_path(ctf2) + "/", "") for line in lines]
    return lines


def check_corpus(report, args, top, at_least):
    tracemux = args.tracemux
    all_traces = traces(top)
    if len(all_traces) < at_least:
        report.fail("corpus", f"only {len(all_traces)} CTF 2 traces found in {top}")
    os.chdir(top)
    top_printed = bt2_path(".")   # as printed from here: $PWD is not this directory
    for trace in all_traces:
        ref, transform = BT21_CRASHES.get(trace, (trace, same_text))
        with open(ref + ".bt21.rc") as f:
            want_rc = int(f.read().strip())
        stderr = stored(ref, ".bt21.stderr.txt")
        want_warnings = None if stderr is None else warnings(stderr)
        for suffix, opts in ((".bt21.txt", []), (".bt21.nodelta-seconds.txt", ["--no-delta", "--clock-seconds"])):
            what = f"{os.path.basename(top)}/{trace} {' '.join(opts)}".rstrip()
            expected = transform(stored(ref, suffix))
            got = run_expect(report, what, tracemux, opts + [trace], expected, want_rc,
                             "babeltrace 2.1.2")
            if got is None:
                continue
            code, out, err = got
            if not opts and want_warnings is not None and warnings(err, top_printed) != want_warnings:
                report.fail(what, "warnings differ:\n  ours: %s\n  bt21: %s" % (warnings(err, top_printed), want_warnings))
                continue
            if args.verbose:
                print(f"ok {what}")
            report.ok()


def main():
    args = parse_args()
    report = Report("CTF 2 corpora vs babeltrace 2.1.2")
    corpus = os.path.abspath(args.corpus)
    args.tracemux = os.path.abspath(args.tracemux)  # the checks run in the corpora
    check_corpus(report, args, os.path.join(corpus, "ctf2"), 70)
    check_corpus(report, args, os.path.join(corpus, "tracecompass-ctf2"), 24)
    report.finish()


if __name__ == "__main__":
    main()
