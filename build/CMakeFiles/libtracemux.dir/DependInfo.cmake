
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/ctf/decode.c" "CMakeFiles/libtracemux.dir/src/ctf/decode.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/ctf/decode.c.o.d"
  "/work/main/src/ctf/fs.c" "CMakeFiles/libtracemux.dir/src/ctf/fs.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/ctf/fs.c.o.d"
  "/work/main/src/io/mapfile.c" "CMakeFiles/libtracemux.dir/src/io/mapfile.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/io/mapfile.c.o.d"
  "/work/main/src/model/arena.c" "CMakeFiles/libtracemux.dir/src/model/arena.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/model/arena.c.o.d"
  "/work/main/src/model/error.c" "CMakeFiles/libtracemux.dir/src/model/error.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/model/error.c.o.d"
  "/work/main/src/model/model.c" "CMakeFiles/libtracemux.dir/src/model/model.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/model/model.c.o.d"
  "/work/main/src/mux/muxer.c" "CMakeFiles/libtracemux.dir/src/mux/muxer.c.o" "gcc" "CMakeFiles/libtracemux.dir/src/mux/muxer.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
