"""Which release this code is: a number that only grows, one per tagged release (``v0.N``).

Workers say it in the database (``service.releases``), so that a release can tell whether a
worker of the one before it still runs before writing what that one cannot read. Bump it at
each release, and put the release it replaces in ``deploy/previous-release`` (CONTRIBUTING.md).
"""

from __future__ import annotations

RELEASE = 33
VERSION = f"v0.{RELEASE}"
