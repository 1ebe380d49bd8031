file(REMOVE_RECURSE
  "CMakeFiles/libtracemux.dir/src/ctf/decode.c.o"
  "CMakeFiles/libtracemux.dir/src/ctf/decode.c.o.d"
  "CMakeFiles/libtracemux.dir/src/ctf/fs.c.o"
  "CMakeFiles/libtracemux.dir/src/ctf/fs.c.o.d"
  "CMakeFiles/libtracemux.dir/src/io/mapfile.c.o"
  "CMakeFiles/libtracemux.dir/src/io/mapfile.c.o.d"
  "CMakeFiles/libtracemux.dir/src/model/arena.c.o"
  "CMakeFiles/libtracemux.dir/src/model/arena.c.o.d"
  "CMakeFiles/libtracemux.dir/src/model/error.c.o"
  "CMakeFiles/libtracemux.dir/src/model/error.c.o.d"
  "CMakeFiles/libtracemux.dir/src/model/model.c.o"
  "CMakeFiles/libtracemux.dir/src/model/model.c.o.d"
  "CMakeFiles/libtracemux.dir/src/mux/muxer.c.o"
  "CMakeFiles/libtracemux.dir/src/mux/muxer.c.o.d"
  "libtracemux.a"
  "libtracemux.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/libtracemux.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
