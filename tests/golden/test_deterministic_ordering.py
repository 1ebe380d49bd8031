"""Several physical traces with one UUID given in any order (babeltrace's
ctf-traces/deterministic-ordering, src.ctf.fs `inputs` order must not
matter): {a, b} fail in both orders after printing the same events, {b, c}
succeed in both orders with the same output.  Compared with the real
babeltrace2 run on the same inputs."""
import os
import shutil
import subprocess

from bt2ref import Report, first_diff, parse_args, run, tool

CASES = [("a-corrupted", "b-not-corrupted"), ("b-not-corrupted", "c-corrupted")]


def main():
    args = parse_args()
    report = Report("deterministic ordering")
    tool(report, "babeltrace2", "babeltrace2")   # run live below: fail here without it
    base = os.path.join(args.corpus, "babeltrace-tests/ctf-traces/deterministic-ordering")
    bt2 = shutil.which("babeltrace2")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    for pair in CASES:
        outputs = set()
        for order in (pair, pair[::-1]):
            paths = [os.path.join(base, p) for p in order]
            code, out, err = run(args.tracemux, paths)
            ref = subprocess.run([bt2] + paths, capture_output=True, env=env, timeout=60)
            what = " ".join(order)
            outputs.add(out)
            if (code == 0) != (ref.returncode == 0) or code not in (0, 1):
                report.fail(what, f"exit {code}, babeltrace2 {ref.returncode}")
            elif out != ref.stdout:
                report.fail(what, first_diff(ref.stdout, out))
            else:
                report.ok()
        if len(outputs) != 1:
            report.fail(" / ".join(pair), "the output depends on the order of the inputs")
    report.finish()


if __name__ == "__main__":
    main()
