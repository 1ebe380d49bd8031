"""The comparison of one command run with several --jobs values, shared by
the parallel tests (test_parallel*.py, test_xray_parallel.py)."""


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
