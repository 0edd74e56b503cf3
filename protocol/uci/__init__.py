"""The UCI server: parses GUI commands, runs searches on a thread, prints info/bestmove.

It knows the wire format and the ``pruner.engine.search.Searcher`` interface, nothing about how the
search works. Modules: ``wire`` (parse/format lines), ``options`` (declared options),
``loop`` (reader, search thread, single stdout writer).
"""
