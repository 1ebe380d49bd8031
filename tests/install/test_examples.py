"""libtracemux as an installed library, used as a third party uses it.

The build tree is installed into a temporary prefix; the three programs of
examples/ are compiled against that installation through pkg-config, once
with the shared library and once with the static one, and run on a CTF
trace, a trace.dat file and an XRay log:
- count_events: per-class counts equal those of the real tools' outputs
  (babeltrace2's text, trace-cmd report's lines);
- print_field: every value equals the field's value in `tracemux -o json`;
- to_json: byte for byte `tracemux -o json`.
Also: the shared library has a SONAME, exports only tmx_ symbols, and does
not need libtraceevent or libdw; the .pc file is relocatable (the
installation still works after being moved).
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = ["count_events", "print_field", "to_json"]


class Failures(list):
    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.append(what)
        return ok


def sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=False, **kw)


def install(build, prefix):
    p = sh(["cmake", "--install", build, "--prefix", prefix])
    if p.returncode:
        sys.exit("cmake --install failed: " + p.stderr.decode())
    pcs = glob.glob(os.path.join(prefix, "**", "pkgconfig", "tracemux.pc"), recursive=True)
    if not pcs:
        sys.exit("no tracemux.pc installed under " + prefix)
    return os.path.dirname(pcs[0])


def pkg(pcdir, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
    p = sh(["pkg-config"] + list(args) + ["tracemux"], env=env)
    if p.returncode:
        sys.exit("pkg-config failed: " + p.stderr.decode())
    return p.stdout.decode().split()


def compile_examples(pcdir, out, static, extra_cflags, f):
    """Compiles the examples; returns {name: path}."""
    libdir = os.path.dirname(pcdir)
    progs = {}
    for name in EXAMPLES:
        exe = os.path.join(out, name + ("-static" if static else ""))
        src = os.path.join(ROOT, "examples", name + ".c")
        if static:
            # The archive itself, then what `pkg-config --static` says it needs.
            libs = [os.path.join(libdir, "libtracemux.a")] + pkg(pcdir, "--static", "--libs")
            argv = ["cc", "-Wl,--as-needed", src, "-o", exe] + pkg(pcdir, "--cflags") + libs
        else:
            argv = ["cc", src, "-o", exe] + pkg(pcdir, "--cflags", "--libs")
        p = sh(["sh", "-c", " ".join(argv + extra_cflags)])
        if not f.check(p.returncode == 0, f"compile {os.path.basename(exe)}"):
            print(p.stderr.decode())
            continue
        progs[name] = exe
    return progs


def needed(path):
    out = sh(["readelf", "-d", path]).stdout.decode()
    return re.findall(r"\(NEEDED\).*\[(.*)\]", out)


# A program with its own symbols of the names the library uses inside
# (jansson's json_string, ...): it links and runs with either library,
# which reports the version of the headers.
OWN_NAMES = r"""
#include <stdio.h>
#include <string.h>
#include <tracemux/sink.h>
#include <tracemux/tracemux.h>
int json_string(void) { return 7; }
int json_value(void) { return 8; }
int outbuf_flush(void) { return 9; }
int timefmt_ns(void) { return 10; }
int main(void)
{
	struct tmx_error err;
	/* The sink table: it pulls every output, JSON's writer among them. */
	struct tmx_sink_params *params = tmx_sink_params_new("json", &err);

	if (!params || strcmp(tmx_libversion(), TRACEMUX_VERSION_STRING) != 0 ||
	    tmx_libversion_number() != TRACEMUX_VERSION_NUMBER)
		return 2;
	tmx_sink_params_free(params);
	printf("%s %d\n", tmx_libversion(), json_string() + json_value() + outbuf_flush() + timefmt_ns());
	return 0;
}
"""


def check_own_names(pcdir, tmp, static, extra_cflags, env, f):
    libdir = os.path.dirname(pcdir)
    src, exe = os.path.join(tmp, "own_names.c"), os.path.join(tmp, "own_names" + ("-static" if static else ""))
    with open(src, "w") as fh:
        fh.write(OWN_NAMES)
    if static:
        argv = ["cc", src, "-o", exe] + pkg(pcdir, "--cflags") + [os.path.join(libdir, "libtracemux.a")] + \
            pkg(pcdir, "--static", "--libs")
    else:
        argv = ["cc", src, "-o", exe] + pkg(pcdir, "--cflags", "--libs")
    p = sh(["sh", "-c", " ".join(argv + extra_cflags)])
    label = "static" if static else "shared"
    if not f.check(p.returncode == 0, f"a program defining json_string, outbuf_flush... links ({label}): "
                   + p.stderr.decode(errors="replace")[-400:]):
        return
    p = subprocess.run([exe], capture_output=True, env=env)
    f.check(p.returncode == 0 and p.stdout.decode().split() == [version_string(), "34"],
            f"{label}: tmx_libversion() is the headers' version, the program's own names are its own "
            f"(exit {p.returncode}, {p.stdout!r})")


def version_string():
    with open(os.path.join(ROOT, "include", "tracemux", "tracemux.h")) as fh:
        return re.search(r'#define TRACEMUX_VERSION_STRING "([^"]+)"', fh.read()).group(1)


def api_functions():
    """The API: every function declared TMX_API in the installed headers."""
    api = set()
    for h in glob.glob(os.path.join(ROOT, "include", "tracemux", "*.h")):
        with open(h) as fh:
            text = re.sub(r"/\*.*?\*/", "", fh.read(), flags=re.S)
        api |= set(re.findall(r"TMX_API[^;{]*?\b(tmx_\w+)\s*\(", text))
    return api


def check_shared_library(pcdir, f):
    libdir = os.path.dirname(pcdir)
    so = os.path.join(libdir, "libtracemux.so")
    f.check(os.path.exists(so), "libtracemux.so installed")
    dyn = sh(["readelf", "-d", so]).stdout.decode()
    f.check(re.search(r"SONAME.*\[libtracemux\.so\.\d+\]", dyn) is not None,
            "SONAME libtracemux.so.N")
    syms = sh(["nm", "-D", "--defined-only", so]).stdout.decode().split("\n")
    names = {line.split()[-1] for line in syms if line.strip()}
    api = api_functions()
    f.check(names == api, f"exports exactly the TMX_API functions ({len(api)}; "
            f"extra: {sorted(names - api)[:5]}, missing: {sorted(api - names)[:5]})")
    # The archive: the same global symbols, nothing else (its internal
    # helpers are local, so a program may define json_string or outbuf_*).
    syms = sh(["nm", "-g", "--defined-only", os.path.join(libdir, "libtracemux.a")]).stdout.decode()
    names = {line.split()[-1] for line in syms.split("\n") if len(line.split()) == 3}
    f.check(names == api, f"libtracemux.a defines as global exactly the TMX_API functions ({len(api)}; "
            f"extra: {sorted(names - api)[:5]}, missing: {sorted(api - names)[:5]})")
    libs = needed(so)
    f.check(not any("traceevent" in n or "libdw" in n for n in libs),
            f"core library needs neither libtraceevent nor libdw ({' '.join(libs)})")


def counts_bt2(trace):
    """Per-class counts from babeltrace2's text: `[time] (+delta) host:proc:(pid) name: {...`."""
    out = sh(["babeltrace2", trace], env=dict(os.environ, TZ="UTC")).stdout.decode()
    c = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"^\[[^\]]*\] (?:\([^)]*\) )?(.*?)(?: \{|$)", line)
        if m:
            c[m.group(1).split(" ")[-1].rstrip(":")] += 1
    return c


