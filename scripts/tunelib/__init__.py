"""Library behind scripts/tune.py (Texel tuning of the evaluation), one concept per module.

- ``params``    the evaluation's weights as one flat, named vector (read from engine/weights.py)
- ``features``  a position's features: eval = taper(dot(weights, mg features), dot(weights, eg features))
- ``gen``       self-play games at a fixed node count through scripts/match.py
- ``extract``   quiet positions after the opening from PGN games, labelled by the game's result
- ``fit``       the logistic scale K, then the weights minimising the mean squared error
- ``gradient``  the same error minimised over all weights at once (Adam), rounded at the end
- ``writer``    the tuned weights as a Python module (engine/weights.py's shape)

Import ``matchlib`` first (it puts the checkout's root on sys.path for ``engine``).
"""
