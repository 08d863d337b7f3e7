"""Every row of the removed-names table: restored with its old meaning during a run only."""

from __future__ import annotations

import io
import sys
import warnings

import numpy as np
import pytest

from flowjob._src.compat._legacy_libraries import legacy_library_names, missing
from flowjob._src.compat._removed_names import REMOVED, namespace, owner_object
from flowjob._src.compat._script import run_script

_ROWS = [pytest.param(row, id=f"{row.owner}.{row.name}") for row in REMOVED]


@pytest.mark.parametrize("row", _ROWS)
def test_each_removed_name_means_its_table_meaning_during_the_run_only(row):
    owner = owner_object(row.owner)
    was_missing = missing(row, owner)
    before = vars(owner).get(row.name)
    with legacy_library_names():
        value = getattr(owner, row.name)
        if row.replaces:
            assert value is not before and value.__wrapped__ is before
        elif was_missing:
            expected = eval(row.meaning, namespace())  # noqa: S307
            assert (
                value is expected
                or (value == expected) is True
                or (isinstance(value, float) and np.isnan(value) and np.isnan(expected))
            )
    assert vars(owner).get(row.name) is before
    if was_missing:
        assert missing(row, owner)


def test_the_table_covers_numpy_2_0_removed_names_a_program_can_use():
    """NumPy keeps NEP 52's table of removed members; each is restored or listed as
    deliberately left out in the table module's docstring."""
    from numpy import _expired_attrs_2_0

    import flowjob._src.compat._removed_names as table

    restored = {row.name for row in REMOVED if row.owner == "numpy"}
    left_out = {n for n in _expired_attrs_2_0.__expired_attributes__ if n not in restored}
    assert left_out == {"set_numeric_ops", "lookfor", "get_array_wrap"}
    for name in left_out:
        assert f"np.{name}" in table.__doc__


