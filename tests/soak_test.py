#!/usr/bin/env python3
"""ctest fuzz_soak_report: tools/fuzz/soak.py's interval rates, its points and its flags (a rate that
collapsed; memory still growing late: the RSS floor from /proc, or the peak RSS when there is none), on
synthetic summaries shaped like make fuzz's summary.json."""
import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "fuzz"))
import soak  # noqa: E402


def run(rates, rss=lambda t: 400, seconds=3600, step=10, rss_now=None):
    """A run sampled every `step` s whose exec/s is rates(t), peak RSS rss(t) and (if given) RSS now rss_now(t)."""
    samples, execs = [], 0
    for t in range(step, seconds + 1, step):
        execs += rates(t) * step
        samples.append({"elapsed_s": t, "execs": execs, "exec_per_s": 0, "rss_mb": rss(t), "edges": 100,
                        "features": t, "rss_now_mb": rss_now(t) if rss_now else None})
    return {"target": "t", "engine": "libfuzzer", "seconds": seconds, "execs": execs, "peak_rss_mb": rss(seconds),
            "corpus_before": 1, "corpus_after": 2, "crashes": [], "samples": samples}


class SoakReport(unittest.TestCase):
    def test_interval_rates_not_averages(self):
        # 1,000/s for ten minutes, then 100/s: the 10-30 min interval shows 100, not an average.
        table = soak.rows(run(lambda t: 1000 if t <= 600 else 100))
        self.assertEqual([row[0] for row in table], [60, 600, 1800, 3600])
        self.assertEqual([row[2] for row in table], [1000, 1000, 100, 100])
        self.assertEqual(table[1][3], "100/600")

    def test_a_collapsed_rate_is_flagged_and_a_steady_one_is_not(self):
        slow = run(lambda t: 1000 if t <= 600 else 100)
        self.assertTrue(any("exec/s fell" in f for f in soak.flags(slow, soak.rows(slow))))
        steady = run(lambda t: 1000)
        self.assertEqual(soak.flags(steady, soak.rows(steady)), [])

    def test_peak_rss_rising_late_is_flagged(self):
        growing = run(lambda t: 1000, rss=lambda t: 400 + t // 20)
        self.assertTrue(any("peak RSS" in f for f in soak.flags(growing, soak.rows(growing))))
        early = run(lambda t: 1000, rss=lambda t: min(400 + t, 800))  # grows in the first minutes, then flat
        self.assertEqual(soak.flags(early, soak.rows(early)), [])

    def test_with_rss_now_a_rising_floor_is_flagged_and_a_rising_peak_alone_is_not(self):
        # RSS now climbing 1 MB a minute under 200-MB spikes: its floor rises 15 MB a quarter-hour, below the
        # 64-MB threshold; climbing 5 MB a minute (75 MB a quarter-hour), flagged.
        slow_leak = run(lambda t: 1000, rss_now=lambda t: 300 + t // 60 + (200 if t % 600 == 0 else 0))
        self.assertEqual(soak.flags(slow_leak, soak.rows(slow_leak)), [])
        leak = run(lambda t: 1000, rss_now=lambda t: 300 + t // 12 + (200 if t % 600 == 0 else 0))
        self.assertTrue(any("RSS still rising late" in f for f in soak.flags(leak, soak.rows(leak))))
        # Transient peaks late (a large input now and then): the peak climbs, the floor stays: no flag, although
        # the same peaks without RSS-now samples are flagged.
        spikes = dict(rss=lambda t: 400 + max(0, t - 1800) // 10, rss_now=lambda t: 300 + (300 if t % 900 == 0 else 0))
        peaky = run(lambda t: 1000, **spikes)
        self.assertEqual(soak.flags(peaky, soak.rows(peaky)), [])
        without_now = run(lambda t: 1000, rss=spikes["rss"])
        self.assertTrue(any("peak RSS" in f for f in soak.flags(without_now, soak.rows(without_now))))
        self.assertIn("| RSS now MB |", soak.render({"runs": [peaky]}))

    def test_make_fuzz_reads_the_rss_now_from_proc(self):
        import run as fuzz_run  # tools/fuzz/run.py
        self.assertGreater(fuzz_run.resident_mb(os.getpid()), 0)
        self.assertIsNone(fuzz_run.resident_mb(None))

    def test_a_collapse_in_the_middle_is_flagged(self):
        dip = run(lambda t: 100 if 600 < t <= 1800 else 1000)
        self.assertTrue(any("minute 30" in f for f in soak.flags(dip, soak.rows(dip))))

    def test_a_sample_just_after_the_end_adds_no_row_and_no_flag(self):
        steady = run(lambda t: 1000)
        steady["samples"].append(dict(steady["samples"][-1], elapsed_s=3610, execs=steady["execs"] + 500))
        table = soak.rows(steady)
        self.assertEqual([row[0] for row in table], [60, 600, 1800, 3600])
        self.assertEqual(soak.flags(steady, table), [])

    def test_libfuzzer_lines_repeated_by_later_polls_keep_their_own_time(self):
        # 1,000/s throughout, but libFuzzer printed nothing between 600 s and 1200 s: the polls in between
        # repeat the 600-s line. Its time is execs / exec/s (600 s), so the interval rates stay 1,000.
        samples = []
        for t in range(10, 1801, 10):
            shown = t if not 600 < t < 1200 else 600
            samples.append({"elapsed_s": t, "execs": shown * 1000, "exec_per_s": 1000, "rss_mb": 400})
        stale = {"target": "t", "engine": "libfuzzer", "seconds": 1800, "execs": 1800000, "peak_rss_mb": 400,
                 "corpus_before": 1, "corpus_after": 1, "crashes": [], "samples": samples}
        self.assertEqual([row[2] for row in soak.rows(stale)], [1000, 1000, 1000])

    def test_a_short_run_ends_at_its_last_sample(self):
        table = soak.rows(run(lambda t: 50, seconds=300))
        self.assertEqual([row[0] for row in table], [60, 300])
        self.assertIn("| 5 | 15,000 | 50 | 100/300 | 400 |", soak.render({"runs": [run(lambda t: 50, seconds=300)]}))


if __name__ == "__main__":
    unittest.main()
