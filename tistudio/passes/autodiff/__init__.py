"""Helpers of the `auto_diff` pass: derivative rules, reverse mode, forward mode."""
