"""Learned players, game-agnostically: a value model of positions, its training, and its cache.

A game that wants a ``learned`` player provides one hook, the features of a position as the deciding seat sees it
(never what that seat cannot see), and a unit that turns model values into decisions (see ``engines/README.md``).
"""
