#!/usr/bin/env python3
"""Writes all-kinds: a CTF 2 metadata stream with every fragment kind, every
field class kind, every role, aliases (one of an alias), absolute and
relative field locations (through a variant's options, out of an array
element with `null`), optional and variant selectors of both signednesses.
test_ctf2_meta.c checks the model it gives; fuzz/run.sh seeds from it."""
import json
import os

u8 = {"type": "fixed-length-unsigned-integer", "length": 8, "byte-order": "little-endian",
      "alignment": 8}


def uint(length, role=None, bo="little-endian", **kw):
    fc = {"type": "fixed-length-unsigned-integer", "length": length, "byte-order": bo, **kw}
    if role:
        fc["roles"] = [role]
    return fc


def member(name, fc):
    return {"name": name, "field-class": fc}


def struct(*members, **kw):
    return {"type": "structure", "member-classes": list(members), **kw}


frags = [
    {"type": "preamble", "version": 2, "uuid": list(range(1, 17))},
    {"type": "field-class-alias", "name": "u8", "field-class": u8},
    {"type": "field-class-alias", "name": "pair", "field-class": struct(
        member("n", "u8"),
        member("data", {"type": "dynamic-length-array", "length-field-location": {"path": ["n"]},
                        "element-field-class": "u8"}))},
    {"type": "trace-class", "namespace": "example.org,2024", "name": "all-kinds", "uid": "uid-1",
     "environment": {"hostname": "host", "answer": 42, "neg": -7},
     "packet-header-field-class": struct(
         member("magic", uint(32, "packet-magic-number", "big-endian", alignment=8,
                              **{"preferred-display-base": 16})),
         member("uuid", {"type": "static-length-blob", "length": 16,
                         "roles": ["metadata-stream-uuid"]}),
         member("stream_id", uint(8, "data-stream-class-id", "big-endian")),
         member("stream_instance_id", {"type": "variable-length-unsigned-integer",
                                       "roles": ["data-stream-id"]}))},
    {"type": "clock-class", "id": "clk", "name": "mono", "namespace": "example.org,2024",
     "uid": "clk-uid", "frequency": 1000000000,
     "origin": {"namespace": "example.org,2024", "name": "boot", "uid": "boot-1"},
     "offset-from-origin": {"seconds": -10, "cycles": 500}, "precision": 3, "accuracy": 7,
     "description": "a clock"},
    {"type": "data-stream-class", "id": 3, "name": "dsc", "default-clock-class-id": "clk",
     "packet-context-field-class": struct(
         member("packet_size", uint(32, "packet-total-length")),
         member("content_size", uint(32, "packet-content-length")),
         member("timestamp_begin", uint(64, "default-clock-timestamp")),
         member("timestamp_end", uint(64, "packet-end-default-clock-timestamp")),
         member("events_discarded", {"type": "variable-length-unsigned-integer",
                                     "roles": ["discarded-event-record-counter-snapshot"]}),
         member("seq", uint(16, "packet-sequence-number")),
         member("ctx_len", "u8"), **{"minimum-alignment": 64}),
     "event-record-header-field-class": struct(
         member("id", uint(8, "event-record-class-id")),
         member("timestamp", uint(27, "default-clock-timestamp"))),
     "event-record-common-context-field-class": struct(
         member("sel", {"type": "fixed-length-signed-integer", "length": 8,
                        "byte-order": "little-endian"}))},
    {"type": "event-record-class", "id": 7, "data-stream-class-id": 3, "name": "scalars",
     "namespace": "ns", "uid": "erc-uid",
     "attributes": {"babeltrace.org,2020": {"log-level": "warning",
                                            "emf-uri": "https://example.org/scalars"}},
     "payload-field-class": struct(
         member("bits", {"type": "fixed-length-bit-array", "length": 12, "byte-order": "big-endian",
                         "bit-order": "first-to-last"}),
         member("flags", {"type": "fixed-length-bit-map", "length": 8, "byte-order": "little-endian",
                          "flags": {"A": [[0, 0]], "B": [[1, 3], [7, 7]]}}),
         member("flag", {"type": "fixed-length-boolean", "length": 1, "byte-order": "little-endian"}),
         member("e", uint(7, **{"preferred-display-base": 2,
                                "mappings": {"LOW": [[0, 9]], "HIGH": [[10, 127]]}})),
         member("s", {"type": "fixed-length-signed-integer", "length": 64, "byte-order": "big-endian",
                      "alignment": 32, "mappings": {"NEG": [[-9223372036854775808, -1]]}}),
         member("f32", {"type": "fixed-length-floating-point-number", "length": 32,
                        "byte-order": "little-endian"}),
         member("f64", {"type": "fixed-length-floating-point-number", "length": 64,
                        "byte-order": "big-endian", "alignment": 64}),
         member("vu", {"type": "variable-length-unsigned-integer",
                       "mappings": {"BIG": [[128, 18446744073709551615]]}}),
         member("vs", {"type": "variable-length-signed-integer", "preferred-display-base": 8}))},
    {"type": "event-record-class", "id": 2, "data-stream-class-id": 3, "name": "compound",
     "attributes": {"lttng.org,2009": {"log-level": "debug:line"}},
     "specific-context-field-class": struct(
         member("present", {"type": "fixed-length-boolean", "length": 8,
                            "byte-order": "little-endian"})),
     "payload-field-class": struct(
         member("nt", {"type": "null-terminated-string", "encoding": "utf-16le"}),
         member("sl", {"type": "static-length-string", "length": 8, "encoding": "utf-32be"}),
         member("dl", {"type": "dynamic-length-string", "length-field-location":
                       {"origin": "packet-context", "path": ["ctx_len"]}}),
         member("sb", {"type": "static-length-blob", "length": 3, "media-type": "text/plain"}),
         member("db", {"type": "dynamic-length-blob", "length-field-location":
                       {"origin": "packet-context", "path": ["ctx_len"]}}),
         member("p", "pair"),
         member("arr", {"type": "static-length-array", "length": 2, "minimum-alignment": 16,
                        "element-field-class": "pair"}),
         member("opt", {"type": "optional", "field-class": "u8", "selector-field-location":
                        {"origin": "event-record-specific-context", "path": ["present"]}}),
         member("iopt", {"type": "optional", "field-class": {"type": "null-terminated-string"},
                         "selector-field-location": {"origin": "event-record-common-context",
                                                     "path": ["sel"]},
                         "selector-field-ranges": [[-5, -1], [3, 3]]}),
         member("v", {"type": "variant", "selector-field-location":
                      {"origin": "event-record-common-context", "path": ["sel"]},
                      "options": [
                          {"name": "neg", "selector-field-ranges": [[-128, -1]],
                           "field-class": struct(member("len", "u8"))},
                          {"selector-field-ranges": [[0, 0]],
                           "field-class": struct(member("len", {
                               "type": "variable-length-unsigned-integer"}))}]}),
         member("after", {"type": "dynamic-length-array",
                          "length-field-location": {"path": ["v", "len"]},
                          "element-field-class": struct(
                              member("k", "u8"),
                              member("inner", {"type": "dynamic-length-blob",
                                               "length-field-location":
                                               {"path": [None, "p", "n"]}}))}))},
]

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "all-kinds")
with open(out, "w") as f:
    for frag in frags:
        f.write("\x1e" + json.dumps(frag, indent=1) + "\n")
