"""Hypothesis profiles: ci (bounded, what `make test` runs), nightly (many more examples), dev (quick)."""
import os
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

# Failing examples are kept under build/ (never in the source tree) and replayed first on the next run.
_database = DirectoryBasedExampleDatabase(
    os.environ.get("SERDIFF_HYPOTHESIS_DATABASE", Path(__file__).resolve().parents[2] / "build" / "hypothesis"))
_common = dict(deadline=None, print_blob=True, database=_database,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=300, **_common)
settings.register_profile("nightly", max_examples=20_000, **_common)
settings.register_profile("dev", max_examples=30, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
