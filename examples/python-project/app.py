"""A tiny application: an invoice's total, formatted with the ``tinyfmt`` dependency."""

from tinyfmt import money


def total(lines: list[tuple[int, int]]) -> int:
    """The sum of ``quantity * unit price in cents`` over the invoice's lines."""
    return sum(quantity * cents for quantity, cents in lines)


def invoice_total(lines: list[tuple[int, int]]) -> str:
    return money(total(lines))
