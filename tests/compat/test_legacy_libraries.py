"""``flowjob run`` restores the NumPy and Pillow names removed since 2021, for the program only."""

import numpy as np

from flowjob._src.compat._script import run_script


def test_removed_numpy_aliases_exist_during_the_run_only(tmp_path, capsys):
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np\n"
        "x = np.arange(3).astype(np.float)\n"
        "y = np.ones(2, dtype=np.int)\n"
        "print(x.dtype, y.dtype, np.object is object, np.str is str)\n"
    )
    assert run_script(str(script)) == 0
    assert capsys.readouterr().out.split() == [
        str(np.arange(3).astype(float).dtype),
        str(np.ones(2, dtype=int).dtype),
        "True",
        "True",
    ]
    for name in ("float", "int", "object", "str"):
        assert name not in np.__dict__


def test_removed_numpy_functions_keep_their_old_meaning(tmp_path, capsys):
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np\n"
        "a = np.arange(1, 7).reshape(2, 3)\n"
        "print(np.product(a), np.cumproduct([1, 2, 3])[-1],"
        " np.alltrue(a > 0), np.sometrue(a > 5))\n"
        "print(np.reshape(a, newshape=(3, 2)).shape, np.asscalar(np.array([4.5])))\n"
        "print(np.in1d([[1, 9], [2, 8]], [1, 2]).tolist())\n"
        "print(np.fromstring(np.arange(3, dtype=np.int32).tobytes(), dtype=np.int32).tolist())\n"
    )
    assert run_script(str(script)) == 0
    a = np.arange(1, 7).reshape(2, 3)
    assert capsys.readouterr().out.splitlines() == [
        f"{np.prod(a)} 6 True True",
        f"{np.reshape(a, (3, 2)).shape} 4.5",
        str(np.isin([[1, 9], [2, 8]], [1, 2]).ravel().tolist()),
        "[0, 1, 2]",
    ]
    assert "product" not in np.__dict__
    np.reshape(a, (3, 2))  # the original is back
    assert np.reshape.__module__.startswith("numpy")


def test_removed_pillow_constants_name_the_same_filters(tmp_path, capsys):
    from PIL import Image

    script = tmp_path / "prog.py"
    script.write_text(
        "from PIL import Image\n"
        "img = Image.new('L', (8, 8))\n"
        "img.putdata(list(range(64)))\n"
        "print(list(img.resize((3, 3), Image.ANTIALIAS).getdata()))\n"
        "print(Image.LINEAR == Image.BILINEAR, Image.CUBIC == Image.BICUBIC)\n"
    )
    assert run_script(str(script)) == 0
    img = Image.new("L", (8, 8))
    img.putdata(list(range(64)))
    assert capsys.readouterr().out.splitlines() == [
        str(list(img.resize((3, 3), Image.LANCZOS).getdata())),
        "True True",
    ]
    assert "ANTIALIAS" not in vars(Image)


def test_removed_ndarray_tostring_is_tobytes_during_the_run_only(tmp_path, capsys):
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np\n"
        "a = np.arange(6, dtype=np.int16).reshape(2, 3)\n"
        "print(a[:, 1:].tostring() == a[:, 1:].tobytes(), len(a.tostring()))\n"
    )
    assert run_script(str(script)) == 0
    assert capsys.readouterr().out.split() == ["True", "12"]
    assert not hasattr(np.arange(2), "tostring")
