"""CTF 2 metadata checked against the specification (CTF2-SPEC-2.0rB) by
tests/golden/ctf2spec.py, a validator written from the spec.

(a) The validator against real metadata: every metadata stream of a
    ../shared/corpus/ctf2 trace that babeltrace 2.1.2 accepts (X.bt21.rc is
    0) must validate; the traces it rejects for metadata reasons
    (bt-tests/2/fail/meta-*) must be reported invalid with the reason.  The
    other non-zero ones (a data error, babeltrace crashes on valid CTF 2,
    INDEX.md "defects") must validate, each for the reason noted in
    OTHER_NONZERO.
(b) Mutations: deliberate mistakes applied to valid metadata must each be
    reported with a relevant message (so the validator can fail).  The field
    location examples of the spec (§6.4.2 Examples 87-92, §5.3.23 Example 63)
    must validate, and mistakes in them be found.
(c) The writer: `tracemux -o ctf --ctf-version=2` on CTF 1.8 traces, the CTF 2
    corpus, trace.dat files and XRay logs; every metadata stream it writes
    must validate.
"""
import concurrent.futures
import copy
import json
import os
import re
import shutil
import tempfile

import ctf2spec
from bt2ref import Report, parse_args, run
from test_ctf_writer import other_inputs
from test_ctf_writer import traces as ctf1_traces

RS = "\x1e"

# ctf2 traces babeltrace 2.1.2 rejects (rc != 0) whose metadata is valid:
# trace -> why (the validator must accept their metadata).
OTHER_NONZERO = {
    # An event record class with no field class at all: the error is in the
    # data (§4.2.2: an event record MUST contain one or more bits), the
    # metadata itself breaks no rule.
    "bt-tests/2/fail/empty-event-record": "data error, valid metadata",
    # babeltrace 2.1.2 aborts on a static-length BLOB of length 0, which
    # §5.3.16 allows (length >= 0).
    "handmade/static-blob-len0": "bt21 crash on valid CTF 2",
    # An optional with a boolean selector that also has
    # `selector-field-ranges`: §5.3.22 requires them only for integer
    # selectors and forbids them nowhere; babeltrace 2.1.2 fails an assertion.
    "synthetic/bt2py-all-field-classes-unpatched": "bt21 crash on valid CTF 2",
}
# meta-* failures: the message (regex) the validator must give.
META_FAIL = re.compile(r"no data stream class fragment")

# A few of each of the other formats keep the run short.
OTHER_PICK = ("tracecmd-samples/sched-v7-zstd.dat", "tracecmd-samples/multibuf-v7-zstd.dat",
              "tracecmd-samples/sched-v6.dat", "xray-samples/basic-v3-small.xray",
              "xray-samples/fdr-v5-small.xray", "xray-samples/fdr-v5-tinybuf-dropped.xray")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def metadata_files(trace_dir):
    out = []
    for root, dirs, files in os.walk(trace_dir):
        dirs.sort()
        if "metadata" in files:
            out.append(os.path.join(root, "metadata"))
    return out


def ctf2_traces(ctf2):
    """(relative name, path, babeltrace 2.1.2 exit status) of every trace."""
    found = []
    for root, dirs, files in os.walk(ctf2):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".bt21.rc"):
                rel = os.path.relpath(os.path.join(root, f[: -len(".bt21.rc")]), ctf2)
                path = os.path.join(ctf2, rel)
                if os.path.isdir(path):
                    with open(os.path.join(root, f)) as fh:
                        found.append((rel, path, fh.read().strip()))
    return found


def show(errors, n=8):
    return "\n".join("    " + e for e in errors[:n]) + (f"\n    ... {len(errors) - n} more" if len(errors) > n else "")


