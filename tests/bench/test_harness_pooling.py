"""bench/_harness.py: several processes per variant, pooled back into one series."""

import math

from bench import _harness as H


def test_copies_name_every_process_and_keep_profiles_on_the_first():
    specs = {"flowjob": {"engine": "flowjob", "profile": True}, "JAX": {"engine": "jax"}}
    out = H.copies(specs, 3)
    assert list(out) == [
        "flowjob",
        "JAX",
        "flowjob (process 2)",
        "JAX (process 2)",
        "flowjob (process 3)",
        "JAX (process 3)",
    ]
    assert out["flowjob"]["profile"] is True
    assert "profile" not in out["flowjob (process 3)"]
    assert out["JAX (process 2)"] == {"engine": "jax"}
    assert H.copies(specs, 1) == specs


def test_pooled_rates_are_per_round_geometric_means():
    series = {
        "a": H.Series([100.0, 200.0]),
        "a (process 2)": H.Series([400.0, 50.0]),
        "b": H.Series([10.0, 10.0]),
        "b (process 2)": H.Series([10.0, 40.0]),
    }
    out = H.pooled(series, ["a", "b"], 2)
    assert list(out) == ["a", "b"]
    assert [round(r, 9) for r in out["a"].rates] == [200.0, 100.0]  # sqrt(100*400), sqrt(200*50)
    assert [round(r, 9) for r in out["b"].rates] == [10.0, 20.0]
    assert math.isclose(H.ratio(out, "a", "b")[0], (20.0 + 5.0) / 2)


def test_the_note_gives_each_variants_own_process_ratio():
    series = {"a": H.Series([100.0, 110.0]), "a (process 2)": H.Series([100.0, 100.0])}
    note = H.processes_note(series, ["a"], 2)
    assert "2 processes" in note and "a 1.050×" in note
    assert H.processes_note(series, ["a"], 1) == ""
