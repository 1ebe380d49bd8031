"""The CTF writer's CTF 2 output (-o ctf --ctf-version=2), and CTF 2 inputs
written as CTF 1.8, read back by babeltrace 2.1.2 run live (/opt/bt21/bt21,
built by tests/run-all.sh from ../shared/tools/build-babeltrace-2.1.sh; the
BT21 environment variable names another) and by tracemux.

1. CTF 1.8 inputs (the traces test_ctf_writer.py round-trips; some again
   with small packets) written as CTF 2: `bt21 --no-delta OUT` prints what
   `bt21 --no-delta IN` prints, with the same discarded events/packets
   warnings (trace names and IDs blanked: babeltrace 2.1 names a CTF 2
   trace by its UID, which the writer makes the CTF 1.8 trace's UUID, as
   its sink.ctf.fs does); tracemux prints the same for OUT as for IN.
2. trace.dat and XRay inputs written as CTF 2: `bt21 --no-delta OUT`
   prints what `tracemux --no-delta IN` prints (test_ctf_writer.py's
   check, its exceptions included), and so does `tracemux --no-delta OUT`
   (the lengths the writer generates for trace.dat's dynamic arrays aside).
3. The CTF 2 corpus (../shared/corpus/ctf2, every trace babeltrace 2.1.2
   reads: the ones whose X.bt21.rc is 0, as INDEX.md lists them) written as
   CTF 2: bt21 prints the same for OUT as for IN, tracemux the same for OUT
   as for IN.
4. The same traces written as CTF 1.8: the same, except
   TRANSLATED: traces with field classes CTF 1.8 lacks (booleans, bit maps,
   BLOBs, optionals, variants chosen by ranges) or names TSDL cannot hold,
   which read back as their translations (see src/sink/ctf/encode_plan.c).
   Checked: the text does differ (else the entry is stale) and becomes the
   output's by the rewrites the entry gives; without rewrites, the same
   events at the same times, the values themselves being compared by the
   writer's differential fuzz harness, whose replayed seeds
   (fuzz/seeds/ctf_writer/ctf2-*) are those traces.
5. --ctf-version: the spellings babeltrace2 accepts, an error otherwise.
"""
import os
import re
import subprocess
import tempfile

from bt2ref import Report, first_diff, parse_args, run
import test_ctf_writer as v18

# babeltrace 2.1 names a CTF 2 trace by its trace class UID, a CTF 1.8 one
# by its UUID: the ID is blanked along with what test_ctf_writer blanks.
v18.VARIABLE = v18.VARIABLE + [(re.compile(rb'\((?:no UID|UID: [^)]*)\)'), b"(UUID)")]
v18.WRITER_ARGS = ["--ctf-version=2"]

# CTF 2 input -> (why its CTF 1.8 output reads differently, the rewrites of
# the input's text that must give the output's, or None: the same events at
# the same times, the values left to the fuzz harness).
TRANSLATED = {
    "bt-tests/2/succeed/fl-bm": (
        "bit map: a hexadecimal integer, without its flags",
        [(rb'(lol = 0x[0-9A-F]+) \{ "[^}]*" \}', rb"\1")]),
    "bt-tests-generated/clock-offset-goes-back-in-time": (
        "`the-field` is not a TSDL identifier: `the_field`",
        [(rb"the-field = ", rb"the_field = ")]),
    "handmade/edge-cases": (
        "BLOBs (arrays of bytes), optional (a variant with a generated tag), booleans "
        "(integers), bit map, variant with a signed selector (a generated tag)", None),
    "synthetic/bt2py-all-field-classes": (
        "booleans, bit maps, BLOBs, optionals, variants chosen by ranges", None),
}


def bt21_path():
    return os.environ.get("BT21", "/opt/bt21/bt21")


def bt21(argv, env):
    return subprocess.run([bt21_path()] + argv, capture_output=True, env=env, timeout=300)


def out_dir_for(tmp, what):
    return os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", what))


def write(report, args, what, argv, out_dir, version):
    code, _, err = run(args.tracemux, argv + ["-o", "ctf", "--ctf-version=" + version, "-w", out_dir])
    if code != 0:
        report.fail(what, f"tracemux -o ctf: exit {code}: {err.decode(errors='replace')[-800:]}")
        return False
    return True


def same_text(report, what, ref, got, label):
    """Exit status, text and discarded warnings of two runs (babeltrace or tracemux)."""
    if ref[0] != 0:
        report.fail(what, f"{label} fails on the input: {ref[2].decode(errors='replace')[-500:]}")
    elif got[0] != 0:
        report.fail(what, f"{label} fails on our output: {got[2].decode(errors='replace')[-800:]}")
    elif got[1] != ref[1]:
        report.fail(what, f"{label}:\n" + first_diff(ref[1], got[1]))
    elif v18.warnings(got[2]) != v18.warnings(ref[2]):
        report.fail(what + f" ({label}: discarded warnings)",
                    first_diff(v18.warnings(ref[2]), v18.warnings(got[2])))
    else:
        return True
    return False