def counts_tracecmd(dat):
    """Per-class counts from trace-cmd report: the event name before `:`."""
    out = sh(["trace-cmd", "report", dat]).stdout.decode(errors="replace")
    c = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"^\s*.+?\s+\[\d+\]\s+[\d.]+:\s+(\S+?):", line)
        if m:
            c[m.group(1)] += 1
    return c


def counts_xray(log):
    """Per-kind record counts of llvm-xray-14's YAML of the log (stored next to it)."""
    ref = os.path.join(os.path.dirname(log), "expected", os.path.basename(log) + ".yaml")
    with open(ref) as fh:
        return collections.Counter(re.findall(r"kind: ([a-z-]+)", fh.read()))


def counts_of(stdout, kind):
    c = collections.Counter()
    for line in stdout.decode().splitlines():
        n, name = line.split(" ", 1)
        if kind == "trace.dat":   # system:event; trace-cmd report prints the event
            name = name.split(":")[-1]
        c[name] += int(n)
    return c


def json_events(tracemux, trace):
    p = sh([tracemux, "-o", "json", trace])
    return p.stdout, [json.loads(l) for l in p.stdout.decode().splitlines()]


def field_values(events, field):
    """`field` in each event of the JSON output (payload first, as print_field)."""
    out = []
    for e in events:
        if e.get("type") != "event":
            continue
        for scope in ("payload", "specific_context", "common_context", "packet_context"):
            s = e.get(scope)
            if isinstance(s, dict) and field in s:
                out.append(s[field])
                break
    return out


