"""``flowjob run`` restores NumPy's removed scalar aliases for the program only."""

import numpy as np

from flowjob.compat._script import run_script


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
