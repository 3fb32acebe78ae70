"""The spin boxes of an agreement's settings, with the ranges and defaults of
:mod:`sense7_coder.domain.agreement_settings` (the command line reads the same names):
the agreement window and the export dialog build theirs here."""

from __future__ import annotations

from PySide6.QtWidgets import QSpinBox, QWidget

from ...domain.agreement_settings import (
    DRAWS_DEFAULT,
    DRAWS_MAX,
    MIN_UNITS_MAX,
    SEED_DEFAULT,
    SEED_MAX,
)

#: the spin box's step (draws come in hundreds)
DRAWS_STEP = 200


def draws_box(parent: QWidget, suffix: str, none_text: str) -> QSpinBox:
    """Bootstrap draws, 0 (shown as ``none_text``) to the most a run takes."""
    box = QSpinBox(parent)
    box.setRange(0, DRAWS_MAX)
    box.setSingleStep(DRAWS_STEP)
    box.setValue(DRAWS_DEFAULT)
    box.setSpecialValueText(none_text)
    box.setSuffix(suffix)
    return box


def seed_box(parent: QWidget) -> QSpinBox:
    """The bootstrap seed."""
    box = QSpinBox(parent)
    box.setRange(0, SEED_MAX)
    box.setValue(SEED_DEFAULT)
    return box


def min_units_box(parent: QWidget, value: int) -> QSpinBox:
    """The number of units below which a figure reads "too few units"."""
    box = QSpinBox(parent)
    box.setRange(1, MIN_UNITS_MAX)
    box.setValue(value)
    box.setSuffix(" units")
    return box
