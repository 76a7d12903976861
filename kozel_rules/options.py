"""House rules: the named options a match may be opened with (docs/rules.md, Options).

An :class:`Options` value is part of a match beside its variant. Without options (or with
each at its default) every rule holds unchanged. The record form is a dict holding only
the keys that differ from their defaults, e.g. ``{"goat_at": 6, "eggs": "double"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import RecordError
from .variant import Variant, get_variant

GOAT_AT_VALUES: tuple[int, ...] = (6, 8, 10, 12)
EGGS_VALUES: tuple[str, ...] = ("plain", "double")
ZIEGE_SCORING_VALUES: tuple[str, ...] = ("flat", "tiers")

# The option that exists only in one variant.
VARIANT_ONLY: dict[str, str] = {"ziege_scoring": "ziege"}

ALLOWED: dict[str, tuple[int | str, ...]] = {
    "goat_at": GOAT_AT_VALUES,
    "eggs": EGGS_VALUES,
    "ziege_scoring": ZIEGE_SCORING_VALUES,
}


@dataclass(frozen=True, slots=True)
class Options:
    """A match's house rules; the defaults are the rules without options."""

    goat_at: int = 12
    eggs: str = "plain"
    ziege_scoring: str = "flat"

    @property
    def is_default(self) -> bool:
        return self == Options()

    @property
    def eggs_double(self) -> bool:
        return self.eggs == "double"

    @property
    def tiers(self) -> bool:
        return self.ziege_scoring == "tiers"

    def changed(self) -> dict[str, int | str]:
        """The options that differ from their defaults, in declaration order."""
        default = Options()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    def to_json(self) -> dict[str, int | str]:
        """The record form: only the keys that differ from their defaults (``{}`` for none)."""
        return self.changed()

    def check(self, variant: str | Variant) -> Options:
        """``self`` if every value is allowed and fits ``variant``; else :class:`RecordError`."""
        v = get_variant(variant)
        for key, allowed in ALLOWED.items():
            value = getattr(self, key)
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise RecordError(_bad_value(key, value))
        for key, only in VARIANT_ONLY.items():
            if key in self.changed() and v.name != only:
                raise RecordError(f"option {key!r} exists only in {only}, not in {v.name}")
        return self

    @classmethod
    def from_json(cls, data: Any, variant: str | Variant) -> Options:
        """The options of a record: ``None``/absent or ``{}`` are the defaults. A key of the
        wrong variant is refused even when it holds the default value."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RecordError(f"options must be an object, not {data!r}")
        v = get_variant(variant)
        for key in data:
            if key not in ALLOWED:
                known = ", ".join(ALLOWED)
                raise RecordError(f"unknown option {key!r} (known: {known})")
            only = VARIANT_ONLY.get(key)
            if only is not None and v.name != only:
                raise RecordError(f"option {key!r} exists only in {only}, not in {v.name}")
        made = cls(**{str(k): val for k, val in data.items()})
        return made.check(v)

    @classmethod
    def of(cls, value: Options | Mapping[str, Any] | None, variant: str | Variant) -> Options:
        """``value`` as checked options of ``variant``: an :class:`Options` (checked), a record's
        mapping (as :meth:`from_json`) or ``None`` (the defaults). Else :class:`RecordError`."""
        if isinstance(value, Options):
            return value.check(variant)
        if value is None or isinstance(value, Mapping):
            return cls.from_json(value, variant)
        raise RecordError(f"options must be an object, not {value!r}")

    @classmethod
    def parse(cls, text: str, variant: str | Variant) -> Options:
        """Options from ``key=value`` words joined by commas or spaces (the :meth:`format`
        form), e.g. ``"goat_at=6,eggs=double"``; a number is a number. ``""``: the defaults.
        Raises :class:`RecordError` as :meth:`from_json` does, or for a word without ``=``."""
        data: dict[str, int | str] = {}
        for word in text.replace(",", " ").split():
            key, eq, value = word.partition("=")
            if not eq or not key or not value:
                raise RecordError(f"an option is written key=value, not {word!r}")
            if key in data:
                raise RecordError(f"option {key!r} is given twice")
            data[key] = int(value) if value.isdigit() else value
        return cls.from_json(data, variant)

    def goat_total(self, variant: str | Variant) -> int:
        """The defeat points that put a side out: the variant's ``out_at`` (12), or ``goat_at``
        when the table chose another ("12" in End of a match becomes this number)."""
        v = get_variant(variant)
        return v.out_at if self.goat_at == _DEFAULT.goat_at else self.goat_at

    def format(self) -> str:
        """The options as ``key=value`` words (only those not at their default)."""
        return " ".join(f"{k}={v}" for k, v in self.changed().items())


_DEFAULT = Options()


def _bad_value(key: str, value: object) -> str:
    allowed = ", ".join(repr(a) for a in ALLOWED[key])
    return f"option {key!r} cannot be {value!r} (allowed: {allowed})"


__all__ = [
    "ALLOWED",
    "EGGS_VALUES",
    "GOAT_AT_VALUES",
    "VARIANT_ONLY",
    "ZIEGE_SCORING_VALUES",
    "Options",
]
