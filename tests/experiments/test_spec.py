"""Study files: the shipped studies load; malformed files get one line naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardlab.experiments.spec import StudyError, load_study, resolve_study, shipped_studies


def test_shipped_studies_load() -> None:
    names = {p.stem for p in shipped_studies("pantolino")}
    assert {
        "pantolino-reroll-policies",
        "pantolino-joker-value",
        "pantolino-escaping-boots",
        "pantolino-seat-advantage",
    } <= names
    for path in shipped_studies():
        study = load_study(path)
        assert study.arms and all(a.spec.seed == study.seed for a in study.arms)
    joker = load_study(resolve_study("pantolino-joker-value"))
    assert [a.spec.params.joker_faces for a in joker.arms] == [0, 1, 2]


GOOD = """
[study]
game = "pantolino"
n = 100
[[arm]]
seats = ["keep-jokers", "random"]
"""


ARM = GOOD[GOOD.index("[[arm]]") :]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not toml [", "not valid TOML"),
        ("[[arm]]\nseats = ['random']", "key 'study' must be a [study] table"),
        (GOOD.replace('game = "pantolino"', 'game = "pantolin"'), "key 'study.game' unknown game 'pantolin'"),
        (GOOD.replace("n = 100", "n = -3"), "key 'study.n' must be a positive whole number"),
        (GOOD.replace("n = 100", "n = 100\nprecision = 2"), "key 'study.precision' must be a number between"),
        (GOOD.replace("n = 100", "n = 100\ncolour = 3"), "key 'study.colour' is not known"),
        (GOOD.replace('["keep-jokers", "random"]', '["keep-joker", "random"]'), "key 'arm[0]' unknown policy"),
        (GOOD.replace('seats = ["keep-jokers", "random"]', 'seats = "random"'), "key 'arm[0].seats' must be a list"),
        (GOOD + "set = { dice = 9 }", "key 'arm[0]' dice=9 is out of range"),
        (GOOD + "variant = 'nope'", "key 'arm[0]' unknown variant 'nope'"),
        (GOOD.replace('[[arm]]\nseats = ["keep-jokers", "random"]', ""), "key 'arm' must be one or more"),
        (GOOD + "label = 'a'\n" + ARM + "label = 'a'", "key 'arm[1].label' 'a' is also arm[0]'s"),
        (GOOD + ARM, "key 'arm[1].label' 'keep-jokers vs random' is also arm[0]'s"),  # the same arm twice
        (GOOD.replace("n = 100", "n = 100\ntitle = 5"), "key 'study.title' must be text"),  # not read as "5"
        (GOOD + "label = 0", "key 'arm[0].label' must be text"),  # not the default label
        (GOOD.replace('seats = ["keep-jokers", "random"]', "players = true"), "key 'arm[0].players' must be a whole"),
        (GOOD + "label = ''", "key 'arm[0].label' must not be blank"),  # not silently the default label
        (GOOD + "label = '  '", "key 'arm[0].label' must not be blank"),  # a label nobody could read
        (GOOD.replace("n = 100", "n = 100\ntitle = ''"), "key 'study.title' must not be blank"),
    ],
)
def test_malformed_studies_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "study.toml"
    path.write_text(text)
    with pytest.raises(StudyError) as err:
        load_study(path)
    assert str(err.value).startswith(str(path)) and message in str(err.value)
    assert "\n" not in str(err.value)
