file(REMOVE_RECURSE
  "CMakeFiles/tracemux.dir/cli/main.c.o"
  "CMakeFiles/tracemux.dir/cli/main.c.o.d"
  "tracemux"
  "tracemux.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/tracemux.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
