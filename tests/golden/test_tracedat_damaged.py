"""Golden test: damaged trace.dat files (copies of corpus files with one fault).

A damaged page or compressed chunk stops the run with exit status 1 and an
error naming the file and the byte offset; every event before the fault
(in time order) is still printed, and they are exactly the first events of
the undamaged file.  With --lenient the damaged page/chunk is skipped with
a warning, the other events all come out, and the exit status is still 1.
A file cut short fails at open (like trace-cmd: "File possibly truncated")
and says so.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import parse_args  # noqa: E402


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def events(out):
    """Events as comparable strings, without the file's path (the copies live elsewhere)."""
    evs = []
    for line in out.splitlines():
        if line.startswith('{"type":"event"'):
            e = json.loads(line)
            e.pop("trace", None)
            e["stream"].pop("name", None)
            evs.append(json.dumps(e, sort_keys=True))
    return evs


def zstd_chunk_data(path, cpu_offset, k):
    """File offset of the compressed bytes of chunk k of a CPU's data."""
    with open(path, "rb") as f:
        f.seek(cpu_offset + 4)
        pos = cpu_offset + 4
        for _ in range(k):
            csize, _usize = struct.unpack("<II", f.read(8))
            pos += 8 + csize
            f.seek(pos)
    return pos + 8


def main():
    args = parse_args()
    corpus = os.path.join(args.corpus, "tracecmd-samples")
    tm = args.tracemux
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL:", msg)

    tmp = tempfile.mkdtemp(prefix="tmx-tdat-")
    try:
        chunk1 = zstd_chunk_data(os.path.join(corpus, "sched-v7-zstd.dat"), 1019904, 1)
        cases = [
            # (source, where, new bytes, offset named in the error, words in the error)
            # A commit larger than the page (CPU 1, third page).
            ("sched-v6.dat", 5513216 + 2 * 4096 + 8, struct.pack("<Q", 0x0fffffff),
             5513216 + 2 * 4096 + 8, ["commit", "CPU 1"]),
            # A first event of type_len 0 whose length runs past the page (CPU 0, fifth page).
            ("sched-v6.dat", 5447680 + 4 * 4096 + 16, struct.pack("<II", 1 << 5, 0x10000),
             5447680 + 4 * 4096 + 16, ["runs past the end", "CPU 0"]),
            # The zstd frame magic of CPU 0's second chunk.
            ("sched-v7-zstd.dat", chunk1, b"XXXX", chunk1, ["zstd", "chunk 1"]),
        ]
        for src, where, data, offset, words in cases:
            name = "%s@%d" % (src, where)
            good_rc, good_out, _ = run([tm, "-o", "json", os.path.join(corpus, src)])
            good = events(good_out)
            if good_rc != 0 or not good:
                fail("%s: the undamaged file does not read" % name)
                continue
            bad_path = os.path.join(tmp, src)
            shutil.copyfile(os.path.join(corpus, src), bad_path)
            with open(bad_path, "r+b") as f:
                f.seek(where)
                f.write(data)
            rc, out, err = run([tm, "-o", "json", bad_path])
            got = events(out)
            if rc != 1:
                fail("%s: exit %d, 1 expected" % (name, rc))
            if bad_path not in err or (offset is not None and "at byte %d" % offset not in err):
                fail("%s: the error does not name the file and offset %s: %r" % (name, offset, err))
            for w in words:
                if w not in err:
                    fail("%s: %r not in the error %r" % (name, w, err))
            if not got or got != good[:len(got)]:
                fail("%s: %d events before the fault, not the first events of the good file"
                     % (name, len(got)))
            rc, out, err = run([tm, "--lenient", "-o", "json", bad_path])
            lgot = events(out)
            if rc != 1 or "skipped" not in err:
                fail("%s: --lenient: exit %d, warning %r" % (name, rc, err))
            # Skipping loses the events of the damaged page/chunk only.
            if not (len(got) < len(lgot) < len(good)):
                fail("%s: --lenient gives %d events (%d before the fault, %d in all)"
                     % (name, len(lgot), len(got), len(good)))
            else:
                missing = set(good) - set(lgot)
                if len(missing) != len(good) - len(lgot) or set(lgot) - set(good):
                    fail("%s: --lenient events are not the good ones minus a few" % name)
            os.unlink(bad_path)

        # Cut short: in the CPU data, and in the metadata.
        for src, size, word in [("sched-v6.dat", 5500000, "truncated"),
                                ("sched-v6.dat", 3000, "only"),
                                ("sched-v7-zstd.dat", 1019000, "beyond the end of the file")]:
            cut = os.path.join(tmp, "cut-" + src)
            with open(os.path.join(corpus, src), "rb") as f:
                head = f.read(size)
            with open(cut, "wb") as f:
                f.write(head)
            rc, out, err = run([tm, cut])
            if rc != 1 or cut not in err or word not in err or "at byte" not in err:
                fail("%s cut at %d: exit %d, error %r" % (src, size, rc, err))

        # Not a trace.dat version we read.
        bad = os.path.join(tmp, "v9.dat")
        with open(os.path.join(corpus, "sched-v6.dat"), "rb") as f:
            head = bytearray(f.read(4096))
        head[10] = ord("9")
        with open(bad, "wb") as f:
            f.write(head)
        rc, out, err = run([tm, bad])
        if rc != 1 or "version" not in err:
            fail("version 9: exit %d, error %r" % (rc, err))
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
