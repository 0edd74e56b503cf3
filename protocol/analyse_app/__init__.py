"""``pruner analyse``: depth-limited analysis of FENs, EPD and PGN files into JSON Lines, CSV,
annotated PGN and game reviews.

``cli`` (options, the run) → ``inputs`` (files and arguments into tasks, as a stream;
``sources`` opens and decompresses files, ``filters`` chooses games) → ``stream`` (tasks read
ahead on a thread, within a bound) → ``pool`` (``--jobs`` worker processes) → ``tasks`` (one
task on a searcher: records) → ``output`` (writers); ``annotate`` judges moves, ``resume``
continues a cut run, ``uci_engine`` analyses with another UCI engine, ``cluster_runner``
spreads tasks over a Dask cluster, ``review/`` draws reports. It imports ``engine`` and the
shared helpers of ``protocol`` (``cluster``, ``extras``), never the UCI server.
"""
