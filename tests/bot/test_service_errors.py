"""The service layer's exceptions share one base, so an adapter can tell them from a bug."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import bot.service
from bot.service.errors import ServiceError
from bot.service.ports import Transient, Unreachable
from bot.service.replay import NoReplay


def _service_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.iter_modules(bot.service.__path__, "bot.service."):
        module = importlib.import_module(info.name)
        for _name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_every_exception_the_service_defines_is_a_service_error() -> None:
    found = _service_exceptions()
    assert {NoReplay, Unreachable, Transient} <= set(found)
    assert [e.__name__ for e in found if not issubclass(e, ServiceError)] == []


def test_one_except_clause_catches_a_refusal_and_a_failed_call() -> None:
    for error in (NoReplay("no"), Unreachable(), Transient()):
        try:
            raise error
        except ServiceError as caught:
            assert caught is error
