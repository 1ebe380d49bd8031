"""`tracemux query --json`: valid JSON (RFC 8259: UTF-8, escaped control
characters, port names escaped) holding what babeltrace2's queries give.

- metadata-info: the JSON's `text` is, character for character, the text
  babeltrace2 2.0.4's `query src.ctf.fs metadata-info` prints (newlines
  and tabs escaped in the JSON), `is-packetized` its yes/no;
- trace-infos and support-info: JSON a strict parser reads, with the port
  names and ranges of the text form;
- a trace in a directory whose name is not UTF-8: the JSON is still UTF-8,
  the byte written as the code point of its value (\\u00ff), as every JSON
  output of the library writes such bytes (tmx_json_escape).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from bt2ref import Report, parse_args, run, tool

TRACES = ["wk-heartbeat-u", "smalltrace", "trace-with-index", "succeed1", "meta-variant-same-with-underscore",
          "sequence"]


def strict_json(data):
    """The document, read as RFC 8259 asks: UTF-8 bytes, no raw control characters."""
    return json.loads(data.decode("utf-8", "strict"), strict=True)


def check_metadata(report, args, bt2, trace):
    what = f"metadata-info {os.path.basename(trace)}"
    p = subprocess.run([bt2, "query", "src.ctf.fs", "metadata-info", "-p", f'path="{trace}"'],
                       capture_output=True)
    m = re.match(rb"is-packetized: (yes|no)\ntext: (.*)\n\Z", p.stdout, re.S)
    if p.returncode != 0 or not m:
        report.fail(what, f"babeltrace2 exit {p.returncode}: {p.stdout[:200]!r} {p.stderr[-300:]!r}")
        return
    code, out, err = run(args.tracemux, ["query", "--json", "metadata-info", trace])
    try:
        got = strict_json(out)
    except ValueError as e:
        report.fail(what, f"exit {code}, not JSON: {e}; {out[:200]!r} {err[-200:]!r}")
        return
    expected = {"is-packetized": m.group(1) == b"yes", "text": m.group(2).decode("utf-8")}
    if code != 0 or got != expected:
        report.fail(what, f"exit {code}: is-packetized {got.get('is-packetized')!r} vs "
                          f"{expected['is-packetized']!r}, text equal: {got.get('text') == expected['text']}")
        return
    if b"\\n" not in out:
        report.fail(what, "the text's newlines are not escaped as \\n")
        return
    report.ok()


def text_ports(text):
    """(port-name, begin, end) of `query trace-infos`'s text form."""
    return re.findall(r"port-name: (.*)\n(?:\s*range-ns: \n\s*begin: (-?\d+)\n\s*end: (-?\d+)\n)?", text)


def check_trace_infos(report, args, trace, what):
    code_t, text, _ = run(args.tracemux, ["query", "trace-infos", trace])
    code, out, err = run(args.tracemux, ["query", "--json", "trace-infos", trace])
    try:
        got = strict_json(out)
    except ValueError as e:
        report.fail(what, f"exit {code}, not JSON: {e}; {out[:300]!r} {err[-200:]!r}")
        return None
    ports = [(s["port-name"], str(s["range-ns"]["begin"]) if "range-ns" in s else "",
              str(s["range-ns"]["end"]) if "range-ns" in s else "")
             for t in got for s in t["stream-infos"]]
    expected = text_ports(text.decode("utf-8", "surrogateescape"))
    # The text form writes the path's bytes as they are, the JSON their code points.
    expected = [(p.encode("utf-8", "surrogateescape").decode("latin-1")
                 if "\udcff" in p else p, b, e) for p, b, e in expected]
    if code != 0 or code_t != 0 or not ports or ports != expected:
        report.fail(what, f"exit {code}/{code_t}: {ports[:2]} vs {expected[:2]}")
        return None
    report.ok()
    return got


def main():
    args = parse_args()
    report = Report("query --json")
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    base = os.path.join(args.corpus, "babeltrace-tests", "ctf-traces", "succeed")
    for name in TRACES:
        trace = os.path.join(base, name)
        check_metadata(report, args, bt2, trace)
        check_trace_infos(report, args, trace, f"trace-infos {name}")
        code, out, err = run(args.tracemux, ["query", "--json", "support-info", trace])
        try:
            doc = strict_json(out)
            ok = code == 0 and doc["weight"] > 0 and doc.get("group", "") in out.decode()
        except (ValueError, KeyError, TypeError):
            ok = False
        if ok:
            report.ok()
        else:
            report.fail(f"support-info {name}", f"exit {code}: {out[:200]!r} {err[-200:]!r}")

    work = tempfile.mkdtemp(prefix="tracemux-query-")
    try:
        trace = os.path.join(os.fsencode(work), b"t\xff")
        shutil.copytree(os.fsencode(os.path.join(base, "smalltrace")), trace)
        got = check_trace_infos(report, args, os.fsdecode(trace), "trace-infos of a directory not in UTF-8")
        if got is not None:
            code, out, _ = run(args.tracemux, ["query", "--json", "trace-infos", os.fsdecode(trace)])
            if b"t\\u00ff" in out and b"\xff" not in out:
                report.ok()
            else:
                report.fail("non-UTF-8 byte as \\u00ff", repr(out[:300]))
    finally:
        shutil.rmtree(work)
    report.finish()


if __name__ == "__main__":
    main()
