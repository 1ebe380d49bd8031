"""A validator of CTF 2 metadata streams, written from the specification
CTF2-SPEC-2.0rB (../shared/spec/ctf2-spec-2.0rB.md), not from tracemux.

    errors = validate(data)        # data: the bytes of a metadata stream
    errors = validate_file(path)

returns a list of error strings, empty when the stream is valid.  Each names
the fragment (index and type), a JSON path in it and what is wrong, with the
spec section that says so, for example:

    fragment 3 (data-stream-class) $.packet-context-field-class
    .member-classes[1].field-class: role 'packet-magic-number' is not allowed
    in the packet context [§5.8.1]

What it checks (section numbers of the spec):
- §5, RFC 7464: the stream is a JSON text sequence, each text preceded by
  one RS (U+001E) and followed by LF, UTF-8, each a JSON object.  CTF 2
  defines no packetized metadata (that is CTF 1.8's); such a file is refused.
- §5: fragment kinds and order: a preamble first and only there, at most one
  trace class, one or more data stream classes, all after the trace class
  (§5.6), a clock class before the data stream class naming it (§5.7, §5.8),
  the parent data stream class before each event record class (§5.9),
  unique clock class ids, data stream class ids, (data stream class id, id)
  of event record classes and field class alias names (§5.5), aliases used
  only after they are defined, root scopes structures (§5.3).
- Every fragment's and every field class's properties: required ones
  present, JSON types, allowed values, no property the spec does not list
  for the object (§5 "its allowed properties depend on its type property";
  additions go in `attributes`/`extensions`, §5.1, §5.2), extensions
  declared in the preamble (§5.1), integer range sets (§5.3.2), powers of
  two for alignments, float lengths (§5.3.9), unique member names (§5.3.18),
  unique variant option names and non-intersecting option ranges (§5.3.23),
  clock origin/offset (§5.7.1, §5.7.2), clock identity consistency (§5.7).
- Field locations (§5.3.1, §6.4.2) resolved statically in the context where
  the field class is used (aliases are expanded at each use): the origin
  scope must exist and be decoded before or be the current scope; each path
  element must name an existing member already decoded (or, for a
  structure/array/variant/optional enclosing the using field, currently being
  decoded); `null` goes to the enclosing structure; through a variant or an
  optional every possible field class is followed (only the one enclosing the
  using field when the variant is being decoded); an array may only be
  crossed when it encloses the using field.  The located field classes must
  all be unsigned integers for a length (§5.3.14, §5.3.17, §5.3.21), all
  booleans, all unsigned or all signed integers for an optional's selector
  (§5.3.22, with `selector-field-ranges` then required for integers), all
  unsigned or all signed integers for a variant's selector (§5.3.23).
- Roles (§5.3.3, §5.6.1, §5.8.1): only the roles of the table of the scope
  (packet header, packet context, event record header; none elsewhere), on
  the field classes the table allows, with the other constraints
  (packet-magic-number: 32-bit fixed-length unsigned integer, first member
  of the packet header; metadata-stream-uuid: static-length BLOB of 16 bytes
  and a preamble `uuid`; clock timestamps: a `default-clock-class-id`).
- §5.6, §5.8: every field class in a packet header or event record header
  has a valid role, is a structure/optional/variant, or is the selector of
  an optional or variant of the same packet/event record.
"""
import json
import re
import sys

RS = "\x1e"

FRAGMENT_TYPES = ("preamble", "field-class-alias", "trace-class", "clock-class",
                  "data-stream-class", "event-record-class")

SCOPES = ("packet-header", "packet-context", "event-record-header",
          "event-record-common-context", "event-record-specific-context",
          "event-record-payload")
SCOPE_PROPERTY = {
    "packet-header": "packet-header-field-class",
    "packet-context": "packet-context-field-class",
    "event-record-header": "event-record-header-field-class",
    "event-record-common-context": "event-record-common-context-field-class",
    "event-record-specific-context": "specific-context-field-class",
    "event-record-payload": "payload-field-class",
}
SCOPE_NAME = {
    "packet-header": "packet header", "packet-context": "packet context",
    "event-record-header": "event record header",
    "event-record-common-context": "event record common context",
    "event-record-specific-context": "event record specific context",
    "event-record-payload": "event record payload",
}

UINT = ("fixed-length-unsigned-integer", "variable-length-unsigned-integer")
SINT = ("fixed-length-signed-integer", "variable-length-signed-integer")
FIXED_LENGTH = ("fixed-length-bit-array", "fixed-length-bit-map", "fixed-length-boolean",
                "fixed-length-unsigned-integer", "fixed-length-signed-integer",
                "fixed-length-floating-point-number")
ENCODINGS = ("utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le")