def check_corpus(report, ctf2):
    totals = {}
    for rel, path, rc in ctf2_traces(ctf2):
        metas = metadata_files(path)
        if not metas:
            report.fail(f"corpus {rel}: no metadata file")
            continue
        results = []
        for m in metas:
            v = ctf2spec.check(read(m))
            for k, x in v.stats.items():
                totals[k] = totals.get(k, 0) + x
            results.append((os.path.relpath(m, ctf2), v.errors))
        bad = [(m, e) for m, e in results if e]
        if rel.startswith("bt-tests/2/fail/meta-"):
            if not bad:
                report.fail(f"corpus {rel}: babeltrace 2.1.2 rejects its metadata (rc {rc}), the validator "
                            f"found no error")
            elif not any(META_FAIL.search(x) for _, e in bad for x in e):
                report.fail(f"corpus {rel}: invalid, but not for the expected reason ({META_FAIL.pattern})",
                            show(bad[0][1]))
            else:
                report.ok()
            continue
        if rc != "0" and rel not in OTHER_NONZERO:
            report.fail(f"corpus {rel}: babeltrace 2.1.2 exit status {rc}, not explained in OTHER_NONZERO")
            continue
        if bad:
            for m, e in bad:
                report.fail(f"corpus {m}: valid for babeltrace 2.1.2 (rc {rc}), the validator says",
                            show(e))
        else:
            report.ok()
    # The corpus must have exercised the checks, or "valid" means nothing.
    for k, minimum in (("fragments", 300), ("field classes", 1000), ("locations", 100), ("roles", 300)):
        if totals.get(k, 0) < minimum:
            report.fail(f"corpus: only {totals.get(k, 0)} {k} checked (expected >= {minimum})")
    print(f"corpus: checked {totals}")


# -- (b) mutations -----------------------------------------------------------

def parse(data):
    return [json.loads(x) for x in data.decode("utf-8").split(RS)[1:]]


def dump(frags):
    return "".join(RS + json.dumps(f, indent=1) + "\n" for f in frags).encode("utf-8")


def erc(frags, name):
    return next(f for f in frags if f.get("type") == "event-record-class" and f.get("name") == name)


def frag(frags, ftype):
    return next(f for f in frags if f.get("type") == ftype)


def member(struct, name):
    return next(m for m in struct["member-classes"] if m["name"] == name)


def payload_member(frags, ev, name):
    return member(erc(frags, ev)["payload-field-class"], name)


def m_set(path_fn, key, value):
    def mutate(frags):
        path_fn(frags)[key] = value
    return mutate


def m_del(path_fn, key):
    def mutate(frags):
        del path_fn(frags)[key]
    return mutate


