"use strict";

// 1234 -> "$12.34"; negative amounts keep their sign in front.
function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString("en-US");
  const part = String(abs % 100).padStart(2, "0");
  return `${sign}$${whole}.${part}`;
}

module.exports = { money };
