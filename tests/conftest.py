"""Session set-up shared by every test module.

The compile cache is off and points at a directory of this session's own, so
no test reads or fills the user's cache, and no test is served a compile
another test (with other monkeypatches) made; tests/test_cache.py and
tests/test_dumps.py turn it on, each test in a directory of its own. Dumps
are off unless a test asks for them. Every cached call graph is checked
against a fresh one (`GPUC_CHECK_ANALYSES`), so a pass that changes calls
without invalidating the graph fails the suite.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_SESSION_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    directory = tempfile.mkdtemp(prefix="gpuc-test-cache-")
    _SESSION_CACHE.append(directory)
    os.environ["GPUC_CACHE"] = "0"
    os.environ["GPUC_CACHE_DIR"] = directory
    os.environ.pop("GPUC_DUMP_DIR", None)
    os.environ["GPUC_CHECK_ANALYSES"] = "1"


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _SESSION_CACHE:
        shutil.rmtree(directory, ignore_errors=True)
