"""Helpers the tests share: harness, databases, boards and processes (fixtures stay in conftest)."""