def mutations():
    """(name, mutation of the edge-cases fragments, expected message regex)."""
    db = lambda f: payload_member(f, "blobs", "db")["field-class"]  # noqa: E731
    hdr = lambda f: frag(f, "trace-class")["packet-header-field-class"]  # noqa: E731
    dsc = lambda f: frag(f, "data-stream-class")  # noqa: E731

    def move(ftype, after):
        def mutate(frags):
            f = frag(frags, ftype)
            frags.remove(f)
            frags.insert(frags.index(frag(frags, after)) + 1, f)
        return mutate

    def magic_in_payload(frags):
        payload_member(frags, "blobs", "dlen")["field-class"] = {
            "type": "fixed-length-unsigned-integer", "length": 32, "byte-order": "little-endian",
            "roles": ["packet-magic-number"]}

    def dup_member(frags):
        payload_member(frags, "strings", "slen16")["name"] = "slen"

    def insert(obj, pos):
        def mutate(frags):
            frags.insert(pos, obj)
        return mutate

    def swap_header(frags):
        ms = hdr(frags)["member-classes"]
        ms[0], ms[1] = ms[1], ms[0]

    def ctx_array_to_payload(frags):
        dsc(frags)["packet-context-field-class"]["member-classes"].append({
            "name": "later", "field-class": {
                "type": "dynamic-length-array", "element-field-class": "u8",
                "length-field-location": {"origin": "event-record-payload", "path": ["dlen"]}}})

    def through_array(frags):
        erc(frags, "aliases")["payload-field-class"]["member-classes"].append({
            "name": "bad", "field-class": {
                "type": "dynamic-length-string",
                "length-field-location": {"origin": "event-record-payload", "path": ["pts", "x"]}}})

    def string_in_header(frags):
        hdr(frags)["member-classes"].append({"name": "note", "field-class": {"type": "null-terminated-string"}})

    def dup_dsc(frags):
        frags.append(copy.deepcopy(dsc(frags)))

    def variant_sel(frags):
        payload_member(frags, "variant-signed-selector", "sel")["field-class"] = {
            "type": "fixed-length-boolean", "length": 8, "byte-order": "little-endian"}

    def optional_int_sel(frags):
        payload_member(frags, "optional-bool-selector", "present")["field-class"] = "u8"

    def overlap(frags):
        opts = payload_member(frags, "variant-signed-selector", "v")["field-class"]["options"]
        opts[1]["selector-field-ranges"] = [[-5, 127]]

    return [
        ("missing type of a field class", m_del(db, "type"),
         r"\$\.payload-field-class\.member-classes\[1\]\.field-class: missing required property 'type'"),
        ("location to a nonexistent field", m_set(db, "length-field-location",
                                                 {"origin": "event-record-payload", "path": ["nolen"]}),
         r"no member named 'nolen'"),
        ("packet-magic-number role on an event payload field", magic_in_payload,
         r"role 'packet-magic-number' is not allowed in the event record payload"),
        ("role on a wrong field class (uint role on a BLOB)",
         m_set(lambda f: member(hdr(f), "uuid")["field-class"], "roles", ["data-stream-class-id"]),
         r"role 'data-stream-class-id' requires a fixed-length or variable-length unsigned integer"),
        ("packet-magic-number on a 16-bit integer",
         m_set(lambda f: member(hdr(f), "magic")["field-class"], "length", 16),
         r"requires a fixed-length-unsigned-integer field class with length 32"),
        ("packet-magic-number not first", swap_header, r"must be the first member of the packet header"),
        ("metadata-stream-uuid without preamble uuid", m_del(lambda f: f[0], "uuid"),
         r"requires the preamble fragment's 'uuid'"),
        ("clock timestamp role without default clock", m_del(dsc, "default-clock-class-id"),
         r"role 'default-clock-timestamp' requires the data stream class to have a 'default-clock-class-id'"),
        ("wrong property type", m_set(lambda f: frag(f, "clock-class"), "frequency", "1000"),
         r"\$\.frequency: must be a JSON integer, not string"),
        ("duplicate member name", dup_member, r"duplicate member name 'slen'"),
        ("unknown fragment type", insert({"type": "stream-class", "id": 3}, 3),
         r"unknown fragment type \"stream-class\""),
        ("dangling clock class id", m_set(dsc, "default-clock-class-id", "nope"),
         r"no clock class fragment with id 'nope' occurs before"),
        ("clock class after its data stream class", move("clock-class", "data-stream-class"),
         r"no clock class fragment with id 'clk' occurs before"),
        ("trace class after a data stream class", move("trace-class", "data-stream-class"),
         r"trace class fragment must occur before any data stream class"),
        ("preamble not first", lambda f: f.insert(0, f.pop(1)),
         r"the first fragment must be a preamble fragment"),
        ("event record class of a missing data stream class",
         m_set(lambda f: erc(f, "bits"), "data-stream-class-id", 7),
         r"no data stream class fragment with id 7 \(the parent\)"),
        ("alias used before its definition", move("field-class-alias", "event-record-class"),
         r"no field class alias named 'u8' occurs before"),
        ("duplicate alias name", insert({"type": "field-class-alias", "name": "u8",
                                         "field-class": {"type": "null-terminated-string"}}, 2),
         r"field class alias name 'u8' already defined"),
        ("duplicate data stream class id", dup_dsc, r"data stream class id 0 already used"),
        ("duplicate event record class id", m_set(lambda f: erc(f, "bits"), "id", 1),
         r"another event record class already has id 1"),
        ("length field is a signed integer",
         m_set(lambda f: payload_member(f, "varints", "arr")["field-class"], "length-field-location",
               {"origin": "event-record-payload", "path": ["vs"]}),
         r"reaches a variable-length-signed-integer .*a length field must be a fixed-length or "
         r"variable-length unsigned integer"),
        ("length field after the using field",
         m_set(lambda f: payload_member(f, "strings", "ds")["field-class"], "length-field-location",
               {"origin": "event-record-payload", "path": ["slen16"]}),
         r"member 'slen16' .* comes after the field using it"),
        ("location origin decoded later", ctx_array_to_payload,
         r"origin 'event-record-payload' is decoded after the packet context"),
        ("location through an array not being decoded", through_array,
         r"goes through the static-length-array .* not being decoded"),
        ("variant selector is a boolean", variant_sel,
         r"selector field location .* reaches fixed-length-boolean .* must be all unsigned integers or all "
         r"signed integers"),
        ("optional with integer selector without ranges", optional_int_sel,
         r"must have 'selector-field-ranges'"),
        ("overlapping variant option ranges", overlap, r"intersects range \[-128, -1\] of option 0"),
        ("alignment not a power of two",
         m_set(lambda f: payload_member(f, "aliases", "f32")["field-class"], "alignment", 12),
         r"alignment: must be a positive power of two, not 12"),
        ("floating point length 24",
         m_set(lambda f: payload_member(f, "aliases", "f32")["field-class"], "length", 24),
         r"must be 16, 32, 64, 128 or a multiple of 32 greater than 128, not 24"),
        ("unknown field class property",
         m_set(lambda f: payload_member(f, "bits", "be4")["field-class"], "signed", False),
         r"unknown property 'signed' for a fixed-length-unsigned-integer field class"),
        ("roles on a signed integer",
         m_set(lambda f: payload_member(f, "variant-signed-selector", "sel")["field-class"], "roles", []),
         r"unknown property 'roles' for a fixed-length-signed-integer field class"),
        ("preamble version 1", m_set(lambda f: f[0], "version", 1), r"\$\.version: must be the JSON integer 2"),
        ("undeclared extension", m_set(lambda f: erc(f, "bits"), "extensions", {"my.ns": {"x": 1}}),
         r"extension 'my.ns'/'x' is not declared in the preamble"),
        ("header field with no role", string_in_header,
         r"a field class in the packet header must have a valid role"),
        ("reversed integer range",
         m_set(lambda f: payload_member(f, "varints", "vu")["field-class"], "mappings", {"A": [[5, 1]]}),
         r"upper bound 1 is less than lower bound 5"),
        ("invalid byte order",
         m_set(lambda f: payload_member(f, "bits", "be4")["field-class"], "byte-order", "middle-endian"),
         r"byte-order: must be one of \"big-endian\", \"little-endian\""),
        ("origin scope that does not exist", m_set(db, "length-field-location",
                                                  {"origin": "event-record-specific-context", "path": ["dlen"]}),
         r"there is no event record specific context structure"),
        ("empty location path", m_set(db, "length-field-location", {"path": []}),
         r"a field location path must not be empty"),
    ]


