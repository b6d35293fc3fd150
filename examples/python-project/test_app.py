"""The application's tests. ``python3 test_app.py`` imports its neighbour ``app.py`` (the script's
folder is on ``sys.path``, unless ``PYTHONSAFEPATH`` is set: the harness keeps its own setting out of
the agent's shell)."""

import unittest

import app


class InvoiceTest(unittest.TestCase):
    def test_total_multiplies_and_sums(self) -> None:
        self.assertEqual(app.total([(2, 150), (1, 999)]), 1299)

    def test_invoice_total_is_formatted_by_the_dependency(self) -> None:
        self.assertEqual(app.invoice_total([(3, 123456)]), "$3,703.68")

    def test_an_empty_invoice_is_zero(self) -> None:
        self.assertEqual(app.invoice_total([]), "$0.00")


if __name__ == "__main__":
    unittest.main(verbosity=2)
