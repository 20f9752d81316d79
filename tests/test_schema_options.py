"""``schema.Option`` as the add-on's rows use it: vectors, free text, titles (the additive fields)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from noise_core.schema import Option, text, vector

OFFSET = Option("offset", float, (0.0, 0.0), "Where the grid sits", size=2)
COLOUR = Option("color_low", float, (0.0, 0.0, 0.0), "Colour of 0", size=3, minimum=0.0, subtype="COLOR")
NAME = Option("image", str, "Noise", "Name of the new image")


def test_a_vector_is_a_tuple_of_floats() -> None:
    assert OFFSET.check((1, 2)) == (1.0, 2.0)
    assert OFFSET.check(np.array([0.5, -3.0], dtype=np.float32)) == (0.5, -3.0)
    assert all(type(value) is float for value in OFFSET.check((np.int64(1), 2.5)))


@pytest.mark.parametrize(
    ("option", "value", "error", "message"),
    [
        (OFFSET, (1.0,), TypeError, "offset: expected two numbers (x, y), got (1.0,)"),
        (OFFSET, "ab", TypeError, "offset: expected two numbers (x, y), got 'ab'"),
        (OFFSET, 3, TypeError, "offset: expected two numbers (x, y), got 3"),
        (OFFSET, (1.0, "a"), TypeError, "offset: expected a number, got str 'a'"),
        (OFFSET, (True, 1.0), TypeError, "offset: expected a number, got bool True"),
        (OFFSET, (1.0, math.nan), ValueError, "offset: must be a finite number, got 1, nan"),
        (COLOUR, (1.0, 0.0), TypeError, "color_low: expected three numbers (r, g, b), got (1.0, 0.0)"),
        (COLOUR, (1.0, -1.0, 0.0), ValueError, "color_low: channels must be >= 0, got (1.0, -1.0, 0.0)"),
        (NAME, 3, TypeError, "image: expected a string, got int 3"),
    ],
)
def test_bad_values_name_the_option(option: Option, value: object, error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        option.check(value)
    assert str(raised.value) == message


def test_free_text_and_titles() -> None:
    assert NAME.check("") == "" and NAME.check("Height") == "Height"
    assert text("filepath", "//a.png") == "//a.png"
    assert NAME.label == "Image" and Option("use_float", bool, True, "x", title="32-bit Float").label == "32-bit Float"
    assert Option("shape", str, "A", "x", choices=("A", "B")).check("B") == "B"  # choices still a menu


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=3, max_size=3))
def test_finite_vectors_round_trip(values: list[float]) -> None:
    assert vector("v", values, 3) == tuple(values)
    limited = Option("v", float, (0.0,) * 3, "x", size=3, minimum=-1.0, maximum=1.0)
    inside = all(-1.0 <= value <= 1.0 for value in values)
    if inside:
        assert limited.check(values) == tuple(values)
    else:
        with pytest.raises(ValueError, match=r"^v: numbers must be between -1 and 1"):
            limited.check(values)