def check_mutations(report, ctf2, verbose=False):
    base_path = os.path.join(ctf2, "handmade", "edge-cases", "metadata")
    base = parse(read(base_path))
    errors = ctf2spec.validate(dump(base))
    if errors:
        report.fail("mutations: the unmutated edge-cases metadata is not valid", show(errors))
        return
    names = set()
    for name, mutate, expect in mutations():
        names.add(name)
        frags = copy.deepcopy(base)
        mutate(frags)
        if frags == base:
            report.fail(f"mutation '{name}': changed nothing")
            continue
        errors = ctf2spec.validate(dump(frags))
        if not errors:
            report.fail(f"mutation '{name}': the validator found no error")
        elif not any(re.search(expect, e) for e in errors):
            report.fail(f"mutation '{name}': no error matches /{expect}/", show(errors))
        else:
            report.ok()
            if verbose:
                print(f"mutation '{name}':\n    " + next(e for e in errors if re.search(expect, e)))
    # Not a JSON text sequence of fragments at all.
    raw = [("packetized metadata", b"\x57\x1d\xd1\x75" + b"\0" * 40, r"packetized metadata .* is CTF 1\.8's"),
           ("no RS", b'{"type": "preamble", "version": 2}\n', r"does not start with RS"),
           ("broken JSON", dump(base)[:-40] + b"\n", r"invalid JSON"),
           ("duplicate JSON key", RS.encode() + b'{"type": "preamble", "version": 2, "version": 2}\n',
            r"duplicate property name 'version'")]
    for name, data, expect in raw:
        names.add(name)
        errors = ctf2spec.validate(data)
        if not any(re.search(expect, e) for e in errors):
            report.fail(f"mutation '{name}': no error matches /{expect}/", show(errors))
        else:
            report.ok()
    if len(names) < 12:
        report.fail(f"only {len(names)} distinct mutations")


