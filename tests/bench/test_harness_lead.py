"""bench/_harness.py: the untimed lead-in of each timed segment, and the order of the segments."""

from bench import _harness as H


def test_lead_is_about_the_asked_seconds_of_the_variants_own_steps():
    assert H.lead_steps(600.0, 0.15, 600) == 90  # 0.15 s of a 600 steps/s MLP step
    assert H.lead_steps(10.0, 0.15, 8) == 2  # at least the one step that covers it
    assert H.lead_steps(1000.0, 0.0, 500) == 0  # asked for none


def test_lead_is_at_most_a_quarter_of_the_segment():
    assert H.lead_steps(20.0, 0.15, 10) == 2  # 3 would be 30% of the segment
    assert H.lead_steps(0.5, 0.15, 1) == 0  # one 2-second step: no lead-in


def test_every_variant_comes_after_every_other_equally_often():
    for n in (2, 3, 4, 5, 8):
        orders = H.balanced_orders(n)
        assert len(orders) == (n if n % 2 == 0 else 2 * n)
        assert all(sorted(row) == list(range(n)) for row in orders)
        after = {}
        for row in orders:
            for a, b in zip(row, row[1:]):
                after[a, b] = after.get((a, b), 0) + 1
        # every ordered pair of distinct variants, as often as any other
        assert len(after) == n * (n - 1) and len(set(after.values())) == 1, (n, after)