# §5.6.1 and §5.8.1: role -> (scopes where allowed, section).
ROLE_SCOPES = {
    "data-stream-class-id": ("packet-header",),
    "data-stream-id": ("packet-header",),
    "metadata-stream-uuid": ("packet-header",),
    "packet-magic-number": ("packet-header",),
    "default-clock-timestamp": ("packet-context", "event-record-header"),
    "discarded-event-record-counter-snapshot": ("packet-context",),
    "packet-content-length": ("packet-context",),
    "packet-end-default-clock-timestamp": ("packet-context",),
    "packet-sequence-number": ("packet-context",),
    "packet-total-length": ("packet-context",),
    "event-record-class-id": ("event-record-header",),
}
ROLES_OF_SCOPE = {s: sorted(r for r, ss in ROLE_SCOPES.items() if s in ss) for s in SCOPES}
ROLE_SECTION = {"packet-header": "§5.6.1", "packet-context": "§5.8.1",
                "event-record-header": "§5.8.1"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if is_int(v):
        return "integer"
    if isinstance(v, float):
        return "number (not an integer)"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def sub(path, key):
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.match(key) else f"{path}[{json.dumps(key)}]"


class DuplicateKey(Exception):
    pass


def _pairs(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise DuplicateKey(k)
        obj[k] = v
    return obj


def _bad_constant(name):
    raise ValueError(f"{name} is not JSON")


class Node:
    """One field class at one place of a root scope (aliases expanded)."""

    def __init__(self, fc, where, parent, kind, index, scope):
        self.fc = fc if isinstance(fc, dict) else {}
        self.type = self.fc.get("type") if isinstance(self.fc.get("type"), str) else None
        self.where = where          # fragment and JSON path of the use site
        self.parent = parent
        self.kind = kind            # root, member, element, option, optional
        self.index = index          # member/option index
        self.scope = scope
        self.children = []
        self.members = {}           # structure: name -> member Node
        self.name = None

    def ancestors(self):
        n, out = self.parent, []
        while n is not None:
            out.append(n)
            n = n.parent
        return out

    def enclosing_struct(self):
        n = self.parent
        while n is not None and n.type != "structure":
            n = n.parent
        return n

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


class Validator:
    def __init__(self):
        self.errors = []
        self.notes = []             # not errors: see the missing LF case
        self.stats = {"fragments": 0, "field classes": 0, "locations": 0, "roles": 0}
        self._seen = set()
        self.frag_label = "metadata stream"
        self.declared_ext = {}      # namespace -> set of names (preamble)
        self.has_uuid = False
        self.aliases = {}           # name -> (field class, where)
        self.clock_classes = {}     # id -> fragment dict
        self.clock_identities = {}  # (ns, name, uid) -> (fragment dict, label)
        self.trace_class = None     # {'packet-header': Node or None}
        self.dscs = {}              # id -> info dict
        self.ercs = set()
        self.headers = []           # (root Node, what) for the §5.6/§5.8 rule
        self.selector_targets = set()

    # -- reporting ---------------------------------------------------------
    def err(self, where, msg):
        text = f"{where}: {msg}"
        if text not in self._seen:
            self._seen.add(text)
            self.errors.append(text)

    def note(self, where, msg):
        self.notes.append(f"{where}: {msg}")

    def at(self, path):
        return f"{self.frag_label} {path}"

    # -- generic property checks ------------------------------------------
    def props(self, obj, path, table, what, section):
        """table: name -> (required, checker(value, path) or None)."""
        if not isinstance(obj, dict):
            self.err(self.at(path), f"{what} must be a JSON object, not {jtype(obj)} [{section}]")
            return False
        for name in obj:
            if name not in table:
                self.err(self.at(sub(path, name)),
                         f"unknown property '{name}' for {what} (allowed: "
                         f"{', '.join(sorted(table))}; additions belong in attributes/extensions) [{section}]")
        for name, (required, check) in table.items():
            if name in obj:
                if check is not None:
                    check(obj[name], sub(path, name))
            elif required:
                self.err(self.at(path), f"missing required property '{name}' of {what} [{section}]")
        return True

    def c_string(self, section):
        def check(v, path):
            if not isinstance(v, str):
                self.err(self.at(path), f"must be a JSON string, not {jtype(v)} [{section}]")
        return check

    def c_int(self, section, minimum=None, desc=None):
        def check(v, path):
            if not is_int(v):
                self.err(self.at(path), f"must be a JSON integer, not {jtype(v)} [{section}]")
            elif minimum is not None and v < minimum:
                self.err(self.at(path), f"must be {desc or f'>= {minimum}'}, not {v} [{section}]")
        return check

    def c_enum(self, values, section):
        def check(v, path):
            # `2.0 in (2, 8)` is true in Python: a JSON number is not an integer.
            if isinstance(v, bool) or not isinstance(v, (int, str)) or v not in values:
                self.err(self.at(path), f"must be one of {', '.join(json.dumps(x) for x in values)}, "
                                        f"not {json.dumps(v)} [{section}]")
        return check

    def c_pow2(self, section):
        def check(v, path):
            if not is_int(v):
                self.err(self.at(path), f"must be a JSON integer, not {jtype(v)} [{section}]")
            elif v <= 0 or v & (v - 1):
                self.err(self.at(path), f"must be a positive power of two, not {v} [{section}]")
        return check

    def c_attributes(self, v, path):
        if not isinstance(v, dict):
            self.err(self.at(path), f"attributes must be a JSON object (namespace -> value), not {jtype(v)} [§5.2]")

    def c_extensions(self, v, path, declaring=False):
        if not isinstance(v, dict):
            self.err(self.at(path), f"extensions must be a JSON object (namespace -> namespaced extensions object), "
                                    f"not {jtype(v)} [§5.1]")
            return
        for ns, exts in v.items():
            if not isinstance(exts, dict):
                self.err(self.at(sub(path, ns)), f"a namespaced extensions object must be a JSON object, "
                                                 f"not {jtype(exts)} [§5.1]")
                continue
            for name in exts:
                if declaring:
                    self.declared_ext.setdefault(ns, set()).add(name)
                elif name not in self.declared_ext.get(ns, ()):
                    self.err(self.at(sub(sub(path, ns), name)),
                             f"extension '{ns}'/'{name}' is not declared in the preamble fragment [§5.1]")

    def c_range_set(self, section):
        def check(v, path):
            self.range_set(v, path, section)
        return check

    def range_set(self, v, path, section):
        """§5.3.2: returns the list of (lo, hi) of a valid set, else None."""
        if not isinstance(v, list):
            self.err(self.at(path), f"an integer range set must be a JSON array, not {jtype(v)} [§5.3.2, {section}]")
            return None
        if not v:
            self.err(self.at(path), f"an integer range set must contain one or more integer ranges "
                                    f"[§5.3.2, {section}]")
            return None
        out = []
        for i, r in enumerate(v):
            p = sub(path, i)
            if not isinstance(r, list) or len(r) != 2 or not all(is_int(b) for b in r):
                self.err(self.at(p), f"an integer range must be a JSON array of two JSON integers, "
                                     f"not {json.dumps(r)} [§5.3.2]")
                return None
            if r[1] < r[0]:
                self.err(self.at(p), f"upper bound {r[1]} is less than lower bound {r[0]} [§5.3.2]")
                return None
            out.append((r[0], r[1]))
        return out

    def common(self, section):
        return {"attributes": (False, self.c_attributes),
                "extensions": (False, lambda v, p: self.c_extensions(v, p))}

    # -- parsing -----------------------------------------------------------
    def run(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        if data[:4] in (b"\x57\x1d\xd1\x75", b"\x75\xd1\x1d\x57"):
            self.err("metadata stream", "packetized metadata (magic 0x75d11d57) is CTF 1.8's; a CTF 2 metadata "
                                        "stream is a JSON text sequence of fragments (RFC 7464) [§5]")
            return self.errors
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            self.err("metadata stream", f"byte {e.start}: not UTF-8 (RFC 7464 texts are UTF-8) [§5]")
            return self.errors
        if not text.startswith(RS):
            head = text.split(RS, 1)[0]
            self.err("metadata stream", f"does not start with RS (U+001E) but with {head[:20]!r}: every fragment "
                                        f"must be preceded by one RS [§5, RFC 7464]")
            if RS not in text:
                return self.errors
        parts = text.split(RS)[1:]
        frags = []
        offset = len(text.split(RS, 1)[0])
        for i, part in enumerate(parts):
            where = f"fragment {i} (byte offset {offset})"
            offset += 1 + len(part.encode("utf-8"))
            if not part.strip():
                self.err(where, "empty JSON text after RS (each RS must precede one JSON text) [§5, RFC 7464]")
                frags.append(None)
                continue
            trailing = part[len(part.rstrip()):]
            if "\n" not in trailing:
                self.note(where, "JSON text not followed by a line feed (LF), which RFC 7464's prose (quoted "
                                 "in §5) asks of generators; its sequence grammar, what consumers parse, does "
                                 "not need it for objects")
            try:
                obj = json.loads(part, object_pairs_hook=_pairs, parse_constant=_bad_constant)
            except DuplicateKey as e:
                self.err(where, f"JSON object with duplicate property name '{e}' [§5, RFC 7159]")
                frags.append(None)
                continue
            except ValueError as e:
                self.err(where, f"invalid JSON: {e} [§5]")
                frags.append(None)
                continue
            frags.append(obj)
        if not frags:
            self.err("metadata stream", "no fragment: it must start with a preamble fragment [§5]")
            return self.errors
        self.fragments(frags)
        return self.errors

    # -- fragments -----------------------------------------------------------
    def fragments(self, frags):
        n_preamble = n_tc = n_dsc = 0
        for i, f in enumerate(frags):
            ftype = f.get("type") if isinstance(f, dict) else None
            self.frag_label = f"fragment {i} ({ftype if isinstance(ftype, str) else '?'})"
            if f is None:
                continue
            self.stats["fragments"] += 1
            if not isinstance(f, dict):
                self.err(self.frag_label, f"a fragment must be a JSON object, not {jtype(f)} [§5]")
                continue
            if "type" not in f:
                self.err(self.at("$"), "missing required property 'type' of a fragment [§5]")
                continue
            if ftype not in FRAGMENT_TYPES:
                self.err(self.at("$.type"), f"unknown fragment type {json.dumps(ftype)} (must be one of "
                                            f"{', '.join(FRAGMENT_TYPES)}) [§5]")
                continue
            if i == 0 and ftype != "preamble":
                self.err(self.at("$"), "the first fragment must be a preamble fragment [§5, §5.4]")
            if ftype == "preamble":
                n_preamble += 1
                if i != 0:
                    self.err(self.at("$"), "a preamble fragment must be the first fragment and exist once "
                                           "[§5, §5.4]")
                    continue
                self.preamble(f)
            elif ftype == "field-class-alias":
                self.alias(f)
            elif ftype == "trace-class":
                n_tc += 1
                if n_tc > 1:
                    self.err(self.at("$"), "a metadata stream may contain only one trace class fragment [§5]")
                if n_dsc:
                    self.err(self.at("$"), "the trace class fragment must occur before any data stream "
                                           "class fragment [§5, §5.6]")
                self.trace_class_frag(f)
            elif ftype == "clock-class":
                self.clock_class(f)
            elif ftype == "data-stream-class":
                n_dsc += 1
                self.dsc(f)
            else:
                self.erc(f)
        self.frag_label = "metadata stream"
        if n_dsc == 0:
            self.err("metadata stream", "no data stream class fragment: a metadata stream must contain one "
                                        "or more [§5]")
        self.header_rule()

    def preamble(self, f):
        s = "§5.4"

        def version(v, path):
            if not is_int(v) or v != 2:
                self.err(self.at(path), f"must be the JSON integer 2, not {json.dumps(v)} [{s}]")

        def uuid(v, path):
            if not isinstance(v, list) or len(v) != 16 or not all(is_int(b) and 0 <= b <= 255 for b in v):
                self.err(self.at(path), f"must be a JSON array of 16 JSON integers (byte values 0-255), "
                                        f"not {json.dumps(v)} [{s}]")
            else:
                self.has_uuid = True

        self.props(f, "$", {"type": (True, None), "version": (True, version), "uuid": (False, uuid),
                            "attributes": (False, self.c_attributes),
                            "extensions": (False, lambda v, p: self.c_extensions(v, p, declaring=True))},
                   "a preamble fragment", s)

    def named_fc_table(self, s):
        t = {"type": (True, None), "namespace": (False, self.c_string(s)),
             "name": (False, self.c_string(s)), "uid": (False, self.c_string(s))}
        t.update(self.common(s))
        return t

    def alias(self, f):
        s = "§5.5"
        t = {"type": (True, None), "name": (True, self.c_string(s)), "field-class": (True, None)}
        t.update(self.common(s))
        if not self.props(f, "$", t, "a field class alias fragment", s):
            return
        name = f.get("name")
        if "field-class" in f:
            # Property checks now; locations and roles where it is used.
            self.build(f["field-class"], "$.field-class", None, "root", 0, None, self.at("$.field-class"))
        if isinstance(name, str):
            if name in self.aliases:
                self.err(self.at("$.name"), f"field class alias name '{name}' already defined by "
                                            f"{self.aliases[name][1]} [§5.5]")
            elif "field-class" in f:
                self.aliases[name] = (f["field-class"], self.frag_label)

    def root_scope(self, f, scope, s, roots, ctx):
        prop = SCOPE_PROPERTY[scope]
        if prop not in f:
            return None
        v = f[prop]
        path = f"$.{prop}"
        node = self.build(v, path, None, "root", 0, scope, self.at(path))
        if node is not None and node.type is not None and node.type != "structure":
            what = f"alias '{v}' names a {node.type}" if isinstance(v, str) else f"is a {node.type}"
            self.err(self.at(path), f"must be a structure field class or the name of a structure field class "
                                    f"alias; {what} [§5.3, {s}]")
            return None
        if node is not None:
            roots[scope] = node
            ctx["roots"] = roots
        return node

    def trace_class_frag(self, f):
        s = "§5.6"

        def env(v, path):
            if not isinstance(v, dict):
                self.err(self.at(path), f"must be a JSON object, not {jtype(v)} [{s}]")
                return
            for k, x in v.items():
                if not (is_int(x) or isinstance(x, str)):
                    self.err(self.at(sub(path, k)), f"an environment entry value must be a JSON integer or "
                                                    f"string, not {jtype(x)} [{s}]")

        t = self.named_fc_table(s)
        t.update({"environment": (False, env), "packet-header-field-class": (False, None)})
        if not self.props(f, "$", t, "a trace class fragment", s):
            return
        roots = {}
        ctx = {"dsc": None, "roots": roots}
        root = self.root_scope(f, "packet-header", s, roots, ctx)
        if self.trace_class is None:
            self.trace_class = {"roots": roots, "label": self.frag_label}
        if root is not None:
            self.check_tree(root, ctx)
            self.headers.append((root, "packet header", "§5.6"))

    def clock_class(self, f):
        s = "§5.7"
        freq = f.get("frequency") if isinstance(f, dict) else None

        def origin(v, path):
            if isinstance(v, str):
                if v != "unix-epoch":
                    self.err(self.at(path), f"a string origin must be \"unix-epoch\", not {json.dumps(v)} [{s}]")
                return
            self.props(v, path, {"namespace": (False, self.c_string("§5.7.1")),
                                 "name": (True, self.c_string("§5.7.1")),
                                 "uid": (True, self.c_string("§5.7.1"))}, "a clock origin", "§5.7.1")

        def offset(v, path):
            if not self.props(v, path, {"seconds": (False, self.c_int("§5.7.2")),
                                        "cycles": (False, self.c_int("§5.7.2", 0))},
                              "a clock offset", "§5.7.2"):
                return
            c = v.get("cycles")
            if is_int(c) and is_int(freq) and c >= freq:
                self.err(self.at(sub(path, "cycles")), f"must be less than the frequency ({freq}), not {c} [§5.7.2]")

        t = self.named_fc_table(s)
        t.update({"id": (True, self.c_string(s)), "frequency": (True, self.c_int(s, 1, "greater than zero")),
                  "origin": (False, origin), "offset-from-origin": (False, offset),
                  "precision": (False, self.c_int(s, 0)), "accuracy": (False, self.c_int(s, 0)),
                  "description": (False, self.c_string(s))})
        if not self.props(f, "$", t, "a clock class fragment", s):
            return
        cid = f.get("id")
        if isinstance(cid, str):
            if cid in self.clock_classes:
                self.err(self.at("$.id"), f"clock class id '{cid}' already used by "
                                          f"{self.clock_classes[cid][1]} [§5.7]")
            else:
                self.clock_classes[cid] = (f, self.frag_label)
        if isinstance(f.get("name"), str) and isinstance(f.get("uid"), str):
            key = (f.get("namespace"), f["name"], f["uid"])
            if key in self.clock_identities:
                other, label = self.clock_identities[key]
                for p in ("frequency", "precision", "accuracy", "origin"):
                    if (p == "frequency" or (p in f and p in other)) and f.get(p) != other.get(p):
                        self.err(self.at(sub("$", p)), f"clock classes with the same identity (namespace, name, "
                                                       f"uid) must share '{p}'; {label} has "
                                                       f"{json.dumps(other.get(p))} [§5.7]")
            else:
                self.clock_identities[key] = (f, self.frag_label)

    def dsc(self, f):
        s = "§5.8"
        t = self.named_fc_table(s)
        t.update({"id": (False, self.c_int(s, 0)), "default-clock-class-id": (False, self.c_string(s)),
                  "packet-context-field-class": (False, None), "event-record-header-field-class": (False, None),
                  "event-record-common-context-field-class": (False, None)})
        if not self.props(f, "$", t, "a data stream class fragment", s):
            return
        did = f.get("id", 0)
        cc = f.get("default-clock-class-id")
        if isinstance(cc, str) and cc not in self.clock_classes:
            self.err(self.at("$.default-clock-class-id"), f"no clock class fragment with id '{cc}' occurs before "
                                                           f"this data stream class [§5.7, §5.8]")
        roots = dict(self.trace_class["roots"]) if self.trace_class else {}
        ctx = {"dsc": f, "roots": roots}
        info = {"roots": roots, "label": self.frag_label, "fragment": f}
        if is_int(did):
            if did in self.dscs:
                self.err(self.at("$.id" if "id" in f else "$"),
                         f"data stream class id {did} already used by {self.dscs[did]['label']} [§5.8]")
            else:
                self.dscs[did] = info
        for scope in ("packet-context", "event-record-header", "event-record-common-context"):
            root = self.root_scope(f, scope, s, roots, ctx)
            if root is not None:
                self.check_tree(root, ctx)
                if scope == "event-record-header":
                    self.headers.append((root, "event record header", "§5.8"))

    def erc(self, f):
        s = "§5.9"
        t = self.named_fc_table(s)
        t.update({"id": (False, self.c_int(s, 0)), "data-stream-class-id": (False, self.c_int(s, 0)),
                  "specific-context-field-class": (False, None), "payload-field-class": (False, None)})
        if not self.props(f, "$", t, "an event record class fragment", s):
            return
        did, eid = f.get("data-stream-class-id", 0), f.get("id", 0)
        parent = self.dscs.get(did) if is_int(did) else None
        if is_int(did) and parent is None:
            self.err(self.at("$.data-stream-class-id" if "data-stream-class-id" in f else "$"),
                     f"no data stream class fragment with id {did} (the parent) occurs before this event record "
                     f"class [§5, §5.9]")
        if is_int(did) and is_int(eid):
            if (did, eid) in self.ercs:
                self.err(self.at("$.id" if "id" in f else "$"), f"another event record class already has id {eid} "
                                                                 f"and data-stream-class-id {did} [§5.9]")
            self.ercs.add((did, eid))
        roots = dict(parent["roots"]) if parent else {}
        ctx = {"dsc": parent["fragment"] if parent else None, "roots": roots}
        for scope in ("event-record-specific-context", "event-record-payload"):
            root = self.root_scope(f, scope, s, roots, ctx)
            if root is not None:
                self.check_tree(root, ctx)

    # -- field classes -------------------------------------------------------
    def build(self, v, path, parent, kind, index, scope, where, depth=0):
        """Checks the properties of field class `v` (at `path` of the current
        fragment, once per object) and returns its Node (aliases expanded);
        None when it cannot be used."""
        if depth > 64:
            self.err(where, "field classes nested too deeply")
            return None
        if isinstance(v, str):
            if v not in self.aliases:
                self.err(self.at(path), f"no field class alias named '{v}' occurs before this use [§5.5]")
                return None
            fc, label = self.aliases[v]
            saved = self.frag_label
            self.frag_label = label
            node = self.build(fc, "$.field-class", parent, kind, index, scope,
                              f"{where} (alias '{v}' of {label})", depth + 1)
            self.frag_label = saved
            return node
        if not isinstance(v, dict):
            self.err(self.at(path), f"a field class must be a JSON object or an alias name (string), "
                                    f"not {jtype(v)} [§5.3]")
            return None
        node = Node(v, where, parent, kind, index, scope)
        self.stats["field classes"] += scope is not None
        if "type" not in v:
            self.err(self.at(path), "missing required property 'type' of a field class [§5.3]")
            return node
        t = v["type"]
        checker = FC_TABLE.get(t) if isinstance(t, str) else None
        if checker is None:
            self.err(self.at(sub(path, "type")), f"unknown field class type {json.dumps(t)} [§5.3]")
            node.type = None
            return node
        s, extra = checker
        table = {"type": (True, None)}
        table.update(self.common(s))
        for name, (req, spec) in extra.items():
            table[name] = (req, self.value_checker(spec, s, v))
        self.props(v, path, table, f"a {t} field class", s)
        self.children(node, v, path, depth)
        return node

    def value_checker(self, spec, s, fc):
        if spec == "len>0":
            return self.c_int(s, 1, "greater than zero")
        if spec == "len>=0":
            return self.c_int(s, 0)
        if spec == "fplen":
            def fplen(v, path):
                if not is_int(v) or not (v in (16, 32, 64, 128) or (v > 128 and v % 32 == 0)):
                    self.err(self.at(path), f"must be 16, 32, 64, 128 or a multiple of 32 greater than 128, "
                                            f"not {json.dumps(v)} [{s}]")
            return fplen
        if spec == "byte-order":
            return self.c_enum(("big-endian", "little-endian"), s)
        if spec == "bit-order":
            return self.c_enum(("first-to-last", "last-to-first"), s)
        if spec == "pow2":
            return self.c_pow2(s)
        if spec == "base":
            return self.c_enum((2, 8, 10, 16), s)
        if spec == "encoding":
            return self.c_enum(ENCODINGS, s)
        if spec == "string":
            return self.c_string(s)
        if spec == "mappings":
            return self.mappings(s, "mapping")
        if spec == "flags":
            return self.mappings(s, "flag", nonempty=True)
        if spec == "roles":
            def roles(v, path):
                if not isinstance(v, list) or not all(isinstance(r, str) for r in v):
                    self.err(self.at(path), f"roles must be a JSON array of JSON strings, not {json.dumps(v)} "
                                            f"[§5.3.3]")
            return roles
        if spec == "location":
            return self.location_props
        if spec == "ranges":
            return self.c_range_set(s)
        return None  # nested field classes: see children()

    def mappings(self, s, what, nonempty=False):
        def check(v, path):
            if not isinstance(v, dict):
                self.err(self.at(path), f"{what}s must be a JSON object (name -> integer range set), "
                                        f"not {jtype(v)} [{s}]")
                return
            if nonempty and not v:
                self.err(self.at(path), f"must contain one or more {what}s [{s}]")
            for k, r in v.items():
                self.range_set(r, sub(path, k), s)
        return check

    def location_props(self, v, path):
        s = "§5.3.1"

        def p(val, pp):
            if not isinstance(val, list):
                self.err(self.at(pp), f"a field location path must be a JSON array, not {jtype(val)} [{s}]")
            elif not val:
                self.err(self.at(pp), f"a field location path must not be empty [{s}]")
            elif not all(e is None or isinstance(e, str) for e in val):
                self.err(self.at(pp), f"field location path elements must be JSON strings or null [{s}]")
            elif val[-1] is None:
                self.err(self.at(pp), f"the last element of a field location path must not be null [{s}]")

        self.props(v, path, {"origin": (False, self.c_enum(SCOPES, s)), "path": (True, p)},
                   "a field location", s)

    def children(self, node, v, path, depth):
        t = node.type

        def child(src, key, kind, index, rel):
            c = self.build(src[key], path + rel, node, kind, index, node.scope,
                           node.where + rel, depth + 1)
            if c is not None:
                node.children.append(c)
            return c

        if t == "structure":
            members = v.get("member-classes", [])
            mpath = sub(path, "member-classes")
            if not isinstance(members, list):
                self.err(self.at(mpath), f"must be a JSON array, not {jtype(members)} [§5.3.18]")
                return
            for i, m in enumerate(members):
                p = sub(mpath, i)
                t2 = {"name": (True, self.c_string("§5.3.18.1")), "field-class": (True, None)}
                t2.update(self.common("§5.3.18.1"))
                if not self.props(m, p, t2, "a structure field member class", "§5.3.18.1"):
                    continue
                name = m.get("name")
                if isinstance(name, str) and name in node.members:
                    self.err(self.at(sub(p, "name")), f"duplicate member name '{name}' in this structure "
                                                      f"field class [§5.3.18]")
                if "field-class" in m:
                    rel = f".member-classes[{i}].field-class"
                    c = child(m, "field-class", "member", i, rel)
                    if c is not None and isinstance(name, str):
                        c.name = name
                        node.members.setdefault(name, c)
        elif t in ("static-length-array", "dynamic-length-array"):
            if "element-field-class" in v:
                child(v, "element-field-class", "element", 0, ".element-field-class")
        elif t == "optional":
            if "field-class" in v:
                child(v, "field-class", "optional", 0, ".field-class")
        elif t == "variant":
            opts = v.get("options")
            opath = sub(path, "options")
            if opts is None:
                return
            if not isinstance(opts, list):
                self.err(self.at(opath), f"must be a JSON array, not {jtype(opts)} [§5.3.23]")
                return
            if not opts:
                self.err(self.at(opath), "must contain one or more options [§5.3.23]")
            names, ranges = {}, []
            for i, o in enumerate(opts):
                p = sub(opath, i)
                t2 = {"field-class": (True, None), "selector-field-ranges": (True, None),
                      "name": (False, self.c_string("§5.3.23.1"))}
                t2.update(self.common("§5.3.23.1"))
                if not self.props(o, p, t2, "a variant field class option", "§5.3.23.1"):
                    continue
                if "selector-field-ranges" in o:
                    rs = self.range_set(o["selector-field-ranges"], sub(p, "selector-field-ranges"), "§5.3.23.1")
                    for lo, hi in rs or ():
                        for (lo2, hi2, j) in ranges:
                            if lo <= hi2 and lo2 <= hi:
                                self.err(self.at(sub(p, "selector-field-ranges")),
                                         f"range [{lo}, {hi}] intersects range [{lo2}, {hi2}] of option {j}: "
                                         f"the ranges of two options must not intersect [§5.3.23]")
                        ranges.append((lo, hi, i))
                name = o.get("name")
                if isinstance(name, str):
                    if name in names:
                        self.err(self.at(sub(p, "name")), f"duplicate option name '{name}' (also option "
                                                          f"{names[name]}) [§5.3.23]")
                    names.setdefault(name, i)
                if "field-class" in o:
                    child(o, "field-class", "option", i, f".options[{i}].field-class")

    # -- context checks: roles, locations ------------------------------------
    def check_tree(self, root, ctx):
        for n in root.walk():
            self.check_roles(n, root, ctx)
        for n in root.walk():
            t = n.type
            if t in ("dynamic-length-array", "dynamic-length-string", "dynamic-length-blob"):
                self.check_location(n, ctx, "length-field-location", "length")
            elif t == "optional":
                self.check_location(n, ctx, "selector-field-location", "optional")
            elif t == "variant":
                self.check_location(n, ctx, "selector-field-location", "variant")

    def check_roles(self, n, root, ctx):
        roles = n.fc.get("roles")
        if not isinstance(roles, list) or n.type not in UINT + SINT + ("static-length-blob",):
            return  # property errors already reported
        scope = n.scope
        for i, r in enumerate(roles):
            if not isinstance(r, str):
                continue
            where = f"{n.where}.roles[{i}]"
            self.stats["roles"] += 1
            if r not in ROLE_SCOPES:
                self.err(where, f"unknown role '{r}' (roles are those of §5.6.1 and §5.8.1) [§5.3.3]")
                continue
            if scope not in ROLE_SCOPES[r]:
                allowed = ROLES_OF_SCOPE.get(scope) or []
                self.err(where, f"role '{r}' is not allowed in the {SCOPE_NAME.get(scope, 'alias')} "
                                f"(allowed there: {', '.join(allowed) or 'none'}; '{r}' belongs to the "
                                f"{' or '.join(SCOPE_NAME[x] for x in ROLE_SCOPES[r])}) [§5.3.3, "
                                f"{ROLE_SECTION[ROLE_SCOPES[r][0]]}]")
                continue
            sec = ROLE_SECTION[scope]
            if r == "metadata-stream-uuid":
                if n.type != "static-length-blob" or n.fc.get("length") != 16:
                    self.err(where, f"role '{r}' requires a static-length-blob field class with length 16, "
                                    f"not {self.describe(n)} [{sec}]")
                if not self.has_uuid:
                    self.err(where, f"role '{r}' requires the preamble fragment's 'uuid' property [{sec}]")
                continue
            if n.type not in UINT:
                self.err(where, f"role '{r}' requires a fixed-length or variable-length unsigned integer field "
                                f"class, not {self.describe(n)} [{sec}]")
                continue
            if r == "packet-magic-number":
                if n.type != "fixed-length-unsigned-integer" or n.fc.get("length") != 32:
                    self.err(where, f"role '{r}' requires a fixed-length-unsigned-integer field class with "
                                    f"length 32, not {self.describe(n)} [{sec}]")
                if not (n.parent is root and n.kind == "member" and n.index == 0):
                    self.err(where, f"role '{r}': its field must be the first member of the packet header "
                                    f"structure [{sec}]")
            if r in ("default-clock-timestamp", "packet-end-default-clock-timestamp"):
                dsc = ctx.get("dsc")
                if dsc is not None and "default-clock-class-id" not in dsc:
                    self.err(where, f"role '{r}' requires the data stream class to have a "
                                    f"'default-clock-class-id' property [{sec}]")

    @staticmethod
    def describe(n):
        if n.type is None:
            return "an invalid field class"
        if n.type in FIXED_LENGTH or n.type in ("static-length-blob", "static-length-string",
                                                 "static-length-array"):
            return f"a {n.type} of length {json.dumps(n.fc.get('length'))}"
        return f"a {n.type}"

    def check_location(self, n, ctx, prop, what):
        fl = n.fc.get(prop)
        if not isinstance(fl, dict) or not isinstance(fl.get("path"), list) or not fl["path"] \
                or not all(e is None or isinstance(e, str) for e in fl["path"]) or fl["path"][-1] is None:
            return  # property errors already reported
        where = f"{n.where}.{prop}"
        if n.scope is None:
            return
        targets = self.resolve(n, fl, ctx, where)
        self.stats["locations"] += 1
        if not targets:
            return
        loc = json.dumps(fl, separators=(",", ":"))
        types = sorted({t.type or "?" for t in targets})
        if what == "length":
            bad = [t for t in targets if t.type not in UINT]
            for t in bad:
                self.err(where, f"length field location {loc} reaches {self.describe(t)} ({t.where}); a length "
                                f"field must be a fixed-length or variable-length unsigned integer "
                                f"[§5.3.1, {FC_TABLE[n.type][0]}]")
            return
        for t in targets:
            self.selector_targets.add(id(t))
        if what == "optional":
            kinds = [("fixed-length-boolean",), UINT, SINT]
            sec = "§5.3.22"
        else:
            kinds = [UINT, SINT]
            sec = "§5.3.23"
        if not any(all(t.type in k for t in targets) for k in kinds):
            allowed = ("all fixed-length booleans, all unsigned integers or all signed integers"
                       if what == "optional" else "all unsigned integers or all signed integers")
            self.err(where, f"selector field location {loc} reaches {', '.join(types)} "
                            f"({'; '.join(t.where for t in targets)}); the selector field classes of "
                            f"a{'n' if what == 'optional' else ''} {n.type} must be {allowed} [§5.3.1, {sec}]")
            return
        if what == "optional" and targets[0].type != "fixed-length-boolean" \
                and "selector-field-ranges" not in n.fc:
            self.err(n.where, f"an optional field class with an integer selector field must have "
                              f"'selector-field-ranges' [§5.3.22]")

    def resolve(self, user, fl, ctx, where):
        """§6.4.2 done on classes: the list of possible located Nodes."""
        loc = json.dumps(fl, separators=(",", ":"))
        chain = user.ancestors()
        chain_ids = {id(a): a for a in chain}
        # child on the chain of each ancestor (to know what precedes)
        on_chain_child = {}
        prev = user
        for a in chain:
            on_chain_child[id(a)] = prev
            prev = a
        origin = fl.get("origin")
        if origin is not None:
            if origin not in SCOPES:
                return None
            if SCOPES.index(origin) > SCOPES.index(user.scope):
                self.err(where, f"field location {loc}: origin '{origin}' is decoded after the "
                                f"{SCOPE_NAME[user.scope]} that uses it [§5.3.1, §6.4.2]")
                return None
            root = ctx["roots"].get(origin)
            if root is None:
                self.err(where, f"field location {loc}: there is no {SCOPE_NAME[origin]} structure "
                                f"(no {SCOPE_PROPERTY[origin]} for this {SCOPE_NAME[user.scope]}) [§6.4.2]")
                return None
            cands = [root]
        else:
            s = user.enclosing_struct()
            if s is None:
                return None
            cands = [s]
        path = fl["path"]
        for i, e in enumerate(path):
            last = i == len(path) - 1
            nxt = []
            for v in cands:
                if e is None:
                    p = v.enclosing_struct()
                    if p is None:
                        self.err(where, f"field location {loc}: path[{i}] is null but no structure contains "
                                        f"the {SCOPE_NAME[v.scope]} root structure [§5.3.1, §6.4.2]")
                        continue
                    nxt.append(p)
                    continue
                m = v.members.get(e)
                if m is None:
                    self.err(where, f"field location {loc}: path[{i}]: no member named '{e}' in the structure "
                                    f"at {v.where} (members: {', '.join(v.members) or 'none'}) [§5.3.1, §6.4.2]")
                    continue
                if id(v) in chain_ids:
                    c = on_chain_child[id(v)]
                    if m is c and c is user:
                        self.err(where, f"field location {loc}: path[{i}] '{e}' is the field that uses this "
                                        f"location [§5.3.1, §6.4.2]")
                        continue
                    if m.index > c.index:
                        self.err(where, f"field location {loc}: path[{i}] member '{e}' ({m.where}) comes after "
                                        f"the field using it: it is not decoded yet [§5.3.1, §6.4.2]")
                        continue
                nxt.extend(self.unwrap(m, chain_ids, on_chain_child, where, loc, i))
            cands = nxt
            if not last:
                ok = []
                for v in cands:
                    if v.type == "structure":
                        ok.append(v)
                    else:
                        self.err(where, f"field location {loc}: path[{i}] '{e}' reaches {self.describe(v)} "
                                        f"({v.where}) but the path goes on: it must be a structure "
                                        f"[§5.3.1, §6.4.2]")
                cands = ok
            if not cands:
                return None
        return cands

    def unwrap(self, m, chain_ids, on_chain_child, where, loc, i):
        out, stack = [], [m]
        while stack:
            n = stack.pop()
            if n.type in ("static-length-array", "dynamic-length-array"):
                if id(n) not in chain_ids:
                    self.err(where, f"field location {loc}: path[{i}] goes through the {n.type} at {n.where}, "
                                    f"which is not being decoded when the using field is (the using field "
                                    f"is not inside it) [§5.3.1, §6.4.2]")
                    continue
                stack.extend(n.children)
            elif n.type == "variant":
                if id(n) in chain_ids:
                    stack.append(on_chain_child[id(n)])
                else:
                    stack.extend(reversed(n.children))
            elif n.type == "optional":
                stack.extend(n.children)
            else:
                out.append(n)
        return out

    def header_rule(self):
        for root, what, sec in self.headers:
            for n in root.walk():
                if n is root or n.type in ("structure", "optional", "variant") or n.type is None:
                    continue
                if id(n) in self.selector_targets or self.valid_role(n, root):
                    continue
                self.err(n.where, f"a field class in the {what} must have a valid role, be a structure, "
                                  f"optional or variant, or be the selector of an optional or variant; "
                                  f"it is {self.describe(n)} with none of those [{sec}]")

    def valid_role(self, n, root):
        roles = n.fc.get("roles")
        if not isinstance(roles, list):
            return False
        for r in roles:
            if not isinstance(r, str) or r not in ROLE_SCOPES or n.scope not in ROLE_SCOPES[r]:
                continue
            if r == "metadata-stream-uuid":
                if n.type == "static-length-blob" and n.fc.get("length") == 16:
                    return True
            elif n.type in UINT:
                return True
        return False


# type -> (section, {property: (required, checker spec)}); nested field
# classes (spec None) are checked by Validator.children.
_FL = {"length": (True, "len>0"), "byte-order": (True, "byte-order"),
       "bit-order": (False, "bit-order"), "alignment": (False, "pow2")}
_INT = {"preferred-display-base": (False, "base"), "mappings": (False, "mappings")}
FC_TABLE = {
    "fixed-length-bit-array": ("§5.3.4", dict(_FL)),
    "fixed-length-bit-map": ("§5.3.5", dict(_FL, flags=(True, "flags"))),
    "fixed-length-boolean": ("§5.3.6", dict(_FL)),
    "fixed-length-unsigned-integer": ("§5.3.8", dict(_FL, **_INT, roles=(False, "roles"))),
    "fixed-length-signed-integer": ("§5.3.8", dict(_FL, **_INT)),
    "fixed-length-floating-point-number": ("§5.3.9", dict(_FL, length=(True, "fplen"))),
    "variable-length-unsigned-integer": ("§5.3.10", dict(_INT, roles=(False, "roles"))),
    "variable-length-signed-integer": ("§5.3.10", dict(_INT)),
    "null-terminated-string": ("§5.3.12", {"encoding": (False, "encoding")}),
    "static-length-string": ("§5.3.13", {"length": (True, "len>=0"), "encoding": (False, "encoding")}),
    "dynamic-length-string": ("§5.3.14", {"length-field-location": (True, "location"),
                                          "encoding": (False, "encoding")}),
    "static-length-blob": ("§5.3.16", {"length": (True, "len>=0"), "media-type": (False, "string"),
                                       "roles": (False, "roles")}),
    "dynamic-length-blob": ("§5.3.17", {"length-field-location": (True, "location"),
                                        "media-type": (False, "string")}),
    "structure": ("§5.3.18", {"member-classes": (False, None), "minimum-alignment": (False, "pow2")}),
    "static-length-array": ("§5.3.20", {"element-field-class": (True, None), "minimum-alignment": (False, "pow2"),
                                        "length": (True, "len>=0")}),
    "dynamic-length-array": ("§5.3.21", {"element-field-class": (True, None),
                                         "minimum-alignment": (False, "pow2"),
                                         "length-field-location": (True, "location")}),
    "optional": ("§5.3.22", {"field-class": (True, None), "selector-field-location": (True, "location"),
                             "selector-field-ranges": (False, "ranges")}),
    "variant": ("§5.3.23", {"options": (True, None), "selector-field-location": (True, "location")}),
}


def validate(data):
    """Errors of the CTF 2 metadata stream `data` (bytes or str); [] if valid."""
    return Validator().run(data)


def check(data):
    """The Validator after checking `data`: .errors, .notes, .stats."""
    v = Validator()
    v.run(data)
    return v


def validate_file(path):
    with open(path, "rb") as f:
        return validate(f.read())


def main(argv):
    status = 0
    for path in argv[1:]:
        errors = validate_file(path)
        for e in errors:
            print(f"{path}: {e}")
        status |= bool(errors)
        if not errors:
            print(f"{path}: valid")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