# -- spec examples: the field location examples of §6.4.2 must validate -----

def u(n, bo="little-endian"):
    return {"type": "fixed-length-unsigned-integer", "length": n, "byte-order": bo}


def st(*members):
    return {"type": "structure", "member-classes": [{"name": n, "field-class": fc} for n, fc in members]}


NTS = {"type": "null-terminated-string"}


def dla(loc):
    return {"type": "dynamic-length-array", "length-field-location": loc, "element-field-class": NTS}


def var(loc, *opts):
    return {"type": "variant", "selector-field-location": loc,
            "options": [{"selector-field-ranges": r, "field-class": fc} for r, fc in opts]}


def spec_examples():
    """Event record classes of Examples 87-92 and 63 (payloads as in the
    spec), one data stream class whose common context has `sel`, plus a
    relative location going up with null (as in Example 6)."""
    pay = lambda *path: {"origin": "event-record-payload", "path": list(path)}  # noqa: E731
    ex87 = st(("corn", u(32)), ("inside", u(16)), ("carbon", dla(pay("corn"))))
    ex88 = st(("norm", NTS), ("nature", {"type": "static-length-array", "length": 43, "element-field-class":
                                         st(("laser", {"type": "variable-length-unsigned-integer"}),
                                            ("joystick", dla({"path": ["laser"]})))}))
    ex89 = st(("lawyer", {"type": "fixed-length-signed-integer", "length": 16, "byte-order": "little-endian"}),
              ("clinic", var(pay("lawyer"), ([[0, 0]], NTS),
                             ([[1, 4]], st(("lemon", u(8, "big-endian")),
                                           ("joystick", dla(pay("clinic", "lemon"))))),
                             ([[5, 5], [7, 7]], {"type": "fixed-length-boolean", "length": 8,
                                                 "byte-order": "little-endian"}))))
    spec_sel = {"origin": "event-record-specific-context", "path": ["sel"]}
    ex90 = st(("glass", var(spec_sel, ([[0, 0]], u(8)), ([[1, 1]], u(16)), ([[2, 2]], u(32)))),
              ("margin", dla(pay("glass"))))
    common_sel = {"origin": "event-record-common-context", "path": ["sel"]}
    ex91 = st(("glass", var(common_sel,
                            ([[0, 0]], st(("eagle", u(16)), ("road", NTS))),
                            ([[32, 172]], st(("nuance", NTS), ("eagle", u(24, "big-endian")))),
                            ([[5, 5]], st(("eagle", {"type": "variable-length-unsigned-integer"}),
                                          ("lock", {"type": "dynamic-length-blob",
                                                    "length-field-location": pay("glass", "eagle")}))))),
              ("margin", dla(pay("glass", "eagle"))))
    ex92_ctx = st(("cook", {"type": "fixed-length-floating-point-number", "length": 64,
                            "byte-order": "little-endian"}),
                  ("vegetable", {"type": "variable-length-unsigned-integer"}))
    ex92 = st(("avenue", dla({"origin": "event-record-specific-context", "path": ["vegetable"]})),
              ("railroad", NTS))
    ex63 = st(("sel", u(8)), ("o", {"type": "optional", "selector-field-location": pay("sel"),
                                    "selector-field-ranges": [[1, 255]],
                                    "field-class": var(pay("sel"), ([[1, 1]], NTS),
                                                       ([[2, 2]], {"type": "variable-length-signed-integer"}))}))
    up = st(("n", u(8)), ("inner", st(("deeper", st(("s", dla({"path": [None, None, "n"]})))))))
    ercs = [{"payload-field-class": ex87}, {"payload-field-class": ex88}, {"payload-field-class": ex89},
            {"specific-context-field-class": st(("sel", u(8))), "payload-field-class": ex90},
            {"payload-field-class": ex91},
            {"specific-context-field-class": ex92_ctx, "payload-field-class": ex92},
            {"payload-field-class": ex63}, {"payload-field-class": up}]
    frags = [{"type": "preamble", "version": 2}, {"type": "trace-class"},
             {"type": "data-stream-class", "event-record-common-context-field-class": st(("sel", u(8)))}]
    for i, e in enumerate(ercs):
        frags.append(dict({"type": "event-record-class", "id": i}, **e))
    return frags