def round_trip(report, args, env, tmp, what, path, version, opts=(), tracemux_too=True):
    out_dir = out_dir_for(tmp, f"{what} {version} {' '.join(opts)}")
    if not write(report, args, what, list(opts) + [path], out_dir, version):
        return None
    bt_args = ["--no-delta"]
    ref, got = bt21(bt_args + [path], env), bt21(bt_args + [out_dir], env)
    if not same_text(report, what, (ref.returncode, ref.stdout, ref.stderr),
                     (got.returncode, got.stdout, got.stderr), "babeltrace 2.1"):
        return None
    if tracemux_too and not same_text(report, what, run(args.tracemux, bt_args + [path]),
                                      run(args.tracemux, bt_args + [out_dir]), "tracemux"):
        return None
    report.ok()
    return out_dir


def check_other_tracemux(report, args, tmp, key, path):
    """tracemux reads the CTF 2 output of a trace.dat/XRay input as it reads the input."""
    what = f"{key} (tracemux)"
    if key in v18.NOT_ROUND_TRIPPED_OTHER:
        return   # their times (or order of equal times) are CTF's, see test_ctf_writer
    out_dir = out_dir_for(tmp, what)
    if not write(report, args, what, [path], out_dir, "2"):
        return
    ref, got = run(args.tracemux, ["--no-delta", path]), run(args.tracemux, ["--no-delta", out_dir])
    want = v18.warnings(ref[2])
    if key in v18.UNKNOWN_COUNT:
        want = re.sub(rb"may have discarded events", b"discarded 1 event", want)
    if got[0] != 0:
        report.fail(what, got[2].decode(errors="replace")[-800:])
    elif v18.GENERATED_LENGTH.sub(b"", got[1]) != ref[1]:
        report.fail(what, first_diff(ref[1], got[1]))
    elif v18.warnings(got[2]) != want:
        report.fail(what + " (discarded warnings)", first_diff(want, v18.warnings(got[2])))
    else:
        report.ok()


def ctf2_traces(corpus):
    """(key, path) of every CTF 2 corpus trace babeltrace 2.1.2 reads (X.bt21.rc is 0)."""
    root = os.path.join(corpus, "ctf2")
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".bt21.rc"):
                with open(os.path.join(d, f)) as rc:
                    if rc.read().strip() != "0":
                        continue
                path = os.path.join(d, f[:-len(".bt21.rc")])
                out.append((os.path.relpath(path, root), path))
    return sorted(out)


def event_heads(text):
    """Each event line up to its fields: time and name."""
    return [line.split(b": {")[0] for line in text.splitlines()]


def check_translated(report, args, env, tmp, key, path):
    why, rewrites = TRANSLATED[key]
    what = f"ctf2/{key} -> CTF 1.8 ({why})"
    out_dir = out_dir_for(tmp, what)
    if not write(report, args, what, [path], out_dir, "1.8"):
        return
    ref, got = bt21([path], env), bt21([out_dir], env)
    want = ref.stdout
    for pattern, repl in rewrites or []:
        want = re.sub(pattern, repl, want)
    if got.returncode != 0:
        report.fail(what, got.stderr.decode(errors="replace")[-800:])
    elif got.stdout == ref.stdout:
        report.fail(what, "now identical: remove it from TRANSLATED")
    elif rewrites is not None and got.stdout != want:
        report.fail(what, first_diff(want, got.stdout))
    elif event_heads(got.stdout) != event_heads(ref.stdout):
        report.fail(what, first_diff(ref.stdout, got.stdout))
    else:
        report.ok()


def check_ctf2_corpus(report, args, env, tmp):
    for key, path in ctf2_traces(args.corpus):
        for version in ("2", "1.8"):
            if version == "1.8" and key in TRANSLATED:
                check_translated(report, args, env, tmp, key, path)
            else:
                round_trip(report, args, env, tmp, f"ctf2/{key}", path, version)


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
    if not os.access(bt21_path(), os.X_OK):
        report.fail("babeltrace 2.1.2", f"{bt21_path()} is missing (tests/run-all.sh builds it with "
                    "../shared/tools/build-babeltrace-2.1.sh)")
        report.finish()
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    with tempfile.TemporaryDirectory(prefix="tmx-ctfw2-") as tmp:
        # 1. CTF 1.8 inputs.
        for key, path in v18.traces(args.corpus):
            round_trip(report, args, env, tmp, key, path, "2")
        for key in v18.SPLIT_TRACES:
            round_trip(report, args, env, tmp, key, v18.path_of(args.corpus, key), "2",
                       ["--ctf-packet-size=256"], tracemux_too=False)
        # 2. Other formats (test_ctf_writer's check, its bt2 being babeltrace 2.1).
        for key, path in v18.other_inputs(args.corpus):
            v18.check_other(report, args, bt21_path(), env, tmp, key, path)
            check_other_tracemux(report, args, tmp, key, path)
        # 3, 4. The CTF 2 corpus, as CTF 2 and as CTF 1.8.
        check_ctf2_corpus(report, args, env, tmp)
        # 5.
        check_version_option(report, args, tmp)
    report.finish()


if __name__ == "__main__":
    main()
