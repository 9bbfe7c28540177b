"""Programs beside the service, each a ``cardroom`` command: simulations (``sim``), benchmarks
and the load test (``bench``, ``loadtest``), the fuzzer and the soak (``fuzz``, ``soak``), the bot
arena (``arena``), a bot seated over the protocol (``bot``: :mod:`server.tools.remote_bot`) and
the deal checker (``verify``: :mod:`server.tools.verify`).

They are the top layer: they may import the service (rules, bots, rooms, net, store) and run it,
and nothing the service runs imports them (``tests/test_layers.py`` checks both). ``bot`` and
``verify`` are here too although players use them: they are clients of a server (the protocol,
the history API's JSON), not part of one.
"""