def check_spec_examples(report):
    base = spec_examples()
    errors = ctf2spec.validate(dump(base))
    if errors:
        report.fail("spec examples 63, 87-92: the validator rejects them", show(errors))
    else:
        report.ok()

    def ex91(frags):
        return frags[3 + 4]["payload-field-class"]["member-classes"][0]["field-class"]["options"]

    def no_eagle(frags):  # an option whose structure has no `eagle`
        ex91(frags)[1]["field-class"]["member-classes"][1]["name"] = "owl"

    def signed_eagle(frags):
        ex91(frags)[0]["field-class"]["member-classes"][0]["field-class"]["type"] = "fixed-length-signed-integer"

    def blob_other_option(frags):  # `lock` reaching `eagle` of another option than its own
        ex91(frags)[2]["field-class"]["member-classes"][0]["name"] = "hawk"

    def up_too_far(frags):
        frags[3 + 7]["payload-field-class"]["member-classes"][1]["field-class"]["member-classes"][0][
            "field-class"]["member-classes"][0]["field-class"]["length-field-location"]["path"] = \
            [None, None, None, "n"]

    for name, mutate, expect in [
            ("variant option without the member", no_eagle, r"no member named 'eagle'"),
            ("a possible length field is signed", signed_eagle,
             r"reaches a fixed-length-signed-integer .*a length field must be"),
            ("location into the variant option being decoded", blob_other_option,
             r"\.options\[2\]\.field-class\.member-classes\[1\]\.field-class\.length-field-location: .*"
             r"no member named 'eagle'"),
            ("null above the root", up_too_far, r"path\[2\] is null but no structure contains")]:
        frags = copy.deepcopy(base)
        mutate(frags)
        errors = ctf2spec.validate(dump(frags))
        if not any(re.search(expect, e) for e in errors):
            report.fail(f"spec example mutation '{name}': no error matches /{expect}/", show(errors))
        else:
            report.ok()


# -- robustness: random damage never makes the validator raise ---------------

JUNK = [None, True, 0, -1, 1.5, "x", "unix-epoch", [], {}, [None], ["a"], [[1, 0]], {"a": 1}, 2 ** 70,
        "structure", {"type": "structure"}, {"type": "variant"}, {"path": [None]},
        {"origin": "packet-header", "path": ["magic"]}]


