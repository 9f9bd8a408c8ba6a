"""The runtime: field memory, compiling through the pipeline and a back end, launching."""
