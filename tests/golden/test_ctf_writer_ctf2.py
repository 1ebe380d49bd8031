"""The CTF writer's CTF 2 output (-o ctf --ctf-version=2), and CTF 2 inputs
written as CTF 1.8, without a live CTF 2 reader: babeltrace 2.1.2 is not
packaged, its outputs are stored beside every trace of the CTF 2 corpora.
Each output must read back as the *reference of its input* prints:

1. CTF 1.8 inputs (the traces test_ctf_writer.py round-trips; some again
   with small packets) written as CTF 2: `tracemux --no-delta OUT` prints
   what Debian's babeltrace2 2.0.4, run live, prints for `--no-delta IN`,
   with the same discarded events/packets warnings (trace names, IDs and
   stream paths blanked: the output directory is not the input's).
2. trace.dat and XRay inputs written as CTF 2: `tracemux --no-delta OUT`
   prints what `tracemux --no-delta IN` prints (no tool reads both; the
   lengths the writer generates for trace.dat's dynamic arrays aside).
3. The CTF 2 corpora (../shared/corpus/ctf2 and the smaller traces of
   tracecompass-ctf2, every trace babeltrace 2.1.2 reads: X.bt21.rc is 0)
   written as CTF 2: tracemux prints for OUT the stored babeltrace 2.1.2
   text of IN (default and `--no-delta --clock-seconds`), warnings included.
4. The same traces written as CTF 1.8: babeltrace2 2.0.4, run live on OUT,
   prints the stored babeltrace 2.1.2 text of IN (a second, independent
   reader of the writer's output), except
   TRANSLATED: traces with field classes CTF 1.8 lacks (booleans, bit maps,
   BLOBs, optionals, variants chosen by ranges) or names TSDL cannot hold,
   which read back as their translations (see src/sink/ctf/encode_plan.c).
   Checked: the text does differ (else the entry is stale) and becomes the
   output's by the rewrites the entry gives; without rewrites, the same
   events at the same times, the values themselves being compared by the
   writer's differential fuzz harness, whose replayed seeds
   (fuzz/seeds/ctf_writer/ctf2-*) are those traces.
5. --ctf-version: the spellings babeltrace2 accepts, an error otherwise.

Every CTF 2 metadata stream the writer makes here is also checked against
CTF2-SPEC-2.0 by tests/golden/ctf2spec.py (see test_ctf2spec.py).
"""
import os
import re
import subprocess
import tempfile

from bt2ref import Report, first_diff, parse_args, read_ref, run, tool
from test_vs_babeltrace2 import same_output
import test_ctf_writer as v18

# A CTF 2 trace is named by its trace class UID, a CTF 1.8 one by its UUID:
# the ID is blanked along with what test_ctf_writer blanks.
VARIABLE = v18.VARIABLE + [(re.compile(rb'\((?:no UID|UID: [^)]*)\)'), b"(UUID)")]

# CTF 2 input -> (why its CTF 1.8 output reads differently, the rewrites of
# the input's text that must give the output's, or None: the same events at
# the same times, the values left to the fuzz harness).
TRANSLATED = {
    "ctf2/bt-tests/2/succeed/fl-bm": (
        "bit map: a hexadecimal integer, without its flags",
        [(rb'(0x[0-9A-F]+) \{ "[^}]*" \}', rb"\1")]),
    "ctf2/bt-tests-generated/clock-offset-goes-back-in-time": (
        "`the-field` is not a TSDL identifier: `the_field`",
        [(rb"the-field = ", rb"the_field = ")]),
    "ctf2/handmade/edge-cases": (
        "BLOBs (arrays of bytes), optional (a variant with a generated tag), booleans "
        "(integers), bit map, variant with a signed selector (a generated tag)", None),
    "ctf2/synthetic/bt2py-all-field-classes": (
        "booleans, bit maps, BLOBs, optionals, variants chosen by ranges", None),
}

# CTF 2 input -> what babeltrace2 2.0.4 says when it aborts on the CTF 1.8
# metadata of its translation: a sequence in the event common context whose
# length is in that scope (fixed upstream in 524e73a15; test_ctf_writer.py
# has the same exception for the CTF 1.8 original).
BT2_ABORTS = {
    "ctf2/bt-tests/2/succeed/meta-ctx-sequence": b"update_field_class_stored_value_index",
}

# tracecompass-ctf2 traces above this size are left to test_ctf2_corpus.py
# (which reads every one): writing and reading them twice costs minutes.
MAX_TC_BYTES = 2 << 20


def out_dir_for(tmp, what):
    return os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", what))


def write(report, args, what, argv, out_dir, version):
    code, _, err = run(args.tracemux, argv + ["-o", "ctf", "--ctf-version=" + version, "-w", out_dir])
    if code != 0:
        report.fail(what, f"tracemux -o ctf: exit {code}: {err.decode(errors='replace')[-800:]}")
        return False
    return True


def blanked(stderr):
    return v18.warnings(stderr, VARIABLE)


