"""Tests of the bots and the arena."""
