"""Play, watch and replay the games in a browser: a local page over the same engines.

``python -m card_envs.web`` (or ``card-envs-web``, ``python3 tasks.py web``) serves one page on
127.0.0.1. The games run here, server-side, on the engines every other tool uses; the page
only draws what the server sends (the table as zones of cards, the legal moves as the
engine's :meth:`~card_envs.core.game.CardGame.move_choices`) and posts the action a person
picked, so no rule is written in JavaScript. Needs the ``web`` extra (starlette, uvicorn).

An app like :mod:`card_envs.cli`, it sits on top of the layers: ``app`` (the routes),
``sessions`` (live games, their cap and expiry), ``tables`` (a game as JSON), ``catalog``
(games, rules and opponents offered), ``folders`` (paths kept inside the folders the server
was started with), ``replays`` and ``reports`` (records and evaluation folders).
"""
