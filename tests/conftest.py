"""Shared pytest configuration: the fake Telegram fixtures for end-to-end tests."""

from fakebot.fixtures import bot_process, fake_telegram, pytest_runtest_makereport

__all__ = ["bot_process", "fake_telegram", "pytest_runtest_makereport"]
