file(REMOVE_RECURSE
  "libtracemux.a"
)
