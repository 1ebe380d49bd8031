"""xray-account's debug-info column against `llvm-xray account` (llvm-xray 14, live).

`llvm-xray account -instr_map=BINARY` prints "FILE:LINE:COLUMN: NAME" for
each function: the DWARF line row of the function's address (libdw in
tracemux), the STT_FILE name of a local symbol when no line table covers it,
else "<invalid>:0:0".  One small program (two files with DWARF, one file
without, a function in a header, a #line to a nested path, static and global
functions) is built here with clang-14 in every way that changes what has to
be read:

- DWARF versions 2, 3, 4 and 5, position-dependent and PIE, -O0 and -O1,
  -gline-tables-only, compressed debug sections (-gz), split DWARF;
- DWARF in a separate file named by .gnu_debuglink: next to the binary,
  in its .debug directory, with a CRC that does not match, missing;
- no DWARF at all (the STT_FILE fallback), `strip --strip-debug` (which
  drops the STT_FILE symbols too: "<invalid>:0:0"), the same with
  --keep-file-symbols (the fallback again), `strip --strip-all` (no symbols);
- "old PIC" maps: sleds of version 1 (absolute addresses, as clang < 7 made
  them) in a PIE, linked by ld.lld, which leaves the fields zero and puts
  R_X86_64_RELATIVE relocations on them (llvm-xray applies them, and so does
  tracemux's one reader of the map), and by GNU ld, which fills them in;
- an object file (.o) as the map, DWARF 4 and 5: the debug sections'
  relocations must be applied (libdwfl does);
- damaged .debug_line, .debug_info, .debug_abbrev, .debug_addr (random
  bytes, a unit length past the end): no crash, the same fallback.

A basic-mode log calls function ids 1..24 once each (ids past the map are
"(unknown): #ID" in both).  Each build must print what llvm-xray prints,
byte for byte; the test also checks that llvm-xray's output holds what the
build is meant to exercise (real line numbers, the STT_FILE fallback,
"<invalid>"), so that a build that went wrong cannot pass silently.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bt2ref import Report, first_diff, parse_args, run
from xraygen import ENTER, EXIT, basic_log, llvm_xray, run_llvm

A_C = r"""
#include "b.h"
static __attribute__((noinline)) int a_static(int x) { return x * 3 + 1; }
__attribute__((noinline)) int alpha(int x)
{
	return a_static(x) + inl(x) + hdr_fn(x);
}
#line 200 "gen/deep/generated.c"
__attribute__((noinline)) int generated(int x) { return x - 7; }
#line 12 "a.c"
int main(int argc, char **argv)
{
	(void)argv;
	return alpha(argc) + beta(argc) + gamma_(argc) + generated(argc) + nodebug(argc);
}
"""
B_H = r"""
static inline __attribute__((always_inline)) int inl(int x) { return x ^ 5; }
static __attribute__((noinline)) int hdr_fn(int x) { return x * x; }
int beta(int x);
int gamma_(int x);
int nodebug(int x);
"""
B_C = r"""
#include "b.h"
static __attribute__((noinline)) int b_static(int x) { return x + 2; }
__attribute__((noinline)) int beta(int x) { return b_static(x) * 2 + hdr_fn(x); }
__attribute__((noinline)) int gamma_(int x) { return b_static(x) - 1; }
"""
# Compiled without -g in every build: no unit covers these functions.
C_C = r"""
static __attribute__((noinline)) int c_static(int x) { return x | 8; }
__attribute__((noinline)) int nodebug(int x) { return c_static(x) + 1; }
"""

XRAY = ["-fxray-instrument", "-fxray-instruction-threshold=1"]
PIE = (["-fPIC"], ["-pie"])
NOPIE = (["-fno-pic"], ["-no-pie"])

# name: (flags of a.c and b.c, (compile flags of all, link flags), what
# llvm-xray's column must show -- see shows()).
ALL = {"dwarf", "stt_file", "invalid"}
BUILDS = {
    "dwarf5-nopie": (["-O1", "-g", "-gdwarf-5"], NOPIE, ALL),
    "dwarf5-pie": (["-O1", "-g", "-gdwarf-5"], PIE, ALL),
    "dwarf4-nopie": (["-O1", "-g", "-gdwarf-4"], NOPIE, ALL),
    "dwarf4-pie": (["-O1", "-g", "-gdwarf-4"], PIE, ALL),
    "dwarf3": (["-O1", "-g", "-gdwarf-3"], PIE, ALL),
    "dwarf2": (["-O1", "-g", "-gdwarf-2"], NOPIE, ALL),
    "dwarf5-O0": (["-O0", "-g", "-gdwarf-5"], PIE, ALL | {"lines"}),
    "dwarf4-O0": (["-O0", "-g", "-gdwarf-4"], NOPIE, ALL | {"lines"}),
    "line-tables-only": (["-O1", "-gline-tables-only"], PIE, ALL),
    "gz": (["-O1", "-g", "-gdwarf-5", "-gz=zlib"], PIE, ALL),
    "split-dwarf": (["-O1", "-g", "-gdwarf-5", "-gsplit-dwarf"], PIE, ALL),
    "no-debug": (["-O1"], PIE, {"stt_file", "invalid"}),
}


def compile_objs(clang, tmp, name, dflags, pic):
    objs = []
    for src, flags in (("a.c", dflags), ("b.c", dflags), ("c.c", ["-O1"])):
        obj = os.path.join(tmp, f"{name}-{src[0]}.o")
        p = subprocess.run([clang] + flags + pic[0] + XRAY + ["-c", src, "-o", obj],
                           capture_output=True, cwd=tmp)
        if p.returncode:
            raise RuntimeError(f"{name}: clang-14 -c {src}: {p.stderr.decode(errors='replace')}")
        objs.append(obj)
    return objs


def link(clang, tmp, out, objs, ldflags):
    p = subprocess.run([clang] + XRAY + ldflags + objs + ["-o", out], capture_output=True,
                       cwd=tmp)
    if p.returncode:
        raise RuntimeError(f"linking {out}: {p.stderr.decode(errors='replace')}")
    return out


def old_pic_asm(src, dst):
    """clang-14's sled entries (version 2: PC-relative `.quad sled-.Ltmp`)
    rewritten as version 1 ones (absolute `.quad sled`), as clang < 7 wrote
    them: in a PIE each field then needs a dynamic relocation."""
    lines = open(src).read().split("\n")
    out, i, n = [], 0, 0
    while i < len(lines):
        m = re.match(r"\t\.quad\t(\.Lxray_sled_\d+)-(\.Ltmp\d+)$", lines[i])
        if m:
            m2 = re.match(r"\t\.quad\t(\.Lfunc_begin\d+)-\(" + re.escape(m.group(2)) + r"\+8\)$",
                          lines[i + 1])
            if not m2 or lines[i + 4] != "\t.byte\t0x02":
                raise RuntimeError(f"unexpected sled entry in {src}: {lines[i:i + 5]}")
            out += ["\t.quad\t" + m.group(1), "\t.quad\t" + m2.group(1), lines[i + 2],
                    lines[i + 3], "\t.byte\t0x01"]
            i += 5
            n += 1
            continue
        out.append(lines[i])
        i += 1
    if not n:
        raise RuntimeError(f"no sled entry in {src}")
    with open(dst, "w") as f:
        f.write("\n".join(out))


def old_pic(clang, tmp, linker):
    objs = []
    for src in ("a.c", "b.c"):
        asm = os.path.join(tmp, f"oldpic-{src[0]}.s")
        subprocess.run([clang, "-O1", "-g", "-fPIC"] + XRAY + ["-S", src, "-o", asm], check=True,
                       capture_output=True, cwd=tmp)
        old_pic_asm(asm, asm + ".old.s")
        obj = os.path.join(tmp, f"oldpic-{src[0]}.o")
        subprocess.run([clang, "-c", asm + ".old.s", "-o", obj], check=True, capture_output=True)
        objs.append(obj)
    c_obj = os.path.join(tmp, "oldpic-c.o")
    subprocess.run([clang, "-O1", "-fPIC"] + XRAY + ["-c", "c.c", "-o", c_obj], check=True,
                   capture_output=True, cwd=tmp)
    # xray_instr_map is read-only: lld needs -z notext to relocate it at run time.
    ld = ["-fuse-ld=lld", "-Wl,-z,notext"] if linker == "lld" else []
    return link(clang, tmp, os.path.join(tmp, f"old-pic-{linker}"), objs + [c_obj], ["-pie"] + ld)


def instr_map_fields(exe):
    """The (address, function) fields of the binary's sled entries, as stored."""
    import struct
    p = subprocess.run(["objcopy", "-O", "binary", "--only-section=xray_instr_map", exe,
                        exe + ".map"], capture_output=True)
    if p.returncode:
        return []
    data = open(exe + ".map", "rb").read()
    return [struct.unpack_from("<QQ", data, off) for off in range(0, len(data) - 31, 32)]


