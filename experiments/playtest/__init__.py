"""Playtesting against boardlab's players: a person at the table, hints, saved games and their review.

``table`` plays one game a decision at a time through each game's seat adapter (:mod:`engines.seating`); ``record``
saves and loads a game; ``hints`` values every legal move by paired playouts (or exactly, where a game can);
``terminal`` is the interactive session of ``simulate play``; ``review`` ranks a seat's decisions by what they gave
up (``simulate review``); ``commands`` holds the two commands' options.
"""
