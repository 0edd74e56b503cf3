"""Library behind scripts/tune.py (Texel tuning of the evaluation), one concept per module.

- ``params``    the evaluation's weights as one flat, named vector (read from engine/weights.py)
- ``features``  a position's features: eval = taper(dot(weights, mg features), dot(weights, eg features))
- ``gen``       self-play games at a fixed node count through scripts/match.py
- ``extract``   quiet positions after the opening from PGN games, labelled by the game's result
- ``objective`` the error both methods minimise (sigmoid(K * eval) against the results), K, the
                held-out split, the labels and the result record
- ``fit``       K, then the weights by coordinate descent (one at a time); a fit file by either method
- ``gradient``  the same error minimised over all weights at once (Adam), rounded at the end
- ``writer``    the tuned weights as a Python module (engine/weights.py's shape)
"""
