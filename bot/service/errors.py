"""The service layer's one base exception.

Every exception the service defines (its refusals such as ``NoReplay``, and the ports' word of a
failed call such as ``Unreachable``) derives from :class:`ServiceError`, so an adapter can tell
the service's own failures from a bug in one ``except`` clause.
"""

from __future__ import annotations


class ServiceError(Exception):
    """Raised by the service layer, or by an adapter through a port, on purpose."""