def test_old_numpy_functions_behave_as_numpy_1():
    # Results NumPy 1.26 gave for these calls (its documentation's examples and rules).
    with legacy_library_names():
        assert np.asfarray([2, 3]).dtype == np.float64
        assert np.asfarray([2, 3], dtype=np.int32).dtype == np.float64
        assert np.asfarray([2, 3], dtype=np.float32).dtype == np.float32
        assert np.find_common_type([np.float32], [np.int64, np.float64]) == np.float32
        assert np.find_common_type([np.float32], [complex]) == np.complex128
        assert np.find_common_type([np.int32, np.int64], []) == np.int64
        assert np.find_common_type([], [np.int64, np.float32, complex]) == np.complex128
        assert np.msort(np.array([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
        assert np.cast[np.float32]([1, 2]).dtype == np.float32
        assert np.nbytes[np.float64] == 8 and np.nbytes[np.int16] == 2
        assert np.sctype2char(np.float64) == "d" and np.sctype2char(float) == "d"
        assert np.obj2sctype(np.array([1.0], dtype=np.float32)) is np.float32
        assert np.obj2sctype("blah", default=7) == 7
        assert np.issctype(np.int32) and not np.issctype(np.object_) and not np.issctype(1.1)
        assert np.maximum_sctype(np.int8) is np.int64
        assert np.maximum_sctype(np.float32) is np.longdouble
        assert np.issubsctype(np.float32, np.floating)
        assert np.issubclass_(np.int32, np.integer) and not np.issubclass_(1, int)
        assert np.safe_eval("[1, (2, 3)]") == [1, (2, 3)]
        assert np.in1d([[0, 5], [2, 9]], [2, 5]).tolist() == [False, True, True, False]
        assert np.row_stack(([1], [2])).shape == (2, 1)
        assert np.trapz([1, 2, 3]) == 4.0
        assert np.NINF == -np.inf and np.copysign(1, np.NZERO) == -1.0
        assert np.dtype(np.unicode_).kind == "U" and np.dtype(np.string_).kind == "S"
        assert np.float_ is np.float64 and np.complex_ is np.complex128
        errobj = np.geterrobj()
        old_settings = np.seterr(divide="raise", over="ignore", under="warn", invalid="call")
        try:
            assert np.geterrobj()[1] == 2 | (0 << 3) | (1 << 6) | (3 << 9)
            np.seterrobj([errobj[0], 0, None])
            assert set(np.geterr().values()) == {"ignore"}
        finally:
            np.seterr(**old_settings)
            np.seterrobj(errobj)
        a = np.arange(4, dtype=">i4")
        assert a.newbyteorder().dtype.byteorder in ("<", "=")
        assert np.arange(6).reshape(2, 3).ptp(axis=1).tolist() == [2, 2]
        b = np.zeros((2, 3))
        b.itemset(4, 7.0)
        b.itemset((0, 1), 5.0)
        assert b.tolist() == [[0, 5, 0], [0, 7, 0]]
        out = io.StringIO()
        np.disp("x", device=out, linefeed=False)
        np.source(np.msort, output=out)
        assert out.getvalue().startswith("xIn file:") and "def msort" in out.getvalue()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert np.deprecate(len, "length")([1, 2]) == 2
        assert "length is deprecated" in str(caught[0].message)


def test_record_readers_read_csv_and_text_as_numpy_1_did(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("A,b\n1,2.5\n3,4.5\n")
    with legacy_library_names():
        rec = np.recfromcsv(str(path))
        assert isinstance(rec, np.recarray) and rec.a.tolist() == [1, 3]
        assert rec.b.tolist() == [2.5, 4.5]
        txt = np.recfromtxt(str(path), delimiter=",", names=True)
        assert txt.A.tolist() == [1, 3]


def test_numpy_compat_and_cElementTree_import_during_the_run_only():
    with legacy_library_names():
        from xml.etree import cElementTree  # noqa: PLC0415

        from numpy.compat import asbytes, basestring  # noqa: PLC0415

        assert asbytes("ab") == b"ab" and basestring is str
        assert cElementTree.fromstring("<a><b/></a>")[0].tag == "b"
    assert "numpy.compat" not in sys.modules and "xml.etree.cElementTree" not in sys.modules


def test_a_2021_pad_sequences_helper_runs(tmp_path, capsys):
    """A Keras-style pad_sequences of 2021 tests its dtype against np.unicode_; a data script
    also uses np.float_ and np.NaN."""
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np\n"
        "def pad(seqs, maxlen, dtype='int32', value=0):\n"
        "    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.unicode_)\n"
        "    if isinstance(value, str) and dtype != object and not is_dtype_str:\n"
        "        raise ValueError('bad')\n"
        "    x = np.full((len(seqs), maxlen), value, dtype=dtype)\n"
        "    for i, s in enumerate(seqs):\n"
        "        x[i, -len(s):] = s[-maxlen:]\n"
        "    return x\n"
        "print(pad([[1, 2], [3]], 3).tolist())\n"
        "print(pad([['a'], ['b', 'c']], 2, dtype=np.string_, value=b'-').tolist())\n"
        "print(np.isnan(np.array([1.0, np.NaN], dtype=np.float_)).tolist(), np.Inf > 1e308)\n"
    )
    assert run_script(str(script)) == 0
    assert capsys.readouterr().out.splitlines() == [
        "[[0, 1, 2], [0, 0, 3]]",
        "[[b'-', b'a'], [b'b', b'c']]",
        "[False, True] True",
    ]


def test_removed_python_and_pillow_names_keep_their_meaning():
    import collections
    import fractions
    import inspect
    import time

    from PIL import Image, ImageDraw, ImageFont

    def f(a, b=2, *rest, **kw):
        return a

    with legacy_library_names():
        assert collections.Mapping is collections.abc.Mapping
        assert tuple(inspect.getargspec(f)) == (["a", "b"], "rest", "kw", (2,))
        assert time.clock is time.perf_counter
        assert fractions.gcd(12, -8) == -4 and fractions.gcd(-12, 8) == 4
        draw = ImageDraw.Draw(Image.new("L", (64, 32)))
        font = ImageFont.load_default()
        box = draw.textbbox((0, 0), "Hi", font=font)
        assert draw.textsize("Hi", font=font) == box[2:]
        assert font.getsize("Hi") == font.getbbox("Hi")[2:]
        assert (
            draw.multiline_textsize("a\nb", font=font)
            == draw.multiline_textbbox((0, 0), "a\nb", font=font)[2:]
        )
    assert not hasattr(collections, "Mapping") and not hasattr(ImageDraw.ImageDraw, "textsize")
