"""Running studies: what to play, how many, where, with which seeds; and the `simulate` command."""