def shows(out):
    """What an account table shows: "dwarf" (a position only DWARF knows: a
    global function's, the #line file, a line number -- XRay's entry sled
    usually sits at a line-0 row), "lines" (a line number > 0), "stt_file"
    (c.c has no DWARF: its static function gets the STT_FILE name),
    "invalid"."""
    found = set()
    for pos, name in re.findall(r"\]\s+\S+\s+(\S+): (\S+)", out.decode(errors="replace")):
        m = re.fullmatch(r"(.+):(\d+):(\d+)", pos)
        if pos == "<invalid>:0:0":
            found.add("invalid")
        elif name == "c_static" and pos == "c.c:0:0":
            found.add("stt_file")
        if m and (m.group(1) == "generated.c" or int(m.group(2)) > 0 or
                  name in ("alpha", "beta", "gamma_", "generated", "main")):
            found.add("dwarf")   # global functions have no STT_FILE fallback
        if m and int(m.group(2)) > 0:
            found.add("lines")
    return found


def damage(exe, out, section, how):
    """A copy of `exe` with one debug section overwritten: random bytes, or
    a first unit length far past the section's end."""
    import random
    import struct
    text = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True).stdout
    m = re.search(r"\] " + re.escape(section) + r"\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", text)
    if not m:
        raise RuntimeError(f"{exe}: no {section} section")
    off, size = int(m.group(1), 16), int(m.group(2), 16)
    data = bytearray(open(exe, "rb").read())
    if how == "random":
        rng = random.Random(7)
        data[off:off + size] = bytes(rng.randrange(256) for _ in range(size))
    else:
        data[off:off + 4] = struct.pack("<I", 0xfffffff0)
    with open(out, "wb") as f:
        f.write(data)
    return out


