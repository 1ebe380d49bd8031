"""The sink parameters documented in include/tracemux/sink.h are the ones
the table of src/sink/sink.c accepts, sink by sink: every key of the table
is named in its sink's paragraph, and every `key=` written there (outside
parentheses) is in the table (a program reads the header, not the table)."""
import os
import re

from bt2ref import Report, parse_args

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def table():
    """{sink: {key}} from src/sink/sink.c's `params[]` (SINK_TEXT -> text...)."""
    with open(os.path.join(REPO, "src", "sink", "sink.c")) as f:
        text = f.read()
    body = re.search(r"\} params\[\] = \{(.*?)\n\};", text, re.S).group(1)
    rows = text.split("sinks[] = {", 1)[1].split("\n};", 1)[0]
    names = {kind: name for name, kind in
             re.findall(r'(?:OUTPUT\(|\{ )"([\w-]+)", (SINK_\w+)', rows)}
    out = {}
    for kind, key in re.findall(r'\{ (SINK_\w+), "([\w-]+)",', body):
        out.setdefault(names[kind], set()).add(key)
    return names, out


def documented():
    """{sink: paragraph} of the header's list of sinks."""
    with open(os.path.join(REPO, "include", "tracemux", "sink.h")) as f:
        text = f.read()
    block = text.split("Sinks and their parameters", 1)[1].split("*/", 1)[0]
    out, name = {}, None
    for line in block.split("\n"):
        m = re.match(r" \*   ([\w-]+)\s{2,}(.*)", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        elif name and re.match(r" \*\s{5,}\S", line):
            out[name] += " " + line[2:].strip()
        elif name:
            name = None
    return out


def main():
    parse_args()
    report = Report("sink parameters: sink.h against sink.c's table")
    names, keys = table()
    doc = documented()
    for sink in sorted(set(names.values())):
        what = f"sink {sink}"
        if sink not in doc:
            report.fail(what, "not in sink.h's list")
            continue
        para = doc[sink]
        missing = sorted(k for k in keys.get(sink, ()) if not re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", para))
        # What is in parentheses explains (directory levels such as event=NAME).
        outside = para
        while re.search(r"\([^()]*\)", outside):
            outside = re.sub(r"\([^()]*\)", "", outside)
        extra = sorted(k for k in re.findall(r"(?<![\w-])([a-z][\w-]*)=", outside) if k not in keys.get(sink, ()))
        if missing or extra:
            report.fail(what, f"in the table, not documented: {missing}; documented, not in the table: {extra}")
        else:
            report.ok()
    report.finish()


if __name__ == "__main__":
    main()
