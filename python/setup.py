"""Builds the _tracemux extension over libtracemux, which it builds first.

`pip install ./python` from the repository root builds the package in
place (pip >= 21.3), so the library's sources are one directory up: CMake
builds its static archive (position-independent objects, the same as the
shared library's) in the build directory, and the extension is linked with
it and with the library's private dependencies, read from the tracemux.pc
file that CMake generates.  Nothing has to be installed first.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def library_version():
    """The version is kept in the public header (as CMake reads it)."""
    text = (ROOT / "include" / "tracemux" / "tracemux.h").read_text()
    return re.search(r'#define TRACEMUX_VERSION_STRING "([^"]+)"', text).group(1)


def pc_fields(pc_file):
    fields = {}
    for line in pc_file.read_text().splitlines():
        m = re.match(r"^([A-Za-z.]+):\s*(.*)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return fields


class BuildWithLibrary(build_ext):
    def build_library(self):
        if not (ROOT / "CMakeLists.txt").is_file() or not (ROOT / "src").is_dir():
            sys.exit(f"tracemux: the library's sources are not in {ROOT}: "
                     "install with `pip install ./python` from a checkout")
        build = Path(self.build_temp).resolve() / "libtracemux"
        build.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        "-DTMX_BUILD_TESTS=OFF"], check=True, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(min(os.cpu_count() or 1, 4)))
        subprocess.run(["cmake", "--build", str(build), "--target", "libtracemux", "-j", jobs],
                       check=True)
        return build

    def link_flags(self, build):
        pc = pc_fields(build / "tracemux.pc")
        flags = shlex.split(pc.get("Libs.private", ""))
        requires = pc.get("Requires.private", "").replace(",", " ").split()
        if requires:
            out = subprocess.run(["pkg-config", "--libs"] + requires, check=True,
                                 capture_output=True, text=True).stdout
            flags += shlex.split(out)
        return flags

    def run(self):
        build = self.build_library()
        flags = self.link_flags(build)
        for ext in self.extensions:
            ext.include_dirs.append(str(ROOT / "include"))
            ext.include_dirs.append(str(ROOT / "src"))   # common.c: the library's helpers
            ext.extra_objects.append(str(build / "libtracemux.a"))
            # Linked again when only the library changed (build_ext looks at sources and depends).
            ext.depends.append(str(build / "libtracemux.a"))
            ext.libraries += [f[2:] for f in flags if f.startswith("-l")]
            ext.library_dirs += [f[2:] for f in flags if f.startswith("-L")]
            ext.extra_link_args += [f for f in flags if not f.startswith(("-l", "-L"))]
        super().run()


SOURCES = ["module.c", "reader.c", "plan.c", "record.c", "table.c", "table_export.c", "strdict.c", "common.c",
           "event.c", "convert.c", "sinkrun.c"]

setup(
    version=library_version(),
    ext_modules=[Extension(
        "tracemux._tracemux",
        sources=[f"src/{s}" for s in SOURCES],
        depends=["src/ext.h", "src/table_impl.h"] + [str(ROOT / "src" / "common" / f) for f in
                                   ("buf.c", "buf.h", "grow.h", "strdict.c", "strdict.h")],
        # Only PyInit__tracemux is exported (PyMODINIT_FUNC), not the helpers.
        extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-fvisibility=hidden"],
        # ...nor the archive's tmx_ API (another module may load libtracemux.so).
        extra_link_args=["-Wl,--exclude-libs,ALL"],
    )],
    cmdclass={"build_ext": BuildWithLibrary},
)
