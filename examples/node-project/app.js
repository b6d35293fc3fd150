"use strict";

// A tiny application: an invoice's total, formatted with the tiny-money dependency.
const { money } = require("tiny-money");

function total(lines) {
  return lines.reduce((sum, [quantity, cents]) => sum + quantity * cents, 0);
}

function invoiceTotal(lines) {
  return money(total(lines));
}

module.exports = { total, invoiceTotal };
