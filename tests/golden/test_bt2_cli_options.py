"""Golden test: pretty-printing options give what babeltrace2 gives.

generated-reference/bt2-cli-options/*.txt each start with the babeltrace2
command line (`# babeltrace2 2.0.4: babeltrace2 ARGS`), then its stdout,
then `# exit=N`.  We run tracemux with the same arguments and compare.
References of features that belong to later work (trimming, stream
intersection, queries, other sink components) are listed in NOT_YET and
reported, so that nothing passes silently.
"""
import os
import re
import shlex

from bt2ref import Report, bt2_path, first_diff, parse_args, read_ref, run

NOT_YET = {
    # Other babeltrace2 components and commands.
    "help-convert.txt", "list-plugins.txt",
    "wk-counter-no-msgs.txt", "wk-counter.txt", "wk-details-compact.txt",
}


def split_ref(data):
    lines = data.split(b"\n")
    header = lines[0].decode()
    assert header.startswith("# babeltrace2 2.0.4: babeltrace2 "), header
    argv = shlex.split(header[len("# babeltrace2 2.0.4: babeltrace2 "):])
    # The body ends with "# exit=N" (and a final newline).
    end = len(lines) - 1
    while not lines[end].startswith(b"# exit="):
        end -= 1
    status = int(lines[end].decode().split("=")[1])
    body = b"\n".join(lines[1:end])
    if end > 1:
        body += b"\n"
    # The references captured stderr too: babeltrace2's discarded-events
    # warnings sit in the middle of stdout lines there.  Take them out.
    body = re.sub(rb"WARNING: Tracer discarded .*?\(stream class ID: \d+, stream ID: \d+\)\.\n", b"", body)
    return argv, body, status


def query_argv(argv):
    """`babeltrace2 query src.ctf.fs OBJECT -p PARAMS` as `tracemux query OBJECT PATH...`."""
    obj = argv[2].replace("babeltrace.", "")
    paths = re.findall(r"ctf-traces/[^],]+", argv[4])
    return ["query", obj] + paths


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    refdir = os.path.join(bt, "generated-reference/bt2-cli-options")
    report = Report("bt2 cli options golden")
    for name in sorted(os.listdir(refdir)):
        if name in NOT_YET:
            print(f"not yet: {name}")
            continue
        argv, expected, status = split_ref(read_ref(os.path.join(refdir, name)))
        if argv[0] == "query":
            argv = query_argv(argv)
        argv = [os.path.join(bt, a) if a.startswith("ctf-traces/") else a for a in argv]
        code, out, err = run(args.tracemux, argv)
        # The references name the corpus @BT_TESTS_DATA@ (absolute paths).
        out = out.replace(bt2_path(bt).encode() + b"/", b"@BT_TESTS_DATA@/")
        if code < 0 or (code == 0) != (status == 0):
            report.fail(name, f"exit {code}, babeltrace2 {status}: {err.decode(errors='replace')[-1500:]}")
        elif status != 0:
            # babeltrace2's reference holds its log; we only agree on failing.
            report.ok() if err.strip() else report.fail(name, "failed without a message")
        elif out != expected:
            report.fail(name, first_diff(expected, out))
        else:
            report.ok()
    report.finish()


if __name__ == "__main__":
    main()
