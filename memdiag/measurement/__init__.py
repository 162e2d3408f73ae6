"""Measurement error: an imperfect judge, wrong gold answers, judge and run variance, agreement."""