def check(report, args, llvm, what, exe, log, want):
    code, out, err = run(args.tracemux, ["xray-account", "--instr-map", exe, log])
    lcode, lout, lerr = run_llvm([llvm, "account", "-instr_map=" + exe, log])
    if lcode != 0:
        report.fail(what, f"llvm-xray failed: {lerr.decode(errors='replace')[:500]}")
        return None
    missing = want - shows(lout)
    if missing:
        report.fail(what, f"the build does not exercise {sorted(missing)}:\n{lout.decode()}")
    elif code != 0:
        report.fail(what, f"exit {code}: {err.decode(errors='replace')[:500]}")
    elif out != lout:
        report.fail(what, first_diff(lout, out))
    else:
        report.ok()
        if args.verbose:
            print(f"== {what}\n{lout.decode()}")
    return lout


def debuglink_cases(report, args, llvm, tmp, exe, log):
    """A stripped binary whose DWARF is in a separate file named by its
    .gnu_debuglink: found next to it and in its .debug directory; a copy
    whose CRC does not match (one byte changed) and a missing file give
    the symbol table's answer, as in llvm's symbolizer."""
    debug = os.path.join(tmp, "prog.debug")
    subprocess.run(["objcopy", "--only-keep-debug", exe, debug], check=True)
    for case in ("next", "dot-debug", "bad-crc", "missing"):
        d = os.path.join(tmp, "debuglink-" + case)
        os.makedirs(os.path.join(d, ".debug"))
        prog = os.path.join(d, "prog")
        subprocess.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, exe, prog],
                       check=True)
        where = {"next": d, "dot-debug": os.path.join(d, ".debug"), "bad-crc": d}.get(case)
        if where:
            data = bytearray(open(debug, "rb").read())
            if case == "bad-crc":
                data[100] ^= 0xff
            with open(os.path.join(where, "prog.debug"), "wb") as f:
                f.write(data)
        want = {"dwarf"} if case in ("next", "dot-debug") else {"invalid"}
        check(report, args, llvm, "separate debug file (.gnu_debuglink): " + case, prog, log, want)