def compare(report, what, want, got, label, same=lambda a, b: a == b):
    """want, got: (exit status, stdout, stderr); `label` names the reader of
    got; want's stderr None: not stored, the warnings are not compared."""
    if want[0] != 0:
        report.fail(what, f"the reference fails on the input: {want[2].decode(errors='replace')[-500:]}")
    elif got[0] != 0:
        report.fail(what, f"{label} fails on our output: {got[2].decode(errors='replace')[-800:]}")
    elif not same(want[1], got[1]):
        report.fail(what, f"{label} on our output:\n" + first_diff(want[1], got[1]))
    elif want[2] is not None and blanked(got[2]) != blanked(want[2]):
        report.fail(what + f" ({label}: discarded warnings)", first_diff(blanked(want[2]), blanked(got[2])))
    else:
        report.ok()
        return True
    return False


def bt2_run(bt2, argv, env):
    p = subprocess.run([bt2] + argv, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check_ctf18_input(report, args, bt2, env, tmp, key, path, opts=()):
    """1. A CTF 1.8 input: tracemux on our CTF 2 output = babeltrace2 2.0.4 on the input."""
    what = f"{key} {' '.join(opts)}".strip()
    out_dir = out_dir_for(tmp, what + " 2")
    if not write(report, args, what, list(opts) + [path], out_dir, "2"):
        return
    got = run(args.tracemux, ["--no-delta", out_dir])
    if v18.NOT_ROUND_TRIPPED.get(key) == "bt2-aborts-on-metadata":
        # babeltrace2 2.0.4 cannot be the oracle (see test_ctf_writer.py):
        # it must still abort, and tracemux reads our output as its input.
        ref = bt2_run(bt2, ["--no-delta", path], env)
        if ref[0] == 0:
            report.fail(what, "babeltrace2 now reads the input: compare with it (NOT_ROUND_TRIPPED is stale)")
        else:
            compare(report, what, run(args.tracemux, ["--no-delta", path]), got, "tracemux")
        return
    # same_output(): babeltrace2 2.0.4's stale text for an empty string (its
    # known bug) is accepted where tracemux prints "".
    compare(report, what, bt2_run(bt2, ["--no-delta", path], env), got, "tracemux", same_output)


def check_other_input(report, args, tmp, key, path):
    """2. trace.dat and XRay inputs: tracemux reads the CTF 2 output as it reads the input."""
    what = f"{key} (tracemux)"
    if key in v18.NOT_ROUND_TRIPPED_OTHER:
        return   # their times (or order of equal times) are CTF's, see test_ctf_writer
    out_dir = out_dir_for(tmp, what)
    if not write(report, args, what, [path], out_dir, "2"):
        return
    ref, got = run(args.tracemux, ["--no-delta", path]), run(args.tracemux, ["--no-delta", out_dir])
    want = blanked(ref[2])
    if key in v18.UNKNOWN_COUNT:
        want = re.sub(rb"may have discarded events", b"discarded 1 event", want)
    if got[0] != 0:
        report.fail(what, got[2].decode(errors="replace")[-800:])
    elif v18.GENERATED_LENGTH.sub(b"", got[1]) != ref[1]:
        report.fail(what, first_diff(ref[1], got[1]))
    elif blanked(got[2]) != want:
        report.fail(what + " (discarded warnings)", first_diff(want, blanked(got[2])))
    else:
        report.ok()


def stored(base, suffix):
    """A stored babeltrace 2.1.2 output of trace `base`: X.bt21SUFFIX or .gz; None if absent."""
    for name in (base + suffix, base + suffix + ".gz"):
        if os.path.exists(name):
            return read_ref(name)
    return None


def ctf2_traces(corpus):
    """(key, path) of every CTF 2 trace with stored references that babeltrace 2.1.2 reads."""
    out = []
    for top in ("ctf2", "tracecompass-ctf2"):
        root = os.path.join(corpus, top)
        for d, _, files in os.walk(root):
            for f in files:
                if not f.endswith(".bt21.rc"):
                    continue
                with open(os.path.join(d, f)) as rc:
                    if rc.read().strip() != "0":
                        continue
                path = os.path.join(d, f[:-len(".bt21.rc")])
                if top == "tracecompass-ctf2" and sum(
                        os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)) > MAX_TC_BYTES:
                    continue
                out.append((f"{top}/{os.path.relpath(path, root)}", path))
    return sorted(out)


def reference(path):
    """The stored default and `--no-delta --clock-seconds` texts of a CTF 2
    trace and its stored stderr (only ctf2/ keeps it: None elsewhere)."""
    err = stored(path, ".bt21.stderr.txt")
    return stored(path, ".bt21.txt"), stored(path, ".bt21.nodelta-seconds.txt"), err