def run_examples(progs, tracemux, traces, label, env, f):
    for kind, trace, field, reference in traces:
        if "count_events" in progs:
            p = sh([progs["count_events"], trace], env=env)
            ref = reference(trace)
            got = counts_of(p.stdout, kind)
            if kind == "XRay":   # tracemux also has the log's metadata records (walltime...)
                got = collections.Counter({k: got[k] for k in ref})
            f.check(p.returncode == 0 and got == ref and sum(ref.values()) > 0,
                    f"{label} count_events {kind}: {sum(ref.values())} events in "
                    f"{len(ref)} classes")
        whole, events = json_events(tracemux, trace)
        if "to_json" in progs:
            p = sh([progs["to_json"], trace], env=env)
            f.check(p.returncode == 0 and p.stdout == whole and whole,
                    f"{label} to_json {kind} = tracemux -o json")
        if "print_field" in progs:
            p = sh([progs["print_field"], field, trace], env=env)
            got = []
            for line in p.stdout.decode().splitlines():
                v = line.split(" ", 2)[2]
                got.append(json.loads(v) if v.startswith('"') else
                           (float(v) if "." in v or "e" in v else int(v)))
            want = field_values(events, field)
            f.check(p.returncode == 0 and got == want and want,
                    f"{label} print_field {field} {kind}: {len(want)} values")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracemux", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--cflags", default="", help="e.g. the sanitizer flags of the build")
    args = ap.parse_args()
    build = os.path.dirname(os.path.abspath(args.tracemux))
    extra = args.cflags.split()
    f = Failures()
    traces = [
        ("CTF", os.path.join(ROOT, "tests/data/sample-trace"), "cpu_id", counts_bt2),
        ("trace.dat", os.path.join(args.corpus, "tracecmd-samples/sched-v6.dat"), "prev_comm",
         counts_tracecmd),
        ("XRay", os.path.join(ROOT, "tests/data/xray/fdr-log-arg1-version-3.xray"), "func_id",
         counts_xray),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "first-prefix")
        pcdir = install(build, prefix)
        check_shared_library(pcdir, f)
        # Relocatable: move the installed tree, pkg-config still finds it.
        moved = os.path.join(tmp, "moved-prefix")
        shutil.move(prefix, moved)
        pcdir = pcdir.replace(prefix, moved)
        libdir = os.path.dirname(pcdir)
        f.check(pkg(pcdir, "--variable=libdir")[0].startswith(moved) or
                os.path.realpath(pkg(pcdir, "--variable=libdir")[0]) == os.path.realpath(libdir),
                "pkg-config finds the moved installation")
        env = dict(os.environ, LD_LIBRARY_PATH=libdir, TZ="UTC",
                   ASAN_OPTIONS="abort_on_error=1:detect_leaks=1")
        for static in (False, True):
            progs = compile_examples(pcdir, tmp, static, extra, f)
            label = "static" if static else "shared"
            if not static and "count_events" in progs:
                libs = needed(progs["count_events"])
                f.check(any(n.startswith("libtracemux.so") for n in libs),
                        "shared examples link libtracemux.so")
            if static and "count_events" in progs:
                f.check(not any(n.startswith("libtracemux") for n in needed(progs["count_events"])),
                        "static examples link the archive")
            run_examples(progs, args.tracemux, traces, label, env, f)
            check_own_names(pcdir, tmp, static, extra, env, f)
    print(f"{len(f)} failure(s)")
    sys.exit(1 if f else 0)


if __name__ == "__main__":
    main()
