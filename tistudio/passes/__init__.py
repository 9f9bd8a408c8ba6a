"""IR passes, one module each; `pipeline.py` says which run, in what order, for which arch."""