def check_ctf2_as_ctf2(report, args, tmp, key, path):
    """3. tracemux on the CTF 2 output prints the input's stored references."""
    text, seconds, err = reference(path)
    out_dir = out_dir_for(tmp, f"{key} 2")
    if not write(report, args, key, [path], out_dir, "2"):
        return
    for opts, want in (([], text), (["--no-delta", "--clock-seconds"], seconds)):
        what = f"{key} -> CTF 2 {' '.join(opts)}".rstrip()
        got = run(args.tracemux, opts + [out_dir])
        compare(report, what, (0, want, err if not opts else None), got, "tracemux")


def event_heads(text):
    """Each event line up to its fields: time and name."""
    return [line.split(b": {")[0] for line in text.splitlines()]


def check_ctf2_as_ctf18(report, args, bt2, env, tmp, key, path):
    """4. babeltrace2 2.0.4 on the CTF 1.8 output prints the input's stored reference."""
    text, _, err = reference(path)
    out_dir = out_dir_for(tmp, f"{key} 1.8")
    what = f"{key} -> CTF 1.8"
    if key in TRANSLATED:
        what += f" ({TRANSLATED[key][0]})"
    if not write(report, args, what, [path], out_dir, "1.8"):
        return
    got = bt2_run(bt2, [out_dir], env)
    if key in BT2_ABORTS:
        # babeltrace2 2.0.4 cannot read it (see BT2_ABORTS): it must still
        # abort, and tracemux reads our output as the stored reference says.
        if got[0] == 0 or BT2_ABORTS[key] not in got[2]:
            report.fail(what, "babeltrace2 2.0.4 no longer aborts: remove it from BT2_ABORTS\n"
                        + got[2].decode(errors="replace")[-500:])
        else:
            compare(report, what, (0, text, err), run(args.tracemux, [out_dir]), "tracemux")
        return
    if key not in TRANSLATED:
        # babeltrace2 2.0.4 prints a stale string where babeltrace 2.1.2
        # (and tracemux) print an empty one: same_output(bt2's, right one).
        compare(report, what, (0, text, err), got, "babeltrace2 2.0.4", lambda a, b: same_output(b, a))
        return
    rewrites = TRANSLATED[key][1]
    want = text
    for pattern, repl in rewrites or []:
        want = re.sub(pattern, repl, want)
    if got[0] != 0:
        report.fail(what, got[2].decode(errors="replace")[-800:])
    elif got[1] == text:
        report.fail(what, "now identical: remove it from TRANSLATED")
    elif rewrites is not None and not same_output(got[1], want):
        report.fail(what, first_diff(want, got[1]))
    elif event_heads(got[1]) != event_heads(text):
        report.fail(what, first_diff(text, got[1]))
    else:
        report.ok()


def check_version_option(report, args, tmp):
    trace = os.path.join(args.corpus, "babeltrace-tests", "ctf-traces", "succeed", "smalltrace")
    for spelling, first in (("1", b"/* CTF 1.8 */"), ("1.8", b"/* CTF 1.8 */"), ("2", b"\x1e{"),
                            ("2.0", b"\x1e{")):
        out_dir = out_dir_for(tmp, f"version-{spelling}")
        code, _, err = run(args.tracemux, ["-o", "ctf", f"--ctf-version={spelling}", "-w", out_dir,
                                           trace])
        metadata = [os.path.join(d, "metadata") for d, _, f in os.walk(out_dir) if "metadata" in f]
        if code != 0 or len(metadata) != 1:
            report.fail(f"--ctf-version={spelling}", err.decode(errors="replace"))
            continue
        with open(metadata[0], "rb") as f:
            if not f.read().startswith(first):
                report.fail(f"--ctf-version={spelling}", "not the metadata of that version")
                continue
        report.ok()
    code, _, err = run(args.tracemux, ["-o", "ctf", "--ctf-version=3", "-w",
                                       out_dir_for(tmp, "version-3"), trace])
    if code == 0 or b"--ctf-version" not in err:
        report.fail("--ctf-version=3", f"exit {code}: {err.decode(errors='replace')}")
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("CTF writer, CTF 2")
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    with tempfile.TemporaryDirectory(prefix="tmx-ctfw2-") as tmp:
        # 1. CTF 1.8 inputs.
        for key, path in v18.traces(args.corpus):
            check_ctf18_input(report, args, bt2, env, tmp, key, path)
        for key in v18.SPLIT_TRACES:
            check_ctf18_input(report, args, bt2, env, tmp, key, v18.path_of(args.corpus, key),
                              ["--ctf-packet-size=256"])
        # 2. Other formats.
        for key, path in v18.other_inputs(args.corpus):
            check_other_input(report, args, tmp, key, path)
        # 3, 4. The CTF 2 corpora, as CTF 2 and as CTF 1.8.
        found = ctf2_traces(args.corpus)
        if len(found) < 60:
            report.fail("corpus", f"only {len(found)} CTF 2 traces with stored references in {args.corpus}")
        for key, path in found:
            check_ctf2_as_ctf2(report, args, tmp, key, path)
            check_ctf2_as_ctf18(report, args, bt2, env, tmp, key, path)
        # 5.
        check_version_option(report, args, tmp)
    report.finish()


if __name__ == "__main__":
    main()