def check_robustness(report, ctf2, rounds=400):
    import random
    rnd = random.Random(25)
    files = [m for _, p, _ in ctf2_traces(ctf2) for m in metadata_files(p)]
    bases = [parse(read(f)) for f in files]
    crashes = []
    for _ in range(rounds):
        frags = copy.deepcopy(rnd.choice(bases))
        for _ in range(rnd.randint(1, 3)):
            spots = []

            def collect(o):
                items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
                for k, v in list(items):
                    spots.append((o, k))
                    collect(v)
            collect(frags)
            parent, key = rnd.choice(spots)
            r = rnd.random()
            if r < 0.4:
                del parent[key]
            elif r < 0.5 and isinstance(parent, list):
                parent.insert(rnd.randrange(len(parent) + 1), copy.deepcopy(parent[key]))
            else:
                parent[key] = copy.deepcopy(rnd.choice(JUNK))
        data = dump(frags)
        try:
            errors = ctf2spec.validate(data)
            if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
                crashes.append(("bad result", data))
        except Exception as e:  # noqa: BLE001 - any exception is the failure
            crashes.append((repr(e), data))
    if crashes:
        report.fail(f"robustness: {len(crashes)} of {rounds} damaged metadata streams made the validator raise",
                    f"    {crashes[0][0]}\n    {crashes[0][1][:300]!r}")
    else:
        report.ok()


# -- (c) the writer ------------------------------------------------------------

def writer_inputs(corpus):
    out = [(f"ctf1/{k}", p) for k, p in ctf1_traces(corpus)]
    ctf2 = os.path.join(corpus, "ctf2")
    out += [(f"ctf2/{rel}", p) for rel, p, rc in ctf2_traces(ctf2) if rc == "0"]
    others = dict(other_inputs(corpus))
    for key in OTHER_PICK:
        if key not in others:
            raise SystemExit(f"test_ctf2spec: input {key} missing from the corpus")
        out.append((key, others[key]))
    return out


def write_and_check(tracemux, tmp, key, path):
    out_dir = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", key))
    rc, _, err = run(tracemux, ["-o", "ctf", "--ctf-version=2", "-w", out_dir, path])
    if rc != 0:
        return key, f"tracemux exit status {rc}: {err.decode(errors='replace')[-400:]}", [], []
    metas = metadata_files(out_dir)
    results, notes = [], []
    for m in metas:
        v = ctf2spec.check(read(m))
        results.append((os.path.relpath(m, out_dir), v.errors))
        notes += v.notes
    shutil.rmtree(out_dir, ignore_errors=True)
    return key, None if metas else "no metadata written", results, notes


def check_writer(report, tracemux, corpus):
    inputs = writer_inputs(corpus)
    tmp = tempfile.mkdtemp(prefix="tmx-ctf2spec-")
    n_meta = 0
    notes = []
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            jobs = [pool.submit(write_and_check, tracemux, tmp, k, p) for k, p in inputs]
            for job in jobs:
                key, problem, results, n = job.result()
                notes += n
                if problem:
                    report.fail(f"writer {key}: {problem}")
                    continue
                bad = False
                for m, errors in results:
                    n_meta += 1
                    if errors:
                        bad = True
                        report.fail(f"writer {key}: {m} violates CTF2-SPEC-2.0", show(errors, 12))
                if not bad:
                    report.ok()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"writer: {len(inputs)} inputs, {n_meta} metadata streams validated")
    if notes:
        print(f"writer notes (not errors), {len(notes)} like: {notes[0]}")


def main():
    args = parse_args()
    report = Report("ctf2spec")
    ctf2 = os.path.join(args.corpus, "ctf2")
    check_corpus(report, ctf2)
    check_mutations(report, ctf2, args.verbose)
    check_spec_examples(report)
    check_robustness(report, ctf2)
    check_writer(report, args.tracemux, args.corpus)
    report.finish()


if __name__ == "__main__":
    main()
