"""The comparison of one command run with several --jobs values, and what
else the parallel tests (test_parallel*.py, test_xray_parallel.py) share."""

import sys


def take_quick_flag():
    """Whether --quick was given (the ThreadSanitizer runs), removed from argv."""
    if "--quick" not in sys.argv:
        return False
    sys.argv.remove("--quick")
    return True


def cut_or_flip(original, pos, k, rng):
    """The k-th damaged copy of `original` at `pos`: cut there when k is odd,
    else one bit flipped; and what was done."""
    if k % 2:
        return original[:pos], f"cut at {pos}"
    damaged = bytearray(original)
    damaged[pos] ^= 1 << rng.randrange(8)
    return damaged, f"bit flip at {pos}"


def jobs_difference(results, jobs):
    """What differs from the first job count's run, or None.

    results maps each job count to (exit status, stdout, stderr, ...); the
    first run must have ended with 0, 1 or 2 (no crash, no sanitizer exit).
    """
    ref = results[jobs[0]]
    if ref[0] not in (0, 1, 2):
        return f"--jobs {jobs[0]}: exit status {ref[0]}\n{ref[2].decode(errors='replace')[-800:]}"
    for j in jobs[1:]:
        got = results[j]
        for name, i in (("exit status", 0), ("stdout", 1), ("stderr", 2)):
            if got[i] != ref[i]:
                detail = f"{name} differs with --jobs {j}"
                if i == 0:
                    detail += f": {got[0]} vs {ref[0]}\n{got[2].decode(errors='replace')[-800:]}"
                return detail
    return None


def files_difference(results, jobs):
    """What differs in the files written (results[j][3]: relative path -> bytes), or None."""
    ref = results[jobs[0]][3]
    for j in jobs[1:]:
        got = results[j][3]
        if sorted(got) != sorted(ref):
            return f"files differ with --jobs {j}: {sorted(got)} vs {sorted(ref)}"
        for name in ref:
            if got[name] != ref[name]:
                return f"{name} differs with --jobs {j}"
    return None
