"""The layers of docs/ARCHITECTURE.md, checked on the `#include "..."` lines
of src/ and cli/: each folder includes only its own headers, the public ones
(include/tracemux/) and those of the folders below it in LAYERS, so that the
folders form no cycle and a reader (ctf, tracecmd, xray) knows neither the
muxer nor the source layer, the outputs, the parallel runner or the tools,
and an output (sink) or the parallel runner (par) knows no reader: what they
know of a format is the model's (model/xray_map.h, model/kmap.h).

Headers are named from src/ ("model/reader.h") or, without a slash, from the
including file's own folder; a folder is the first directory under src/
(src/sink/text/ is `sink`).  A header that names no file of src/, include/
or the including folder fails too: the check would not see it.  A second
part runs the same check on made-up trees, so that a check that cannot fail
is seen failing."""
import os
import re
import sys
import tempfile

from bt2ref import Report, parse_args

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Bottom to top: a folder may include those of lower levels, never those of
# its own level (the readers know nothing of each other nor of the muxer).
LAYERS = [
    ["common"],                   # helpers of every layer
    ["io"],                       # input files
    ["model"],                    # the common model, the reader contract (model/reader.h)
    ["ctf", "tracecmd", "xray", "mux"],   # format readers; muxer and filters
    ["source"],                   # readers made sources: their streams merged, tmx_open
    ["sink"],                     # outputs
    ["par"],                      # tmx_run: a source into a sink, N jobs
    ["tools"],                    # what emulates a tool beyond conversion
    ["cli"],                      # the tracemux program
]
PUBLIC = "tracemux"               # include/tracemux/: every layer's
READERS = {"ctf", "tracecmd", "xray"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def level_of():
    return {folder: i for i, row in enumerate(LAYERS) for folder in row}


def folder_of(root, path):
    """The layer folder of a file under root (src/X/... -> X; cli/ -> cli)."""
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "src":
        return rel[1] if len(rel) > 2 else "src"
    return rel[0]


def includes(root):
    """[(file, line number, header, folder of the file, folder of the header)]."""
    out = []
    for top in ("src", "cli"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, name)
                with open(path, errors="replace") as f:
                    text = f.read()
                src_folder = folder_of(root, path)
                for m in INCLUDE.finditer(text):
                    header = m.group(1)
                    line = text.count("\n", 0, m.start()) + 1
                    if os.path.exists(os.path.join(d, header)):
                        target = folder_of(root, os.path.normpath(os.path.join(d, header)))
                    elif os.path.exists(os.path.join(root, "src", header)):
                        target = header.split("/")[0]
                    elif os.path.exists(os.path.join(root, "include", header)):
                        target = PUBLIC
                    else:
                        target = None
                    out.append((os.path.relpath(path, root), line, header, src_folder, target))
    return out


def cycles(edges):
    """The folder cycles of {folder: {folder}}, each as a list, found by DFS."""
    found, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                found.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    return found


def problems(root):
    """Every include that breaks the layers, as (what, detail) pairs."""
    levels = level_of()
    edges, out = {}, []
    for path, line, header, src, dst in includes(root):
        where = f"{path}:{line}: #include \"{header}\""
        if dst is None:
            out.append((where, "names no file of src/, include/ or the file's folder"))
            continue
        if dst in (src, PUBLIC):
            continue
        edges.setdefault(src, set()).add(dst)
        if src not in levels or dst not in levels:
            unknown = src if src not in levels else dst
            out.append((where, f"folder {unknown!r} is in no layer of LAYERS "
                               "(tests/golden/test_layers.py, docs/ARCHITECTURE.md)"))
        elif src in READERS and dst in {"mux", "source", "sink", "par", "tools"} | READERS:
            out.append((where, f"a reader ({src}) includes {dst}/: readers hand out "
                               "their streams through model/reader.h and know nothing above"))
        elif src in {"sink", "par"} and dst in READERS:
            out.append((where, f"{src}/ includes a reader's header ({dst}/): an output knows "
                               "no format but through the model"))
        elif levels[dst] >= levels[src]:
            out.append((where, f"{src}/ (level {levels[src]}) includes {dst}/ "
                               f"(level {levels[dst]}): only lower levels"))
    for c in cycles(edges):
        out.append(("folder cycle " + " -> ".join(c), "the folders include each other"))
    return out


def self_test(report):
    """Made-up trees: each breach is found, a clean tree passes."""
    cases = {
        "clean": ({"src/model/a.h": "", "src/mux/m.c": '#include "model/a.h"\n',
                   "src/ctf/r.c": '#include "model/a.h"\n#include "tracemux/x.h"\n',
                   "include/tracemux/x.h": ""}, False),
        "reader includes the muxer": ({"src/mux/m.h": "",
                                       "src/ctf/r.c": '#include "mux/m.h"\n'}, True),
        "model includes source": ({"src/source/s.h": "",
                                   "src/model/m.c": '#include "source/s.h"\n'}, True),
        "cycle": ({"src/sink/a.h": '#include "par/b.h"\n', "src/par/b.h": '#include "sink/a.h"\n'},
                  True),
        "sink includes a reader": ({"src/xray/x.h": "",
                                    "src/sink/s.c": '#include "xray/x.h"\n'}, True),
        "unknown header": ({"src/model/m.c": '#include "nowhere/x.h"\n'}, True),
        "new folder": ({"src/newdir/n.h": "", "src/sink/s.c": '#include "newdir/n.h"\n'}, True),
    }
    for name, (files, bad) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                with open(os.path.join(d, rel), "w") as f:
                    f.write(text)
            os.makedirs(os.path.join(d, "cli"), exist_ok=True)
            got = problems(d)
        if bool(got) == bad:
            report.ok()
        else:
            report.fail(f"self-test {name}", f"expected {'a breach' if bad else 'none'}, got {got}")


def main():
    args = parse_args(("--root", {"default": REPO, "help": "the source tree (default: this one)"}))
    report = Report("layers: #include lines of src/ and cli/ against LAYERS")
    n = len(includes(args.root))
    if n < 500:
        report.fail("include lines", f"only {n} found under {args.root}: wrong tree?")
    for what, detail in problems(args.root):
        report.fail(what, detail)
    if not report.failed:
        report.ok()
    self_test(report)
    print(f"{n} include lines checked", file=sys.stderr)
    report.finish()


if __name__ == "__main__":
    main()