def main():
    args = parse_args()
    report = Report("xray-account debug-info column vs llvm-xray account")
    llvm = llvm_xray()
    clang = shutil.which("clang-14")
    if not llvm or not clang:
        report.fail("llvm-xray 14 or clang-14 is not installed (scripts/install-deps.sh test)")
        report.finish()
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("a.c", A_C), ("b.h", B_H), ("b.c", B_C), ("c.c", C_C)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        log = os.path.join(tmp, "calls.xray")
        recs, t = [], 1000
        for f in range(1, 25):
            recs += [(ENTER, f, t, 1, 1), (EXIT, f, t + 10 * f, 1, 1)]
            t += 1000
        basic_log(log, recs)

        for name, (dflags, pic, want) in BUILDS.items():
            exe = link(clang, tmp, os.path.join(tmp, name),
                       compile_objs(clang, tmp, name, dflags, pic), pic[1])
            check(report, args, llvm, name, exe, log, want)
            if name == "dwarf5-pie":
                # strip -g drops the STT_FILE symbols too, unless asked to keep them.
                dbg = os.path.join(tmp, name + "-strip-debug")
                subprocess.run(["strip", "--strip-debug", "-o", dbg, exe], check=True)
                check(report, args, llvm, "strip --strip-debug", dbg, log, {"invalid"})
                dbg = os.path.join(tmp, name + "-strip-debug-keep-file")
                subprocess.run(["strip", "--strip-debug", "--keep-file-symbols", "-o", dbg, exe],
                               check=True)
                check(report, args, llvm, "strip --strip-debug --keep-file-symbols", dbg, log,
                      {"stt_file", "invalid"})
                bare = os.path.join(tmp, name + "-strip-all")
                subprocess.run(["strip", "--strip-all", "-o", bare, exe], check=True)
                check(report, args, llvm, "strip --strip-all", bare, log, {"invalid"})
                if shows(run_llvm([llvm, "account", "-instr_map=" + bare, log])[1]) != {"invalid"}:
                    report.fail("strip --strip-all left line or symbol information")
                else:
                    report.ok()
                debuglink_cases(report, args, llvm, tmp, exe, log)

        # Damaged DWARF: libdw rejects the unit, the fallback answers (no
        # crash, no read out of bounds: the ASan build runs this too).
        exe = os.path.join(tmp, "dwarf5-pie")
        for section, how in ((".debug_line", "random"), (".debug_line", "length"),
                             (".debug_info", "random"), (".debug_info", "length"),
                             (".debug_abbrev", "random"), (".debug_addr", "random")):
            bad = damage(exe, os.path.join(tmp, f"bad{section}-{how}"), section, how)
            check(report, args, llvm, f"damaged {section} ({how})", bad, log, {"invalid"})

        # A relocatable object as the map: its debug sections need their
        # relocations (DWARF 5 addresses go through .debug_addr).
        for version in ("4", "5"):
            obj = os.path.join(tmp, f"a-dwarf{version}.o")
            subprocess.run([clang, "-O1", "-g", f"-gdwarf-{version}"] + XRAY +
                           ["-c", "a.c", "-o", obj], check=True, capture_output=True, cwd=tmp)
            check(report, args, llvm, f"object file, DWARF {version}", obj, log, {"dwarf"})

        for linker in ("bfd", "lld"):
            if linker == "lld" and not shutil.which("ld.lld-14") and not shutil.which("ld.lld"):
                report.fail("ld.lld is not installed (scripts/install-deps.sh test: lld-14)")
                continue
            exe = old_pic(clang, tmp, linker)
            fields = instr_map_fields(exe)
            zero = sum(1 for a, fn in fields if fn == 0)
            # lld leaves the fields of the rewritten sleds to their relocations
            # (c.c's sleds are clang-14's PC-relative ones), GNU ld fills them in.
            if not fields or (zero > 0) != (linker == "lld"):
                report.fail(f"old PIC ({linker}): {zero} of {len(fields)} function fields are zero")
                continue
            check(report, args, llvm, f"old PIC, version 1 sleds ({linker})", exe, log, ALL)
    report.finish()


if __name__ == "__main__":
    main()
