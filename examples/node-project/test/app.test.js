"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { total, invoiceTotal } = require("../app.js");

test("total multiplies and sums", () => {
  assert.equal(total([[2, 150], [1, 999]]), 1299);
});

test("the invoice total is formatted by the dependency", () => {
  assert.equal(invoiceTotal([[3, 123456]]), "$3,703.68");
});

test("an empty invoice is zero", () => {
  assert.equal(invoiceTotal([]), "$0.00");
});
