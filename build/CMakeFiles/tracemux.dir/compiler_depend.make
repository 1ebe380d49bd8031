# Empty compiler generated dependencies file for tracemux.
# This may be replaced when dependencies are built.
