# Empty dependencies file for libtracemux.
# This may be replaced when dependencies are built.
